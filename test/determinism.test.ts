/**
 * Determinism: the same module, arguments and fuel give the same results, memory, globals and
 * fuel — NaN payloads included — however V8 happens to run the interpreter. See
 * docs/determinism.md for what is promised and the NaN rule.
 *
 * Programs: hand-written NaN-heavy ones (every operation that can produce a NaN, on signalling
 * and quiet NaNs of both signs and various payloads, both operand orders, operands from
 * memory, from locals, as constants, and a destination that is also an operand), seeded random
 * programs from test/helpers/engine-progen.ts with their float locals' bits in the results, and
 * seeded modules from Binaryen's fuzzer when test/fuzz/binaryen-gen.ts is there.
 *
 * Configurations (test/helpers/determinism-runner.ts): in this process — first run, second run,
 * paused every few units of fuel, after a warm-up — and in child processes under `--jitless`
 * (V8's interpreter only), `--no-opt` (no optimising compiler) and `--maglev` (V8's mid-tier
 * compiler, off by default in Node 20); with DETERMINISM_ALL_TIERS=1 also `--always-turbofan`
 * (optimised code from the first call, before any type feedback) and `--always-sparkplug`.
 * Every configuration must record exactly the outcome of the first. A second execution tier of
 * our own would be one more configuration.
 *
 * Then the NaN rule itself is pinned: against a bit-level model of the rule written here, and
 * against Node's own WebAssembly where Node and wasmtime agree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileModule, DecodeError, instantiate, invokeSync, Store, ValidationError, WasmValue, type FuncRef,
} from '../src/interpreter/index.js';
import { F32, F64, I32, I64, type ValType } from '../src/interpreter/types.js';
import { Rng, assemble } from './helpers/engine-oracle.js';
import { HELPERS, ProgramGenerator } from './helpers/engine-progen.js';
import {
  type CallSpec, type ProgramOutcome, type ProgramSpec, type RunConfig, encodeValue, runPrograms,
} from './helpers/determinism-runner.js';

const SEED = 0xd37e;

// ---- operand patterns ---------------------------------------------------------------------------

/** f32 bit patterns: NaNs of every kind, and the operands that make NaNs out of no NaN. */
const F32_PATTERNS = [
  0x7fc00000, 0xffc00000, // quiet, no payload (+ and -)
  0x7fc12345, 0xffd00001, 0x7fffffff, 0xffffffff, // quiet with payloads
  0x7f800001, 0x7fa00005, 0xff811111, 0xffbfffff, 0x7f9abcde, // signalling
  0x7f800000, 0xff800000, 0x00000000, 0x80000000, // inf, -inf, +0, -0
  0x3f800000, 0xbf800000, 0x40200000, 0x00000001, 0x7f7fffff, // 1, -1, 2.5, min subnormal, max
].map((x) => x | 0);

/** f64 bit patterns as [hi, lo] words. */
const F64_PATTERNS: ReadonlyArray<readonly [number, number]> = ([
  [0x7ff80000, 0], [0xfff80000, 0], // quiet, no payload
  [0x7ff80000, 0x12345678], [0xfffc0000, 0x00000001], [0x7fffffff, 0xffffffff], [0xffffffff, 0xffffffff],
  [0x7ff00000, 0x00000001], [0x7ff40000, 0x00000005], [0xfff00001, 0x00000000], [0xfff7ffff, 0xffffffff],
  [0x7ff00000, 0x20000000], // signalling; the last has a payload only demote's 3 low-word bits see
  [0x7ff00000, 0], [0xfff00000, 0], [0, 0], [0x80000000, 0],
  [0x3ff00000, 0], [0xbff00000, 0], [0x40040000, 0], [0, 1], [0x7fefffff, 0xffffffff],
] as const).map(([h, l]) => [h | 0, l | 0] as const);

const BINARY = ['add', 'sub', 'mul', 'div', 'min', 'max'] as const;
const UNARY = ['sqrt', 'ceil', 'floor', 'trunc', 'nearest'] as const;
type Binary = (typeof BINARY)[number];
type Unary = (typeof UNARY)[number];

// ---- the hand-written NaN-heavy module ----------------------------------------------------------

const IN32 = 0; // f32 patterns
const IN64 = 256; // f64 patterns
const OUT = 1024; // results, one after another

const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

/** A `t.const` for these bits: NaNs as `nan:0x…`, everything else through its reinterpreted value. */
function f32Const(bits: number): string {
  if ((bits & 0x7fffffff) > 0x7f800000) return `f32.const ${bits < 0 ? '-' : ''}nan:${hex(bits & 0x7fffff)}`;
  return `f32.const ${floatText(new Float32Array(new Int32Array([bits]).buffer)[0]!)}`;
}
function f64Const([hi, lo]: readonly [number, number]): string {
  if ((hi & 0x7fffffff) > 0x7ff00000 || ((hi & 0x7fffffff) === 0x7ff00000 && lo !== 0)) {
    const payload = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo >>> 0);
    return `f64.const ${hi < 0 ? '-' : ''}nan:0x${payload.toString(16)}`;
  }
  return `f64.const ${floatText(new Float64Array(new Int32Array([lo, hi]).buffer)[0]!)}`;
}
function floatText(x: number): string {
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/**
 * For each binary operation and every ordered pair of patterns, three ways to the same
 * result: stored straight from the operation, through a local (the translator retargets the
 * operation to write the local), and into a local that is also the first operand.
 */
function binarySweep(t: 'f32' | 'f64', op: Binary): string {
  const size = t === 'f32' ? 4 : 8;
  const n = t === 'f32' ? F32_PATTERNS.length : F64_PATTERNS.length;
  const at = (v: string): string => `(i32.add (i32.const ${t === 'f32' ? IN32 : IN64}) (i32.mul (local.get ${v}) (i32.const ${size})))`;
  return `
  (func $${t}_${op} (param $out i32) (result i32) (local $i i32) (local $j i32) (local $x ${t}) (local $y ${t})
    (loop $li
      (local.set $j (i32.const 0))
      (loop $lj
        (${t}.store (local.get $out) (${t}.${op} (${t}.load ${at('$i')}) (${t}.load ${at('$j')})))
        (local.set $y (${t}.${op} (${t}.load ${at('$i')}) (${t}.load ${at('$j')})))
        (${t}.store offset=${size} (local.get $out) (local.get $y))
        (local.set $x (${t}.load ${at('$i')}))
        (local.set $y (${t}.load ${at('$j')}))
        (local.set $x (${t}.${op} (local.get $x) (local.get $y)))
        (${t}.store offset=${2 * size} (local.get $out) (local.get $x))
        (local.set $out (i32.add (local.get $out) (i32.const ${3 * size})))
        (br_if $lj (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const ${n}))))
      (br_if $li (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const ${n}))))
    (local.get $out))`;
}

/** Unary operations, and demote (f64 in) or promote (f32 in), over every pattern. */
function unarySweep(t: 'f32' | 'f64'): string {
  const size = t === 'f32' ? 4 : 8;
  const n = t === 'f32' ? F32_PATTERNS.length : F64_PATTERNS.length;
  const load = `(${t}.load (i32.add (i32.const ${t === 'f32' ? IN32 : IN64}) (i32.mul (local.get $i) (i32.const ${size}))))`;
  const body = UNARY.map((op, k) => `(${t}.store offset=${k * size} (local.get $out) (${t}.${op} ${load}))`).join('\n        ');
  const conv = t === 'f32'
    ? `(f64.store offset=${UNARY.length * size} (local.get $out) (f64.promote_f32 ${load}))`
    : `(f32.store offset=${UNARY.length * size} (local.get $out) (f32.demote_f64 ${load}))`;
  return `
  (func $${t}_unary (param $out i32) (result i32) (local $i i32)
    (loop $li
      ${body}
      ${conv}
      (local.set $out (i32.add (local.get $out) (i32.const ${UNARY.length * size + 8})))
      (br_if $li (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const ${n}))))
    (local.get $out))`;
}

/** The same operations on constant operands (the translator keeps constants in frame slots). */
function constSweep(): string {
  const lines: string[] = [];
  let out = 0;
  const p32 = F32_PATTERNS.filter((_, i) => i % 2 === 0 || i < 10);
  const p64 = F64_PATTERNS.filter((_, i) => i % 2 === 0 || i < 10);
  for (const op of BINARY) {
    for (const a of p32) for (const b of p32.slice(0, 8)) {
      lines.push(`(f32.store offset=${out} (local.get $out) (f32.${op} (${f32Const(a)}) (${f32Const(b)})))`);
      out += 4;
    }
    for (const a of p64) for (const b of p64.slice(0, 8)) {
      lines.push(`(f64.store offset=${out} (local.get $out) (f64.${op} (${f64Const(a)}) (${f64Const(b)})))`);
      out += 8;
    }
  }
  for (const a of p32) {
    for (const op of UNARY) { lines.push(`(f32.store offset=${out} (local.get $out) (f32.${op} (${f32Const(a)})))`); out += 4; }
    lines.push(`(f64.store offset=${out} (local.get $out) (f64.promote_f32 (${f32Const(a)})))`); out += 8;
  }
  for (const a of p64) {
    for (const op of UNARY) { lines.push(`(f64.store offset=${out} (local.get $out) (f64.${op} (${f64Const(a)})))`); out += 8; }
    lines.push(`(f32.store offset=${out} (local.get $out) (f32.demote_f64 (${f64Const(a)})))`); out += 4;
  }
  return `
  (func $consts (param $out i32) (result i32)
    ${lines.join('\n    ')}
    (i32.add (local.get $out) (i32.const ${out})))`;
}

function dataString(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
}

function nanModuleText(): string {
  const in32 = new Int32Array(F32_PATTERNS);
  const in64 = new Int32Array(F64_PATTERNS.flatMap(([hi, lo]) => [lo, hi]));
  const sweeps: string[] = [];
  const calls: string[] = [];
  for (const t of ['f32', 'f64'] as const) {
    for (const op of BINARY) { sweeps.push(binarySweep(t, op)); calls.push(`(local.set $out (call $${t}_${op} (local.get $out)))`); }
    sweeps.push(unarySweep(t));
    calls.push(`(local.set $out (call $${t}_unary (local.get $out)))`);
  }
  sweeps.push(constSweep());
  calls.push('(local.set $out (call $consts (local.get $out)))');
  const ops32 = [...BINARY.map((op) => `(f32.${op} (local.get 0) (local.get 1))`), ...UNARY.map((op) => `(f32.${op} (local.get 0))`)];
  const ops64 = [...BINARY.map((op) => `(f64.${op} (local.get 0) (local.get 1))`), ...UNARY.map((op) => `(f64.${op} (local.get 0))`)];
  return `(module
  (memory 4)
  (data (i32.const ${IN32}) "${dataString(new Uint8Array(in32.buffer))}")
  (data (i32.const ${IN64}) "${dataString(new Uint8Array(in64.buffer))}")
  (global $g32 (mut f32) (f32.const 0))
  (global $g64 (mut f64) (f64.const 0))
  ${sweeps.join('\n')}
  (func (export "sweep") (result i32) (local $out i32)
    (local.set $out (i32.const ${OUT}))
    ${calls.join('\n    ')}
    (local.get $out))
  ;; Results straight out of a call, and NaNs left in globals.
  (func (export "probe32") (param f32 f32) (result ${ops32.map(() => 'f32').join(' ')} f64)
    (global.set $g32 (f32.mul (local.get 0) (local.get 1)))
    ${ops32.join(' ')} (f64.promote_f32 (local.get 1)))
  (func (export "probe64") (param f64 f64) (result ${ops64.map(() => 'f64').join(' ')} f32)
    (global.set $g64 (f64.add (local.get 0) (local.get 1)))
    ${ops64.join(' ')} (f32.demote_f64 (local.get 1))))`;
}

const f32Arg = (bits: number): string => `f32:${(bits >>> 0).toString(16).padStart(8, '0')}`;
const f64Arg = ([hi, lo]: readonly [number, number]): string =>
  `f64:${(hi >>> 0).toString(16).padStart(8, '0')}_${(lo >>> 0).toString(16).padStart(8, '0')}`;

async function nanPrograms(): Promise<ProgramSpec[]> {
  const wasm = Buffer.from(await assemble(nanModuleText())).toString('base64');
  const calls: CallSpec[] = [{ export: 'sweep', args: [] }];
  const rng = new Rng(SEED);
  for (let k = 0; k < 24; k++) {
    calls.push({ export: 'probe32', args: [f32Arg(rng.pick(F32_PATTERNS)), f32Arg(rng.pick(F32_PATTERNS))] });
    calls.push({ export: 'probe64', args: [f64Arg(rng.pick(F64_PATTERNS)), f64Arg(rng.pick(F64_PATTERNS))] });
  }
  // Runs out of fuel in the middle of float work: where it stops, and what it leaves in its
  // global and memory, must not depend on how the run was sliced or which code V8 runs.
  const spin = Buffer.from(await assemble(`(module (memory 1) (global $acc (mut f64) (f64.const 1))
    (func (export "spin") (param $x f64) (local $i i32)
      (loop $l
        (global.set $acc (f64.add (f64.mul (global.get $acc) (local.get $x)) (f64.sqrt (global.get $acc))))
        (f64.store (i32.and (i32.mul (local.get $i) (i32.const 8)) (i32.const 0xfff8)) (global.get $acc))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))`)).toString('base64');
  return [
    { name: 'nan-ops', wasm, calls },
    { name: 'spin', wasm: spin, fuel: 54_321, calls: [{ export: 'spin', args: ['f64:bff00000_00000000'] }, { export: 'spin', args: ['f64:3ff00000_00000001'] }] },
  ];
}

// ---- random programs ----------------------------------------------------------------------------

/**
 * engine-progen's functions fold their float locals into the i64 result through saturating
 * truncation, which hides NaN payloads (it is compared with Node, whose payloads may differ).
 * Here the bits themselves go in.
 */
function exposeFloatBits(func: string): string {
  return func
    .replace(/local\.get (13|14) i64\.trunc_sat_f64_s i64\.add/g, 'local.get $1 i64.reinterpret_f64 i64.add')
    .replace(/local\.get (15|16) i64\.trunc_sat_f32_u i64\.add/g, 'local.get $1 i32.reinterpret_f32 i64.extend_i32_u i64.add');
}

const RANDOM_MODULES = 16;
const RANDOM_FUNCS = 4;

async function randomPrograms(): Promise<ProgramSpec[]> {
  const programs: ProgramSpec[] = [];
  for (let m = 0; m < RANDOM_MODULES; m++) {
    const seed = SEED + m;
    const gen = new ProgramGenerator(new Rng(seed));
    const fns = Array.from({ length: RANDOM_FUNCS }, (_, k) => exposeFloatBits(gen.func(`f${k}`, 12)));
    const wasm = Buffer.from(await assemble(`(module ${HELPERS}\n${fns.join('\n')})`)).toString('base64');
    const rng = new Rng(seed ^ 0x5a5a5a5a);
    const calls: CallSpec[] = [];
    for (let f = 0; f < RANDOM_FUNCS; f++) {
      for (let k = 0; k < 4; k++) {
        calls.push({
          export: `f${f}`,
          args: [WasmValue.i32(rng.i32()), WasmValue.i32(rng.int(10)), WasmValue.i64(rng.i64()), WasmValue.i64(BigInt(rng.int(10)))].map(encodeValue),
        });
      }
      calls.push({ export: 'state', args: [] });
    }
    programs.push({ name: `progen-${seed}`, wasm, calls });
  }
  return programs;
}

// ---- Binaryen's fuzzer (when test/fuzz/binaryen-gen.ts exists) ----------------------------------

const BINARYEN_GEN = new URL('./fuzz/binaryen-gen.ts', import.meta.url);
const BINARYEN_MODULES = 16;

/** Arguments for a fuzzer module's export: random bits, NaNs often. */
function randomArg(t: ValType, rng: Rng): WasmValue {
  const nan32 = (): number => (rng.chance(0.5) ? 0x7f800000 : 0xff800000) | (1 + rng.int(0x7fffff));
  switch (t) {
    case I32: return WasmValue.i32(rng.chance(0.5) ? rng.int(5) : rng.i32());
    case I64: return WasmValue.i64(rng.chance(0.5) ? BigInt(rng.int(5)) : rng.i64());
    case F32: return WasmValue.f32Bits(rng.chance(0.3) ? nan32() : rng.i32());
    case F64: return WasmValue.f64Halves(rng.i32(), rng.chance(0.3) ? nan32() : rng.i32());
    default: return WasmValue.zero(t);
  }
}

async function binaryenPrograms(): Promise<ProgramSpec[]> {
  if (!existsSync(BINARYEN_GEN)) return [];
  const gen = (await import(BINARYEN_GEN.href)) as { generateFuzzModule(seed: number, size?: number): Uint8Array };
  const programs: ProgramSpec[] = [];
  for (let m = 0; m < BINARYEN_MODULES; m++) {
    const seed = SEED + 100 + m;
    let bytes: Uint8Array | null | undefined;
    try {
      bytes = gen.generateFuzzModule(seed);
    } catch {
      bytes = null;
    }
    // A seed the generator gave nothing for is left out; the test "includes modules from
    // Binaryen's fuzzer" fails when too many are.
    if (!(bytes instanceof Uint8Array)) continue;
    let module;
    try {
      module = compileModule(bytes);
    } catch (e) {
      // A module our engine rejects (a feature it lacks) says nothing about determinism.
      if (e instanceof DecodeError || e instanceof ValidationError) continue;
      throw e;
    }
    const rng = new Rng(seed);
    const calls: CallSpec[] = [];
    for (const e of module.ir.exports) {
      if (e.kind !== 'func') continue;
      const type = module.funcTypes[e.index]!;
      calls.push({ export: e.name, args: type.params.map((t) => encodeValue(randomArg(t, rng))) });
    }
    programs.push({ name: `binaryen-${seed}`, wasm: Buffer.from(bytes).toString('base64'), calls, fuel: 200_000 });
  }
  return programs;
}

// ---- comparing ------------------------------------------------------------------------------------

/** The first place where `b` differs from `a`, or null. */
function firstDifference(a: readonly ProgramOutcome[], b: readonly ProgramOutcome[]): string | null {
  if (a.length !== b.length) return `${a.length} programs vs ${b.length}`;
  for (let p = 0; p < a.length; p++) {
    const x = a[p]!;
    const y = b[p]!;
    if (x.error !== y.error) return `${x.name}: instantiation ${x.error} vs ${y.error}`;
    for (let c = 0; c < Math.max(x.calls.length, y.calls.length); c++) {
      const u = JSON.stringify(x.calls[c]);
      const v = JSON.stringify(y.calls[c]);
      if (u !== v) return `${x.name}, call ${c}:\n  ${u}\n  ${v}`;
    }
    if (JSON.stringify(x.globals) !== JSON.stringify(y.globals)) return `${x.name}: globals ${x.globals.join(' ')} vs ${y.globals.join(' ')}`;
    if (JSON.stringify(x.tables) !== JSON.stringify(y.tables)) return `${x.name}: tables ${x.tables.join(' ')} vs ${y.tables.join(' ')}`;
    if (x.memory !== y.memory) return `${x.name}: memory ${x.memory} vs ${y.memory}`;
  }
  return null;
}

// ---- the suite ------------------------------------------------------------------------------------

const SLICED: RunConfig = { name: 'sliced', slices: [1, 2, 3, 5, 8, 13, 21, 100, 1000, 7] };

/**
 * Child processes: V8's tiers that the default configuration may never use for our loop.
 * `DETERMINISM_ALL_TIERS=1` adds two slower ones (optimised or baseline code from the first
 * call on).
 */
const CHILDREN: ReadonlyArray<{ name: string; flags: string[] }> = [
  { name: 'jitless', flags: ['--jitless'] },
  { name: 'no-opt', flags: ['--no-opt'] },
  { name: 'maglev', flags: ['--maglev'] },
  ...(process.env.DETERMINISM_ALL_TIERS === '1' ? [
    { name: 'always-turbofan', flags: ['--always-turbofan'] },
    { name: 'always-sparkplug', flags: ['--always-sparkplug'] },
  ] : []),
];

describe('determinism', () => {
  let programs: ProgramSpec[] = [];
  let reference: ProgramOutcome[] = [];
  let dir = '';
  let child = '';
  let programsFile = '';

  beforeAll(async () => {
    programs = [...(await nanPrograms()), ...(await randomPrograms()), ...(await binaryenPrograms())];
    reference = runPrograms(programs, { name: 'first' });
    dir = mkdtempSync(join(tmpdir(), 'sandboxd-determinism-'));
    child = join(dir, 'child.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./helpers/determinism-child.ts', import.meta.url))],
      bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: child, logLevel: 'warning',
    });
    programsFile = join(dir, 'programs.json');
    writeFileSync(programsFile, JSON.stringify(programs));
  }, 60_000);

  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('the programs do something: NaNs of many payloads, traps, returns', () => {
    const nan = reference.find((p) => p.name === 'nan-ops')!;
    expect(nan.calls[0]!.outcome).toMatch(/^ok i32:/);
    const probes = nan.calls.slice(1).map((c) => c.outcome).join(' ');
    // Quieted payloads of both signs, and the default NaN.
    const nans32 = new Set([...probes.matchAll(/f32:([0-9a-f]{8})/g)].map((m) => m[1]!).filter((b) => isNaN32(Number.parseInt(b, 16))));
    const nans64 = new Set([...probes.matchAll(/f64:([0-9a-f]{8})_([0-9a-f]{8})/g)].map((m) => BigInt(`0x${m[1]}${m[2]}`)).filter(isNaN64));
    expect(nans32.size).toBeGreaterThan(6);
    expect(nans64.size).toBeGreaterThan(6);
    expect(nans64.has(DEFAULT64)).toBe(true);
    const outcomes = reference.flatMap((p) => p.calls.map((c) => c.outcome));
    expect(outcomes.some((o) => o.startsWith('trap'))).toBe(true);
    expect(outcomes.filter((o) => o.startsWith('ok')).length).toBeGreaterThan(programs.length * 4);
    expect(outcomes).toContain('trap: wasm trap: all fuel consumed by WebAssembly');
  });

  it.runIf(existsSync(BINARYEN_GEN))("includes modules from Binaryen's fuzzer", () => {
    const fuzzed = programs.filter((p) => p.name.startsWith('binaryen-'));
    expect(fuzzed.length, 'test/fuzz/binaryen-gen.ts gave fewer modules than asked for').toBeGreaterThanOrEqual(BINARYEN_MODULES / 2);
    expect(fuzzed.reduce((n, p) => n + p.calls.length, 0)).toBeGreaterThan(fuzzed.length);
  });

  it('a second run in the same process gives the same outcomes', () => {
    expect(firstDifference(reference, runPrograms(programs, { name: 'again' }))).toBeNull();
  });

  it('pausing every few units of fuel changes nothing', () => {
    expect(firstDifference(reference, runPrograms(programs, SLICED))).toBeNull();
  });

  it('after a warm-up (optimised code) the outcomes are the same', () => {
    for (let i = 0; i < 4; i++) runPrograms(programs, { name: 'warm-up' });
    expect(firstDifference(reference, runPrograms(programs, { name: 'warm' }))).toBeNull();
  }, 30_000);

  for (const { name, flags } of CHILDREN) {
    it(`a child process under ${flags.join(' ')} gives the same outcomes`, () => {
      const configFile = join(dir, `${name}.json`);
      writeFileSync(configFile, JSON.stringify({ name }));
      const out = execFileSync(process.execPath, [...flags, child, programsFile, configFile], {
        encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(firstDifference(reference, JSON.parse(out) as ProgramOutcome[])).toBeNull();
    }, 60_000);
  }
});

// ---- the NaN rule, pinned ---------------------------------------------------------------------

const sf32 = new Float32Array(1);
const si32 = new Int32Array(sf32.buffer);
const sf64 = new Float64Array(1);
const su64 = new BigUint64Array(sf64.buffer);

/** f32 bits of a number that is not a NaN (NaN bits through a Float32Array are V8's business). */
const bitsOf32 = (x: number): number => {
  expect(x).not.toBeNaN();
  sf32[0] = x;
  return si32[0]! >>> 0;
};
const valueOf32 = (bits: number): number => {
  si32[0] = bits;
  return sf32[0]!;
};
const bitsOf64 = (x: number): bigint => {
  expect(x).not.toBeNaN();
  sf64[0] = x;
  return su64[0]!;
};
const valueOf64 = (bits: bigint): number => {
  su64[0] = bits;
  return sf64[0]!;
};

const isNaN32 = (b: number): boolean => (b & 0x7fffffff) >>> 0 > 0x7f800000;
const isNaN64 = (b: bigint): boolean => (b & 0x7fffffffffffffffn) > 0x7ff0000000000000n;
const quiet32 = (b: number): number => (b | 0x400000) >>> 0;
const quiet64 = (b: bigint): bigint => b | 0x8000000000000n;
const DEFAULT32 = 0xffc00000;
const DEFAULT64 = 0xfff8000000000000n;

function nearest(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const diff = x - f;
  const r = diff < 0.5 ? f : diff > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}

const JS_BINARY: Record<Binary, (x: number, y: number) => number> = {
  add: (x, y) => x + y, sub: (x, y) => x - y, mul: (x, y) => x * y, div: (x, y) => x / y,
  min: (x, y) => Math.min(x, y), max: (x, y) => Math.max(x, y),
};
const JS_UNARY: Record<Unary, (x: number) => number> = {
  sqrt: Math.sqrt, ceil: Math.ceil, floor: Math.floor, trunc: Math.trunc, nearest,
};

/** The rule of docs/determinism.md, on bits, written independently of numeric.ts. */
const model = {
  binary32(op: Binary, a: number, b: number): number {
    const minMax = op === 'min' || op === 'max';
    const [first, second] = minMax ? [b, a] : [a, b];
    if (isNaN32(first)) return quiet32(first);
    if (isNaN32(second)) return quiet32(second);
    const r = Math.fround(JS_BINARY[op](valueOf32(a), valueOf32(b)));
    return Number.isNaN(r) ? DEFAULT32 : bitsOf32(r);
  },
  binary64(op: Binary, a: bigint, b: bigint): bigint {
    const minMax = op === 'min' || op === 'max';
    const [first, second] = minMax ? [b, a] : [a, b];
    if (isNaN64(first)) return quiet64(first);
    if (isNaN64(second)) return quiet64(second);
    const r = JS_BINARY[op](valueOf64(a), valueOf64(b));
    return Number.isNaN(r) ? DEFAULT64 : bitsOf64(r);
  },
  unary32(op: Unary, a: number): number {
    if (isNaN32(a)) return quiet32(a);
    const r = Math.fround(JS_UNARY[op](valueOf32(a)));
    return Number.isNaN(r) ? DEFAULT32 : bitsOf32(r);
  },
  unary64(op: Unary, a: bigint): bigint {
    if (isNaN64(a)) return quiet64(a);
    const r = JS_UNARY[op](valueOf64(a));
    return Number.isNaN(r) ? DEFAULT64 : bitsOf64(r);
  },
  demote(a: bigint): number {
    if (!isNaN64(a)) return bitsOf32(Math.fround(valueOf64(a)));
    const sign = Number(a >> 63n) << 31;
    return (sign | 0x7fc00000 | Number((a >> 29n) & 0x3fffffn)) >>> 0;
  },
  promote(a: number): bigint {
    if (!isNaN32(a)) return bitsOf64(valueOf32(a));
    const sign = BigInt(a >>> 31) << 63n;
    return sign | 0x7ff8000000000000n | (BigInt(a & 0x3fffff) << 29n);
  },
};

/** A module with one export per operation, operands and result as integer bits. */
function probeModuleText(): string {
  const fns: string[] = [];
  for (const [t, it] of [['f32', 'i32'], ['f64', 'i64']] as const) {
    for (const op of BINARY) {
      fns.push(`(func (export "${t}.${op}") (param ${it} ${it}) (result ${it})
        (${it}.reinterpret_${t} (${t}.${op} (${t}.reinterpret_${it} (local.get 0)) (${t}.reinterpret_${it} (local.get 1)))))`);
    }
    for (const op of UNARY) {
      fns.push(`(func (export "${t}.${op}") (param ${it}) (result ${it})
        (${it}.reinterpret_${t} (${t}.${op} (${t}.reinterpret_${it} (local.get 0)))))`);
    }
  }
  fns.push('(func (export "demote") (param i64) (result i32) (i32.reinterpret_f32 (f32.demote_f64 (f64.reinterpret_i64 (local.get 0)))))');
  fns.push('(func (export "promote") (param i32) (result i64) (i64.reinterpret_f64 (f64.promote_f32 (f32.reinterpret_i32 (local.get 0)))))');
  return `(module ${fns.join('\n')})`;
}

/** Our engine and Node's, on the probe module, both taking and returning bits. */
class Probes {
  private readonly store = new Store();
  private readonly exports: ReadonlyMap<string, unknown>;
  readonly node: Record<string, (...args: Array<number | bigint>) => number | bigint>;

  constructor(bytes: Uint8Array<ArrayBuffer>) {
    this.exports = instantiate(this.store, compileModule(bytes), () => undefined).exports;
    this.node = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as Probes['node'];
  }

  ours32(name: string, ...args: number[]): number {
    return invokeSync(this.store, this.exports.get(name) as FuncRef, args.map((a) => WasmValue.i32(a)))[0]!.bits32;
  }

  ours64(name: string, ...args: bigint[]): bigint {
    return invokeSync(this.store, this.exports.get(name) as FuncRef, args.map((a) => WasmValue.i64(a)))[0]!.bits64;
  }

  demote(a: bigint): number {
    return invokeSync(this.store, this.exports.get('demote') as FuncRef, [WasmValue.i64(a)])[0]!.bits32;
  }

  promote(a: number): bigint {
    return invokeSync(this.store, this.exports.get('promote') as FuncRef, [WasmValue.i32(a)])[0]!.bits64;
  }
}

const P32 = F32_PATTERNS.map((b) => b >>> 0);
const P64 = F64_PATTERNS.map(([hi, lo]) => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0));
const h32 = (b: number): string => `0x${(b >>> 0).toString(16).padStart(8, '0')}`;
const h64 = (b: bigint): string => `0x${BigInt.asUintN(64, b).toString(16).padStart(16, '0')}`;

/** More operands: random bits, and random NaNs of both kinds and signs. */
function extraOperands(rng: Rng): { x32: number[]; x64: bigint[] } {
  const x32: number[] = [];
  const x64: bigint[] = [];
  for (let k = 0; k < 24; k++) {
    x32.push(rng.next(), ((rng.chance(0.5) ? 0xff800000 : 0x7f800000) | (1 + rng.int(0x7fffff))) >>> 0);
    x64.push(BigInt.asUintN(64, rng.i64()),
      (rng.chance(0.5) ? 0xfff0000000000000n : 0x7ff0000000000000n) | (1n + (BigInt.asUintN(64, rng.i64()) & 0xfffffffffffffn) % 0xfffffffffffffn));
  }
  return { x32, x64 };
}

describe('the NaN rule', () => {
  let probes: Probes;
  let ops32: number[] = [];
  let ops64: bigint[] = [];

  beforeAll(async () => {
    probes = new Probes(await assemble(probeModuleText()));
    const { x32, x64 } = extraOperands(new Rng(SEED ^ 0x1234));
    ops32 = [...P32, ...x32];
    ops64 = [...P64, ...x64];
  });

  it('as the examples in docs/determinism.md say', () => {
    // Two NaNs: the first, quieted (add, sub, mul, div); the second for min and max.
    expect(h32(probes.ours32('f32.add', 0x7fa00001, 0xffb00002 | 0))).toBe('0x7fe00001');
    expect(h32(probes.ours32('f32.add', 0xffb00002 | 0, 0x7fa00001))).toBe('0xfff00002');
    expect(h32(probes.ours32('f32.mul', 0x7fc00011, 0xffc00022 | 0))).toBe('0x7fc00011');
    expect(h32(probes.ours32('f32.min', 0x7fa00001, 0xffb00002 | 0))).toBe('0xfff00002');
    expect(h64(probes.ours64('f64.max', 0x7ff8000000000011n, 0x7ff4000000000002n))).toBe('0x7ffc000000000002');
    expect(h64(probes.ours64('f64.add', 0xfff4000000000002n - (1n << 64n), 0x7ff8000000000011n))).toBe('0xfffc000000000002');
    // One NaN: that NaN, quieted, whichever side it is on.
    expect(h32(probes.ours32('f32.sub', 0x3f800000, 0x7f800001))).toBe('0x7fc00001');
    expect(h32(probes.ours32('f32.max', 0x3f800000, 0xff800001 | 0))).toBe('0xffc00001');
    // NaNs from no NaN: x86's default NaN, sign set.
    expect(h32(probes.ours32('f32.sub', 0x7f800000, 0x7f800000))).toBe('0xffc00000');
    expect(h64(probes.ours64('f64.mul', 0n, 0x7ff0000000000000n))).toBe('0xfff8000000000000');
    expect(h64(probes.ours64('f64.div', 0n, 0n))).toBe('0xfff8000000000000');
    expect(h64(probes.ours64('f64.sqrt', 0xbff0000000000000n - (1n << 64n)))).toBe('0xfff8000000000000');
    expect(h32(probes.ours32('f32.sqrt', 0xbf800000 | 0))).toBe('0xffc00000');
    // Unary operations quiet their NaN operand.
    expect(h32(probes.ours32('f32.ceil', 0x7fa00001))).toBe('0x7fe00001');
    expect(h64(probes.ours64('f64.nearest', 0xfff0000000000001n - (1n << 64n)))).toBe('0xfff8000000000001');
    // Conversions keep sign and payload (what fits), quieted.
    expect(h32(probes.demote(0x7ff4000000000001n))).toBe('0x7fe00000');
    expect(h32(probes.demote(0x7ff0000020000000n))).toBe('0x7fc00001');
    expect(h64(probes.promote(0xffb00002 | 0))).toBe('0xfffe000040000000');
    expect(h64(probes.promote(0x7fa00001))).toBe('0x7ffc000020000000');
  });

  it('every operation, every pair of operands, bit for bit as the model says', () => {
    const failures: string[] = [];
    const check = (what: string, got: string, want: string): void => {
      if (got !== want && failures.length < 10) failures.push(`${what}: ${got}, expected ${want}`);
    };
    for (const op of BINARY) {
      for (const a of ops32) for (const b of ops32) {
        check(`f32.${op}(${h32(a)}, ${h32(b)})`, h32(probes.ours32(`f32.${op}`, a | 0, b | 0)), h32(model.binary32(op, a, b)));
      }
      for (const a of ops64) for (const b of ops64) {
        check(`f64.${op}(${h64(a)}, ${h64(b)})`, h64(probes.ours64(`f64.${op}`, a, b)), h64(model.binary64(op, a, b)));
      }
    }
    for (const op of UNARY) {
      for (const a of ops32) check(`f32.${op}(${h32(a)})`, h32(probes.ours32(`f32.${op}`, a | 0)), h32(model.unary32(op, a)));
      for (const a of ops64) check(`f64.${op}(${h64(a)})`, h64(probes.ours64(`f64.${op}`, a)), h64(model.unary64(op, a)));
    }
    for (const a of ops64) check(`demote(${h64(a)})`, h32(probes.demote(a)), h32(model.demote(a)));
    for (const a of ops32) check(`promote(${h32(a)})`, h64(probes.promote(a | 0)), h64(model.promote(a)));
    expect(failures).toEqual([]);
  });

  it('the NaN-heavy module of the determinism suite leaves in memory what the model says', async () => {
    const store = new Store();
    const inst = instantiate(store, compileModule(await assemble(nanModuleText())), () => undefined);
    const end = invokeSync(store, inst.exports.get('sweep') as FuncRef, [])[0]!.asI32;
    const view = new DataView(inst.memory!.read(0, inst.memory!.byteLength).buffer);
    const at32 = (o: number): number => view.getUint32(o, true);
    const at64 = (o: number): bigint => view.getBigUint64(o, true);
    const failures: string[] = [];
    let o = OUT;
    const want32 = (what: string, w: number): void => {
      if (at32(o) !== w && failures.length < 10) failures.push(`${what} at ${o}: ${h32(at32(o))}, expected ${h32(w)}`);
      o += 4;
    };
    const want64 = (what: string, w: bigint): void => {
      if (at64(o) !== w && failures.length < 10) failures.push(`${what} at ${o}: ${h64(at64(o))}, expected ${h64(w)}`);
      o += 8;
    };
    for (const op of BINARY) for (const a of P32) for (const b of P32) for (let k = 0; k < 3; k++) want32(`f32.${op}`, model.binary32(op, a, b));
    for (const a of P32) {
      for (const op of UNARY) want32(`f32.${op}`, model.unary32(op, a));
      want64('promote', model.promote(a));
    }
    for (const op of BINARY) for (const a of P64) for (const b of P64) for (let k = 0; k < 3; k++) want64(`f64.${op}`, model.binary64(op, a, b));
    for (const a of P64) {
      for (const op of UNARY) want64(`f64.${op}`, model.unary64(op, a));
      want32('demote', model.demote(a));
      o += 4;
    }
    const c32 = P32.filter((_, i) => i % 2 === 0 || i < 10);
    const c64 = P64.filter((_, i) => i % 2 === 0 || i < 10);
    for (const op of BINARY) {
      for (const a of c32) for (const b of c32.slice(0, 8)) want32(`const f32.${op}`, model.binary32(op, a, b));
      for (const a of c64) for (const b of c64.slice(0, 8)) want64(`const f64.${op}`, model.binary64(op, a, b));
    }
    for (const a of c32) {
      for (const op of UNARY) want32(`const f32.${op}`, model.unary32(op, a));
      want64('const promote', model.promote(a));
    }
    for (const a of c64) {
      for (const op of UNARY) want64(`const f64.${op}`, model.unary64(op, a));
      want32('const demote', model.demote(a));
    }
    expect(failures).toEqual([]);
    expect(o).toBe(end);
  });

  it("agrees with Node's own WebAssembly wherever Node and wasmtime agree", () => {
    // Node and wasmtime (x86-64) part ways on two cases (docs/determinism.md): min and max with a
    // NaN operand (Node's give the default NaN, wasmtime's propagate one), and add and mul with
    // two NaN operands (Node's baseline code gives the first, its optimised code the second).
    const failures: string[] = [];
    let compared = 0;
    const node = probes.node;
    for (const op of BINARY) {
      const minMax = op === 'min' || op === 'max';
      const commutes = op === 'add' || op === 'mul';
      for (const a of ops32) for (const b of ops32) {
        const nans = Number(isNaN32(a)) + Number(isNaN32(b));
        if ((minMax && nans > 0) || (commutes && nans === 2)) continue;
        const ours = h32(probes.ours32(`f32.${op}`, a | 0, b | 0));
        const theirs = h32(node[`f32.${op}`]!(a | 0, b | 0) as number);
        compared++;
        if (ours !== theirs && failures.length < 10) failures.push(`f32.${op}(${h32(a)}, ${h32(b)}): ours ${ours}, Node ${theirs}`);
      }
      for (const a of ops64) for (const b of ops64) {
        const nans = Number(isNaN64(a)) + Number(isNaN64(b));
        if ((minMax && nans > 0) || (commutes && nans === 2)) continue;
        const ours = h64(probes.ours64(`f64.${op}`, a, b));
        const theirs = h64(node[`f64.${op}`]!(BigInt.asIntN(64, a), BigInt.asIntN(64, b)) as bigint);
        compared++;
        if (ours !== theirs && failures.length < 10) failures.push(`f64.${op}(${h64(a)}, ${h64(b)}): ours ${ours}, Node ${theirs}`);
      }
    }
    for (const op of UNARY) {
      for (const a of ops32) {
        const ours = h32(probes.ours32(`f32.${op}`, a | 0));
        const theirs = h32(node[`f32.${op}`]!(a | 0) as number);
        compared++;
        if (ours !== theirs && failures.length < 10) failures.push(`f32.${op}(${h32(a)}): ours ${ours}, Node ${theirs}`);
      }
      for (const a of ops64) {
        const ours = h64(probes.ours64(`f64.${op}`, a));
        const theirs = h64(node[`f64.${op}`]!(BigInt.asIntN(64, a)) as bigint);
        compared++;
        if (ours !== theirs && failures.length < 10) failures.push(`f64.${op}(${h64(a)}): ours ${ours}, Node ${theirs}`);
      }
    }
    for (const a of ops64) {
      const ours = h32(probes.demote(a));
      const theirs = h32(node.demote!(BigInt.asIntN(64, a)) as number);
      compared++;
      if (ours !== theirs && failures.length < 10) failures.push(`demote(${h64(a)}): ours ${ours}, Node ${theirs}`);
    }
    for (const a of ops32) {
      const ours = h64(probes.promote(a | 0));
      const theirs = h64(node.promote!(a | 0) as bigint);
      compared++;
      if (ours !== theirs && failures.length < 10) failures.push(`promote(${h32(a)}): ours ${ours}, Node ${theirs}`);
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThan(20_000);
  });
});
