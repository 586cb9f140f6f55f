/**
 * f32x4 and f64x2 lanes: arithmetic, comparisons, rounding, conversions, and the one place
 * where the bits of a NaN result are decided (docs/simd.md, "NaN results").
 *
 * Lanes are read and written through the Float32Array / Float64Array views of the value stack
 * (an f32x4 at word offset a has lane k at f32[a + k], an f64x2 lane k at f64[(a >> 1) + k]).
 * Every operation computes all its lanes into locals before it writes any (so the destination
 * may overlap an operand), and writes a computed number only when it is not a NaN: storing a
 * number into a typed array is exact for every non-NaN value. When some lane's result is a NaN,
 * the whole operation is redone by a slow path that reads the operands' raw bits (still intact,
 * as nothing was written) and applies the NaN rule. So a NaN's bits never depend on V8 or the
 * CPU, and the ordinary path costs one `r === r` test per lane.
 */
import { fma32, fma64 } from './simd-fma.js';
import { R32, X32, XD, XF, Y32, YD, YF, Z32, ZD, ZF, load2, load3, store } from './simd-lanes.js';
import {
  F32_DEFAULT_NAN, F32_QUIET, F64_DEFAULT_NAN_HI, F64_QUIET_HI, f32NaNBits1, f32NaNBits2, isNaN32, isNaN64,
} from './numeric.js';

// ---------------------------------------------------------------------------------------------
// The NaN rule: wasmtime's on x86-64 (SSE/AVX semantics), which is also what V8 produces on
// x86-64, so the tests check it against Node's own engine.
// ---------------------------------------------------------------------------------------------

// The scalar rule's constants and predicates (numeric.ts) serve the lanes too.
export { F32_DEFAULT_NAN, F64_DEFAULT_NAN_HI, isNaN32, isNaN64 };

/** The canonical NaN a NaN-canonicalising mode writes (positive, quiet, no payload), as Cranelift's. */
export const F32_CANONICAL_NAN = 0x7fc00000;
/** The high word of the canonical f64 NaN (the low word is 0). */
export const F64_CANONICAL_NAN_HI = 0x7ff80000;
const SIGN = 0x80000000 | 0;

/**
 * The bits of an f32 NaN result of the binary operation `op` on lanes with bits x, y:
 * - min (f32x4.min, relaxed_min): the default NaN, whatever the operands (wasmtime's and V8's
 *   minps sequence ORs the two orders, then replaces NaN lanes by all-ones with the payload cleared);
 * - max (f32x4.max, relaxed_max): a quiet NaN without payload whose sign is the OR of both
 *   operands' signs (the maxps sequence's NaN is x | y, quieted by a subtraction, payload cleared);
 * - add, sub, mul, div: the first NaN operand, quieted; else (inf - inf, 0 * inf, 0 / 0,
 *   inf / inf) the default NaN.
 */
function f32NaN2(op: number, x: number, y: number): number {
  if (op === 0xe8 || op === 0x10d) return F32_DEFAULT_NAN;
  if (op === 0xe9 || op === 0x10e) return ((x | y) & SIGN) | 0x7fc00000;
  return f32NaNBits2(x, y);
}

/** f64 counterpart of f32NaN2: writes the NaN for lane words (xl, xh), (yl, yh) to R32 at k, k + 1. */
function f64NaN2(op: number, k: number, xl: number, xh: number, yl: number, yh: number): void {
  if (op === 0xf4 || op === 0x10f) {
    R32[k] = 0;
    R32[k + 1] = F64_DEFAULT_NAN_HI;
  } else if (op === 0xf5 || op === 0x110) {
    R32[k] = 0;
    R32[k + 1] = ((xh | yh) & SIGN) | 0x7ff80000;
  } else if (isNaN64(xl, xh)) {
    R32[k] = xl;
    R32[k + 1] = xh | F64_QUIET_HI;
  } else if (isNaN64(yl, yh)) {
    R32[k] = yl;
    R32[k + 1] = yh | F64_QUIET_HI;
  } else {
    R32[k] = 0;
    R32[k + 1] = F64_DEFAULT_NAN_HI;
  }
}

/** f64 counterpart of numeric.ts f32NaNBits1, into R32 at k, k + 1. */
function f64NaN1(k: number, xl: number, xh: number): void {
  if (isNaN64(xl, xh)) {
    R32[k] = xl;
    R32[k + 1] = xh | F64_QUIET_HI;
  } else {
    R32[k] = 0;
    R32[k + 1] = F64_DEFAULT_NAN_HI;
  }
}

/**
 * Rewrites every NaN lane of the v128 at `d` to the canonical NaN: `lanes` 32 for f32x4, 64
 * for f64x2 (SimdOpInfo.nanLanes). For a NaN-canonicalising mode, after an instruction whose
 * nanLanes is not 0.
 */
export function canonicalizeNaNLanes(s32: Int32Array, d: number, lanes: number): void {
  if (lanes === 32) {
    for (let k = 0; k < 4; k++) if (isNaN32(s32[d + k]!)) s32[d + k] = F32_CANONICAL_NAN;
  } else if (lanes === 64) {
    for (let k = 0; k < 4; k += 2) {
      if (isNaN64(s32[d + k]!, s32[d + k + 1]!)) {
        s32[d + k] = 0;
        s32[d + k + 1] = F64_CANONICAL_NAN_HI;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Lane arithmetic in one place, for the slow paths
// ---------------------------------------------------------------------------------------------

/** nearest: round half to even. Math.round rounds halves up and keeps the sign of zero. */
function nearest(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && (r & 1) !== 0 ? r - 1 : r;
}

/** One f32 lane of a binary operation (NaN results are fixed by the caller). */
function f32Lane2(op: number, x: number, y: number): number {
  switch (op) {
    case 0xe4: return Math.fround(x + y);
    case 0xe5: return Math.fround(x - y);
    case 0xe6: return Math.fround(x * y);
    case 0xe7: return Math.fround(x / y);
    case 0xe8: case 0x10d: return Math.min(x, y);
    default: return Math.max(x, y); // 0xe9, 0x10e
  }
}

/** One f64 lane of a binary operation. */
function f64Lane2(op: number, x: number, y: number): number {
  switch (op) {
    case 0xf0: return x + y;
    case 0xf1: return x - y;
    case 0xf2: return x * y;
    case 0xf3: return x / y;
    case 0xf4: case 0x10f: return Math.min(x, y);
    default: return Math.max(x, y); // 0xf5, 0x110
  }
}

/** One lane of a unary rounding or sqrt (f32 or f64: every result of an f32 operand is an f32 but sqrt's). */
function lane1(op: number, x: number): number {
  switch (op) {
    case 0xe3: return Math.fround(Math.sqrt(x));
    case 0xef: return Math.sqrt(x);
    case 0x67: case 0x74: return Math.ceil(x);
    case 0x68: case 0x75: return Math.floor(x);
    case 0x69: case 0x7a: return Math.trunc(x);
    default: return nearest(x); // 0x6a, 0x94
  }
}

/** f32x4 binary arithmetic with a NaN in some lane. */
function f32x4Slow2(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  load2(s32, a, b);
  for (let k = 0; k < 4; k++) {
    const r = f32Lane2(op, XF[k]!, YF[k]!);
    if (r === r) R32[k] = bitsOfF32(r);
    else R32[k] = f32NaN2(op, X32[k]!, Y32[k]!);
  }
  store(s32, d);
}

/** f64x2 binary arithmetic with a NaN in some lane. */
function f64x2Slow2(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  load2(s32, a, b);
  for (let k = 0; k < 2; k++) {
    const r = f64Lane2(op, XD[k]!, YD[k]!);
    if (r === r) setF64(2 * k, r);
    else f64NaN2(op, 2 * k, X32[2 * k]!, X32[2 * k + 1]!, Y32[2 * k]!, Y32[2 * k + 1]!);
  }
  store(s32, d);
}

/** f32x4 rounding or sqrt with a NaN in some lane. */
function f32x4Slow1(op: number, s32: Int32Array, d: number, a: number): void {
  load2(s32, a, a);
  for (let k = 0; k < 4; k++) {
    const r = lane1(op, XF[k]!);
    if (r === r) R32[k] = bitsOfF32(r);
    else R32[k] = f32NaNBits1(X32[k]!);
  }
  store(s32, d);
}

/** f64x2 rounding or sqrt with a NaN in some lane. */
function f64x2Slow1(op: number, s32: Int32Array, d: number, a: number): void {
  load2(s32, a, a);
  for (let k = 0; k < 2; k++) {
    const r = lane1(op, XD[k]!);
    if (r === r) setF64(2 * k, r);
    else f64NaN1(2 * k, X32[2 * k]!, X32[2 * k + 1]!);
  }
  store(s32, d);
}

/** The bits of the f32 value r, through the result register's Float32Array view (ZF is free here). */
function bitsOfF32(r: number): number {
  ZF[0] = r;
  return Z32[0]!;
}

/** Writes the f64 value r into R32 at k, k + 1 (through ZD, free in the slow paths that use it). */
function setF64(k: number, r: number): void {
  ZD[0] = r;
  R32[k] = Z32[0]!;
  R32[k + 1] = Z32[1]!;
}

// ---------------------------------------------------------------------------------------------
// f32x4 arithmetic
// ---------------------------------------------------------------------------------------------

export function f32x4Add(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.fround(f32[a]! + f32[b]!);
  const r1 = Math.fround(f32[a + 1]! + f32[b + 1]!);
  const r2 = Math.fround(f32[a + 2]! + f32[b + 2]!);
  const r3 = Math.fround(f32[a + 3]! + f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(0xe4, s32, d, a, b);
}

export function f32x4Sub(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.fround(f32[a]! - f32[b]!);
  const r1 = Math.fround(f32[a + 1]! - f32[b + 1]!);
  const r2 = Math.fround(f32[a + 2]! - f32[b + 2]!);
  const r3 = Math.fround(f32[a + 3]! - f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(0xe5, s32, d, a, b);
}

export function f32x4Mul(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.fround(f32[a]! * f32[b]!);
  const r1 = Math.fround(f32[a + 1]! * f32[b + 1]!);
  const r2 = Math.fround(f32[a + 2]! * f32[b + 2]!);
  const r3 = Math.fround(f32[a + 3]! * f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(0xe6, s32, d, a, b);
}

export function f32x4Div(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.fround(f32[a]! / f32[b]!);
  const r1 = Math.fround(f32[a + 1]! / f32[b + 1]!);
  const r2 = Math.fround(f32[a + 2]! / f32[b + 2]!);
  const r3 = Math.fround(f32[a + 3]! / f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(0xe7, s32, d, a, b);
}

/** f32x4.min (and relaxed_min, op 0x10d): Math.min has WebAssembly's semantics (min(-0, +0) = -0) but for NaN bits. */
export function f32x4Min(op: number, s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.min(f32[a]!, f32[b]!);
  const r1 = Math.min(f32[a + 1]!, f32[b + 1]!);
  const r2 = Math.min(f32[a + 2]!, f32[b + 2]!);
  const r3 = Math.min(f32[a + 3]!, f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(op, s32, d, a, b);
}

/** f32x4.max (and relaxed_max, op 0x10e). */
export function f32x4Max(op: number, s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = Math.max(f32[a]!, f32[b]!);
  const r1 = Math.max(f32[a + 1]!, f32[b + 1]!);
  const r2 = Math.max(f32[a + 2]!, f32[b + 2]!);
  const r3 = Math.max(f32[a + 3]!, f32[b + 3]!);
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow2(op, s32, d, a, b);
}

/**
 * f32x4.pmin: b < a ? b : a, lane by lane, as bits (a NaN comes through unchanged, signalling
 * or not: the result is always one of the operands).
 */
export function f32x4Pmin(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = f32[b]! < f32[a]! ? s32[b]! : s32[a]!;
  const r1 = f32[b + 1]! < f32[a + 1]! ? s32[b + 1]! : s32[a + 1]!;
  const r2 = f32[b + 2]! < f32[a + 2]! ? s32[b + 2]! : s32[a + 2]!;
  const r3 = f32[b + 3]! < f32[a + 3]! ? s32[b + 3]! : s32[a + 3]!;
  s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
}

/** f32x4.pmax: a < b ? b : a, as bits. */
export function f32x4Pmax(s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const r0 = f32[a]! < f32[b]! ? s32[b]! : s32[a]!;
  const r1 = f32[a + 1]! < f32[b + 1]! ? s32[b + 1]! : s32[a + 1]!;
  const r2 = f32[a + 2]! < f32[b + 2]! ? s32[b + 2]! : s32[a + 2]!;
  const r3 = f32[a + 3]! < f32[b + 3]! ? s32[b + 3]! : s32[a + 3]!;
  s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
}

/** f32x4 sqrt, ceil, floor, trunc, nearest (op 0xe3, 0x67-0x6a). */
export function f32x4Round(op: number, s32: Int32Array, f32: Float32Array, d: number, a: number): void {
  let r0: number, r1: number, r2: number, r3: number;
  const x0 = f32[a]!, x1 = f32[a + 1]!, x2 = f32[a + 2]!, x3 = f32[a + 3]!;
  switch (op) {
    case 0xe3:
      r0 = Math.fround(Math.sqrt(x0)); r1 = Math.fround(Math.sqrt(x1));
      r2 = Math.fround(Math.sqrt(x2)); r3 = Math.fround(Math.sqrt(x3));
      break;
    case 0x67: r0 = Math.ceil(x0); r1 = Math.ceil(x1); r2 = Math.ceil(x2); r3 = Math.ceil(x3); break;
    case 0x68: r0 = Math.floor(x0); r1 = Math.floor(x1); r2 = Math.floor(x2); r3 = Math.floor(x3); break;
    case 0x69: r0 = Math.trunc(x0); r1 = Math.trunc(x1); r2 = Math.trunc(x2); r3 = Math.trunc(x3); break;
    default: r0 = nearest(x0); r1 = nearest(x1); r2 = nearest(x2); r3 = nearest(x3);
  }
  if (r0 === r0 && r1 === r1 && r2 === r2 && r3 === r3) {
    f32[d] = r0; f32[d + 1] = r1; f32[d + 2] = r2; f32[d + 3] = r3;
  } else f32x4Slow1(op, s32, d, a);
}

/** f32x4.abs: clears the sign bits (NaN payloads untouched). */
export function f32x4Abs(s32: Int32Array, d: number, a: number): void {
  s32[d] = s32[a]! & 0x7fffffff;
  s32[d + 1] = s32[a + 1]! & 0x7fffffff;
  s32[d + 2] = s32[a + 2]! & 0x7fffffff;
  s32[d + 3] = s32[a + 3]! & 0x7fffffff;
}

/** f32x4.neg: flips the sign bits. */
export function f32x4Neg(s32: Int32Array, d: number, a: number): void {
  s32[d] = s32[a]! ^ SIGN;
  s32[d + 1] = s32[a + 1]! ^ SIGN;
  s32[d + 2] = s32[a + 2]! ^ SIGN;
  s32[d + 3] = s32[a + 3]! ^ SIGN;
}

/** f32x4 comparisons (op 0x41-0x46): all ones where true. A NaN compares unequal to everything. */
export function f32x4Compare(op: number, s32: Int32Array, f32: Float32Array, d: number, a: number, b: number): void {
  const x0 = f32[a]!, x1 = f32[a + 1]!, x2 = f32[a + 2]!, x3 = f32[a + 3]!;
  const y0 = f32[b]!, y1 = f32[b + 1]!, y2 = f32[b + 2]!, y3 = f32[b + 3]!;
  let r0: boolean, r1: boolean, r2: boolean, r3: boolean;
  switch (op) {
    case 0x41: r0 = x0 === y0; r1 = x1 === y1; r2 = x2 === y2; r3 = x3 === y3; break;
    case 0x42: r0 = x0 !== y0; r1 = x1 !== y1; r2 = x2 !== y2; r3 = x3 !== y3; break;
    case 0x43: r0 = x0 < y0; r1 = x1 < y1; r2 = x2 < y2; r3 = x3 < y3; break;
    case 0x44: r0 = x0 > y0; r1 = x1 > y1; r2 = x2 > y2; r3 = x3 > y3; break;
    case 0x45: r0 = x0 <= y0; r1 = x1 <= y1; r2 = x2 <= y2; r3 = x3 <= y3; break;
    default: r0 = x0 >= y0; r1 = x1 >= y1; r2 = x2 >= y2; r3 = x3 >= y3;
  }
  s32[d] = r0 ? -1 : 0; s32[d + 1] = r1 ? -1 : 0; s32[d + 2] = r2 ? -1 : 0; s32[d + 3] = r3 ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------
// f64x2 arithmetic
// ---------------------------------------------------------------------------------------------

export function f64x2Add(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = f64[i]! + f64[j]!;
  const r1 = f64[i + 1]! + f64[j + 1]!;
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(0xf0, s32, d, a, b);
}

export function f64x2Sub(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = f64[i]! - f64[j]!;
  const r1 = f64[i + 1]! - f64[j + 1]!;
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(0xf1, s32, d, a, b);
}

export function f64x2Mul(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = f64[i]! * f64[j]!;
  const r1 = f64[i + 1]! * f64[j + 1]!;
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(0xf2, s32, d, a, b);
}

export function f64x2Div(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = f64[i]! / f64[j]!;
  const r1 = f64[i + 1]! / f64[j + 1]!;
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(0xf3, s32, d, a, b);
}

/** f64x2.min (and relaxed_min, op 0x10f). */
export function f64x2Min(op: number, s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = Math.min(f64[i]!, f64[j]!);
  const r1 = Math.min(f64[i + 1]!, f64[j + 1]!);
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(op, s32, d, a, b);
}

/** f64x2.max (and relaxed_max, op 0x110). */
export function f64x2Max(op: number, s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const r0 = Math.max(f64[i]!, f64[j]!);
  const r1 = Math.max(f64[i + 1]!, f64[j + 1]!);
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow2(op, s32, d, a, b);
}

/** f64x2.pmin: b < a ? b : a, as bits. */
export function f64x2Pmin(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const t0 = f64[j]! < f64[i]!;
  const t1 = f64[j + 1]! < f64[i + 1]!;
  const s0 = t0 ? b : a, s1 = (t1 ? b : a) + 2;
  const w0 = s32[s0]!, w1 = s32[s0 + 1]!, w2 = s32[s1]!, w3 = s32[s1 + 1]!;
  s32[d] = w0; s32[d + 1] = w1; s32[d + 2] = w2; s32[d + 3] = w3;
}

/** f64x2.pmax: a < b ? b : a, as bits. */
export function f64x2Pmax(s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const t0 = f64[i]! < f64[j]!;
  const t1 = f64[i + 1]! < f64[j + 1]!;
  const s0 = t0 ? b : a, s1 = (t1 ? b : a) + 2;
  const w0 = s32[s0]!, w1 = s32[s0 + 1]!, w2 = s32[s1]!, w3 = s32[s1 + 1]!;
  s32[d] = w0; s32[d + 1] = w1; s32[d + 2] = w2; s32[d + 3] = w3;
}

/** f64x2 sqrt, ceil, floor, trunc, nearest (op 0xef, 0x74, 0x75, 0x7a, 0x94). */
export function f64x2Round(op: number, s32: Int32Array, f64: Float64Array, d: number, a: number): void {
  const i = a >> 1;
  const x0 = f64[i]!, x1 = f64[i + 1]!;
  let r0: number, r1: number;
  switch (op) {
    case 0xef: r0 = Math.sqrt(x0); r1 = Math.sqrt(x1); break;
    case 0x74: r0 = Math.ceil(x0); r1 = Math.ceil(x1); break;
    case 0x75: r0 = Math.floor(x0); r1 = Math.floor(x1); break;
    case 0x7a: r0 = Math.trunc(x0); r1 = Math.trunc(x1); break;
    default: r0 = nearest(x0); r1 = nearest(x1);
  }
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
  } else f64x2Slow1(op, s32, d, a);
}

/** f64x2.abs: clears the sign bits of the high words. */
export function f64x2Abs(s32: Int32Array, d: number, a: number): void {
  s32[d] = s32[a]!;
  s32[d + 1] = s32[a + 1]! & 0x7fffffff;
  s32[d + 2] = s32[a + 2]!;
  s32[d + 3] = s32[a + 3]! & 0x7fffffff;
}

/** f64x2.neg: flips the sign bits of the high words. */
export function f64x2Neg(s32: Int32Array, d: number, a: number): void {
  s32[d] = s32[a]!;
  s32[d + 1] = s32[a + 1]! ^ SIGN;
  s32[d + 2] = s32[a + 2]!;
  s32[d + 3] = s32[a + 3]! ^ SIGN;
}

/** f64x2 comparisons (op 0x47-0x4c): 64-bit lanes of all ones where true. */
export function f64x2Compare(op: number, s32: Int32Array, f64: Float64Array, d: number, a: number, b: number): void {
  const i = a >> 1, j = b >> 1;
  const x0 = f64[i]!, x1 = f64[i + 1]!, y0 = f64[j]!, y1 = f64[j + 1]!;
  let r0: boolean, r1: boolean;
  switch (op) {
    case 0x47: r0 = x0 === y0; r1 = x1 === y1; break;
    case 0x48: r0 = x0 !== y0; r1 = x1 !== y1; break;
    case 0x49: r0 = x0 < y0; r1 = x1 < y1; break;
    case 0x4a: r0 = x0 > y0; r1 = x1 > y1; break;
    case 0x4b: r0 = x0 <= y0; r1 = x1 <= y1; break;
    default: r0 = x0 >= y0; r1 = x1 >= y1;
  }
  const m0 = r0 ? -1 : 0, m1 = r1 ? -1 : 0;
  s32[d] = m0; s32[d + 1] = m0; s32[d + 2] = m1; s32[d + 3] = m1;
}

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

/** Saturating f32/f64 -> i32 (signed): NaN gives 0, out-of-range values clamp. */
function truncSatS(x: number): number {
  if (x > -2147483649 && x < 2147483648) return x | 0;
  return x !== x ? 0 : x < 0 ? -2147483648 : 2147483647;
}

/** Saturating f32/f64 -> u32, as a signed int: NaN and negatives give 0, too large 0xffffffff. */
function truncSatU(x: number): number {
  if (x > -1 && x < 4294967296) return x | 0;
  return x > 0 ? -1 : 0;
}

/**
 * i32x4.trunc_sat_f32x4_s/u (0xf8, 0xf9), i32x4.trunc_sat_f64x2_s/u_zero (0xfc, 0xfd), and their
 * relaxed forms (0x101-0x104), which are the same in the deterministic profile.
 */
export function truncSat(op: number, s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number, a: number): void {
  switch (op) {
    case 0xf8: case 0x101: {
      const r0 = truncSatS(f32[a]!), r1 = truncSatS(f32[a + 1]!), r2 = truncSatS(f32[a + 2]!), r3 = truncSatS(f32[a + 3]!);
      s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
      return;
    }
    case 0xf9: case 0x102: {
      const r0 = truncSatU(f32[a]!), r1 = truncSatU(f32[a + 1]!), r2 = truncSatU(f32[a + 2]!), r3 = truncSatU(f32[a + 3]!);
      s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
      return;
    }
    case 0xfc: case 0x103: {
      const r0 = truncSatS(f64[a >> 1]!), r1 = truncSatS(f64[(a >> 1) + 1]!);
      s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = 0; s32[d + 3] = 0;
      return;
    }
    default: { // 0xfd, 0x104
      const r0 = truncSatU(f64[a >> 1]!), r1 = truncSatU(f64[(a >> 1) + 1]!);
      s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = 0; s32[d + 3] = 0;
    }
  }
}

/** f32x4.convert_i32x4_s/u (0xfa, 0xfb): one rounding of an exact value. */
export function convertToF32(op: number, s32: Int32Array, f32: Float32Array, d: number, a: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  if (op === 0xfa) {
    f32[d] = x0; f32[d + 1] = x1; f32[d + 2] = x2; f32[d + 3] = x3; // the store rounds once
  } else {
    f32[d] = x0 >>> 0; f32[d + 1] = x1 >>> 0; f32[d + 2] = x2 >>> 0; f32[d + 3] = x3 >>> 0;
  }
}

/** f64x2.convert_low_i32x4_s/u (0xfe, 0xff): exact. */
export function convertLowToF64(op: number, s32: Int32Array, f64: Float64Array, d: number, a: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!;
  if (op === 0xfe) {
    f64[d >> 1] = x0; f64[(d >> 1) + 1] = x1;
  } else {
    f64[d >> 1] = x0 >>> 0; f64[(d >> 1) + 1] = x1 >>> 0;
  }
}

/**
 * f32x4.demote_f64x2_zero: lanes 0 and 1 rounded to f32 (one rounding), lanes 2 and 3 zero.
 * A NaN keeps its sign and the top 23 bits of its payload field, quieted, as cvtpd2ps does.
 */
export function demote(s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number, a: number): void {
  const l0 = s32[a]!, h0 = s32[a + 1]!, l1 = s32[a + 2]!, h1 = s32[a + 3]!;
  const r0 = Math.fround(f64[a >> 1]!), r1 = Math.fround(f64[(a >> 1) + 1]!);
  if (r0 === r0) f32[d] = r0;
  else s32[d] = (h0 & SIGN) | 0x7fc00000 | ((h0 & 0xfffff) << 3) | (l0 >>> 29);
  if (r1 === r1) f32[d + 1] = r1;
  else s32[d + 1] = (h1 & SIGN) | 0x7fc00000 | ((h1 & 0xfffff) << 3) | (l1 >>> 29);
  s32[d + 2] = 0;
  s32[d + 3] = 0;
}

/**
 * f64x2.promote_low_f32x4: exact. A NaN keeps its sign and payload (at the top of the f64's),
 * quieted, as cvtps2pd does.
 */
export function promote(s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number, a: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!;
  const r0 = f32[a]!, r1 = f32[a + 1]!;
  if (r0 === r0 && r1 === r1) {
    f64[d >> 1] = r0; f64[(d >> 1) + 1] = r1;
    return;
  }
  if (r0 === r0) f64[d >> 1] = r0;
  else {
    s32[d] = x0 << 29;
    s32[d + 1] = (x0 & SIGN) | 0x7ff80000 | ((x0 & 0x7fffff) >>> 3);
  }
  if (r1 === r1) f64[(d >> 1) + 1] = r1;
  else {
    s32[d + 2] = x1 << 29;
    s32[d + 3] = (x1 & SIGN) | 0x7ff80000 | ((x1 & 0x7fffff) >>> 3);
  }
}

// ---------------------------------------------------------------------------------------------
// Fused multiply-add (relaxed_madd, relaxed_nmadd)
// ---------------------------------------------------------------------------------------------

/**
 * f32x4.relaxed_madd (0x105) and relaxed_nmadd (0x106): fma(a, b, c) and fma(-a, b, c), fused
 * as wasmtime computes them. A NaN result: the first NaN among (a, or -a for nmadd, with its
 * sign flipped), b, c, quieted; else the default NaN (0 * inf + c, inf - inf).
 */
export function f32x4Madd(op: number, s32: Int32Array, d: number, a: number, b: number, c: number): void {
  load3(s32, a, b, c);
  const neg = op === 0x106;
  if (neg) {
    for (let k = 0; k < 4; k++) X32[k] = X32[k]! ^ SIGN;
  }
  for (let k = 0; k < 4; k++) {
    const r = fma32(XF[k]!, YF[k]!, ZF[k]!);
    if (r === r) {
      ZF[k] = r; // Z's lane k is not needed any more
      R32[k] = Z32[k]!;
    } else {
      const x = X32[k]!, y = Y32[k]!, z = Z32[k]!;
      R32[k] = isNaN32(x) ? x | F32_QUIET : isNaN32(y) ? y | F32_QUIET : isNaN32(z) ? z | F32_QUIET : F32_DEFAULT_NAN;
    }
  }
  store(s32, d);
}

/** f64x2.relaxed_madd (0x107) and relaxed_nmadd (0x108). */
export function f64x2Madd(op: number, s32: Int32Array, d: number, a: number, b: number, c: number): void {
  load3(s32, a, b, c);
  if (op === 0x108) {
    X32[1] = X32[1]! ^ SIGN;
    X32[3] = X32[3]! ^ SIGN;
  }
  for (let k = 0; k < 2; k++) {
    const r = fma64(XD[k]!, YD[k]!, ZD[k]!);
    const w = 2 * k;
    if (r === r) {
      ZD[k] = r;
      R32[w] = Z32[w]!;
      R32[w + 1] = Z32[w + 1]!;
    } else if (isNaN64(X32[w]!, X32[w + 1]!)) {
      R32[w] = X32[w]!;
      R32[w + 1] = X32[w + 1]! | F64_QUIET_HI;
    } else if (isNaN64(Y32[w]!, Y32[w + 1]!)) {
      R32[w] = Y32[w]!;
      R32[w + 1] = Y32[w + 1]! | F64_QUIET_HI;
    } else if (isNaN64(Z32[w]!, Z32[w + 1]!)) {
      R32[w] = Z32[w]!;
      R32[w + 1] = Z32[w + 1]! | F64_QUIET_HI;
    } else {
      R32[w] = 0;
      R32[w + 1] = F64_DEFAULT_NAN_HI;
    }
  }
  store(s32, d);
}
