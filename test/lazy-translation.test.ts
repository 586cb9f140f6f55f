/**
 * Lazy translation (compiler.ts CompiledFunctions, body-validator.ts): every body is checked
 * at compile time, so an invalid module is refused before anything runs, with the eager
 * compile's error; a body is translated into the internal code on its first call; and nothing
 * a program does can tell — results, traps, fuel, memory, backtraces are the eager compile's,
 * in the interpreter and the JavaScript tier, whatever the order functions are first called
 * in — while translations on first call never hold the event loop.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileModule, Engine, type FuncRef, instantiate, invoke, Store, Trap, WasmValue, type CompiledModule,
} from '../src/interpreter/index.js';
import { BodyValidator } from '../src/interpreter/body-validator.js';
import { layoutOf } from '../src/interpreter/module.js';
import { HostAbi, Limits, Sandbox, SandboxError, Value } from '../src/index.js';
import { assemble } from './helpers/engine-oracle.js';
import { measured, section, uleb } from './helpers/hostile.js';
import { expectResponsive } from './helpers/responsive.js';
import { memoryDigest, resumeInSlices } from './helpers/slices.js';
import { DEFAULT_FUZZ_INPUT_SIZE, FUZZ_ENGINE_FEATURES, generateFuzzModule } from './fuzz/binaryen-gen.js';

const kernel = (name: string): Uint8Array => readFileSync(new URL(`../bench/kernels/${name}.wasm`, import.meta.url));
const KERNELS: ReadonlyArray<[string, number]> = [
  ['calls', 18], ['loops', 300], ['f64', 120], ['i64', 20], ['indirect', 5_000], ['bulk', 2_000], ['sha256', 3], ['lz77', 6_000],
];
const EAGER = { lazyTranslation: false } as const;

/** The functions of `module` waiting for their first call to be translated. */
function waiting(module: CompiledModule): number {
  let n = 0;
  for (let i = module.numImportedFuncs; i < module.funcTypes.length; i++) if (!module.functions.isTranslated(i)) n++;
  return n;
}

/** Runs export `name`(args) in slices of `slice` fuel; says how it ended, its fuel, and its memory's digest. */
function observe(module: CompiledModule, name: string, args: WasmValue[], jitThreshold: number, slice: number): string {
  const store = new Store(new Engine(), { jitThreshold });
  const inst = instantiate(store, module, () => undefined);
  store.fuel = 1e12;
  let outcome: string;
  try {
    outcome = resumeInSlices(invoke(store, inst.exports.get(name) as FuncRef, args), slice).map(String).join(',');
  } catch (e) {
    outcome = e instanceof Trap ? `trap: ${e.message} at ${JSON.stringify(e.backtrace)}` : `error: ${String(e)}`;
  }
  return `${outcome} | fuel ${1e12 - store.fuel} | memory ${memoryDigest(inst.memory)}`;
}

describe('lazy translation changes nothing a program can see', () => {
  it.each(KERNELS)('%s: results, fuel and memory as compiled eagerly, interpreted and tiered, at once and in slices', (name, n) => {
    const bytes = kernel(name);
    const reference = observe(compileModule(bytes, undefined, EAGER), 'run', [WasmValue.i32(n)], Infinity, 1e9);
    expect(reference).not.toMatch(/trap|error/);
    for (const [jitThreshold, slice] of [[Infinity, 1e9], [Infinity, 29], [50, 997], [0, 13]] as const) {
      const lazy = compileModule(bytes);
      expect(waiting(lazy)).toBeGreaterThan(0);
      expect(observe(lazy, 'run', [WasmValue.i32(n)], jitThreshold, slice)).toBe(reference);
    }
  });

  it('functions first called in any order: a trap\'s backtrace names the eager compile\'s functions and offsets', async () => {
    // run calls c, c calls b, b calls a, which traps: translated in the order run, c, b, a,
    // the reverse of their code's order in an eager compile.
    const bytes = await assemble(`(module $order
      (func $a (param i32) (result i32) (i32.div_u (i32.const 7) (local.get 0)))
      (func $b (param i32) (result i32) (i32.add (call $a (local.get 0)) (i32.const 1)))
      (func $c (param i32) (result i32) (i32.mul (call $b (local.get 0)) (i32.const 2)))
      (func $unused (param i32) (result i32) (i32.sub (local.get 0) (i32.const 3)))
      (func (export "run") (param i32) (result i32) (call $c (local.get 0))))`);
    for (const jitThreshold of [Infinity, 0]) {
      const lazy = compileModule(bytes);
      expect(observe(lazy, 'run', [WasmValue.i32(2)], jitThreshold, 1e9)).toBe(observe(compileModule(bytes, undefined, EAGER), 'run', [WasmValue.i32(2)], Infinity, 1e9));
      const trapped = observe(lazy, 'run', [WasmValue.i32(0)], jitThreshold, 1e9);
      expect(trapped).toMatch(/^trap: .*divide by zero/);
      expect(trapped).toBe(observe(compileModule(bytes, undefined, EAGER), 'run', [WasmValue.i32(0)], Infinity, 1e9));
      expect(lazy.functions.isTranslated(3)).toBe(false); // $unused: never called, never translated
    }
  });

  it('translated code that has bodies translated while it runs readies a call_indirect\'s callee with the new constants', async () => {
    // run enters the tier; its call to h translates h, and h's translation translates g's body
    // (its constant slot appended to the module's constants); run's call_indirect to g, when
    // the slice ends at the call, readies g's frame for the interpreter — from the constants as
    // they are now (a review found them read from the array as it was when run was entered).
    const bytes = await assemble(`(module
      (type $t (func (param i32) (result i64)))
      (table 1 funcref) (elem (i32.const 0) $g)
      (func $g (type $t) (local i64)
        (loop $l
          (local.set 1 (i64.add (local.get 1) (i64.const 1000)))
          (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
        (local.get 1))
      (func $h (param i32) (result i64) (call $g (local.get 0)))
      (func (export "run") (param i32) (result i64)
        (drop (call $h (i32.const 1)))
        (call_indirect (type $t) (local.get 0) (i32.const 0))))`);
    const reference = observe(compileModule(bytes, undefined, EAGER), 'run', [WasmValue.i32(3)], Infinity, 1e9);
    expect(reference).toMatch(/^i64:3000 /);
    for (let slice = 1; slice <= 40; slice++) expect(observe(compileModule(bytes), 'run', [WasmValue.i32(3)], 0, slice), `slice ${slice}`).toBe(reference);
  });

  it('a hot loop whose callee is first called after the loop moved to the JavaScript tier', async () => {
    // The tier translates run while $late waits for its first call; the call's translation
    // needs the callee's frame, so the tier translates $late into the internal code first, in the
    // middle of the interpreter's stretch (interpreter.ts: the code grew).
    const bytes = await assemble(`(module
      (memory 1)
      (func $late (param i32) (result i32) (i32.store (i32.const 16) (local.get 0)) (i32.mul (local.get 0) (i32.const 3)))
      (func (export "run") (param $n i32) (result i32) (local $i i32) (local $acc i32)
        (loop $l
          (local.set $acc (i32.add (local.get $acc) (local.get $i)))
          (if (i32.ge_u (local.get $i) (i32.sub (local.get $n) (i32.const 5)))
            (then (local.set $acc (i32.add (local.get $acc) (call $late (local.get $i))))))
          (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
        (local.get $acc)))`);
    const reference = observe(compileModule(bytes, undefined, EAGER), 'run', [WasmValue.i32(5_000)], Infinity, 1e9);
    for (const [jitThreshold, slice] of [[2, 1e9], [50, 1e9], [50, 37], [0, 1e9]] as const) {
      const lazy = compileModule(bytes);
      expect(observe(lazy, 'run', [WasmValue.i32(5_000)], jitThreshold, slice)).toBe(reference);
      expect(lazy.jit!.translated).toBeGreaterThan(0);
    }
  });
});

describe('every body is still checked at compile time', () => {
  // One function is never called: its body is invalid, or malformed, or both.
  const withUncalled = (body: number[]): Uint8Array => {
    const type = section(1, [0x01, 0x60, 0x00, 0x01, 0x7f]);
    const funcs = section(3, [0x02, 0x00, 0x00]);
    const exp = section(7, [0x01, 0x03, ...[0x72, 0x75, 0x6e], 0x00, 0x00]);
    const good = [0x00, 0x41, 0x2a, 0x0b]; // i32.const 42
    const code = section(10, [0x02, ...uleb(good.length), ...good, ...uleb(body.length + 1), 0x00, ...body]);
    return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...funcs, ...exp, ...code]);
  };
  const CASES: ReadonlyArray<[string, number[]]> = [
    ['a type error', [0x42, 0x01, 0x0b]], // i64.const 1: i64 where i32 is due
    ['an unknown local', [0x20, 0x05, 0x0b]],
    ['a malformed LEB128', [0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x0b]],
    ['an unknown opcode', [0xff, 0x0b]],
    ['a missing end', [0x41, 0x01]],
    ['an unaligned access', [0x41, 0x00, 0x28, 0x03, 0x00, 0x0b]], // i32.load with 2^3 alignment (and no memory)
    ['an undeclared function reference', [0xd2, 0x01, 0x1a, 0x41, 0x01, 0x0b]], // ref.func 1 (not exported, in no segment)
  ];

  it.each(CASES)('%s in a function never called: refused as the eager compile refuses it', (_, body) => {
    const bytes = withUncalled(body);
    const eager = (() => { try { compileModule(bytes, undefined, EAGER); return 'compiled'; } catch (e) { return String(e); } })();
    const lazy = (() => { try { compileModule(bytes); return 'compiled'; } catch (e) { return String(e); } })();
    expect(eager).not.toBe('compiled');
    expect(lazy).toBe(eager);
  });

  it('a body the pass proves valid waits for its first call (references, memory, tables, SIMD lanes included)', async () => {
    const bytes = await assemble(`(module
      (memory 1) (table 2 funcref) (elem declare func $f)
      (func $f (export "f") (param i32) (result i32)
        (drop (ref.func $f))
        (drop (table.get 0 (i32.const 1)))
        (drop (i8x16.extract_lane_s 3 (v128.load (i32.const 0))))
        (i32.add (i32.load offset=8 (local.get 0)) (memory.size))))`);
    const module = compileModule(bytes);
    expect(module.functions.isTranslated(0)).toBe(false);
    expect(observe(module, 'f', [WasmValue.i32(0)], Infinity, 1e9)).toBe(observe(compileModule(bytes, undefined, EAGER), 'f', [WasmValue.i32(0)], Infinity, 1e9));
    expect(module.functions.isTranslated(0)).toBe(true);
  });

  it('the sandbox\'s option: lazy by default, eager on request, nothing else', async () => {
    const bytes = await assemble('(module (func (export "f") (result i32) (i32.const 1)) (func (result i32) (i32.const 2)))');
    expect(new Sandbox().translation).toBe('lazy');
    expect(() => new Sandbox(HostAbi.denyAll(), { translation: 'later' as 'lazy' })).toThrow(TypeError);
    for (const translation of ['lazy', 'eager'] as const) {
      const module = compileModule(bytes, undefined, { lazyTranslation: translation === 'lazy' });
      expect([module.functions.isTranslated(0), module.functions.isTranslated(1)]).toEqual(translation === 'lazy' ? [false, false] : [true, true]);
      const sandbox = new Sandbox(HostAbi.denyAll(), { translation });
      expect((await sandbox.run(await sandbox.compile(bytes), 'f', [])).values.map(String)).toEqual(['I32(1)']);
    }
  });

  it('through the sandbox: InvalidModule at compile, before anything runs', async () => {
    const e = await Sandbox.denyAll().compile(withUncalled([0x42, 0x01, 0x0b])).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(SandboxError);
    expect((e as SandboxError).kind).toBe('InvalidModule');
  });

  it('a lazy compile refuses what the eager one refuses, with the same error (Binaryen-made modules, mutated)', () => {
    // Each module's bytes changed at a few places: many mutants are refused, in a body or
    // elsewhere. Where the eager compile accepts one, the validator's proofs are counted.
    let proved = 0;
    let refused = 0;
    let state = 12345;
    const random = (n: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % n;
    };
    const outcome = (bytes: Uint8Array, options: { lazyTranslation?: boolean }): string => {
      try {
        compileModule(bytes, FUZZ_ENGINE_FEATURES, options);
        return 'compiled';
      } catch (e) {
        return String(e);
      }
    };
    for (let seed = 8200; seed < 8240; seed++) {
      const original = generateFuzzModule(seed, DEFAULT_FUZZ_INPUT_SIZE, 'none');
      for (let mutant = 0; mutant < 20; mutant++) {
        const bytes = original.slice();
        for (let k = 0; k < 3; k++) bytes[random(bytes.length)] = random(256);
        const eager = outcome(bytes, EAGER);
        expect(outcome(bytes, {}), `seed ${seed} mutant ${mutant}`).toBe(eager);
        if (eager !== 'compiled') {
          refused++;
          continue;
        }
        const module = compileModule(bytes, FUZZ_ENGINE_FEATURES);
        const validator = new BodyValidator(layoutOf(module.ir, module.features, false, false));
        for (let i = 0; i < module.ir.codes.length; i++) if (validator.proves(i)) proved++;
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(proved).toBeGreaterThan(200);
  });
});

describe('translations on first call and the event loop', () => {
  // 300 functions of 15 KB, each calling the next: the run translates them all, one per call.
  const CHAIN = 300;
  const chain = (): Uint8Array => {
    const step = [0x41, 0x07, 0x6a, 0x41, 0x03, 0x73]; // i32.const 7, i32.add, i32.const 3, i32.xor
    const bodies: number[][] = [];
    for (let i = 0; i < CHAIN; i++) {
      // local.get 0, call the next, return: three instructions run, then 15 KB of dead code
      // to translate (the fuel between two translations is no measure of the time they take).
      const ops: number[] = [0x20, 0x00];
      if (i + 1 < CHAIN) ops.push(0x10, ...uleb(i + 1));
      ops.push(0x0f, 0x20, 0x00);
      while (ops.length < 15_000) for (const b of step) ops.push(b);
      bodies.push([...uleb(ops.length + 2), 0x00, ...ops, 0x0b]);
    }
    const codeBytes = uleb(CHAIN).length + bodies.reduce((n, b) => n + b.length, 0);
    const head = [
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]),
      ...section(3, [...uleb(CHAIN), ...new Array<number>(CHAIN).fill(0)]),
      ...section(7, [0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00]),
      0x0a, ...uleb(codeBytes), ...uleb(CHAIN),
    ];
    const out = new Uint8Array(head.length + codeBytes - uleb(CHAIN).length);
    out.set(head);
    let at = head.length;
    for (const body of bodies) {
      out.set(body, at);
      at += body.length;
    }
    return out;
  };

  it('a run that translates 4.5 MB of bodies keeps the event loop turning, with the eager compile\'s result and fuel', { retry: 2, timeout: 60_000 }, async () => {
    const bytes = chain();
    const eager = await new Sandbox(HostAbi.denyAll(), { translation: 'eager', tier: 'interpreter' }).run(bytes, 'run', [Value.i32(5)], new Limits({ fuel: 1e10 }));
    const sandbox = new Sandbox(HostAbi.denyAll(), { tier: 'interpreter' });
    const compiled = await sandbox.compile(bytes);
    const run = await measured(() => sandbox.run(compiled, 'run', [Value.i32(5)], new Limits({ fuel: 1e10 })));
    expect(run.error).toBeUndefined();
    expect(run.value!.values.map(String)).toEqual(eager.values.map(String));
    expect(run.value!.fuelConsumed).toBe(eager.fuelConsumed);
    expectResponsive(run);
  });

  it('the translations count against the run\'s deadline', { timeout: 60_000 }, async () => {
    const sandbox = new Sandbox(HostAbi.denyAll(), { tier: 'interpreter' });
    const compiled = await sandbox.compile(chain());
    const e = await sandbox.run(compiled, 'run', [Value.i32(5)], new Limits({ fuel: 1e10, timeoutMs: 1 })).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(SandboxError);
    expect((e as SandboxError).kind).toBe('Timeout');
  });
});
