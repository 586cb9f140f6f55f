/**
 * Fused multiply-add, correctly rounded (IEEE 754 fusedMultiplyAdd, round to nearest even), for
 * f32x4/f64x2.relaxed_madd and relaxed_nmadd: wasmtime computes them fused when relaxed SIMD
 * is deterministic (see docs/simd.md). JavaScript has no Math.fma.
 *
 * The functions take and return plain numbers. A NaN result is returned as some NaN; which NaN
 * the instruction produces is decided by the caller from the operands' bits (simd-float.ts).
 *
 * f32: a * b of two f32 values is exact in binary64 (48 significant bits), so only the sum
 * needs care: it is computed exactly as s + e (TwoSum), s is rounded to odd at 53 bits, and
 * Math.fround then rounds once more. Rounding to odd at p + 2 or more bits followed by rounding
 * to nearest at p bits equals a single rounding to nearest (Boldo and Melquiond, "Emulation of
 * FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008).
 *
 * f64: the same paper's emulation: the product exactly as uh + ul (Veltkamp split and Dekker's
 * product), (th, tl) = TwoSum(c, uh), v = tl + ul rounded to odd, result = th + v. It holds
 * when nothing overflows or underflows; outside a generous safe range (and when the result is
 * tiny) the exact value is computed with BigInt instead — a rare path, off the hot one.
 */
import { W32, W64 } from './simd-lanes.js';

const SPLITTER = 134217729; // 2^27 + 1
const TWO_1000 = 2 ** 1000;
const TWO_995 = 2 ** 995;
const TWO_M900 = 2 ** -900;
const TWO_M960 = 2 ** -960;

/**
 * Rounds s (not zero, finite) to odd given the sign of the rounding error e (not zero):
 * the exact value lies strictly between s and its neighbour in the direction of e, and of
 * those two the one with an odd significand is the round-to-odd result.
 */
function roundToOdd(s: number, e: number): number {
  W64[0] = s;
  let lo = W32[0]!;
  if ((lo & 1) !== 0) return s;
  // Same sign: one step away from zero (the magnitude grows), else one step toward zero.
  if ((s > 0) === (e > 0)) {
    W32[0] = lo + 1; // lo is even: no carry
  } else {
    if (lo === 0) W32[1] = W32[1]! - 1;
    lo = (lo - 1) | 0;
    W32[0] = lo;
  }
  return W64[0]!;
}

/** fma for f32 operands (numbers that are f32 values); the result is an f32 value. */
export function fma32(a: number, b: number, c: number): number {
  const p = a * b; // exact, or ±Infinity / NaN exactly when the exact product is
  const s = p + c;
  if (s - s !== 0) return s; // an infinity or NaN operand decides: IEEE addition gives fma's answer
  const bb = s - p;
  const e = (p - (s - bb)) + (c - bb); // p + c = s + e exactly
  if (e === 0) return Math.fround(s);
  return Math.fround(roundToOdd(s, e));
}

/** fma for f64 operands. */
export function fma64(a: number, b: number, c: number): number {
  const p = a * b;
  const ap = Math.abs(p);
  if (ap > TWO_M900 && ap < TWO_1000 && Math.abs(c) < TWO_1000
    && Math.abs(a) < TWO_995 && Math.abs(b) < TWO_995) {
    // Exact product p + pl.
    let t = a * SPLITTER;
    const ah = t - (t - a);
    const al = a - ah;
    t = b * SPLITTER;
    const bh = t - (t - b);
    const bl = b - bh;
    const pl = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    // c + p = th + tl exactly.
    const th = c + p;
    let bb = th - c;
    const tl = (c - (th - bb)) + (p - bb);
    // v = tl + pl rounded to odd.
    let v = tl + pl;
    bb = v - tl;
    const ev = (tl - (v - bb)) + (pl - bb);
    if (ev !== 0) v = roundToOdd(v, ev);
    const r = th + v;
    if (Math.abs(r) >= TWO_M960) return r;
  }
  return fma64Slow(a, b, c);
}

/** fma64 outside the fast path's range: special operands, or the exact value by BigInt. */
function fma64Slow(a: number, b: number, c: number): number {
  if (a - a !== 0 || b - b !== 0) return a * b + c; // ±Infinity or NaN product: exactly as IEEE
  if (c - c !== 0) return c; // finite product plus ±Infinity or NaN
  if (a === 0 || b === 0) return a * b + c; // an exact ±0 product
  if (c === 0) return a * b; // the product rounded once; a zero result keeps the product's sign
  const ea = decompose(a);
  const ma = mantissa;
  const eb = decompose(b);
  const mb = mantissa;
  const ec = decompose(c);
  const mc = mantissa;
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  const prod = BigInt(ma) * BigInt(mb) * (a < 0 !== b < 0 ? -1n : 1n);
  const add = BigInt(mc) * (c < 0 ? -1n : 1n);
  const n = (prod << BigInt(ep - e)) + (add << BigInt(ec - e));
  if (n === 0n) return 0; // an exact zero from non-zero terms is +0 when rounding to nearest
  return n < 0n ? -roundToDouble(-n, e) : roundToDouble(n, e);
}

/** The significand (an integer below 2^53) of the last number `decompose` took apart. */
let mantissa = 0;

/** Splits a finite non-zero double into mantissa * 2^exponent; returns the exponent. */
function decompose(x: number): number {
  W64[0] = x;
  const hi = W32[1]!;
  const bits = (hi >>> 20) & 0x7ff;
  const frac = (hi & 0xfffff) * 4294967296 + (W32[0]! >>> 0);
  if (bits === 0) {
    mantissa = frac;
    return -1074;
  }
  mantissa = frac + 4503599627370496; // + 2^52
  return bits - 1075;
}

/** n * 2^e (n > 0) rounded to the nearest double, ties to even, subnormals and overflow included. */
function roundToDouble(n: bigint, e: number): number {
  const top = e + n.toString(2).length - 1; // exponent of the leading bit
  const lsb = Math.max(top - 52, -1074); // exponent of the last bit a double keeps
  let q: bigint;
  if (lsb > e) {
    const shift = BigInt(lsb - e);
    q = n >> shift;
    const rest = n - (q << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
  } else {
    q = n << BigInt(e - lsb);
  }
  // q < 2^54 is exact as a number; scaling by a power of two is exact or overflows to Infinity.
  return Number(q) * 2 ** lsb;
}
