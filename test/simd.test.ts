/**
 * SIMD execution semantics (src/interpreter/simd.ts), differential against Node's own engine.
 *
 * Every instruction of the 0xFD table runs in a tiny WebAssembly function in V8 (operands
 * loaded from memory, the result stored to memory) and through the matching entry point of
 * simd.ts on a value stack, with the same random and edge-case inputs; results must agree bit
 * for bit. Lanes where V8 produced a NaN are compared with the documented NaN rule instead,
 * computed here by an independent model (nanModel); a separate test checks that V8 itself
 * follows that rule (wasmtime's on x86-64, which V8 shares on this machine). Relaxed SIMD is
 * checked against the non-relaxed instructions its deterministic profile equals, and the fused
 * multiply-add against an exact BigInt reference. The wasm-testsuite's simd_*.json and relaxed
 * scripts run where a function is a single SIMD instruction on its parameters.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SIMD_OPS, simdBinary, simdCanonicalize, simdConst, simdExtractLane, simdLoad, simdLoadLane, simdOpInfo,
  simdReduce, simdReplaceLane, simdShift, simdShuffle, simdSplat, simdStore, simdStoreLane, simdTernary,
  simdUnary, type SimdOpInfo,
} from '../src/interpreter/simd.js';
import { fma32, fma64 } from '../src/interpreter/simd-fma.js';
import { F32_DEFAULT_NAN, F64_DEFAULT_NAN_HI } from '../src/interpreter/simd-float.js';
import * as N from '../src/interpreter/numeric.js';
import { F32, F64, I32, I64, V128 } from '../src/interpreter/types.js';

type Wabt = Awaited<ReturnType<typeof import('wabt')>>;
let wabt: Wabt;
const FEATURES = { simd: true, relaxed_simd: true };
/** Generous limits: the tests take about 2 s of CPU in all, but a loaded machine stretches wall time. */
const SLOW = 180_000;

beforeAll(async () => {
  wabt = await (await import('wabt')).default();
}, SLOW);

function assemble(text: string): Uint8Array<ArrayBuffer> {
  const mod = wabt.parseWat('simd.wat', text, FEATURES);
  try {
    mod.validate();
    return new Uint8Array(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Random inputs
// ---------------------------------------------------------------------------------------------

/** xorshift128 with a fixed seed: the same inputs on every run. */
let r0 = 0x12345678, r1 = 0x9abcdef0 | 0, r2 = 0x0badf00d, r3 = 0x2545f491;
function rand(): number {
  let t = r3;
  const s = r0;
  r3 = r2;
  r2 = r1;
  r1 = s;
  t ^= t << 11;
  t ^= t >>> 8;
  r0 = t ^ s ^ (s >>> 19);
  return r0 >>> 0;
}
function randInt(n: number): number {
  return rand() % n;
}
function pickOf<T>(xs: readonly T[]): T {
  return xs[randInt(xs.length)]!;
}

const F32_SPECIAL = [
  0, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000, 0xc0200000,
  0x40600000, 0xbfc00000, 0x3effffff, 0xbeffffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
  0x7f800001, 0xff800001, 0x7fa00000, 0x7fffffff, 0xffffffff, 0x7fc12345, 0xffb54321, 0x00000001,
  0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x4f000000,
  0x4effffff, 0xcf000000, 0xcf000001, 0x4f800000, 0x4f7fffff, 0x4b000000, 0x4affffff, 0x4b7fffff,
  0xcb000001, 0x5f000000, 0x3f7fffff, 0xbf7fffff, 0x34000000, 0x3f800001, 0x4b400001, 0xcafffffe,
];
/** f64 specials as [lo, hi]. */
const F64_SPECIAL: [number, number][] = [
  [0, 0], [0, 0x80000000], [0, 0x3ff00000], [0, 0xbff00000], [0, 0x3fe00000], [0, 0xbfe00000],
  [0, 0x3ff80000], [0, 0x40040000], [0, 0xc0040000], [0, 0xbff80000], [0xffffffff, 0x3fdfffff],
  [0, 0x7ff00000], [0, 0xfff00000], [0, 0x7ff80000], [0, 0xfff80000], [1, 0x7ff00000], [1, 0xfff00000],
  [0, 0x7ff40000], [0xffffffff, 0x7fffffff], [0x5678abcd, 0x7ff81234], [0x1, 0xfff40000], [1, 0],
  [0xffffffff, 0x800fffff], [0, 0x00100000], [0xffffffff, 0x7fefffff], [0xffffffff, 0xffefffff],
  [0, 0x41e00000], [0xffe00000, 0x41dfffff], [0, 0xc1e00000], [0x00200000, 0xc1e00000],
  [0x00100000, 0xc1e00000], [0, 0x41f00000], [0xffe00000, 0x41efffff], [0xfff00000, 0x41efffff],
  [0, 0x43300000], [1, 0x43300000], [0, 0x43400000], [0xffffffff, 0x3fefffff], [0xe0000000, 0x47efffff],
  [0xf0000000, 0x47efffff], [0x10000000, 0x3ff00000], [0x30000000, 0x3ff00000], [0, 0x36a00000],
  [0, 0x36900000], [1, 0x36900000], [0, 0x38100000], [0x10000000, 0x380fffff], [0, 0x3ca00000],
];
const I8_SPECIAL = [0, 1, 0xff, 0x7f, 0x80, 0x7e, 0x81, 2, 0x40, 0xc0];
const I16_SPECIAL = [0, 1, 0xffff, 0x7fff, 0x8000, 0xff, 0x100, 0xff00, 0x4000, 0x8001, 0x7ffe, 0xc000];
const I32_SPECIAL = [0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0xffff, 0x10000, 0x7fff, 0x8000, 0xffff8000, 0x80000001];

type Shape = 'i8' | 'i16' | 'i32' | 'i64' | 'f32' | 'f64' | 'bits';
const SHAPES: Shape[] = ['i8', 'i16', 'i32', 'i64', 'f32', 'f64', 'bits'];

/** Four random words shaped as `shape` lanes, about half of them special values. */
function randomV128(shape: Shape, out: Uint32Array, at: number): void {
  const special = () => randInt(5) < 2;
  switch (shape) {
    case 'i8':
      for (let w = 0; w < 4; w++) {
        let x = 0;
        for (let k = 0; k < 4; k++) x |= (special() ? pickOf(I8_SPECIAL) : rand() & 0xff) << (8 * k);
        out[at + w] = x;
      }
      return;
    case 'i16':
      for (let w = 0; w < 4; w++) {
        const lo = special() ? pickOf(I16_SPECIAL) : rand() & 0xffff;
        const hi = special() ? pickOf(I16_SPECIAL) : rand() & 0xffff;
        out[at + w] = lo | (hi << 16);
      }
      return;
    case 'i32':
    case 'i64':
      for (let w = 0; w < 4; w++) out[at + w] = special() ? pickOf(I32_SPECIAL) : rand();
      return;
    case 'f32':
      for (let w = 0; w < 4; w++) out[at + w] = special() ? pickOf(F32_SPECIAL) : rand();
      return;
    case 'f64':
      for (let w = 0; w < 4; w += 2) {
        if (special()) {
          const [lo, hi] = pickOf(F64_SPECIAL);
          out[at + w] = lo;
          out[at + w + 1] = hi;
        } else {
          out[at + w] = rand();
          // Random exponents near 0 too, so that sums and products are ordinary numbers.
          out[at + w + 1] = randInt(2) === 0 ? rand() : (rand() & 0x800fffff) | ((0x3c0 + randInt(0x80)) << 20);
        }
      }
      return;
    default:
      for (let w = 0; w < 4; w++) out[at + w] = rand();
  }
}

const shapeCache = new Map<string, Shape[]>();

/** The shapes an instruction's name mentions (its operands' lane types), to shape its inputs. */
function shapesOf(name: string): Shape[] {
  let shapes = shapeCache.get(name);
  if (shapes === undefined) {
    shapes = findShapes(name);
    shapeCache.set(name, shapes);
  }
  return shapes;
}

function findShapes(name: string): Shape[] {
  const found = [...name.matchAll(/(i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)/g)].map((m) => {
    const s = m[1]!;
    return (s.startsWith('i8') ? 'i8' : s.startsWith('i16') ? 'i16' : s.slice(0, 3)) as Shape;
  });
  return found.length > 0 ? found : ['bits'];
}

function operand(name: string, out: Uint32Array, at: number): void {
  const shapes = shapesOf(name);
  randomV128(randInt(5) === 0 ? pickOf(SHAPES) : pickOf(shapes), out, at);
}

// ---------------------------------------------------------------------------------------------
// The NaN rule, modelled independently of simd-float.ts (docs/simd.md, "NaN results")
// ---------------------------------------------------------------------------------------------

const F32_DEFAULT = 0xffc00000;
const F64_DEFAULT = 0xfff8000000000000n;
const isNaN32 = (b: number) => (b & 0x7fffffff) > 0x7f800000;
const isNaN64 = (b: bigint) => (b & 0x7fffffffffffffffn) > 0x7ff0000000000000n;
const quiet32 = (b: number) => (b | 0x00400000) >>> 0;
const quiet64 = (b: bigint) => b | 0x0008000000000000n;

type NaNClass = 'arith' | 'min' | 'max' | 'unary' | 'fma' | 'nfma';
function nanClass(op: number): NaNClass {
  if ([0xe8, 0x10d, 0xf4, 0x10f].includes(op)) return 'min';
  if ([0xe9, 0x10e, 0xf5, 0x110].includes(op)) return 'max';
  if ([0xe4, 0xe5, 0xe6, 0xe7, 0xf0, 0xf1, 0xf2, 0xf3].includes(op)) return 'arith';
  if ([0x105, 0x107].includes(op)) return 'fma';
  if ([0x106, 0x108].includes(op)) return 'nfma';
  return 'unary';
}

/** The f32 NaN an instruction must produce in a lane whose operand lanes have bits x, y, z. */
function nanModel32(op: number, x: number, y: number, z: number): number {
  switch (nanClass(op)) {
    case 'min': return F32_DEFAULT;
    case 'max': return (((x | y) & 0x80000000) | 0x7fc00000) >>> 0;
    case 'arith': return isNaN32(x) ? quiet32(x) : isNaN32(y) ? quiet32(y) : F32_DEFAULT;
    case 'fma': case 'nfma': {
      const xx = nanClass(op) === 'nfma' ? (x ^ 0x80000000) >>> 0 : x;
      for (const v of [xx, y, z]) if (isNaN32(v)) return quiet32(v);
      return F32_DEFAULT;
    }
    default: return isNaN32(x) ? quiet32(x) : F32_DEFAULT;
  }
}

function nanModel64(op: number, x: bigint, y: bigint, z: bigint): bigint {
  switch (nanClass(op)) {
    case 'min': return F64_DEFAULT;
    case 'max': return ((x | y) & 0x8000000000000000n) | 0x7ff8000000000000n;
    case 'arith': return isNaN64(x) ? quiet64(x) : isNaN64(y) ? quiet64(y) : F64_DEFAULT;
    case 'fma': case 'nfma': {
      const xx = nanClass(op) === 'nfma' ? x ^ 0x8000000000000000n : x;
      for (const v of [xx, y, z]) if (isNaN64(v)) return quiet64(v);
      return F64_DEFAULT;
    }
    default: return isNaN64(x) ? quiet64(x) : F64_DEFAULT;
  }
}

const lane64 = (w: Uint32Array, at: number, k: number) => (BigInt(w[at + 2 * k + 1]!) << 32n) | BigInt(w[at + 2 * k]!);

/**
 * The expected NaN of result lane k (f32 or f64 by `info.nanLanes`) from the input words
 * (a at 0, b at 4, c at 8). demote: f64 lane k to f32 lane k; promote: f32 lane k to f64 lane k.
 */
function expectedNaN(info: SimdOpInfo, inputs: Uint32Array, k: number): bigint {
  if (info.op === 0x5e) { // demote: sign, quiet, top 23 payload bits
    const v = lane64(inputs, 0, k);
    return BigInt((Number(v >> 63n) << 31) >>> 0 | 0x7fc00000 | Number((v >> 29n) & 0x7fffffn)) & 0xffffffffn;
  }
  if (info.op === 0x5f) { // promote: sign, quiet, payload at the top
    const v = inputs[k]!;
    return (BigInt(v >>> 31) << 63n) | 0x7ff8000000000000n | (BigInt(v & 0x7fffff) << 29n);
  }
  if (info.nanLanes === 32) return BigInt(nanModel32(info.op, inputs[k]!, inputs[4 + k]!, inputs[8 + k]!));
  return nanModel64(info.op, lane64(inputs, 0, k), lane64(inputs, 4, k), lane64(inputs, 8, k));
}

// ---------------------------------------------------------------------------------------------
// Exact fused multiply-add (BigInt), for the relaxed madd reference
// ---------------------------------------------------------------------------------------------

interface Fmt { readonly bits: 32 | 64; readonly p: number; readonly bias: number; readonly emax: number }
const FMT32: Fmt = { bits: 32, p: 24, bias: 127, emax: 127 };
const FMT64: Fmt = { bits: 64, p: 53, bias: 1023, emax: 1023 };

interface Decoded { neg: boolean; kind: 'nan' | 'inf' | 'zero' | 'num'; m: bigint; e: number }
function decode(b: bigint, f: Fmt): Decoded {
  const mbits = BigInt(f.p - 1);
  const neg = (b >> BigInt(f.bits - 1)) === 1n;
  const expField = Number((b >> mbits) & ((1n << BigInt(f.bits - f.p)) - 1n));
  const frac = b & ((1n << mbits) - 1n);
  const maxExp = 2 * f.bias + 1;
  if (expField === maxExp) return { neg, kind: frac === 0n ? 'inf' : 'nan', m: 0n, e: 0 };
  if (expField === 0) return { neg, kind: frac === 0n ? 'zero' : 'num', m: frac, e: 1 - f.bias - (f.p - 1) };
  return { neg, kind: 'num', m: frac | (1n << mbits), e: expField - f.bias - (f.p - 1) };
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** The bits of ±n * 2^e (n > 0) rounded to nearest even in format f. */
function encodeRounded(neg: boolean, n: bigint, e: number, f: Fmt): bigint {
  const sign = neg ? 1n << BigInt(f.bits - 1) : 0n;
  const minLsb = 1 - f.bias - (f.p - 1);
  let top = e + bitLength(n) - 1;
  let lsb = Math.max(top - (f.p - 1), minLsb);
  let q: bigint;
  if (lsb > e) {
    const sh = BigInt(lsb - e);
    q = n >> sh;
    const rem = n & ((1n << sh) - 1n);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  } else {
    q = n << BigInt(e - lsb);
  }
  if (q === 1n << BigInt(f.p)) {
    q >>= 1n;
    lsb += 1;
  }
  top = lsb + bitLength(q) - 1;
  const inf = (BigInt(2 * f.bias + 1) << BigInt(f.p - 1)) | sign;
  if (q === 0n) return sign;
  if (top > f.emax) return inf;
  if (q < 1n << BigInt(f.p - 1)) return sign | q; // subnormal (lsb is minLsb)
  const expField = BigInt(lsb + (f.p - 1) + f.bias);
  return sign | (expField << BigInt(f.p - 1)) | (q - (1n << BigInt(f.p - 1)));
}

/** fma(x, y, z) on bits, NaN results as the NaN rule says (op selects madd/nmadd for the model). */
function fmaRef(op: number, xb: bigint, yb: bigint, zb: bigint, f: Fmt): bigint {
  const signBit = 1n << BigInt(f.bits - 1);
  if (op === 0x106 || op === 0x108) xb ^= signBit;
  const x = decode(xb, f), y = decode(yb, f), z = decode(zb, f);
  const defaultNaN = f.bits === 32 ? BigInt(F32_DEFAULT) : F64_DEFAULT;
  const quiet = f.bits === 32 ? 1n << 22n : 1n << 51n;
  for (const [d, b] of [[x, xb], [y, yb], [z, zb]] as const) if (d.kind === 'nan') return b | quiet;
  const pNeg = x.neg !== y.neg;
  const inf = (s: boolean) => (s ? signBit : 0n) | (BigInt(2 * f.bias + 1) << BigInt(f.p - 1));
  if (x.kind === 'inf' || y.kind === 'inf') {
    if (x.kind === 'zero' || y.kind === 'zero') return defaultNaN;
    if (z.kind === 'inf' && z.neg !== pNeg) return defaultNaN;
    return inf(pNeg);
  }
  if (z.kind === 'inf') return inf(z.neg);
  const pZero = x.kind === 'zero' || y.kind === 'zero';
  if (pZero && z.kind === 'zero') return pNeg && z.neg ? signBit : 0n;
  const pm = x.m * y.m, pe = x.e + y.e;
  const e = Math.min(pe, z.e);
  const sum = (pZero ? 0n : (pNeg ? -pm : pm) << BigInt(pe - e)) + (z.kind === 'zero' ? 0n : (z.neg ? -z.m : z.m) << BigInt(z.e - e));
  if (sum === 0n) return 0n;
  return encodeRounded(sum < 0n, sum < 0n ? -sum : sum, e, f);
}

// ---------------------------------------------------------------------------------------------
// The value stack our side runs on, and the V8 module
// ---------------------------------------------------------------------------------------------

const stack = new ArrayBuffer(256);
const s32 = new Int32Array(stack);
const f32 = new Float32Array(stack);
const f64 = new Float64Array(stack);
const u32 = new Uint32Array(stack);
/** Word offsets on our stack: operands a, b, c, the scalar slot, the destination. */
const A = 0, B = 4, C = 8, X = 12, D = 16;
/** Byte addresses in the V8 module's memory: the same layout, plus a region for memory instructions. */
const MA = 0, MB = 16, MC = 32, MX = 48, MR = 64, REGION = 128, REGION_END = 256;

const LOAD_SCALAR: Record<number, string> = { [I32]: 'i32', [I64]: 'i64', [F32]: 'f32', [F64]: 'f64' };

/** The relaxed instructions' deterministic profile, as a non-relaxed expression of (a, b, c). */
const EVEN = '0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29';
const ODD = '2 3 6 7 10 11 14 15 18 19 22 23 26 27 30 31';
const DOT16 = `(i16x8.add
  (i8x16.shuffle ${EVEN} (i16x8.extmul_low_i8x16_s $a $b) (i16x8.extmul_high_i8x16_s $a $b))
  (i8x16.shuffle ${ODD} (i16x8.extmul_low_i8x16_s $a $b) (i16x8.extmul_high_i8x16_s $a $b)))`;
const RELAXED_EQUIVALENT: Record<number, string> = {
  0x100: '(i8x16.swizzle $a $b)',
  0x101: '(i32x4.trunc_sat_f32x4_s $a)',
  0x102: '(i32x4.trunc_sat_f32x4_u $a)',
  0x103: '(i32x4.trunc_sat_f64x2_s_zero $a)',
  0x104: '(i32x4.trunc_sat_f64x2_u_zero $a)',
  0x109: '(v128.bitselect $a $b $c)',
  0x10a: '(v128.bitselect $a $b $c)',
  0x10b: '(v128.bitselect $a $b $c)',
  0x10c: '(v128.bitselect $a $b $c)',
  0x10d: '(f32x4.min $a $b)',
  0x10e: '(f32x4.max $a $b)',
  0x10f: '(f64x2.min $a $b)',
  0x110: '(f64x2.max $a $b)',
  0x111: '(i16x8.q15mulr_sat_s $a $b)',
  0x112: DOT16,
  0x113: `(i32x4.add (i32x4.extadd_pairwise_i16x8_s ${DOT16}) $c)`,
};

const SHUFFLES: number[][] = [];

/** The WebAssembly functions, one per instruction (and lane index), named `f<op>_<lane>`. */
function moduleText(): string {
  const fns: string[] = [];
  const v = (at: number) => `(v128.load (i32.const ${at}))`;
  const ops = (x: string) => x.replaceAll('$a', v(MA)).replaceAll('$b', v(MB)).replaceAll('$c', v(MC));
  for (const info of SIMD_OPS) {
    const n = info.name;
    const name = (lane = 0) => `"f${info.op}_${lane}"`;
    const res = (e: string) => `(v128.store (i32.const ${MR}) ${e})`;
    switch (info.entry) {
      case 'unary': case 'binary': case 'ternary': {
        const expr = info.relaxed
          ? RELAXED_EQUIVALENT[info.op]
          : `(${n} ${[MA, MB, MC].slice(0, info.params.length).map(v).join(' ')})`;
        if (expr !== undefined) fns.push(`(func (export ${name()}) ${res(ops(expr))})`);
        break;
      }
      case 'shift': fns.push(`(func (export ${name()}) ${res(`(${n} ${v(MA)} (i32.load (i32.const ${MX})))`)})`); break;
      case 'splat': {
        const t = LOAD_SCALAR[info.params[0]!]!;
        fns.push(`(func (export ${name()}) ${res(`(${n} (${t}.load (i32.const ${MX})))`)})`);
        break;
      }
      case 'extractLane': {
        const t = LOAD_SCALAR[info.results[0]!]!;
        for (let l = 0; l < info.lanes; l++) {
          fns.push(`(func (export ${name(l)}) (${t}.store (i32.const ${MR}) (${n} ${l} ${v(MA)})))`);
        }
        break;
      }
      case 'replaceLane': {
        const t = LOAD_SCALAR[info.params[1]!]!;
        for (let l = 0; l < info.lanes; l++) {
          fns.push(`(func (export ${name(l)}) ${res(`(${n} ${l} ${v(MA)} (${t}.load (i32.const ${MX})))`)})`);
        }
        break;
      }
      case 'reduce': fns.push(`(func (export ${name()}) (i32.store (i32.const ${MR}) (${n} ${v(MA)})))`); break;
      case 'load': fns.push(`(func (export ${name()}) (param i32) ${res(`(${n} (local.get 0))`)})`); break;
      case 'store': fns.push(`(func (export ${name()}) (param i32) (${n} (local.get 0) ${v(MA)}))`); break;
      case 'loadLane':
        for (let l = 0; l < info.lanes; l++) {
          fns.push(`(func (export ${name(l)}) (param i32) ${res(`(${n} ${l} (local.get 0) ${v(MA)})`)})`);
        }
        break;
      case 'storeLane':
        for (let l = 0; l < info.lanes; l++) {
          fns.push(`(func (export ${name(l)}) (param i32) (${n} ${l} (local.get 0) ${v(MA)}))`);
        }
        break;
      case 'shuffle':
        for (let l = 0; l < SHUFFLES.length; l++) {
          fns.push(`(func (export ${name(l)}) ${res(`(${n} ${SHUFFLES[l]!.join(' ')} ${v(MA)} ${v(MB)})`)})`);
        }
        break;
      case 'const': break; // tested on its own
    }
  }
  return `(module (memory (export "mem") 1)\n${fns.join('\n')})`;
}

let exports: Record<string, (...args: number[]) => void>;
let memory: WebAssembly.Memory;
let mem32: Uint32Array;
let mem8: Uint8Array;
/** Our copy of the V8 memory's bytes for the memory instructions (same addresses). */
const ours = new ArrayBuffer(REGION_END);
const oursView = new DataView(ours);
const ours8 = new Uint8Array(ours);

beforeAll(() => {
  for (let i = 0; i < 24; i++) SHUFFLES.push(Array.from({ length: 16 }, () => randInt(32)));
  SHUFFLES.push(Array.from({ length: 16 }, (_, i) => i), Array.from({ length: 16 }, (_, i) => 31 - i));
  const bytes = assemble(moduleText());
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  exports = instance.exports as unknown as Record<string, (...args: number[]) => void>;
  memory = instance.exports['mem'] as WebAssembly.Memory;
  mem32 = new Uint32Array(memory.buffer);
  mem8 = new Uint8Array(memory.buffer);
}, SLOW);

/** Runs an arithmetic-shaped instruction (unary, binary, ternary, shift) on our side, with destination d. */
function runOurs(info: SimdOpInfo, d: number, a = A, b = B, c = C): void {
  switch (info.entry) {
    case 'unary': simdUnary(info.op, s32, f32, f64, d, a); return;
    case 'binary': simdBinary(info.op, s32, f32, f64, d, a, b); return;
    case 'ternary': simdTernary(info.op, s32, f32, f64, d, a, b, c); return;
    case 'shift': simdShift(info.op, s32, d, a, s32[X]!); return;
    default: throw new Error(info.entry);
  }
}

const inputs = new Uint32Array(16);
const failures: string[] = [];
const v8NaNDisagreements = new Map<string, number>();
let nanLanesChecked = 0;

function hex(w: ArrayLike<number>, from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => (w[from + i]! >>> 0).toString(16).padStart(8, '0')).join(' ');
}

function report(info: SimdOpInfo, what: string): void {
  if (failures.length < 40) {
    failures.push(`${info.name} ${what}: a=[${hex(inputs, 0, 4)}] b=[${hex(inputs, 4, 4)}] c=[${hex(inputs, 8, 4)}] x=[${hex(inputs, 12, 2)}]`);
  }
}

/** Compares our v128 result at D with V8's at MR; NaN lanes go by the model. Returns false on a mismatch. */
function compareV128(info: SimdOpInfo): boolean {
  const v8 = mem32.subarray(MR / 4, MR / 4 + 4);
  if (info.nanLanes === 0) {
    for (let w = 0; w < 4; w++) {
      if (u32[D + w] !== v8[w]) {
        report(info, `ours [${hex(u32, D, 4)}] V8 [${hex(v8, 0, 4)}]`);
        return false;
      }
    }
    return true;
  }
  const wordsPerLane = info.nanLanes / 32;
  for (let k = 0; k < 4 / wordsPerLane; k++) {
    const w = k * wordsPerLane;
    const v8NaN = wordsPerLane === 1 ? isNaN32(v8[w]!) : (v8[w + 1]! & 0x7fffffff) > 0x7ff00000 || ((v8[w + 1]! & 0x7fffffff) === 0x7ff00000 && v8[w] !== 0);
    if (!v8NaN && u32[D + w] === v8[w] && (wordsPerLane === 1 || u32[D + w + 1] === v8[w + 1])) continue;
    const v8Lane = wordsPerLane === 1 ? BigInt(v8[w]!) : (BigInt(v8[w + 1]!) << 32n) | BigInt(v8[w]!);
    const ourLane = wordsPerLane === 1 ? BigInt(u32[D + w]!) : (BigInt(u32[D + w + 1]!) << 32n) | BigInt(u32[D + w]!);
    const v8IsNaN = wordsPerLane === 1 ? isNaN32(Number(v8Lane)) : isNaN64(v8Lane);
    if (!v8IsNaN) {
      if (ourLane !== v8Lane) {
        report(info, `lane ${k}: ours ${ourLane.toString(16)} V8 ${v8Lane.toString(16)}`);
        return false;
      }
      continue;
    }
    nanLanesChecked++;
    const want = expectedNaN(info, inputs, k);
    if (ourLane !== want) {
      report(info, `NaN lane ${k}: ours ${ourLane.toString(16)} rule ${want.toString(16)} (V8 ${v8Lane.toString(16)})`);
      return false;
    }
    if (v8Lane !== want) v8NaNDisagreements.set(info.name, (v8NaNDisagreements.get(info.name) ?? 0) + 1);
  }
  return true;
}

/** Copies `inputs` into V8's memory (a, b, c, scalar) and onto our stack. */
function placeInputs(): void {
  for (let w = 0; w < 14; w++) {
    mem32[w] = inputs[w]!;
    u32[w] = inputs[w]!;
  }
}

const ALIAS1 = [A];
const ALIAS2 = [A, B];
const SHIFT_COUNTS = [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, -1, -8, -16, -32, -64, 0x7fffffff, 0x80000000];

function randomInputs(info: SimdOpInfo): void {
  operand(info.name, inputs, 0);
  operand(info.name, inputs, 4);
  operand(info.name, inputs, 8);
  if (info.entry === 'shift') {
    inputs[12] = randInt(2) === 0 ? pickOf(SHIFT_COUNTS) : rand();
    inputs[13] = 0;
    return;
  }
  const t = info.entry === 'splat' ? info.params[0] : info.entry === 'replaceLane' ? info.params[1] : I32;
  randomV128(t === F32 ? 'f32' : t === F64 ? 'f64' : t === I64 ? 'i64' : pickOf(['i8', 'i16', 'i32'] as Shape[]), tmp, 0);
  inputs[12] = tmp[0]!;
  inputs[13] = tmp[1]!;
}

const tmp = new Uint32Array(4);
const CASES = 1500;

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('the SIMD instruction table', () => {
  it('has every 0xFD instruction of WebAssembly 2.0 and relaxed SIMD, with the opcode and types wabt gives it', () => {
    expect(SIMD_OPS.length).toBe(236 + 20);
    const leb = (n: number) => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, n >> 7]);
    const letter: Record<number, string> = { [I32]: 'i32', [I64]: 'i64', [F32]: 'f32', [F64]: 'f64', [V128]: 'v128' };
    for (const info of SIMD_OPS) {
      const params = info.params.map((t) => letter[t]).join(' ');
      const results = info.results.map((t) => letter[t]).join(' ');
      const gets = info.params.map((_, i) => `local.get ${i}`).join(' ');
      const imm = info.imm === 'lane' || info.imm === 'memargLane' ? ` ${info.lanes - 1}`
        : info.imm === 'bytes16' ? (info.op === 0x0c ? ' i32x4 0 0 0 0' : ' 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 31') : '';
      const bytes = assemble(`(module (memory 1) (func (param ${params}) (result ${results}) ${gets} ${info.name}${imm}))`);
      const immBytes = info.imm === 'memarg' ? [Math.log2(info.accessBytes), 0]
        : info.imm === 'memargLane' ? [Math.log2(info.accessBytes), 0, info.lanes - 1]
          : info.imm === 'lane' ? [info.lanes - 1]
            : info.imm === 'bytes16' ? (info.op === 0x0c ? new Array(16).fill(0) : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 31]) : [];
      const tail = [0xfd, ...leb(info.op), ...immBytes, 0x0b];
      expect(Array.from(bytes.subarray(bytes.length - tail.length)), info.name).toEqual(tail);
      expect(simdOpInfo(info.op)).toBe(info);
    }
  }, SLOW);
});

describe('SIMD against V8', () => {
  const arithmetic = SIMD_OPS.filter((i) => ['unary', 'binary', 'ternary', 'shift'].includes(i.entry)
    && !(i.op >= 0x105 && i.op <= 0x108));

  it(`unary, binary, ternary and shift instructions (${arithmetic.length}), ${CASES} inputs each`, () => {
    const bad = new Set<string>();
    for (const info of arithmetic) {
      const fn = exports[`f${info.op}_0`]!;
      for (let i = 0; i < CASES; i++) {
        randomInputs(info);
        placeInputs();
        fn();
        runOurs(info, D);
        if (!compareV128(info)) {
          bad.add(info.name);
          break;
        }
        if (i % 4 === 0) {
          // The destination may be an operand: same result in place.
          const w0 = u32[D], w1 = u32[D + 1], w2 = u32[D + 2], w3 = u32[D + 3];
          for (const alias of info.entry === 'binary' || info.entry === 'ternary' ? ALIAS2 : ALIAS1) {
            placeInputs();
            runOurs(info, alias);
            if (u32[alias] !== w0 || u32[alias + 1] !== w1 || u32[alias + 2] !== w2 || u32[alias + 3] !== w3) {
              report(info, `in place (d = ${alias}) differs`);
              bad.add(info.name);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect([...bad]).toEqual([]);
  }, SLOW);

  it('V8 produces the NaNs of the documented rule (wasmtime on x86-64) in every NaN lane', () => {
    expect(nanLanesChecked).toBeGreaterThan(1000);
    expect(Object.fromEntries(v8NaNDisagreements)).toEqual({});
  });

  it('splat, extract_lane, replace_lane, any_true, all_true, bitmask (every lane)', () => {
    for (const info of SIMD_OPS.filter((i) => ['splat', 'extractLane', 'replaceLane', 'reduce'].includes(i.entry))) {
      const lanes = info.lanes || 1;
      for (let lane = 0; lane < lanes; lane++) {
        const fn = exports[`f${info.op}_${lane}`]!;
        for (let i = 0; i < 200; i++) {
          randomInputs(info);
          if (info.entry === 'reduce' && randInt(3) === 0) {
            // all_true / any_true need vectors with and without zero lanes.
            const shape = shapesOf(info.name)[0]!;
            const width = shape === 'i8' ? 8 : shape === 'i16' ? 16 : shape === 'i64' ? 64 : 32;
            for (let w = 0; w < 4; w++) inputs[w] = randInt(2) === 0 ? 0 : inputs[w]! | 0x01010101;
            if (width === 8) for (let w = 0; w < 4; w++) inputs[w] = inputs[w]! & ~(randInt(4) === 0 ? 0xff << (8 * randInt(4)) : 0);
          }
          placeInputs();
          mem32.fill(0, MR / 4, MR / 4 + 4);
          u32.fill(0, D, D + 4);
          fn();
          let ok = true;
          switch (info.entry) {
            case 'splat': simdSplat(info.op, s32, D, X); break;
            case 'extractLane': simdExtractLane(info.op, s32, D, A, lane); break;
            case 'replaceLane': simdReplaceLane(info.op, s32, D, A, lane, X); break;
            default: ok = (simdReduce(info.op, s32, A) >>> 0) === mem32[MR / 4];
          }
          if (info.entry !== 'reduce') {
            const words = info.entry === 'extractLane' ? (info.results[0] === I64 || info.results[0] === F64 ? 2 : 1) : 4;
            for (let w = 0; w < words; w++) if (u32[D + w] !== mem32[MR / 4 + w]) ok = false;
          }
          if (!ok) report(info, `lane ${lane}: ours [${hex(u32, D, 4)}] V8 [${hex(mem32, MR / 4, 4)}]`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, SLOW);

  it('i8x16.shuffle with 26 lane patterns', () => {
    const info = simdOpInfo(0x0d)!;
    const imm = new Int32Array(4);
    SHUFFLES.forEach((lanes, l) => {
      for (let w = 0; w < 4; w++) imm[w] = lanes[4 * w]! | lanes[4 * w + 1]! << 8 | lanes[4 * w + 2]! << 16 | lanes[4 * w + 3]! << 24;
      for (let i = 0; i < 100; i++) {
        randomInputs(info);
        placeInputs();
        exports[`f13_${l}`]!();
        simdShuffle(s32, D, A, B, imm, 0);
        if (hex(u32, D, 4) !== hex(mem32, MR / 4, 4)) report(info, `pattern ${lanes.join(',')}`);
        placeInputs();
        simdShuffle(s32, B, A, B, imm, 0); // in place
        if (hex(u32, B, 4) !== hex(mem32, MR / 4, 4)) report(info, `in place, pattern ${lanes.join(',')}`);
      }
    });
    expect(failures).toEqual([]);
  }, SLOW);

  it('v128.const', () => {
    const code = new Int32Array([7, -1, 0x12345678, -0x80000000, 0x7fffffff, 9]);
    simdConst(s32, D, code, 1);
    expect(Array.from(s32.subarray(D, D + 4))).toEqual([-1, 0x12345678, -0x80000000, 0x7fffffff]);
  });

  it('loads, stores, lane loads and lane stores (every lane, every in-range address)', () => {
    const memOps = SIMD_OPS.filter((i) => ['load', 'store', 'loadLane', 'storeLane'].includes(i.entry));
    for (const info of memOps) {
      for (let lane = 0; lane < (info.lanes || 1); lane++) {
        const fn = exports[`f${info.op}_${lane}`]!;
        for (let i = 0; i < 60; i++) {
          randomInputs(info);
          placeInputs();
          for (let k = REGION; k < REGION_END; k++) mem8[k] = rand() & 0xff;
          ours8.set(mem8.subarray(0, REGION_END));
          const ea = REGION + randInt(REGION_END - REGION - info.accessBytes + 1);
          mem32.fill(0, MR / 4, MR / 4 + 4);
          fn(ea);
          switch (info.entry) {
            case 'load': simdLoad(info.op, s32, oursView, D, ea); break;
            case 'loadLane': simdLoadLane(info.op, s32, oursView, D, A, lane, ea); break;
            case 'store': simdStore(s32, oursView, ea, A); break;
            default: simdStoreLane(info.op, s32, oursView, ea, A, lane);
          }
          if (info.entry === 'load' || info.entry === 'loadLane') {
            if (hex(u32, D, 4) !== hex(mem32, MR / 4, 4)) report(info, `lane ${lane} ea ${ea}: ours [${hex(u32, D, 4)}] V8 [${hex(mem32, MR / 4, 4)}]`);
          } else if (Buffer.compare(ours8.subarray(REGION, REGION_END), mem8.subarray(REGION, REGION_END)) !== 0) {
            report(info, `lane ${lane} ea ${ea}: memory differs`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, SLOW);
});

describe('relaxed multiply-add (fused, as wasmtime computes it deterministically)', () => {
  /** Hard f64 cases: products whose exact value is near a tie or cancels against c. */
  function hardF64(): [bigint, bigint, bigint] {
    const w = new Uint32Array(4);
    randomV128('f64', w, 0);
    const x = lane64(w, 0, 0), y = lane64(w, 0, 1);
    const xv = new Float64Array(new BigUint64Array([x, y]).buffer);
    const p = xv[0]! * xv[1]!;
    const pb = new BigUint64Array(new Float64Array([-p]).buffer)[0]!;
    const z = randInt(2) === 0 ? pb : pb + BigInt(randInt(5)) - 2n;
    return [x, y, z & 0xffffffffffffffffn];
  }

  it('f32x4 and f64x2 relaxed_madd / relaxed_nmadd match an exact BigInt fma, NaNs by the rule', () => {
    for (const op of [0x105, 0x106, 0x107, 0x108]) {
      const info = simdOpInfo(op)!;
      const wide = info.nanLanes === 64;
      for (let i = 0; i < 4000; i++) {
        randomInputs(info);
        if (wide && randInt(3) === 0) {
          const [x, y, z] = hardF64();
          for (const [at, v] of [[0, x], [4, y], [8, z]] as const) {
            inputs[at] = Number(v & 0xffffffffn);
            inputs[at + 1] = Number(v >> 32n);
          }
        }
        placeInputs();
        simdTernary(op, s32, f32, f64, D, A, B, C);
        for (let k = 0; k < (wide ? 2 : 4); k++) {
          const want = wide
            ? fmaRef(op, lane64(inputs, 0, k), lane64(inputs, 4, k), lane64(inputs, 8, k), FMT64)
            : fmaRef(op, BigInt(inputs[k]!), BigInt(inputs[4 + k]!), BigInt(inputs[8 + k]!), FMT32);
          const got = wide ? lane64(u32, D, k) : BigInt(u32[D + k]!);
          if (got !== want) report(info, `lane ${k}: ours ${got.toString(16)} exact ${want.toString(16)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, SLOW);

  it('fma64 on extreme exponents (the BigInt path) and fma32 on subnormal results', () => {
    const f64b = new Float64Array(1);
    const b64 = new BigUint64Array(f64b.buffer);
    const bitsOf = (x: number) => { f64b[0] = x; return b64[0]!; };
    const cases: [number, number, number][] = [
      [1.7976931348623157e308, 2, -1.7976931348623157e308], [1e-300, 1e-300, 0], [-1e-300, 1e-300, 0],
      [1e-300, 1e-300, -0], [1e-200, 1e-200, 5e-324], [1e-160, 1e-160, -1e-320], [2 ** 1000, 2 ** 100, -(2 ** 1023)],
      [2 ** -1000, 2 ** -70, 2 ** -1074], [3, 2 ** 1022, -(2 ** 1023)], [1 + 2 ** -52, 1 - 2 ** -53, -1],
      [2 ** 600, 2 ** 500, 1], [5e-324, 0.5, 0], [5e-324, -0.5, 0], [1e308, 10, -Infinity], [0, Infinity, 1],
    ];
    for (let i = 0; i < 3000; i++) {
      const e = () => (randInt(2) === 0 ? 1 : -1) * (1 + rand() / 2 ** 32) * 2 ** (randInt(2100) - 1075);
      cases.push([e(), e(), e()]);
      cases.push([e(), e(), 0]);
    }
    for (const [x, y, z] of cases) {
      const want = fmaRef(0x107, bitsOf(x), bitsOf(y), bitsOf(z), FMT64);
      const r = fma64(x, y, z);
      if (r === r) expect(bitsOf(r).toString(16), `${x} * ${y} + ${z}`).toBe(want.toString(16));
      else expect(isNaN64(want)).toBe(true);
    }
    const f32b = new Float32Array(1);
    const b32 = new Uint32Array(f32b.buffer);
    for (let i = 0; i < 20000; i++) {
      const e = () => Math.fround((randInt(2) === 0 ? 1 : -1) * (1 + rand() / 2 ** 32) * 2 ** (randInt(80) - 150));
      const x = e(), y = Math.fround(2 ** (randInt(100) - 20) * (1 + rand() / 2 ** 32)), z = e();
      f32b[0] = x; const xb = b32[0]!; f32b[0] = y; const yb = b32[0]!; f32b[0] = z; const zb = b32[0]!;
      f32b[0] = fma32(x, y, z);
      expect(b32[0]!.toString(16)).toBe(fmaRef(0x105, BigInt(xb), BigInt(yb), BigInt(zb), FMT32).toString(16));
    }
  }, SLOW);

  it('the spec examples: fused results, not the double-rounded ones', () => {
    expect(fma32(Math.fround(2 ** 128 - 2 ** 104), 2, -Math.fround(2 ** 128 - 2 ** 104))).toBe(Math.fround(2 ** 128 - 2 ** 104));
    expect(fma32(Math.fround(1 + 2 ** -22), Math.fround(1 + 2 ** -15), -Math.fround(1 + 2 ** -15 + 2 ** -22))).toBe(2 ** -37);
    expect(fma64(1.7976931348623157e308, 2, -1.7976931348623157e308)).toBe(1.7976931348623157e308);
    expect(fma64(1 + 2 ** -30, 1 + 2 ** -23, -(1 + 2 ** -23 + 2 ** -30))).toBe(2 ** -53);
  });
});

describe('NaN results', () => {
  it('a NaN from non-NaN operands is the scalar rule\'s default NaN (numeric.ts)', () => {
    expect(F32_DEFAULT_NAN).toBe(N.F32_DEFAULT_NAN);
    expect(F64_DEFAULT_NAN_HI).toBe(N.F64_DEFAULT_NAN_HI);
    expect(F32_DEFAULT_NAN >>> 0).toBe(F32_DEFAULT);
    expect(BigInt(F64_DEFAULT_NAN_HI >>> 0) << 32n).toBe(F64_DEFAULT);
  });

  it('the canonicalisation hook rewrites NaN lanes of floating-point arithmetic to the canonical NaN, and nothing else', () => {
    s32.set([0x7fc00001, 0xffc00000 | 0, 0x3f800000, 0x7f800001], D);
    simdCanonicalize(0xe4, s32, D); // f32x4.add
    expect(Array.from(u32.subarray(D, D + 4))).toEqual([0x7fc00000, 0x7fc00000, 0x3f800000, 0x7fc00000]);
    s32.set([1, 0xfff80000 | 0, 0, 0x7ff00000], D);
    simdCanonicalize(0xf3, s32, D); // f64x2.div: lane 0 is a NaN, lane 1 +inf
    expect(Array.from(u32.subarray(D, D + 4))).toEqual([0, 0x7ff80000, 0, 0x7ff00000]);
    s32.set([0x7fc00001, 0xffc00000 | 0, 1, 2], D);
    simdCanonicalize(0xe1, s32, D); // f32x4.neg: a bit operation, left alone
    simdCanonicalize(0xea, s32, D); // pmin
    expect(Array.from(u32.subarray(D, D + 4))).toEqual([0x7fc00001, 0xffc00000, 1, 2]);
    expect(SIMD_OPS.filter((i) => i.nanLanes !== 0).map((i) => i.name)).toContain('f32x4.relaxed_madd');
  });
});

// ---------------------------------------------------------------------------------------------
// The wasm-testsuite scripts
// ---------------------------------------------------------------------------------------------

/** Reads a module's exported functions whose body is `local.get 0 .. local.get n-1; 0xfd op imm*; end`. */
function simpleFunctions(bytes: Uint8Array): Map<string, { op: number; imm: number[]; params: number[] }> {
  let p = 8;
  const u = () => {
    let r = 0, s = 0, b: number;
    do { b = bytes[p++]!; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
    return r;
  };
  const types: number[][] = [];
  const funcTypes: number[] = [];
  let imported = 0;
  const exportsByIndex = new Map<number, string>();
  const found = new Map<string, { op: number; imm: number[]; params: number[] }>();
  while (p < bytes.length) {
    const id = bytes[p++]!;
    const size = u();
    const end = p + size;
    if (id === 1) {
      for (let n = u(); n > 0; n--) {
        p++; // 0x60
        const ps: number[] = [];
        for (let k = u(); k > 0; k--) ps.push(bytes[p++]!);
        for (let k = u(); k > 0; k--) p++;
        types.push(ps);
      }
    } else if (id === 2) {
      for (let n = u(); n > 0; n--) {
        for (let k = u(); k > 0; k--) p++;
        for (let k = u(); k > 0; k--) p++;
        const kind = bytes[p++]!;
        if (kind === 0) { u(); imported++; } else if (kind === 1) { p++; const f = u(); u(); if (f & 1) u(); } else if (kind === 2) { const f = u(); u(); if (f & 1) u(); } else { p += 2; }
      }
    } else if (id === 3) {
      for (let n = u(); n > 0; n--) funcTypes.push(u());
    } else if (id === 7) {
      for (let n = u(); n > 0; n--) {
        const len = u();
        const name = new TextDecoder().decode(bytes.subarray(p, p + len));
        p += len;
        const kind = bytes[p++]!;
        const index = u();
        if (kind === 0) exportsByIndex.set(index, name);
      }
    } else if (id === 10) {
      const n = u();
      for (let f = 0; f < n; f++) {
        const bodySize = u();
        const bodyEnd = p + bodySize;
        const name = exportsByIndex.get(f + imported);
        const params = types[funcTypes[f]!]!;
        if (name !== undefined && u() === 0) {
          let ok = true;
          for (let i = 0; i < params.length; i++) if (bytes[p++] !== 0x20 || u() !== i) ok = false;
          if (ok && bytes[p] === 0xfd) {
            p++;
            const op = u();
            const imm = Array.from(bytes.subarray(p, bodyEnd - 1));
            if (bytes[bodyEnd - 1] === 0x0b) found.set(name, { op, imm, params });
          }
        }
        p = bodyEnd;
      }
    }
    p = end;
  }
  return found;
}

interface JsonValue { type: string; lane_type?: string; value?: string | string[] }

/** The words of a script value (v128 lanes or a scalar), or null for a NaN pattern / unsupported. */
function words(v: JsonValue): number[] | null {
  const val = v.value;
  if (v.type === 'v128') {
    const lanes = val as string[];
    const lt = v.lane_type!;
    const out = new Uint32Array(4);
    const bytes = new Uint8Array(out.buffer);
    const width = { i8: 1, i16: 2, i32: 4, f32: 4, i64: 8, f64: 8 }[lt]!;
    lanes.forEach((s, i) => {
      let n = s.startsWith('nan') ? 0n : BigInt.asUintN(width * 8, BigInt(s));
      for (let k = 0; k < width; k++) { bytes[i * width + k] = Number(n & 0xffn); n >>= 8n; }
    });
    return Array.from(out);
  }
  if (typeof val !== 'string') return null;
  const n = BigInt.asUintN(64, BigInt(val));
  return [Number(n & 0xffffffffn), Number(n >> 32n)];
}

/** Whether our result words match a script's expected value (NaN patterns per lane). */
function matches(expected: JsonValue, got: Uint32Array, at: number): boolean {
  if (expected.type === 'v128') {
    const lt = expected.lane_type!;
    const lanes = expected.value as string[];
    const want = words(expected)!;
    const width = { i8: 1, i16: 2, i32: 4, f32: 4, i64: 8, f64: 8 }[lt]!;
    const bytes = new Uint8Array(got.buffer, got.byteOffset + at * 4, 16);
    const wantBytes = new Uint8Array(new Uint32Array(want).buffer);
    return lanes.every((s, i) => {
      const laneBytes = bytes.subarray(i * width, (i + 1) * width);
      if (s.startsWith('nan')) {
        const b = width === 4 ? BigInt(new Uint32Array(laneBytes.slice().buffer)[0]!) : new BigUint64Array(laneBytes.slice().buffer)[0]!;
        const isNaN = width === 4 ? isNaN32(Number(b)) : isNaN64(b);
        const q = width === 4 ? (b & 0x7fffffn) === 0x400000n : (b & 0xfffffffffffffn) === 0x8000000000000n;
        const quietBit = width === 4 ? (b & 0x400000n) !== 0n : (b & 0x8000000000000n) !== 0n;
        return isNaN && (s === 'nan:canonical' ? q : quietBit);
      }
      return laneBytes.every((x, k) => x === wantBytes[i * width + k]);
    });
  }
  const want = words(expected);
  if (want === null) return false;
  return expected.type === 'i64' || expected.type === 'f64'
    ? got[at] === want[0] && got[at + 1] === want[1]
    : got[at] === want[0];
}

describe('wasm-testsuite scripts (functions that are a single SIMD instruction)', () => {
  const roots = ['../shared/wasm-testsuite/json', '../shared/wasm-testsuite-3/json'];
  const dirs = roots.filter(existsSync).flatMap((root) => readdirSync(root)
    .filter((n) => n.startsWith('simd_') || n.includes('relaxed'))
    .map((n) => join(root, n)));

  it.skipIf(dirs.length === 0)('assert_return results match (either: one of the alternatives)', () => {
    let ran = 0;
    const scriptFailures: string[] = [];
    for (const dir of dirs) {
      const name = dir.split('/').pop()!;
      const script = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { commands: {
        type: string; filename?: string; line: number;
        action?: { type: string; field: string; args: JsonValue[]; module?: string };
        expected?: JsonValue[];
        either?: JsonValue[];
      }[] };
      let fns = new Map<string, { op: number; imm: number[]; params: number[] }>();
      for (const cmd of script.commands) {
        if (cmd.type === 'module') {
          fns = cmd.filename!.endsWith('.wasm') ? simpleFunctions(readFileSync(join(dir, cmd.filename!))) : new Map();
          continue;
        }
        if (cmd.type !== 'assert_return' || cmd.action?.type !== 'invoke' || cmd.action.module !== undefined) continue;
        const fn = fns.get(cmd.action.field);
        if (fn === undefined) continue;
        const info = simdOpInfo(fn.op);
        const immLength = info === undefined ? -1 : info.imm === 'none' ? 0 : info.imm === 'lane' ? 1 : info.imm === 'bytes16' ? 16 : -1;
        if (info === undefined || fn.imm.length !== immLength || !['unary', 'binary', 'ternary', 'shift', 'splat', 'extractLane', 'replaceLane', 'reduce', 'shuffle'].includes(info.entry)) continue;
        const args = cmd.action.args.map(words);
        if (args.some((a) => a === null)) continue;
        // Our stack: v128 arguments at A, B, C; a scalar argument at X.
        let vAt = 0;
        const vSlots = [A, B, C];
        for (let i = 0; i < args.length; i++) {
          const w = args[i]!;
          if (cmd.action.args[i]!.type === 'v128') { for (let k = 0; k < 4; k++) u32[vSlots[vAt]! + k] = w[k]!; vAt++; } else { u32[X] = w[0]!; u32[X + 1] = w[1]!; }
        }
        u32.fill(0, D, D + 4);
        let reduced = 0;
        switch (info.entry) {
          case 'unary': case 'binary': case 'ternary': runOurs(info, D); break;
          case 'shift': simdShift(info.op, s32, D, A, s32[X]!); break;
          case 'splat': simdSplat(info.op, s32, D, X); break;
          case 'extractLane': simdExtractLane(info.op, s32, D, A, fn.imm[0]!); break;
          case 'replaceLane': simdReplaceLane(info.op, s32, D, A, fn.imm[0]!, X); break;
          case 'reduce': reduced = simdReduce(info.op, s32, A); u32[D] = reduced; break;
          default: simdShuffle(s32, D, A, B, new Int32Array(new Uint8Array(fn.imm).buffer), 0);
        }
        const alternatives = cmd.either ?? cmd.expected ?? [];
        if (alternatives.length === 0) continue;
        ran++;
        if (!alternatives.some((e) => matches(e, u32, D)) && scriptFailures.length < 30) {
          scriptFailures.push(`${name}:${cmd.line} ${cmd.action.field}: got [${hex(u32, D, 4)}]`);
        }
      }
    }
    expect(scriptFailures).toEqual([]);
    expect(ran).toBeGreaterThan(20000);
  }, SLOW);
});
