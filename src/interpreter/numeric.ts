/**
 * Numeric helpers for the interpreter: 64-bit integer arithmetic on 32-bit halves, float <->
 * integer conversions and the float operations whose WebAssembly semantics differ from (or
 * need care on top of) plain JavaScript. No BigInt and no allocation in any hot function; each
 * hot function is small and monomorphic so TurboFan can inline it into the dispatch loop, with
 * rare paths (traps, slow division) moved into separate functions.
 *
 * Conventions
 * -----------
 * - Values live in 64-bit slots of one ArrayBuffer viewed as an Int32Array `s`: slot k has its
 *   low 32 bits at s[2k] and its high 32 bits at s[2k + 1], both as signed 32-bit ints.
 * - Binary i64 operations: `fn(s, d, a, b): void`. `d`, `a`, `b` are the (even) Int32Array
 *   indices of the LOW halves of the destination and of the two operands. Both operands are read
 *   completely before `d` is written, so `d` may equal `a` and/or `b`.
 * - Unary i64 operations (clz, ctz, popcnt): `fn(s, d, a): void`; the result is an i64 (high
 *   half 0).
 * - Shift and rotate counts are the low 6 bits of b's low half, as the specification says.
 * - Float -> i32 conversions take the float as a JS number and return the i32 as a signed JS
 *   int (`|0`); an f32 operand is simply the f32 value as a number. Float -> i64 conversions
 *   write the result into `s` at `d`: `fn(s, d, x): void`.
 * - i64 -> float conversions take the two halves: `fn(lo, hi): number`. The f32 variants return
 *   a number that is exactly representable as an f32 (already `Math.fround`ed), computed with a
 *   single IEEE round-to-nearest-even rounding of the exact integer.
 * - Traps: `throw new Trap(TrapKind.X)`. Float -> integer: NaN is BadConversionToInteger, an
 *   out-of-range value is IntegerOverflow (wasmtime's wording).
 *
 * Operations that need no helper (plain JavaScript is exact for WebAssembly)
 * --------------------------------------------------------------------------
 * - f64.add/sub/mul/div, f64.sqrt: the JS operators / Math.sqrt are correctly rounded IEEE
 *   binary64 operations.
 * - f32.add/sub/mul/div/sqrt: `Math.fround(a op b)` on f32 inputs is exact: a binary64 result
 *   rounded again to binary32 equals the directly rounded binary32 result because
 *   53 >= 2 * 24 + 2 (no harmful double rounding for + - * / sqrt).
 * - f32/f64 ceil, floor, trunc: Math.ceil/floor/trunc are exact and keep the sign of zero
 *   (Math.ceil(-0.5) === -0, Math.trunc(-0.5) === -0). For f32 the result is already an f32
 *   value. f32/f64 abs, neg, copysign must be done on the bits (they must not touch NaN
 *   payloads), not with Math.abs / unary minus, if payloads are to be preserved bit for bit.
 * - f32.demote_f64 is a store of the double into a Float32Array slot (one rounding);
 *   f64.promote_f32 is the identity on the number. Both only for non-NaN values, see below.
 * - i32 -> f64 (signed or unsigned) is exact; i32 -> f32 is `Math.fround(x)` (signed) or
 *   `Math.fround(x >>> 0)` (unsigned), a single rounding of an exact value. Helpers below.
 * - NaN results never come from JavaScript. Which NaN a JS operation returns is V8's choice
 *   and the CPU's: `a + b` with two NaNs gives b's payload in V8's own code but a's in some
 *   of its WebAssembly code, a Float32Array round trip keeps a signalling NaN in optimised
 *   code and quiets it in the interpreter. So every operation that can produce a NaN
 *   computes its result in JS, stores it when it is not a NaN (`r <= Infinity`: one compare
 *   and one branch on the ordinary path), and otherwise calls one of the NaN helpers at the
 *   end of this file, which compute the result from the operands' raw bits. The rule they
 *   implement is written down in docs/determinism.md.
 */
import { Trap, TrapKind } from './errors.js';

const TWO_32 = 4294967296;
const TWO_M32 = 2.3283064365386963e-10; // 2^-32
const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;

// ---------------------------------------------------------------------------------------------
// i64 multiplication
// ---------------------------------------------------------------------------------------------

/**
 * i64.mul: low 64 bits of the product (identical for signed and unsigned).
 *
 * low = imul(al, bl). high = hi32(al * bl) + al * bh + ah * bl (mod 2^32), where hi32 of the
 * unsigned 32x32 product comes from doubles: `u * v` (< 2^64) is off by at most 2^11;
 * subtracting the exact low word leaves a value within 2^12 of hi * 2^32, so Math.round of it
 * times 2^-32 is exactly hi. (The high-word computation is written inline rather than as a
 * helper returning a double, so that nothing is boxed even if the helper were not inlined.)
 */
export function i64Mul(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  const lo = Math.imul(al, bl);
  const hi = Math.round(((al >>> 0) * (bl >>> 0) - (lo >>> 0)) * TWO_M32) | 0;
  s[d + 1] = (hi + Math.imul(al, bh) + Math.imul(ah, bl)) | 0;
  s[d] = lo;
}

// ---------------------------------------------------------------------------------------------
// i64 division and remainder
// ---------------------------------------------------------------------------------------------

/**
 * Results of the slow unsigned division, [quotient lo, quotient hi, remainder lo, remainder hi].
 * Module-level scratch so that nothing is allocated.
 */
const qr = new Int32Array(4);

/**
 * Unsigned 64-bit division of (al, ah) by (bl, bh) (signed-int halves, interpreted unsigned),
 * the divisor non-zero. Writes quotient and remainder into `qr`.
 */
function divModU64(al0: number, ah0: number, bl0: number, bh0: number): void {
  const al = al0 >>> 0;
  const ah = ah0 >>> 0;
  const bl = bl0 >>> 0;
  const bh = bh0 >>> 0;
  if (bh === 0) {
    if (ah === 0) {
      const q = Math.floor(al / bl);
      qr[0] = q;
      qr[1] = 0;
      qr[2] = al - q * bl;
      qr[3] = 0;
      return;
    }
    // 64 / 32: long division in digits of 32, 16 and 16 bits; every intermediate < 2^48.
    const q1 = Math.floor(ah / bl);
    let r = ah - q1 * bl;
    let t = r * 65536 + (al >>> 16);
    const q2 = Math.floor(t / bl);
    r = t - q2 * bl;
    t = r * 65536 + (al & 0xffff);
    const q3 = Math.floor(t / bl);
    qr[0] = q2 * 65536 + q3;
    qr[1] = q1;
    qr[2] = t - q3 * bl;
    qr[3] = 0;
    return;
  }
  // Divisor >= 2^32, so the quotient is < 2^32.
  if (ah < bh || (ah === bh && al < bl)) {
    qr[0] = 0;
    qr[1] = 0;
    qr[2] = al0;
    qr[3] = ah0;
    return;
  }
  // The double estimate is within 1 of the true quotient; one less is never too big, so the
  // remainder below is non-negative and at most two corrections follow.
  let q = Math.floor((ah * TWO_32 + al) / (bh * TWO_32 + bl));
  if (q > 0) q -= 1;
  // r = a - q * b (exact: q * b <= a < 2^64).
  const pl = Math.imul(q, bl) >>> 0;
  const ph = (Math.round((q * bl - pl) * TWO_M32) + Math.imul(q, bh)) >>> 0; // as in i64Mul
  let rl = al - pl;
  let rh = ah - ph;
  if (rl < 0) {
    rl += TWO_32;
    rh -= 1;
  }
  while (rh > bh || (rh === bh && rl >= bl)) {
    rl -= bl;
    rh -= bh;
    if (rl < 0) {
      rl += TWO_32;
      rh -= 1;
    }
    q += 1;
  }
  qr[0] = q;
  qr[1] = 0;
  qr[2] = rl;
  qr[3] = rh;
}

function trapDivByZero(): never {
  throw new Trap(TrapKind.IntegerDivideByZero);
}

function trapIntOverflow(): never {
  throw new Trap(TrapKind.IntegerOverflow);
}

/** Slow path of i64.div_s / i64.rem_s (operands not both small). */
function divRemSSlow(s: Int32Array, d: number, al: number, ah: number, bl: number, bh: number, rem: boolean): void {
  const an = ah < 0;
  const bn = bh < 0;
  if (an) {
    ah = (al === 0 ? -ah : ~ah) | 0;
    al = -al | 0;
  }
  if (bn) {
    bh = (bl === 0 ? -bh : ~bh) | 0;
    bl = -bl | 0;
  }
  divModU64(al, ah, bl, bh);
  let l: number;
  let h: number;
  let neg: boolean;
  if (rem) {
    l = qr[2]!;
    h = qr[3]!;
    neg = an;
  } else {
    l = qr[0]!;
    h = qr[1]!;
    neg = an !== bn;
  }
  if (neg) {
    h = (l === 0 ? -h : ~h) | 0;
    l = -l | 0;
  }
  s[d] = l;
  s[d + 1] = h;
}

/** i64.div_s. Traps on division by zero and on INT64_MIN / -1. */
export function i64DivS(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  // Fast path: both operands in (-2^53 + 2^32, 2^53) (high half within +-0x1fffff) are exact
  // doubles, and the truncated double quotient of such integers is the exact quotient.
  if (((ah + 0x1fffff) >>> 0) <= 0x3ffffe && ((bh + 0x1fffff) >>> 0) <= 0x3ffffe) {
    const y = bh * TWO_32 + (bl >>> 0);
    if (y === 0) trapDivByZero();
    const q = Math.trunc((ah * TWO_32 + (al >>> 0)) / y);
    s[d] = q; // ToInt32 reduces modulo 2^32
    s[d + 1] = Math.floor(q * TWO_M32);
    return;
  }
  if ((bl | bh) === 0) trapDivByZero();
  if ((bl & bh) === -1 && ah === -0x80000000 && al === 0) trapIntOverflow();
  divRemSSlow(s, d, al, ah, bl, bh, false);
}

/** i64.rem_s. Traps on division by zero; INT64_MIN % -1 is 0. The sign follows the dividend. */
export function i64RemS(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  if (((ah + 0x1fffff) >>> 0) <= 0x3ffffe && ((bh + 0x1fffff) >>> 0) <= 0x3ffffe) {
    const y = bh * TWO_32 + (bl >>> 0);
    if (y === 0) trapDivByZero();
    const x = ah * TWO_32 + (al >>> 0);
    const r = x - Math.trunc(x / y) * y; // exact: |trunc(x / y) * y| <= |x|
    s[d] = r;
    s[d + 1] = Math.floor(r * TWO_M32);
    return;
  }
  if ((bl | bh) === 0) trapDivByZero();
  if ((bl & bh) === -1) {
    // x % -1 is 0 for every x (INT64_MIN included).
    s[d] = 0;
    s[d + 1] = 0;
    return;
  }
  divRemSSlow(s, d, al, ah, bl, bh, true);
}

/** i64.div_u. Traps on division by zero. */
export function i64DivU(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  if ((ah | bh) === 0) {
    const bu = bl >>> 0;
    if (bu === 0) trapDivByZero();
    s[d] = Math.floor((al >>> 0) / bu);
    s[d + 1] = 0;
    return;
  }
  if ((bl | bh) === 0) trapDivByZero();
  divModU64(al, ah, bl, bh);
  s[d] = qr[0]!;
  s[d + 1] = qr[1]!;
}

/** i64.rem_u. Traps on division by zero. */
export function i64RemU(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  if ((ah | bh) === 0) {
    const bu = bl >>> 0;
    if (bu === 0) trapDivByZero();
    const au = al >>> 0;
    s[d] = au - Math.floor(au / bu) * bu;
    s[d + 1] = 0;
    return;
  }
  if ((bl | bh) === 0) trapDivByZero();
  divModU64(al, ah, bl, bh);
  s[d] = qr[2]!;
  s[d + 1] = qr[3]!;
}

// ---------------------------------------------------------------------------------------------
// i64 shifts and rotates (count = low 6 bits of b's low half)
// ---------------------------------------------------------------------------------------------

/** i64.shl */
export function i64Shl(s: Int32Array, d: number, a: number, b: number): void {
  const n = s[b]! & 63;
  const l = s[a]!;
  const h = s[a + 1]!;
  if (n >= 32) {
    s[d + 1] = l << (n - 32);
    s[d] = 0;
  } else if (n !== 0) {
    s[d + 1] = (h << n) | (l >>> (32 - n));
    s[d] = l << n;
  } else {
    s[d] = l;
    s[d + 1] = h;
  }
}

/** i64.shr_s */
export function i64ShrS(s: Int32Array, d: number, a: number, b: number): void {
  const n = s[b]! & 63;
  const l = s[a]!;
  const h = s[a + 1]!;
  if (n >= 32) {
    s[d] = h >> (n - 32);
    s[d + 1] = h >> 31;
  } else if (n !== 0) {
    s[d] = (l >>> n) | (h << (32 - n));
    s[d + 1] = h >> n;
  } else {
    s[d] = l;
    s[d + 1] = h;
  }
}

/** i64.shr_u */
export function i64ShrU(s: Int32Array, d: number, a: number, b: number): void {
  const n = s[b]! & 63;
  const l = s[a]!;
  const h = s[a + 1]!;
  if (n >= 32) {
    s[d] = h >>> (n - 32);
    s[d + 1] = 0;
  } else if (n !== 0) {
    s[d] = (l >>> n) | (h << (32 - n));
    s[d + 1] = h >>> n;
  } else {
    s[d] = l;
    s[d + 1] = h;
  }
}

/** i64.rotl */
export function i64Rotl(s: Int32Array, d: number, a: number, b: number): void {
  rotateLeft64(s, d, a, s[b]! & 63);
}

/** i64.rotr: a rotation right by n is one left by 64 - n. */
export function i64Rotr(s: Int32Array, d: number, a: number, b: number): void {
  rotateLeft64(s, d, a, (64 - (s[b]! & 63)) & 63);
}

/** Rotates the i64 at `a` left by `n` (0..63) into `d`. */
function rotateLeft64(s: Int32Array, d: number, a: number, n: number): void {
  // Rotating by 32 swaps the halves; then rotate by n & 31.
  let l = s[a]!;
  let h = s[a + 1]!;
  if (n >= 32) {
    const t = l;
    l = h;
    h = t;
  }
  const m = n & 31;
  if (m !== 0) {
    s[d] = (l << m) | (h >>> (32 - m));
    s[d + 1] = (h << m) | (l >>> (32 - m));
  } else {
    s[d] = l;
    s[d + 1] = h;
  }
}

// ---------------------------------------------------------------------------------------------
// i64 bit counting (unary; the result is an i64)
// ---------------------------------------------------------------------------------------------

/** Trailing zeros of a 32-bit int (32 for 0). */
export function ctz32(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

/** Set bits of a 32-bit int. */
export function popcnt32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** i64.clz */
export function i64Clz(s: Int32Array, d: number, a: number): void {
  const h = s[a + 1]!;
  s[d] = h !== 0 ? Math.clz32(h) : 32 + Math.clz32(s[a]!);
  s[d + 1] = 0;
}

/** i64.ctz */
export function i64Ctz(s: Int32Array, d: number, a: number): void {
  const l = s[a]!;
  s[d] = l !== 0 ? ctz32(l) : 32 + ctz32(s[a + 1]!);
  s[d + 1] = 0;
}

/** i64.popcnt */
export function i64Popcnt(s: Int32Array, d: number, a: number): void {
  s[d] = popcnt32(s[a]!) + popcnt32(s[a + 1]!);
  s[d + 1] = 0;
}

// ---------------------------------------------------------------------------------------------
// Float -> integer, trapping (0xa8-0xb1). An f32 operand is exactly representable as a double,
// so the same bounds serve f32 and f64: each bound is the first integer outside the range, and
// truncation toward zero of any x strictly between them lands inside.
// ---------------------------------------------------------------------------------------------

function trapTrunc(x: number): never {
  throw new Trap(x !== x ? TrapKind.BadConversionToInteger : TrapKind.IntegerOverflow);
}

/** i32.trunc_f64_s (also i32.trunc_f32_s). `x | 0` truncates toward zero. */
export function i32TruncF64S(x: number): number {
  if (x > -2147483649 && x < 2147483648) return x | 0;
  return trapTrunc(x);
}

/** i32.trunc_f64_u (also i32.trunc_f32_u); returns the u32 as a signed int. (-1, 0] gives 0. */
export function i32TruncF64U(x: number): number {
  if (x > -1 && x < 4294967296) return x | 0;
  return trapTrunc(x);
}

/**
 * i64.trunc_f64_s (also i64.trunc_f32_s), into s at d. -2^63 is in range, 2^63 is not.
 * ToInt32 (`| 0`) reduces any finite double exactly modulo 2^32, so it yields the low half.
 */
export function i64TruncF64S(s: Int32Array, d: number, x: number): void {
  if (x >= -9223372036854775808 && x < TWO_63) {
    s[d] = x | 0;
    s[d + 1] = Math.floor(Math.trunc(x) * TWO_M32);
    return;
  }
  trapTrunc(x);
}

/** i64.trunc_f64_u (also i64.trunc_f32_u), into s at d. (-1, 0] gives 0. */
export function i64TruncF64U(s: Int32Array, d: number, x: number): void {
  if (x > -1 && x < TWO_64) {
    // For x >= 0 truncation of x / 2^32 is floor(trunc(x) / 2^32); in (-1, 0) both halves are 0.
    s[d] = x | 0;
    s[d + 1] = x * TWO_M32;
    return;
  }
  trapTrunc(x);
}

/** i32.trunc_f32_s: same code as the f64 version (an f32 value is an exact double). */
export const i32TruncF32S: (x: number) => number = i32TruncF64S;
/** i32.trunc_f32_u */
export const i32TruncF32U: (x: number) => number = i32TruncF64U;
/** i64.trunc_f32_s */
export const i64TruncF32S: (s: Int32Array, d: number, x: number) => void = i64TruncF64S;
/** i64.trunc_f32_u */
export const i64TruncF32U: (s: Int32Array, d: number, x: number) => void = i64TruncF64U;

// ---------------------------------------------------------------------------------------------
// Float -> integer, saturating (0xfc 0-7): NaN gives 0, out-of-range values clamp.
// ---------------------------------------------------------------------------------------------

/** i32.trunc_sat_f64_s (also f32). */
export function i32TruncSatF64S(x: number): number {
  if (x > -2147483649 && x < 2147483648) return x | 0;
  if (x !== x) return 0;
  return x < 0 ? -2147483648 : 2147483647;
}

/** i32.trunc_sat_f64_u (also f32); returns the u32 as a signed int. */
export function i32TruncSatF64U(x: number): number {
  if (x > -1 && x < 4294967296) return x | 0;
  return x > 0 ? -1 : 0; // NaN and negatives give 0, too-large gives 0xffffffff
}

/** i64.trunc_sat_f64_s (also f32), into s at d. */
export function i64TruncSatF64S(s: Int32Array, d: number, x: number): void {
  if (x >= -9223372036854775808 && x < TWO_63) {
    s[d] = x | 0;
    s[d + 1] = Math.floor(Math.trunc(x) * TWO_M32);
  } else if (x > 0) {
    s[d] = -1;
    s[d + 1] = 0x7fffffff;
  } else if (x < 0) {
    s[d] = 0;
    s[d + 1] = -0x80000000;
  } else {
    s[d] = 0;
    s[d + 1] = 0;
  }
}

/** i64.trunc_sat_f64_u (also f32), into s at d. */
export function i64TruncSatF64U(s: Int32Array, d: number, x: number): void {
  if (x > -1 && x < TWO_64) {
    s[d] = x | 0;
    s[d + 1] = x * TWO_M32;
  } else if (x > 0) {
    s[d] = -1;
    s[d + 1] = -1;
  } else {
    s[d] = 0;
    s[d + 1] = 0;
  }
}

/** i32.trunc_sat_f32_s */
export const i32TruncSatF32S: (x: number) => number = i32TruncSatF64S;
/** i32.trunc_sat_f32_u */
export const i32TruncSatF32U: (x: number) => number = i32TruncSatF64U;
/** i64.trunc_sat_f32_s */
export const i64TruncSatF32S: (s: Int32Array, d: number, x: number) => void = i64TruncSatF64S;
/** i64.trunc_sat_f32_u */
export const i64TruncSatF32U: (s: Int32Array, d: number, x: number) => void = i64TruncSatF64U;

// ---------------------------------------------------------------------------------------------
// Integer -> float, correctly rounded (round to nearest, ties to even)
// ---------------------------------------------------------------------------------------------

/** f32.convert_i32_s: the int is exact as a double; fround is the one rounding. */
export function f32ConvertI32S(x: number): number {
  return Math.fround(x);
}

/** f32.convert_i32_u */
export function f32ConvertI32U(x: number): number {
  return Math.fround(x >>> 0);
}

/** f64.convert_i32_u (f64.convert_i32_s is the int itself). */
export function f64ConvertI32U(x: number): number {
  return x >>> 0;
}

/**
 * f64.convert_i64_s: `hi * 2^32` and `lo >>> 0` are exact doubles, so their sum is a single
 * correctly rounded addition of the exact value.
 */
export function f64ConvertI64S(lo: number, hi: number): number {
  return hi * TWO_32 + (lo >>> 0);
}

/** f64.convert_i64_u */
export function f64ConvertI64U(lo: number, hi: number): number {
  return (hi >>> 0) * TWO_32 + (lo >>> 0);
}

/**
 * Rounds the unsigned 64-bit magnitude (lo, hi), hi >= 2^21 (so the value is >= 2^53), to f32
 * with one rounding. Going through a rounded double would round twice (wrong e.g. for
 * 2^60 + 2^36 + 1, which lies just above an f32 halfway point but whose double is exactly on
 * it). The f32 keeps 24 bits below the top bit at position >= 53, so its rounding bit is at
 * position >= 29: bits 0-28 matter only as a sticky bit. Replacing them by bit 28 = (any of them
 * set) leaves the value's f32 rounding unchanged and makes it exact as a double (it spans at
 * most 64 - 28 = 36 bits), so Math.fround then performs the only rounding.
 */
function f32FromU64Big(lo: number, hi: number): number {
  const l = ((lo & 0xe0000000) >>> 0) + ((lo & 0x1fffffff) !== 0 ? 0x10000000 : 0);
  return Math.fround((hi >>> 0) * TWO_32 + l);
}

/** f32.convert_i64_s */
export function f32ConvertI64S(lo: number, hi: number): number {
  if (((hi + 0x200000) >>> 0) < 0x400000) {
    // |value| <= 2^53: the double is exact.
    return Math.fround(hi * TWO_32 + (lo >>> 0));
  }
  if (hi < 0) return -f32FromU64Big(-lo | 0, lo === 0 ? -hi | 0 : ~hi);
  return f32FromU64Big(lo, hi);
}

/** f32.convert_i64_u */
export function f32ConvertI64U(lo: number, hi: number): number {
  if ((hi >>> 0) < 0x200000) return Math.fround((hi >>> 0) * TWO_32 + (lo >>> 0));
  return f32FromU64Big(lo, hi);
}

// ---------------------------------------------------------------------------------------------
// min / max / nearest
// ---------------------------------------------------------------------------------------------

/**
 * f64.min. Math.min already has the WebAssembly semantics: any NaN operand gives NaN and
 * min(-0, +0) is -0. Both are TurboFan intrinsics (Float64Min/Max), inlined. Which NaN comes
 * back is V8's choice (its optimised code returns the default NaN), so a NaN result is
 * replaced by f64NaNMinMax's.
 */
export function f64Min(a: number, b: number): number {
  return Math.min(a, b);
}

/** f64.max: NaN if either is NaN; max(-0, +0) is +0. */
export function f64Max(a: number, b: number): number {
  return Math.max(a, b);
}

/** f32.min: the min of two f32 values is one of them, so it is already an f32. */
export const f32Min: (a: number, b: number) => number = f64Min;
/** f32.max */
export const f32Max: (a: number, b: number) => number = f64Max;

/**
 * f64.nearest: round half to even. Math.round rounds halves up (toward +Infinity) and keeps the
 * sign of zero (Math.round(-0.4) === -0, Math.round(-0.5) === -0); it only differs from
 * ties-to-even when x is exactly halfway and the rounded-up result is odd. `r - x` is exact.
 * Infinities and |x| >= 2^52 come back unchanged (and a NaN, though the dispatch loop never
 * passes one: a NaN operand gives f64NaN1's result).
 */
export function f64Nearest(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && (r & 1) !== 0 ? r - 1 : r;
}

/** f32.nearest: the f64 result for an f32 input is an integer of at most 24 bits, an f32. */
export const f32Nearest: (x: number) => number = f64Nearest;

// ---------------------------------------------------------------------------------------------
// NaN results (docs/determinism.md). The one place where the bits of a NaN an operation
// produces are decided: the dispatch loop computes a result in JS and, only when that result is
// a NaN, calls one of these with the Int32Array word indices of the destination and the
// operands (`d`, `a`, `b`; an f32 is one word, an f64 two, low word first), so the answer is
// computed from raw bits and never depends on what V8 or the CPU does with a NaN. Operands are
// read before `d` is written (`d` may equal `a` or `b`). A SIMD lane is the same words at a lane
// offset, so lanes can use the same helpers.
//
// The rule is wasmtime's on x86-64 (SSE semantics):
// - an operand that is a NaN comes out quieted (quiet bit set; sign and payload kept);
// - two NaN operands: the first (add, sub, mul, div), the second (min, max: wasmtime's
//   min/max sequence propagates the NaN with an `addss` whose first source is the right operand);
// - a NaN from no NaN operand (inf - inf, 0 * inf, 0 / 0, inf / inf, sqrt of a negative): x86's
//   default NaN, sign bit set: 0xffc00000 / 0xfff8000000000000;
// - demote and promote keep sign and payload (the top 23 / all 23 payload bits), quieted,
//   as cvtsd2ss / cvtss2sd do.
// ---------------------------------------------------------------------------------------------

/** x86's default NaN for f32 (the "QNaN floating-point indefinite"): sign set, quiet, no payload. */
export const F32_DEFAULT_NAN = 0xffc00000 | 0;
/** High word of x86's default NaN for f64 (the low word is 0). */
export const F64_DEFAULT_NAN_HI = 0xfff80000 | 0;
/** The quiet bit of an f32 NaN, and of an f64 NaN's high word. */
export const F32_QUIET = 0x00400000;
export const F64_QUIET_HI = 0x00080000;

/** Whether the f32 with these bits is a NaN. */
export function isNaN32(bits: number): boolean {
  return (bits & 0x7fffffff) > 0x7f800000;
}

/** Whether the f64 with these halves is a NaN. */
export function isNaN64(lo: number, hi: number): boolean {
  const h = hi & 0x7fffffff;
  return h > 0x7ff00000 || (h === 0x7ff00000 && lo !== 0);
}

/** The bits of an f32 add, sub, mul, div NaN result on operand bits x, y: the first NaN operand quieted, else the default NaN. */
export function f32NaNBits2(x: number, y: number): number {
  return isNaN32(x) ? x | F32_QUIET : isNaN32(y) ? y | F32_QUIET : F32_DEFAULT_NAN;
}

/** f32NaNBits2 on the slots a and b, into d. */
export function f32NaN2(s: Int32Array, d: number, a: number, b: number): void {
  s[d] = f32NaNBits2(s[a]!, s[b]!);
}

/** f32 min, max with a NaN result (some operand is a NaN): the second NaN operand quieted, else the first. */
export function f32NaNMinMax(s: Int32Array, d: number, a: number, b: number): void {
  const x = s[a]!;
  const y = s[b]!;
  s[d] = (isNaN32(y) ? y : x) | F32_QUIET;
}

/** The bits of an f32 sqrt, ceil, floor, trunc, nearest NaN result on operand bits x: the operand quieted, else the default NaN. */
export function f32NaNBits1(x: number): number {
  return isNaN32(x) ? x | F32_QUIET : F32_DEFAULT_NAN;
}

/** f32NaNBits1 on slot a, into d. */
export function f32NaN1(s: Int32Array, d: number, a: number): void {
  s[d] = f32NaNBits1(s[a]!);
}

/** f64 add, sub, mul, div with a NaN result: the first NaN operand quieted, else the default NaN. */
export function f64NaN2(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  if (isNaN64(al, ah)) {
    s[d] = al;
    s[d + 1] = ah | F64_QUIET_HI;
  } else if (isNaN64(bl, bh)) {
    s[d] = bl;
    s[d + 1] = bh | F64_QUIET_HI;
  } else {
    s[d] = 0;
    s[d + 1] = F64_DEFAULT_NAN_HI;
  }
}

/** f64 min, max with a NaN result (some operand is a NaN): the second NaN operand quieted, else the first. */
export function f64NaNMinMax(s: Int32Array, d: number, a: number, b: number): void {
  const al = s[a]!;
  const ah = s[a + 1]!;
  const bl = s[b]!;
  const bh = s[b + 1]!;
  if (isNaN64(bl, bh)) {
    s[d] = bl;
    s[d + 1] = bh | F64_QUIET_HI;
  } else {
    s[d] = al;
    s[d + 1] = ah | F64_QUIET_HI;
  }
}

/** f64 sqrt, ceil, floor, trunc, nearest with a NaN result: the operand quieted, else the default NaN. */
export function f64NaN1(s: Int32Array, d: number, a: number): void {
  const lo = s[a]!;
  const hi = s[a + 1]!;
  if (isNaN64(lo, hi)) {
    s[d] = lo;
    s[d + 1] = hi | F64_QUIET_HI;
  } else {
    s[d] = 0;
    s[d + 1] = F64_DEFAULT_NAN_HI;
  }
}

/**
 * The NaN rules on values rather than frame words, for the JavaScript tier, which keeps f64
 * slots and f32 words in variables (src/jit/translate.ts): the operands go through a scratch
 * array of their width, the rule runs on its words, and the result comes back as a number. A
 * Float64Array keeps all 64 bits of a NaN; an f32 operand given as a double may be a signalling
 * NaN quieted, which gives the f32 rules what the signalling one would (they quiet it), and the
 * quiet NaN they make survives the widening.
 */
const nanScratchF64 = new Float64Array(3);
const nanScratchS32 = new Int32Array(nanScratchF64.buffer);
const nanScratchF32 = new Float32Array(nanScratchF64.buffer);

type NaNRule = (s: Int32Array, d: number, a: number, b: number) => void;

/** `rule` on `a` and `b` (as wide as `scratch`'s elements), its result read from element 0. */
function ruleOn(scratch: Float64Array | Float32Array, rule: NaNRule, a: number, b: number): number {
  const words = scratch.BYTES_PER_ELEMENT / 4;
  scratch[1] = a;
  scratch[2] = b;
  rule(nanScratchS32, 0, words, 2 * words);
  return scratch[0]!;
}

export const f64NaN1Of = (a: number): number => ruleOn(nanScratchF64, f64NaN1, a, 0);
export const f64NaN2Of = (a: number, b: number): number => ruleOn(nanScratchF64, f64NaN2, a, b);
export const f64NaNMinMaxOf = (a: number, b: number): number => ruleOn(nanScratchF64, f64NaNMinMax, a, b);
export const f32NaN1Of = (a: number): number => ruleOn(nanScratchF32, f32NaN1, a, 0);
export const f32NaN2Of = (a: number, b: number): number => ruleOn(nanScratchF32, f32NaN2, a, b);
export const f32NaNMinMaxOf = (a: number, b: number): number => ruleOn(nanScratchF32, f32NaNMinMax, a, b);

/** f32DemoteNaN on an f64 value: an f64 in, an f32 out. */
export function f32DemoteNaNOf(a: number): number {
  nanScratchF64[1] = a;
  f32DemoteNaN(nanScratchS32, 0, 2);
  return nanScratchF32[0]!;
}

/**
 * f32.demote_f64 of a NaN: sign, quiet, and the top 23 bits of the f64's 52-bit payload field
 * (the 20 in the high word, then the top 3 of the low word), as cvtsd2ss.
 */
export function f32DemoteNaN(s: Int32Array, d: number, a: number): void {
  const lo = s[a]!;
  const hi = s[a + 1]!;
  s[d] = (hi & -0x80000000) | 0x7fc00000 | ((hi & 0xfffff) << 3) | (lo >>> 29);
}

/** f64.promote_f32 of a NaN: sign, quiet, and the f32's 23-bit payload field at the top of the f64's, as cvtss2sd. */
export function f64PromoteNaN(s: Int32Array, d: number, a: number): void {
  const x = s[a]!;
  s[d] = x << 29;
  s[d + 1] = (x & -0x80000000) | 0x7ff80000 | ((x & 0x7fffff) >>> 3);
}

// ---------------------------------------------------------------------------------------------
// API helpers (not hot; BigInt allowed)
// ---------------------------------------------------------------------------------------------

/** The signed i64 whose halves are (lo, hi). */
export function i64ToBigInt(lo: number, hi: number): bigint {
  return (BigInt(hi | 0) << 32n) | BigInt(lo >>> 0);
}

/** Signed 32-bit halves of a BigInt taken modulo 2^64. */
export function bigIntToHalves(v: bigint): [lo: number, hi: number] {
  return [Number(BigInt.asIntN(32, v)), Number(BigInt.asIntN(32, v >> 32n))];
}
