/**
 * A short fixed-seed run of the differential fuzzer (test/fuzz/): modules from Binaryen's
 * fuzzer (WebAssembly 2.0 with SIMD, tail calls and threads) run in our engine and in Node's
 * own WebAssembly, compared after every call, NaN bits included. The long runs are
 * `npm run fuzz -- --seconds N --seed S [--nan-bits]`.
 *
 * Besides "no divergence", the run must have compared a real amount of work, so that a harness
 * that silently compares nothing fails here; and the harness is shown, on hand-written pairs
 * of modules, to notice each kind of difference it claims to compare.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUZZ_INPUT_SIZE, FUZZ_ENGINE_FEATURES, FUZZ_FEATURE_FLAGS, generateFuzzModule, nanRuleVariant, OUTPUT, runWasmOpt,
} from './fuzz/binaryen-gen.js';
import { type ModuleResult, MEMORY_EXPORT, runDifferential, withMemoryExport } from './fuzz/differential.js';
import { assemble } from './helpers/engine-oracle.js';
import { compileModule, type FuncRef, instantiate, invokeSync, Store } from '../src/interpreter/index.js';

/** Binaryen's text parser, for modules that use threads (which the wabt helper does not enable). */
function assembleWithBinaryen(src: string): Uint8Array {
  return runWasmOpt(new TextEncoder().encode(src), [...FUZZ_FEATURE_FLAGS, '-q', '-o', OUTPUT])!;
}

const FIRST_SEED = 20261130;
const MODULES = 64;

describe('differential fuzzing against Node (Binaryen -ttf)', () => {
  it(`${MODULES} modules from seed ${FIRST_SEED}: no divergence, NaN bits exact, and the calls were really compared`, () => {
    const totals = { compared: 0, skipped: 0, calls: 0, ok: 0, trap: 0, hostCalls: 0, nans: 0, v128s: 0 };
    const divergent: Array<{ seed: number; result: ModuleResult }> = [];
    for (let seed = FIRST_SEED; seed < FIRST_SEED + MODULES; seed++) {
      // Alternate the shapes, as the CLI does: raw fuzzer output and optimised code; and the drivers.
      const shaping = (['none', 'O2', 'fuzz-passes'] as const)[seed % 3]!;
      const driver = Math.floor(seed / 3) % 2 === 0 ? 'sync' : 'sliced';
      const result = runDifferential(generateFuzzModule(seed, DEFAULT_FUZZ_INPUT_SIZE, shaping), { compareNanBits: true, driver, driverSeed: seed });
      if (result.status === 'skipped') totals.skipped++;
      else totals.compared++;
      totals.calls += result.calls;
      totals.ok += result.callOutcomes.ok;
      totals.trap += result.callOutcomes.trap;
      totals.hostCalls += result.hostCalls;
      totals.nans += result.seen.nans;
      totals.v128s += result.seen.v128s;
      if (result.divergences.length > 0 || result.nanDifferences.length > 0) divergent.push({ seed, result });
    }
    expect(divergent.map(({ seed, result }) => ({ seed, first: result.divergences[0] ?? result.nanDifferences[0] }))).toEqual([]);
    // Measured on this seed range (Binaryen 132, Node 20.20.2): 63 of the 64 compared (one
    // module neither engine takes), 1,750 calls (1,325 returned, 384 trapped), 5,620 host calls,
    // 1,421 float NaNs and 873 v128s compared bit for bit. The bounds leave room for another
    // Binaryen.
    expect(totals.compared).toBeGreaterThanOrEqual(MODULES - 4);
    expect(totals.calls).toBeGreaterThan(500);
    expect(totals.ok).toBeGreaterThan(200);
    expect(totals.trap).toBeGreaterThan(20);
    expect(totals.hostCalls).toBeGreaterThan(1000);
    expect(totals.nans).toBeGreaterThan(100);
    expect(totals.v128s).toBeGreaterThan(100);
  }, 120_000); // about 8 s on this machine; a loaded machine can take several times that

  it('the generator is deterministic and stays within what both engines run', () => {
    const a = generateFuzzModule(7);
    const b = generateFuzzModule(7);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(generateFuzzModule(8)).equals(Buffer.from(a))).toBe(false);
    expect(() => compileModule(a, FUZZ_ENGINE_FEATURES)).not.toThrow();
    expect(WebAssembly.validate(a as Uint8Array<ArrayBuffer>)).toBe(true);
  });

  it('a module neither engine takes is skipped, not a divergence, when Binaryen\'s NaN-rule rewrite of it is one Node takes (seed 995691)', () => {
    // Binaryen made a `ref.as_non_null` (function references: in neither engine here) in code
    // after a `return`, which its rewrite for Node's side (the NaN rule's variant) drops.
    const bytes = withMemoryExport(generateFuzzModule(995691, 16000, 'none'));
    expect(() => compileModule(bytes, FUZZ_ENGINE_FEATURES)).toThrow(/function references/);
    expect(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)).toBe(false);
    expect(WebAssembly.validate(nanRuleVariant(bytes) as Uint8Array<ArrayBuffer>)).toBe(true);
    expect(() => compileModule(nanRuleVariant(bytes), FUZZ_ENGINE_FEATURES)).not.toThrow();
    const result = runDifferential(generateFuzzModule(995691, 16000, 'none'), { compareNanBits: true, driver: 'sliced' });
    expect({ status: result.status, divergences: result.divergences }).toEqual({ status: 'skipped', divergences: [] });
  });

  it('exports the memory without disturbing the other exports', async () => {
    const bytes = await assemble(`(module (memory 1) (func (export "f") (result i32) i32.const 1) (global (export "g") i32 (i32.const 2)))`);
    const exportsOf = (b: Uint8Array): WebAssembly.ModuleExportDescriptor[] => WebAssembly.Module.exports(new WebAssembly.Module(b as Uint8Array<ArrayBuffer>));
    const names = exportsOf(withMemoryExport(bytes)).map((e) => `${e.name}:${e.kind}`);
    expect(names).toEqual(['f:function', 'g:global', `${MEMORY_EXPORT}:memory`]);
    const bare = await assemble('(module (memory 1))');
    expect(exportsOf(withMemoryExport(bare)).map((e) => e.name)).toEqual([MEMORY_EXPORT]);
    const already = await assemble('(module (memory (export "m") 1))');
    expect(withMemoryExport(already)).toBe(already);
  });
});

describe('the harness notices each kind of difference', () => {
  /** Runs `node` in V8 and `ours` in our engine, as if our engine behaved like `ours`. */
  async function differ(node: string, ours: string, nanBits = false): Promise<ModuleResult> {
    return runDifferential(await assemble(node), { ourModuleForTesting: await assemble(ours), triageNan: false, compareNanBits: nanBits });
  }
  const log = '(import "fuzzing-support" "log-i32" (func $log (param i32)))';

  it('a result', async () => {
    const r = await differ('(module (func (export "f") (result i64) i64.const 5))', '(module (func (export "f") (result i64) i64.const 6))');
    expect(r.divergences[0]).toMatchObject({ step: 'call f()', what: 'outcome', ours: 'returned [i64:6]', node: 'returned [i64:5]' });
  });

  it('a trap against a result, and one kind of trap against another', async () => {
    const r1 = await differ('(module (func (export "f") (result i32) i32.const 1))', '(module (func (export "f") (result i32) unreachable))');
    expect(r1.divergences[0]?.what).toBe('outcome');
    const r2 = await differ(
      '(module (memory 1) (func (export "f") (result i32) i32.const 70000 i32.load))',
      '(module (memory 1) (func (export "f") (result i32) i32.const 1 i32.const 0 i32.div_u))',
    );
    expect(r2.divergences[0]).toMatchObject({ what: 'outcome' });
    expect(r2.divergences[0]!.ours).toMatch(/^trap divide-by-zero/);
    expect(r2.divergences[0]!.node).toMatch(/^trap memory-oob/);
  });

  it('but not the two ways of saying that a float does not fit an integer', async () => {
    const src = '(module (func (export "f") (result i32) f32.const 1e10 i32.trunc_f32_s))';
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    expect(r.calls).toBe(2);
    expect(r.callOutcomes.trap).toBe(2);
  });

  it('a logged value, and the number of host calls', async () => {
    const r = await differ(`(module ${log} (func (export "f") i32.const 1 call $log))`, `(module ${log} (func (export "f") i32.const 2 call $log))`);
    expect(r.divergences[0]).toMatchObject({ what: expect.stringMatching(/^host-calls/), ours: 'log-i32(i32:2)', node: 'log-i32(i32:1)' });
    const r2 = await differ(`(module ${log} (func (export "f") i32.const 1 call $log))`, `(module ${log} (func (export "f") i32.const 1 call $log i32.const 1 call $log))`);
    expect(r2.divergences[0]?.what).toMatch(/^host-calls/);
  });

  it('an exported global, an exported table and the memory', async () => {
    const g = await differ(
      '(module (global (export "g") (mut i32) (i32.const 0)) (func (export "f") i32.const 3 global.set 0))',
      '(module (global (export "g") (mut i32) (i32.const 0)) (func (export "f") i32.const 4 global.set 0))',
    );
    expect(g.divergences[0]).toMatchObject({ what: 'global g', ours: 'i32:4', node: 'i32:3' });
    const t = await differ(
      '(module (table (export "table") 2 funcref) (func $a) (func $b) (elem declare func $a $b) (func (export "f") i32.const 1 ref.func $a table.set 0))',
      '(module (table (export "table") 2 funcref) (func $a) (func $b) (elem declare func $a $b) (func (export "f") i32.const 1 ref.func $b table.set 0))',
    );
    expect(t.divergences[0]).toMatchObject({ what: 'table table' });
    const m = await differ(
      '(module (memory 1) (func (export "f") i32.const 100 i32.const 7 i32.store8))',
      '(module (memory 1) (func (export "f") i32.const 100 i32.const 8 i32.store8))',
    );
    expect(m.divergences[0]).toMatchObject({ what: `memory ${MEMORY_EXPORT} at byte 100` });
  });

  it('NaN bits only when asked, and apart from divergences', async () => {
    const f64 = '(import "fuzzing-support" "log-f64" (func $log (param f64)))';
    const node = `(module ${f64} (func (export "f") f64.const nan:0x1234 call $log))`;
    const ours = `(module ${f64} (func (export "f") f64.const nan:0x5678 call $log))`;
    const quiet = await differ(node, ours);
    expect(quiet.divergences).toEqual([]);
    expect(quiet.nanDifferences).toEqual([]);
    const loud = await differ(node, ours, true);
    expect(loud.divergences).toEqual([]);
    expect(loud.nanDifferences[0]).toMatchObject({ what: expect.stringMatching(/^host-calls/) });
    // A NaN against a number is a divergence either way.
    const real = await differ(node, `(module ${f64} (func (export "f") f64.const 0 call $log))`);
    expect(real.divergences[0]?.what).toMatch(/^host-calls/);
  });

  it('NaN bits exactly where JavaScript would change them: f32 results and logs, globals, arguments', async () => {
    // V8 quiets an f32 NaN that becomes a JavaScript number and canonicalises a global's NaN;
    // through the bridges a signalling NaN crosses as it is, so the same bits agree...
    const f32 = '(import "fuzzing-support" "log-f32" (func $log (param f32)))';
    const src = (nan: string): string => `(module ${f32}
      (global (export "g") (mut f64) (f64.const ${nan.replace('0x200001', '0x4000000000001')}))
      (func (export "r") (result f32) f32.const ${nan})
      (func (export "l") f32.const ${nan} call $log)
      (func (export "p") (param f32 f64) (result f32 f64) local.get 0 local.get 1))`;
    const same = await differ(src('nan:0x200001'), src('nan:0x200001'), true);
    expect(same.divergences).toEqual([]);
    expect(same.nanDifferences).toEqual([]);
    // The pool's NaN arguments (signalling ones among them) come back unchanged.
    expect(same.seen.nans).toBeGreaterThan(6);
    // ...and the quiet bit alone is a difference.
    const quieted = await differ(src('nan:0x200001'), src('nan:0x600001'), true);
    expect(quieted.divergences).toEqual([]);
    expect(quieted.nanDifferences[0]).toMatchObject({ step: 'instantiate', what: 'global g' });
    expect(quieted.nanDifferences.map((d) => `${d.step}: ${d.what}`)).toEqual(expect.arrayContaining([
      'call r(): outcome', 'call l(): host-calls (from call #1 of this step)',
    ]));
  });

  it('v128 results, arguments, logged values and globals', async () => {
    const v128 = '(import "fuzzing-support" "log-v128" (func $log (param v128)))';
    const src = (lane: number, globalLane = lane): string => `(module ${v128}
      (global (export "g") (mut v128) (v128.const i32x4 1 2 3 ${globalLane}))
      (func (export "r") (result i32 v128) i32.const 7 v128.const i32x4 1 2 3 ${lane})
      (func (export "l") v128.const i32x4 1 2 3 ${lane} call $log)
      (func (export "p") (param v128) (result v128) (i32x4.add (local.get 0) (v128.const i32x4 0 0 0 ${lane}))))`;
    const same = await differ(src(4), src(4));
    expect(same.divergences).toEqual([]);
    expect(same.calls).toBe(6);
    expect(same.seen.v128s).toBeGreaterThan(10);
    const global = await differ(src(4), src(4, 5));
    expect(global.divergences[0]).toMatchObject({ step: 'instantiate', what: 'global g' });
    const other = await differ(src(4), src(5, 4));
    expect(other.divergences[0]).toMatchObject({
      step: 'call r()', what: 'outcome',
      ours: 'returned [i32:7, v128:0x00000005000000030000000200000001]',
      node: 'returned [i32:7, v128:0x00000004000000030000000200000001]',
    });
    // A v128 whose lanes differ only in NaN payloads (as f32x4 here) is a NaN difference.
    const nan = (payload: string): string => `(module (func (export "r") (result v128) v128.const i32x4 0x7fc0${payload} 0 0 0))`;
    const quiet = await differ(nan('0001'), nan('0002'));
    expect(quiet.divergences).toEqual([]);
    const loud = await differ(nan('0001'), nan('0002'), true);
    expect(loud.nanDifferences[0]).toMatchObject({ what: 'outcome' });
  });

  it('a reference to an imported function, returned and called back', async () => {
    const src = `(module ${log}
      (import "fuzzing-support" "call-ref-catch" (func $catch (param funcref) (result i32)))
      (elem declare func $log $catch)
      (func (export "r") (result funcref) ref.func $log)
      (func (export "c") (result i32) (call $catch (ref.func $log))))`;
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    expect(r.callOutcomes.ok).toBe(4);
    const other = await differ(src, src.replace('(result funcref) ref.func $log', '(result funcref) ref.func $catch'));
    expect(other.divergences[0]).toMatchObject({ what: 'outcome', ours: 'returned [funcref:func:1]', node: 'returned [funcref:func:0]' });
  });

  it('a function with a v128 parameter or result cannot be called from JavaScript, on either side', async () => {
    const imports = `(import "fuzzing-support" "call-export-catch" (func $catch (param i32) (result i32)))
      (import "fuzzing-support" "call-export" (func $call (param i32 i32)))`;
    const src = `(module ${imports}
      (func (export "v") (param v128) (result v128) local.get 0)
      (func (export "c") (result i32) i32.const 0 call $catch)
      (func (export "t") i32.const 0 i32.const 0 call $call))`;
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    // v returns, c catches (1), t ends in the host's exception; two rounds.
    expect(r.callOutcomes).toEqual({ ok: 4, trap: 0, hostException: 2 });
  });

  it('an atomic access both unaligned and out of bounds: one trap or the other', () => {
    const src = `(module (memory 1 1 shared) (func (export "f") (result i32) (i32.atomic.load (i32.const 65535))))`;
    const bytes = assembleWithBinaryen(src);
    const r = runDifferential(bytes);
    expect(r.divergences).toEqual([]);
    expect(r.callOutcomes.trap).toBe(2);
  });

  it('call-export and call-export-catch behave alike on both sides', async () => {
    const imports = `${log}
      (import "fuzzing-support" "call-export" (func $call (param i32 i32)))
      (import "fuzzing-support" "call-export-catch" (func $catch (param i32) (result i32)))`;
    const src = `(module ${imports}
      (func (export "a") i32.const 11 call $log)
      (func (export "b") i32.const 0 i32.const 0 call $call (call $log (call $catch (i32.const 9))) (call $log (call $catch (i32.const 0))))
      (func (export "t") unreachable)
      (func (export "c") (result i32) i32.const 2 call $catch))`;
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    // "a" logs 11; "b" calls a (2 host calls), fails to call export 9 (caught: 3 more with the
    // log), calls a again (4); "c" calls "t", whose trap is not caught (1): it traps in both
    // engines. Two rounds.
    expect(r.callOutcomes).toEqual({ ok: 4, trap: 4, hostException: 0 });
    expect(r.hostCalls).toBe(2 * (1 + 2 + 3 + 4 + 1));
    const wrong = await differ(src, src.replace('i32.const 9', 'i32.const 8'));
    expect(wrong.divergences[0]?.what).toMatch(/^host-calls/);
  });
});

/**
 * The NaN rule against V8's own instructions: every scalar float instruction, on every pair of
 * eight NaN and non-NaN operands, and with constant NaN operands, results stored to memory.
 */
describe('NaN bits: the rule where V8 agrees with it, the rule\'s helpers where it does not', () => {
  const F32_PATTERNS = [0x7fa00001, 0xffb00002, 0x7fc00003, 0xffc00000, 0x3f800000, 0x7f800000, 0xff800000, 0x80000000];
  const F64_PATTERNS = [
    0x7ff4000000000001n, 0xfff8000000000002n, 0x7ff8000000000003n, 0xfff8000000000000n,
    0x3ff0000000000000n, 0x7ff0000000000000n, 0xfff0000000000000n, 0x8000000000000000n,
  ];
  const hex = (bytes: number[]): string => bytes.map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
  const le = (x: bigint, n: number): number[] => Array.from({ length: n }, (_, i) => Number((x >> BigInt(8 * i)) & 0xffn));
  const BINARY = ['add', 'sub', 'mul', 'div', 'min', 'max', 'copysign'];
  const UNARY = ['sqrt', 'ceil', 'floor', 'trunc', 'nearest', 'abs', 'neg'];

  /** For type t: results of every instruction on every pair of patterns, 8 operations a row. */
  function pairs(t: 'f32' | 'f64', patterns: number, size: number, base: number, out: number): string {
    const cnan = t === 'f32' ? '-nan:0x200005' : '-nan:0x4000000000005';
    const ops = [
      ...BINARY.map((op) => `(${t}.${op} (local.get $a) (local.get $b))`),
      ...UNARY.map((op) => `(${t}.${op} (local.get $a))`),
      ...['add', 'sub', 'mul', 'div'].map((op) => `(${t}.${op} (local.get $a) (${t}.const ${cnan}))`),
      `(${t}.floor (${t}.const ${cnan}))`,
      t === 'f32' ? '(f32.demote_f64 (f64.reinterpret_i64 (i64.or (i64.extend_i32_u (i32.reinterpret_f32 (local.get $a))) (i64.shl (i64.extend_i32_u (i32.reinterpret_f32 (local.get $b))) (i64.const 32)))))'
        : '(f64.promote_f32 (f32.reinterpret_i32 (i32.wrap_i64 (i64.reinterpret_f64 (local.get $a)))))',
    ];
    const stores = ops.map((e, k) => `(${t}.store offset=${k * size} (local.get $out) ${e})`).join('\n');
    return `(func (export "${t}") (local $i i32) (local $j i32) (local $a ${t}) (local $b ${t}) (local $out i32)
      (local.set $out (i32.const ${out}))
      (loop $li
        (local.set $j (i32.const 0))
        (loop $lj
          (local.set $a (${t}.load offset=${base} (i32.mul (local.get $i) (i32.const ${size}))))
          (local.set $b (${t}.load offset=${base} (i32.mul (local.get $j) (i32.const ${size}))))
          ${stores}
          (local.set $out (i32.add (local.get $out) (i32.const ${ops.length * size})))
          (br_if $lj (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const ${patterns}))))
        (br_if $li (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const ${patterns})))))`;
  }

  const source = `(module (memory (export "mem") 2)
    (data (i32.const 0) "${hex(F32_PATTERNS.flatMap((p) => le(BigInt(p), 4)))}")
    (data (i32.const 64) "${hex(F64_PATTERNS.flatMap((p) => le(p, 8)))}")
    ${pairs('f32', F32_PATTERNS.length, 4, 0, 1024)}
    ${pairs('f64', F64_PATTERNS.length, 8, 64, 16384)})`;

  it('Node running the rule variant gives our engine\'s bits exactly; V8\'s own min/max do not', async () => {
    const bytes = await assemble(source);
    const exact = runDifferential(bytes, { compareNanBits: true, rounds: 3 });
    expect(exact.divergences).toEqual([]);
    expect(exact.nanDifferences).toEqual([]);
    expect(exact.calls).toBe(6);
    // Without the variant, V8's min and max (the default NaN) show in memory: NaN-derived.
    const native = runDifferential(bytes, { rounds: 1 });
    expect(native.divergences).toEqual([]);
    // (f32.min of 0x7fa00001 with itself: the rule quiets it, V8 gives the default NaN.)
    expect(native.nanDerived[0]).toMatchObject({
      step: 'call f32()', what: `memory mem at byte ${1024 + 4 * 4}`, ours: expect.stringMatching(/^0100e07f/), node: expect.stringMatching(/^0000c0ff/),
    });
  });

  it('the rule variant computes in our engine exactly what the original does', async () => {
    const bytes = await assemble(source);
    const variant = nanRuleVariant(bytes);
    expect(variant.length).toBeGreaterThan(bytes.length); // helpers were added
    const memoryAfter = (b: Uint8Array): Uint8Array => {
      const store = new Store();
      const inst = instantiate(store, compileModule(b, FUZZ_ENGINE_FEATURES), () => undefined);
      for (const name of ['f32', 'f64']) invokeSync(store, inst.exports.get(name) as FuncRef, []);
      return inst.memory!.bytes.slice();
    };
    expect(Buffer.from(memoryAfter(variant)).equals(Buffer.from(memoryAfter(bytes)))).toBe(true);
  });
});
