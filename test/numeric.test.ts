/**
 * Tests of src/interpreter/numeric.ts against Node's own WebAssembly engine as the oracle:
 * one exported wasm function per operation, thousands of seeded random and edge-case inputs
 * through both, results compared bit for bit (NaN results: both NaN, since WebAssembly leaves
 * the payload of a produced NaN nondeterministic). For traps both must trap, and our Trap kind
 * must be the one the inputs call for.
 *
 * Micro-benchmark notes (throw-away script, Node 20 / V8 11.3, `node --trace-gc`, 2 x 10^7 calls
 * in a hot switch loop storing results into the slot arrays, after a full warm-up run):
 * - Inlined (default flags): zero scavenges during the timed loop for i64Mul, i64DivS (small),
 *   i64RemU (64/32), shifts/rotates/popcnt, all truncations and i64 -> f32/f64 conversions,
 *   nearest, min. Loop overhead ~5 ns; i64Mul adds ~1.5 ns, small i64DivS ~2-3 ns, the general
 *   64/64 division ~16 ns. The only GCs seen came from one-off deopts when a rarely taken branch
 *   (e.g. a second quotient correction) was first reached, not from per-call allocation.
 * - Not inlined (--max-inlined-bytecode-size=60): the i64 functions, which take and return only
 *   int32s and write into `s`, still allocate nothing. Any function taking or returning a
 *   non-Smi double (the trunc family, the i64 -> float conversions, nearest, min/max) then
 *   boxes that double as a HeapNumber on every call, so those must be inlined into the
 *   dispatch loop: mind V8's inlining budget (max-inlined-bytecode-size 460 per function,
 *   920 cumulative per optimized function; only bytecode < 27 bytes is inlined for free).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { Trap, TrapKind } from '../src/interpreter/errors.js';
import * as N from '../src/interpreter/numeric.js';

// ---------------------------------------------------------------------------------------------
// Oracle module
// ---------------------------------------------------------------------------------------------

const I64_BINARY = ['mul', 'div_s', 'div_u', 'rem_s', 'rem_u', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr'] as const;
const I64_UNARY = ['clz', 'ctz', 'popcnt'] as const;

const TRUNCS: Array<[string, string, string]> = [];
for (const sat of ['', '_sat']) {
  for (const r of ['i32', 'i64']) {
    for (const p of ['f32', 'f64']) {
      for (const sg of ['s', 'u']) TRUNCS.push([`${r}.trunc${sat}_${p}_${sg}`, p, r]);
    }
  }
}

function buildWat(): string {
  const fns: string[] = [];
  const fn = (name: string, params: string[], result: string, body: string): void => {
    const ps = params.map((p) => `(param ${p})`).join(' ');
    const gets = params.map((_, i) => `local.get ${i}`).join(' ');
    fns.push(`(func (export "${name}") ${ps} (result ${result}) ${gets} ${body})`);
  };
  for (const op of I64_BINARY) fn(`i64.${op}`, ['i64', 'i64'], 'i64', `i64.${op}`);
  for (const op of I64_UNARY) fn(`i64.${op}`, ['i64'], 'i64', `i64.${op}`);
  for (const [name, p, r] of TRUNCS) fn(name, [p], r, name);
  for (const f of ['f32', 'f64']) {
    for (const sg of ['s', 'u']) {
      fn(`${f}.convert_i64_${sg}`, ['i64'], f, `${f}.convert_i64_${sg}`);
      fn(`${f}.convert_i32_${sg}`, ['i32'], f, `${f}.convert_i32_${sg}`);
    }
    fn(`${f}.min`, [f, f], f, `${f}.min`);
    fn(`${f}.max`, [f, f], f, `${f}.max`);
    for (const op of ['nearest', 'ceil', 'floor', 'trunc', 'sqrt']) fn(`${f}.${op}`, [f], f, `${f}.${op}`);
  }
  return `(module\n${fns.join('\n')}\n)`;
}

type WasmFn = (...args: unknown[]) => unknown;
let W: Record<string, WasmFn>;

beforeAll(async () => {
  const w = await wabt();
  const mod = w.parseWat('numeric.wat', buildWat(), { sat_float_to_int: true });
  const { buffer } = mod.toBinary({});
  mod.destroy();
  const instance = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(buffer)));
  W = instance.exports as unknown as Record<string, WasmFn>;
});

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, deterministic across runs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const M64 = (1n << 64n) - 1n;
const toI64 = (v: bigint): bigint => BigInt.asIntN(64, v);

function edgeI64(): bigint[] {
  const out = new Set<bigint>();
  for (let k = 0n; k < 64n; k++) {
    for (const d of [-2n, -1n, 0n, 1n, 2n]) {
      out.add(toI64((1n << k) + d));
      out.add(toI64(-(1n << k) + d));
    }
  }
  for (const v of [0n, 3n, 5n, 7n, 10n, 1000n, 0xffffffffn, 0x7fffffffn, 0x80000000n, 0xdeadbeefcafebaben, M64, 1n << 63n]) {
    out.add(toI64(v));
    out.add(toI64(-v));
  }
  // Values whose f32 rounding is a tie or just off a tie (2^24 + 1 scaled, plus a sticky bit).
  for (let k = 0n; k <= 39n; k++) {
    const t = ((1n << 24n) + 1n) << k;
    for (const d of [-1n, 0n, 1n]) {
      out.add(toI64(t + d));
      out.add(toI64(-(t + d)));
    }
    const t2 = ((1n << 25n) - 1n) << k; // all 24 bits set plus round bit: rounds up to a power of 2
    out.add(toI64(t2));
    out.add(toI64(t2 + 1n));
  }
  out.add((1n << 60n) + (1n << 36n) + 1n); // double rounding witness for i64 -> f64 -> f32
  return [...out];
}

class Gen {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = prng(seed);
  }
  u32(): bigint {
    return BigInt(this.r());
  }
  int(n: number): number {
    return this.r() % n;
  }
  /** Random i64 with a random bit length and sign; sometimes fully random bits. */
  i64(): bigint {
    const full = (this.u32() << 32n) | this.u32();
    switch (this.int(4)) {
      case 0:
        return toI64(full);
      case 1: {
        const bits = BigInt(this.int(65));
        return toI64(full & ((1n << bits) - 1n));
      }
      case 2: {
        const bits = BigInt(this.int(65));
        return toI64(-(full & ((1n << bits) - 1n)));
      }
      default: {
        // A tie-ish pattern for f32 rounding: 24 bits, a round bit, a sparse tail.
        const m = (1n << 23n) | (this.u32() & 0x7fffffn);
        const shift = BigInt(1 + this.int(39));
        let v = ((m << 1n) | BigInt(this.int(2))) << (shift - 1n);
        if (this.int(2) === 1) v |= 1n << BigInt(this.int(Number(shift)));
        v &= M64;
        return this.int(2) === 1 ? toI64(-v) : toI64(v);
      }
    }
  }
}

const f64buf = new DataView(new ArrayBuffer(8));
function f64FromBits(b: bigint): number {
  f64buf.setBigUint64(0, b & M64);
  return f64buf.getFloat64(0);
}
function f32FromBits(b: number): number {
  f64buf.setUint32(0, b >>> 0);
  return f64buf.getFloat32(0);
}
function f64Bits(x: number): bigint {
  f64buf.setFloat64(0, x);
  return f64buf.getBigUint64(0);
}
function f32Bits(x: number): number {
  f64buf.setFloat32(0, x);
  return f64buf.getUint32(0);
}
const nextUp64 = (x: number): number => f64FromBits(x >= 0 ? f64Bits(x) + 1n : f64Bits(x) - 1n);
const nextDown64 = (x: number): number => -nextUp64(-x);
const nextUp32 = (x: number): number => f32FromBits(x >= 0 ? f32Bits(x) + 1 : f32Bits(x) - 1);
const nextDown32 = (x: number): number => -nextUp32(-x);

function edgeFloats(): number[] {
  const out: number[] = [0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE,
    -Number.MAX_VALUE, f32FromBits(1), -f32FromBits(1), f32FromBits(0x7f7fffff), 2.2250738585072014e-308,
    0.49999999999999994, -0.49999999999999994, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.4, -0.4, 0.6, -0.6,
    -0.9999999, -1, 1, -1.0000001, 3.5, -3.5, 4.5, f64FromBits(0x7ff0000000000001n), f64FromBits(0xfff8000000000123n)];
  for (const e of [1, 22, 23, 24, 30, 31, 32, 33, 52, 53, 54, 62, 63, 64, 65]) {
    for (const sign of [1, -1]) {
      const b = sign * 2 ** e;
      out.push(b, nextUp64(b), nextDown64(b), nextUp32(b), nextDown32(b), b + 0.5, b - 0.5, b + 1, b - 1,
        b + 1.5, b - 1.5, b + 2.5, b - 2.5);
    }
  }
  out.push(-2147483649, -2147483648.5, -2147483648.9, 2147483647.5, 2147483647.9, 4294967295.5, 4294967295.9);
  return out;
}

function randFloat(g: Gen): number {
  switch (g.int(6)) {
    case 0:
      return f64FromBits((g.u32() << 32n) | g.u32());
    case 1:
      return f32FromBits(Number(g.u32()));
    case 2: {
      // Magnitudes around the interesting range, any fraction.
      const sign = g.int(2) === 1 ? -1 : 1;
      return sign * 2 ** (g.int(72) - 4) * (1 + g.r() / 2 ** 32);
    }
    case 3: {
      // Exact halves (nearest ties) of various sizes.
      const sign = g.int(2) === 1 ? -1 : 1;
      return sign * (Math.floor(2 ** g.int(53) * (g.r() / 2 ** 32)) + 0.5);
    }
    case 4: {
      // A few ulps from a conversion boundary.
      const b = [2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64, 1, 0][g.int(6)]! * (g.int(2) === 1 ? -1 : 1);
      let x = b;
      const n = g.int(5);
      const up = g.int(2) === 1;
      for (let i = 0; i < n; i++) x = up ? nextUp64(x) : nextDown64(x);
      return g.int(2) === 1 ? Math.fround(x) : x;
    }
    default:
      return (g.r() | 0) / (1 + g.int(1000));
  }
}

// ---------------------------------------------------------------------------------------------
// Comparison helpers
// ---------------------------------------------------------------------------------------------

type Outcome = { trap: false; value: unknown } | { trap: true; message: string };

function run(f: () => unknown): Outcome {
  try {
    return { trap: false, value: f() };
  } catch (e) {
    if (e instanceof Trap) return { trap: true, message: e.kind };
    if (e instanceof WebAssembly.RuntimeError) return { trap: true, message: e.message };
    throw e;
  }
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b)) return true;
  return Object.is(a, b);
}

/** Formats a float with its bit pattern for failure messages. */
function show(x: unknown): string {
  return typeof x === 'number' ? `${x} (0x${f64Bits(x).toString(16)})` : String(x);
}

const s = new Int32Array(16);
function put(idx: number, v: bigint): void {
  const [lo, hi] = N.bigIntToHalves(v);
  s[idx] = lo;
  s[idx + 1] = hi;
}
const get = (idx: number): bigint => N.i64ToBigInt(s[idx]!, s[idx + 1]!);

/** The V8 trap message that corresponds to each of our kinds. */
function v8Matches(ours: string, v8: string): boolean {
  switch (ours) {
    case TrapKind.IntegerDivideByZero:
      return /by zero/.test(v8);
    case TrapKind.IntegerOverflow:
      return /unrepresentable/.test(v8);
    case TrapKind.BadConversionToInteger:
      return /unrepresentable/.test(v8);
    default:
      return false;
  }
}

function check(label: string, ours: Outcome, oracle: Outcome, expectedTrap?: string): void {
  if (ours.trap || oracle.trap) {
    if (!(ours.trap && oracle.trap)) {
      throw new Error(`${label}: ours ${ours.trap ? `trapped (${ours.message})` : `= ${show(ours.value)}`}, ` +
        `oracle ${oracle.trap ? `trapped (${oracle.message})` : `= ${show(oracle.value)}`}`);
    }
    if (expectedTrap !== undefined && ours.message !== expectedTrap) {
      throw new Error(`${label}: trap kind ${ours.message}, expected ${expectedTrap}`);
    }
    if (!v8Matches(ours.message, oracle.message)) {
      throw new Error(`${label}: trap kind ${ours.message} vs oracle "${oracle.message}"`);
    }
    return;
  }
  if (!same(ours.value, oracle.value)) {
    throw new Error(`${label}: ours ${show(ours.value)}, oracle ${show(oracle.value)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// i64 arithmetic
// ---------------------------------------------------------------------------------------------

type Bin = (s: Int32Array, d: number, a: number, b: number) => void;
const BIN: Record<(typeof I64_BINARY)[number], Bin> = {
  mul: N.i64Mul,
  div_s: N.i64DivS,
  div_u: N.i64DivU,
  rem_s: N.i64RemS,
  rem_u: N.i64RemU,
  shl: N.i64Shl,
  shr_s: N.i64ShrS,
  shr_u: N.i64ShrU,
  rotl: N.i64Rotl,
  rotr: N.i64Rotr,
};

function binaryPairs(seed: number, n: number): Array<[bigint, bigint]> {
  const g = new Gen(seed);
  const edges = edgeI64();
  const pairs: Array<[bigint, bigint]> = [];
  // A deterministic sample of edge x edge.
  for (let i = 0; i < edges.length; i += 3) {
    for (let j = i % 7; j < edges.length; j += 7) pairs.push([edges[i]!, edges[j]!]);
  }
  for (const a of edges) pairs.push([a, -1n], [a, 1n], [a, 0n], [a, a], [a, -a]);
  for (let i = 0; i < n; i++) {
    const a = g.int(4) === 0 ? edges[g.int(edges.length)]! : g.i64();
    const b = g.int(4) === 0 ? edges[g.int(edges.length)]! : g.i64();
    pairs.push([a, b]);
    // Dividends built as q * b + r, to land near quotient-estimate boundaries.
    const q = g.int(2) === 0 ? g.u32() : BigInt(g.int(5));
    const r = BigInt(g.int(5)) - 2n;
    pairs.push([toI64(q * b + r), b]);
  }
  return pairs;
}

function expectedDivTrap(op: string, a: bigint, b: bigint): string | undefined {
  if (b === 0n) return TrapKind.IntegerDivideByZero;
  if (op === 'div_s' && a === -(1n << 63n) && b === -1n) return TrapKind.IntegerOverflow;
  return undefined;
}

describe('i64 binary operations', () => {
  const pairs = binaryPairs(0x5eed, 6000);
  for (const op of I64_BINARY) {
    it(`i64.${op} matches the oracle (${pairs.length * 3} cases incl. aliasing)`, () => {
      const ours = BIN[op];
      const oracle = W[`i64.${op}`]!;
      for (const [a, b] of pairs) {
        const exp = run(() => oracle(a, b));
        const label = `i64.${op}(${a}, ${b})`;
        const want = expectedDivTrap(op, a, b);
        // d distinct from a and b
        s[4] = 0x1234;
        s[5] = 0x5678;
        put(0, a);
        put(2, b);
        check(label, run(() => (ours(s, 4, 0, 2), get(4))), exp, want);
        if (exp.trap) {
          expect([s[4], s[5]]).toEqual([0x1234, 0x5678]); // nothing written on a trap
        }
        // d === a
        put(6, a);
        put(8, b);
        check(`${label} [d=a]`, run(() => (ours(s, 6, 6, 8), get(6))), exp, want);
        // d === b
        put(6, a);
        put(8, b);
        check(`${label} [d=b]`, run(() => (ours(s, 8, 6, 8), get(8))), exp, want);
      }
    });
  }

  it('a op a with d === a === b', () => {
    for (const a of edgeI64()) {
      for (const op of I64_BINARY) {
        const exp = run(() => W[`i64.${op}`]!(a, a));
        put(10, a);
        check(`i64.${op}(${a}, same)`, run(() => (BIN[op](s, 10, 10, 10), get(10))), exp);
      }
    }
  });

  it('specific division semantics', () => {
    const min = -(1n << 63n);
    put(0, min);
    put(2, -1n);
    expect(() => N.i64DivS(s, 4, 0, 2)).toThrow(new Trap(TrapKind.IntegerOverflow));
    N.i64RemS(s, 4, 0, 2);
    expect(get(4)).toBe(0n);
    put(2, 0n);
    for (const f of [N.i64DivS, N.i64DivU, N.i64RemS, N.i64RemU]) {
      expect(() => f(s, 4, 0, 2)).toThrow(new Trap(TrapKind.IntegerDivideByZero));
    }
    put(0, -7n);
    put(2, 2n);
    N.i64RemS(s, 4, 0, 2);
    expect(get(4)).toBe(-1n);
    N.i64DivS(s, 4, 0, 2);
    expect(get(4)).toBe(-3n);
  });
});

describe('i64 unary operations', () => {
  const un: Record<(typeof I64_UNARY)[number], (s: Int32Array, d: number, a: number) => void> = {
    clz: N.i64Clz,
    ctz: N.i64Ctz,
    popcnt: N.i64Popcnt,
  };
  const g = new Gen(77);
  const inputs = [...edgeI64()];
  for (let i = 0; i < 5000; i++) inputs.push(g.i64());
  for (const op of I64_UNARY) {
    it(`i64.${op} matches the oracle`, () => {
      for (const a of inputs) {
        const exp = run(() => W[`i64.${op}`]!(a));
        put(0, a);
        s[3] = 99;
        check(`i64.${op}(${a})`, run(() => (un[op](s, 2, 0), get(2))), exp);
        put(4, a);
        check(`i64.${op}(${a}) [d=a]`, run(() => (un[op](s, 4, 4), get(4))), exp);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Float -> integer
// ---------------------------------------------------------------------------------------------

describe('float -> integer truncation', () => {
  const g = new Gen(0xf10a7);
  const inputs = edgeFloats();
  for (let i = 0; i < 20000; i++) inputs.push(randFloat(g));

  const i32Fns: Record<string, (x: number) => number> = {
    'i32.trunc_f32_s': N.i32TruncF32S,
    'i32.trunc_f32_u': N.i32TruncF32U,
    'i32.trunc_f64_s': N.i32TruncF64S,
    'i32.trunc_f64_u': N.i32TruncF64U,
    'i32.trunc_sat_f32_s': N.i32TruncSatF32S,
    'i32.trunc_sat_f32_u': N.i32TruncSatF32U,
    'i32.trunc_sat_f64_s': N.i32TruncSatF64S,
    'i32.trunc_sat_f64_u': N.i32TruncSatF64U,
  };
  const i64Fns: Record<string, (s: Int32Array, d: number, x: number) => void> = {
    'i64.trunc_f32_s': N.i64TruncF32S,
    'i64.trunc_f32_u': N.i64TruncF32U,
    'i64.trunc_f64_s': N.i64TruncF64S,
    'i64.trunc_f64_u': N.i64TruncF64U,
    'i64.trunc_sat_f32_s': N.i64TruncSatF32S,
    'i64.trunc_sat_f32_u': N.i64TruncSatF32U,
    'i64.trunc_sat_f64_s': N.i64TruncSatF64S,
    'i64.trunc_sat_f64_u': N.i64TruncSatF64U,
  };

  for (const [name, p] of TRUNCS) {
    it(`${name} matches the oracle (${inputs.length} inputs)`, () => {
      const oracle = W[name]!;
      for (const x0 of inputs) {
        const x = p === 'f32' ? Math.fround(x0) : x0;
        const exp = run(() => oracle(x));
        const want = Number.isNaN(x) ? TrapKind.BadConversionToInteger : TrapKind.IntegerOverflow;
        const label = `${name}(${show(x)})`;
        const f32 = i32Fns[name];
        if (f32 !== undefined) {
          check(label, run(() => f32(x)), exp, want);
        } else {
          const f = i64Fns[name]!;
          check(label, run(() => (f(s, 2, x), get(2))), exp, want);
        }
      }
    });
  }

  it('range boundaries', () => {
    expect(N.i32TruncF32S(-2147483648)).toBe(-2147483648);
    expect(() => N.i32TruncF32S(2147483648)).toThrow(new Trap(TrapKind.IntegerOverflow));
    expect(() => N.i32TruncF64S(NaN)).toThrow(new Trap(TrapKind.BadConversionToInteger));
    expect(N.i32TruncF64U(-0.99)).toBe(0);
    expect(N.i32TruncF64U(4294967295.9)).toBe(-1);
    expect(() => N.i32TruncF64U(-1)).toThrow(new Trap(TrapKind.IntegerOverflow));
    N.i64TruncF32S(s, 0, -(2 ** 63));
    expect(get(0)).toBe(-(1n << 63n));
    expect(() => N.i64TruncF32S(s, 0, 2 ** 63)).toThrow(new Trap(TrapKind.IntegerOverflow));
    N.i64TruncF64U(s, 0, -0.5);
    expect(get(0)).toBe(0n);
    N.i64TruncSatF64U(s, 0, 1e300);
    expect(get(0)).toBe(-1n);
    N.i64TruncSatF64S(s, 0, NaN);
    expect(get(0)).toBe(0n);
  });
});

// ---------------------------------------------------------------------------------------------
// Integer -> float
// ---------------------------------------------------------------------------------------------

describe('integer -> float conversion', () => {
  const g = new Gen(0xc0417);
  const inputs = [...edgeI64()];
  for (let i = 0; i < 30000; i++) inputs.push(g.i64());

  const fns: Array<[string, (lo: number, hi: number) => number, boolean]> = [
    ['f32.convert_i64_s', N.f32ConvertI64S, true],
    ['f32.convert_i64_u', N.f32ConvertI64U, true],
    ['f64.convert_i64_s', N.f64ConvertI64S, false],
    ['f64.convert_i64_u', N.f64ConvertI64U, false],
  ];
  for (const [name, f, isF32] of fns) {
    it(`${name} matches the oracle (${inputs.length} inputs)`, () => {
      const oracle = W[name]!;
      for (const v of inputs) {
        const [lo, hi] = N.bigIntToHalves(v);
        const ours = f(lo, hi);
        check(`${name}(${v})`, { trap: false, value: ours }, run(() => oracle(v)));
        if (isF32) expect(Math.fround(ours)).toBe(ours);
      }
    });
  }

  it('f32.convert_i64 avoids double rounding', () => {
    const v = (1n << 60n) + (1n << 36n) + 1n;
    const [lo, hi] = N.bigIntToHalves(v);
    // Through a double: 2^60 + 2^36 is an exact f32 tie, rounding to even gives 2^60.
    expect(Math.fround(Number(v))).toBe(2 ** 60);
    expect(N.f32ConvertI64S(lo, hi)).toBe(2 ** 60 + 2 ** 37);
    expect(N.f32ConvertI64U(lo, hi)).toBe(2 ** 60 + 2 ** 37);
    expect(N.f32ConvertI64S(-lo | 0, ~hi)).toBe(-(2 ** 60 + 2 ** 37));
  });

  it('i32 -> f32 / f64', () => {
    const ins: number[] = [0, 1, -1, 0x7fffffff, -0x80000000, 16777217, -16777217, 16777219, 0x7fffffc0, -0x7fffffc0];
    for (let i = 0; i < 10000; i++) ins.push(g.r() >> g.int(32));
    for (const x of ins) {
      check(`f32.convert_i32_s(${x})`, { trap: false, value: N.f32ConvertI32S(x) }, run(() => W['f32.convert_i32_s']!(x)));
      check(`f32.convert_i32_u(${x})`, { trap: false, value: N.f32ConvertI32U(x) }, run(() => W['f32.convert_i32_u']!(x)));
      check(`f64.convert_i32_u(${x})`, { trap: false, value: N.f64ConvertI32U(x) }, run(() => W['f64.convert_i32_u']!(x)));
      check(`f64.convert_i32_s(${x})`, { trap: false, value: x }, run(() => W['f64.convert_i32_s']!(x)));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Float operations
// ---------------------------------------------------------------------------------------------

describe('float operations', () => {
  const g = new Gen(0xf1047);
  const inputs = edgeFloats();
  for (let i = 0; i < 20000; i++) inputs.push(randFloat(g));

  for (const f of ['f32', 'f64'] as const) {
    const round = f === 'f32' ? Math.fround : (x: number): number => x;
    it(`${f}.min / ${f}.max match the oracle`, () => {
      const min = f === 'f32' ? N.f32Min : N.f64Min;
      const max = f === 'f32' ? N.f32Max : N.f64Max;
      const edges = edgeFloats().map(round);
      const pairs: Array<[number, number]> = [];
      for (const a of edges) for (const b of edges) pairs.push([a, b]);
      for (let i = 0; i < 20000; i++) pairs.push([round(randFloat(g)), round(randFloat(g))]);
      for (const [a, b] of pairs) {
        check(`${f}.min(${show(a)}, ${show(b)})`, { trap: false, value: min(a, b) }, run(() => W[`${f}.min`]!(a, b)));
        check(`${f}.max(${show(a)}, ${show(b)})`, { trap: false, value: max(a, b) }, run(() => W[`${f}.max`]!(a, b)));
      }
    });

    it(`${f}.nearest matches the oracle; JS ceil/floor/trunc/sqrt are exact`, () => {
      const nearest = f === 'f32' ? N.f32Nearest : N.f64Nearest;
      const plain: Array<[string, (x: number) => number]> = [
        ['ceil', Math.ceil],
        ['floor', Math.floor],
        ['trunc', Math.trunc],
        ['sqrt', f === 'f32' ? (x: number): number => Math.fround(Math.sqrt(x)) : Math.sqrt],
      ];
      for (const x0 of inputs) {
        const x = round(x0);
        const r = nearest(x);
        check(`${f}.nearest(${show(x)})`, { trap: false, value: r }, run(() => W[`${f}.nearest`]!(x)));
        expect(round(r)).toBe(r);
        for (const [op, fn] of plain) {
          check(`${f}.${op}(${show(x)})`, { trap: false, value: fn(x) }, run(() => W[`${f}.${op}`]!(x)));
        }
      }
    });
  }

  it('nearest edge cases', () => {
    expect(Object.is(N.f64Nearest(-0.4), -0)).toBe(true);
    expect(Object.is(N.f64Nearest(-0.5), -0)).toBe(true);
    expect(Object.is(N.f64Nearest(-0), -0)).toBe(true);
    expect(Object.is(N.f64Nearest(0.5), 0)).toBe(true);
    expect(N.f64Nearest(2.5)).toBe(2);
    expect(N.f64Nearest(-2.5)).toBe(-2);
    expect(N.f64Nearest(3.5)).toBe(4);
    expect(N.f64Nearest(-1.5)).toBe(-2);
    expect(N.f64Nearest(4503599627370495.5)).toBe(4503599627370496);
    expect(N.f64Nearest(0.49999999999999994)).toBe(0);
    expect(N.f64Nearest(Infinity)).toBe(Infinity);
    expect(N.f64Nearest(NaN)).toBeNaN();
    expect(Object.is(N.f64Min(-0, 0), -0)).toBe(true);
    expect(Object.is(N.f64Max(-0, 0), 0)).toBe(true);
    expect(N.f32Min(NaN, 1)).toBeNaN();
  });
});

describe('BigInt helpers', () => {
  it('round-trip', () => {
    const g = new Gen(9);
    const vals = [...edgeI64()];
    for (let i = 0; i < 2000; i++) vals.push(g.i64());
    for (const v of vals) {
      const [lo, hi] = N.bigIntToHalves(v);
      expect(lo | 0).toBe(lo);
      expect(hi | 0).toBe(hi);
      expect(N.i64ToBigInt(lo, hi)).toBe(v);
    }
    expect(N.bigIntToHalves(1n << 64n)).toEqual([0, 0]);
    expect(N.bigIntToHalves(M64)).toEqual([-1, -1]);
    expect(N.i64ToBigInt(0, -0x80000000)).toBe(-(1n << 63n));
  });
});
