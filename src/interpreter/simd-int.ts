/**
 * Integer lanes of a v128: i8x16 and i16x8 work on the scratch registers' narrow views
 * (simd-lanes.ts), i32x4 and i64x2 directly on the value stack's words. i64 lanes are two
 * 32-bit halves (low word first), as numeric.ts does for i64: no BigInt anywhere.
 *
 * Every function reads all its operands before it writes the destination, so `d` may overlap
 * `a` or `b`. Results stored into Int8Array/Int16Array views wrap modulo 2^8 / 2^16, which is
 * what the wrapping operations want.
 */
import {
  R16, R32, R8, RU8, X16, X32, X8, XU16, XU8, Y16, Y32, Y8, YU16, YU8, Z32, load1, load2, load3, store,
} from './simd-lanes.js';

const TWO_M32 = 2.3283064365386963e-10; // 2^-32

// ---------------------------------------------------------------------------------------------
// i8x16
// ---------------------------------------------------------------------------------------------

/** i8x16 binary operations (op: its sub-opcode). */
export function i8x16Binary(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  load2(s32, a, b);
  switch (op) {
    case 0x23: for (let i = 0; i < 16; i++) R8[i] = X8[i] === Y8[i] ? -1 : 0; break;
    case 0x24: for (let i = 0; i < 16; i++) R8[i] = X8[i] !== Y8[i] ? -1 : 0; break;
    case 0x25: for (let i = 0; i < 16; i++) R8[i] = X8[i]! < Y8[i]! ? -1 : 0; break;
    case 0x26: for (let i = 0; i < 16; i++) R8[i] = XU8[i]! < YU8[i]! ? -1 : 0; break;
    case 0x27: for (let i = 0; i < 16; i++) R8[i] = X8[i]! > Y8[i]! ? -1 : 0; break;
    case 0x28: for (let i = 0; i < 16; i++) R8[i] = XU8[i]! > YU8[i]! ? -1 : 0; break;
    case 0x29: for (let i = 0; i < 16; i++) R8[i] = X8[i]! <= Y8[i]! ? -1 : 0; break;
    case 0x2a: for (let i = 0; i < 16; i++) R8[i] = XU8[i]! <= YU8[i]! ? -1 : 0; break;
    case 0x2b: for (let i = 0; i < 16; i++) R8[i] = X8[i]! >= Y8[i]! ? -1 : 0; break;
    case 0x2c: for (let i = 0; i < 16; i++) R8[i] = XU8[i]! >= YU8[i]! ? -1 : 0; break;
    case 0x6f: // add_sat_s
      for (let i = 0; i < 16; i++) {
        const v = X8[i]! + Y8[i]!;
        R8[i] = v > 127 ? 127 : v < -128 ? -128 : v;
      }
      break;
    case 0x70: // add_sat_u
      for (let i = 0; i < 16; i++) {
        const v = XU8[i]! + YU8[i]!;
        RU8[i] = v > 255 ? 255 : v;
      }
      break;
    case 0x72: // sub_sat_s
      for (let i = 0; i < 16; i++) {
        const v = X8[i]! - Y8[i]!;
        R8[i] = v > 127 ? 127 : v < -128 ? -128 : v;
      }
      break;
    case 0x73: // sub_sat_u
      for (let i = 0; i < 16; i++) {
        const v = XU8[i]! - YU8[i]!;
        RU8[i] = v < 0 ? 0 : v;
      }
      break;
    case 0x76: for (let i = 0; i < 16; i++) R8[i] = X8[i]! < Y8[i]! ? X8[i]! : Y8[i]!; break;
    case 0x77: for (let i = 0; i < 16; i++) RU8[i] = XU8[i]! < YU8[i]! ? XU8[i]! : YU8[i]!; break;
    case 0x78: for (let i = 0; i < 16; i++) R8[i] = X8[i]! > Y8[i]! ? X8[i]! : Y8[i]!; break;
    case 0x79: for (let i = 0; i < 16; i++) RU8[i] = XU8[i]! > YU8[i]! ? XU8[i]! : YU8[i]!; break;
    case 0x7b: for (let i = 0; i < 16; i++) RU8[i] = (XU8[i]! + YU8[i]! + 1) >>> 1; break; // avgr_u
    case 0x65: // narrow_i16x8_s: a's eight lanes, then b's, saturated to i8
      for (let i = 0; i < 8; i++) {
        const v = X16[i]!, w = Y16[i]!;
        R8[i] = v > 127 ? 127 : v < -128 ? -128 : v;
        R8[i + 8] = w > 127 ? 127 : w < -128 ? -128 : w;
      }
      break;
    case 0x66: // narrow_i16x8_u: signed i16 saturated to u8
      for (let i = 0; i < 8; i++) {
        const v = X16[i]!, w = Y16[i]!;
        RU8[i] = v > 255 ? 255 : v < 0 ? 0 : v;
        RU8[i + 8] = w > 255 ? 255 : w < 0 ? 0 : w;
      }
      break;
    case 0x0e: case 0x100: // swizzle (and relaxed_swizzle, deterministic): index >= 16 gives 0
      for (let i = 0; i < 16; i++) {
        const j = YU8[i]!;
        RU8[i] = j < 16 ? XU8[j]! : 0;
      }
      break;
    default: throw new Error(`not an i8x16 binary operation: 0x${op.toString(16)}`);
  }
  store(s32, d);
}

/**
 * i8x16.add and i8x16.sub within 32-bit words: the low 7 bits of each byte are added (or
 * subtracted from 0x80 | x, so no borrow leaves a byte), and the top bit comes from an XOR.
 */
export function i8x16Add(s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  s32[d] = ((x0 & 0x7f7f7f7f) + (y0 & 0x7f7f7f7f)) ^ ((x0 ^ y0) & 0x80808080);
  s32[d + 1] = ((x1 & 0x7f7f7f7f) + (y1 & 0x7f7f7f7f)) ^ ((x1 ^ y1) & 0x80808080);
  s32[d + 2] = ((x2 & 0x7f7f7f7f) + (y2 & 0x7f7f7f7f)) ^ ((x2 ^ y2) & 0x80808080);
  s32[d + 3] = ((x3 & 0x7f7f7f7f) + (y3 & 0x7f7f7f7f)) ^ ((x3 ^ y3) & 0x80808080);
}

export function i8x16Sub(s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  s32[d] = ((x0 | 0x80808080) - (y0 & 0x7f7f7f7f)) ^ ((x0 ^ ~y0) & 0x80808080);
  s32[d + 1] = ((x1 | 0x80808080) - (y1 & 0x7f7f7f7f)) ^ ((x1 ^ ~y1) & 0x80808080);
  s32[d + 2] = ((x2 | 0x80808080) - (y2 & 0x7f7f7f7f)) ^ ((x2 ^ ~y2) & 0x80808080);
  s32[d + 3] = ((x3 | 0x80808080) - (y3 & 0x7f7f7f7f)) ^ ((x3 ^ ~y3) & 0x80808080);
}

/** Set bits of a byte. */
function popcnt8(x: number): number {
  x -= (x >>> 1) & 0x55;
  x = (x & 0x33) + ((x >>> 2) & 0x33);
  return (x + (x >>> 4)) & 0x0f;
}

/** i8x16 unary operations: abs, neg, popcnt. */
export function i8x16Unary(op: number, s32: Int32Array, d: number, a: number): void {
  load1(s32, a);
  switch (op) {
    case 0x60: for (let i = 0; i < 16; i++) { const v = X8[i]!; R8[i] = v < 0 ? -v : v; } break; // abs(-128) wraps to -128
    case 0x61: for (let i = 0; i < 16; i++) R8[i] = -X8[i]!; break;
    default: for (let i = 0; i < 16; i++) RU8[i] = popcnt8(XU8[i]!); // 0x62
  }
  store(s32, d);
}

/** i8x16 shifts: the count is taken modulo 8. */
export function i8x16Shift(op: number, s32: Int32Array, d: number, a: number, count: number): void {
  const n = count & 7;
  load1(s32, a);
  switch (op) {
    case 0x6b: for (let i = 0; i < 16; i++) R8[i] = X8[i]! << n; break;
    case 0x6c: for (let i = 0; i < 16; i++) R8[i] = X8[i]! >> n; break;
    default: for (let i = 0; i < 16; i++) RU8[i] = XU8[i]! >>> n; // 0x6d
  }
  store(s32, d);
}

// ---------------------------------------------------------------------------------------------
// i16x8
// ---------------------------------------------------------------------------------------------

/** i16x8 binary operations. */
export function i16x8Binary(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  load2(s32, a, b);
  switch (op) {
    case 0x2d: for (let i = 0; i < 8; i++) R16[i] = X16[i] === Y16[i] ? -1 : 0; break;
    case 0x2e: for (let i = 0; i < 8; i++) R16[i] = X16[i] !== Y16[i] ? -1 : 0; break;
    case 0x2f: for (let i = 0; i < 8; i++) R16[i] = X16[i]! < Y16[i]! ? -1 : 0; break;
    case 0x30: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! < YU16[i]! ? -1 : 0; break;
    case 0x31: for (let i = 0; i < 8; i++) R16[i] = X16[i]! > Y16[i]! ? -1 : 0; break;
    case 0x32: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! > YU16[i]! ? -1 : 0; break;
    case 0x33: for (let i = 0; i < 8; i++) R16[i] = X16[i]! <= Y16[i]! ? -1 : 0; break;
    case 0x34: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! <= YU16[i]! ? -1 : 0; break;
    case 0x35: for (let i = 0; i < 8; i++) R16[i] = X16[i]! >= Y16[i]! ? -1 : 0; break;
    case 0x36: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! >= YU16[i]! ? -1 : 0; break;
    case 0x82: case 0x111: // q15mulr_sat_s (and relaxed_q15mulr_s, deterministic)
      for (let i = 0; i < 8; i++) {
        const v = (X16[i]! * Y16[i]! + 0x4000) >> 15; // |product| <= 2^30: exact
        R16[i] = v > 32767 ? 32767 : v;
      }
      break;
    case 0x8f:
      for (let i = 0; i < 8; i++) {
        const v = X16[i]! + Y16[i]!;
        R16[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      break;
    case 0x90:
      for (let i = 0; i < 8; i++) {
        const v = XU16[i]! + YU16[i]!;
        R16[i] = v > 65535 ? 65535 : v;
      }
      break;
    case 0x92:
      for (let i = 0; i < 8; i++) {
        const v = X16[i]! - Y16[i]!;
        R16[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      break;
    case 0x93:
      for (let i = 0; i < 8; i++) {
        const v = XU16[i]! - YU16[i]!;
        R16[i] = v < 0 ? 0 : v;
      }
      break;
    case 0x96: for (let i = 0; i < 8; i++) R16[i] = X16[i]! < Y16[i]! ? X16[i]! : Y16[i]!; break;
    case 0x97: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! < YU16[i]! ? XU16[i]! : YU16[i]!; break;
    case 0x98: for (let i = 0; i < 8; i++) R16[i] = X16[i]! > Y16[i]! ? X16[i]! : Y16[i]!; break;
    case 0x99: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! > YU16[i]! ? XU16[i]! : YU16[i]!; break;
    case 0x9b: for (let i = 0; i < 8; i++) R16[i] = (XU16[i]! + YU16[i]! + 1) >>> 1; break;
    case 0x9c: for (let i = 0; i < 8; i++) R16[i] = X8[i]! * Y8[i]!; break; // extmul_low_i8x16_s
    case 0x9d: for (let i = 0; i < 8; i++) R16[i] = X8[i + 8]! * Y8[i + 8]!; break;
    case 0x9e: for (let i = 0; i < 8; i++) R16[i] = XU8[i]! * YU8[i]!; break;
    case 0x9f: for (let i = 0; i < 8; i++) R16[i] = XU8[i + 8]! * YU8[i + 8]!; break;
    case 0x85: // narrow_i32x4_s
      for (let i = 0; i < 4; i++) {
        const v = X32[i]!, w = Y32[i]!;
        R16[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
        R16[i + 4] = w > 32767 ? 32767 : w < -32768 ? -32768 : w;
      }
      break;
    case 0x86: // narrow_i32x4_u
      for (let i = 0; i < 4; i++) {
        const v = X32[i]!, w = Y32[i]!;
        R16[i] = v > 65535 ? 65535 : v < 0 ? 0 : v;
        R16[i + 4] = w > 65535 ? 65535 : w < 0 ? 0 : w;
      }
      break;
    case 0x112: // relaxed_dot_i8x16_i7x16_s, deterministic: signed x signed, pairs added modulo 2^16
      for (let i = 0; i < 8; i++) R16[i] = X8[2 * i]! * Y8[2 * i]! + X8[2 * i + 1]! * Y8[2 * i + 1]!;
      break;
    default: throw new Error(`not an i16x8 binary operation: 0x${op.toString(16)}`);
  }
  store(s32, d);
}

/** i16x8.add, i16x8.sub (as i8x16Add/Sub, with 16-bit fields). */
export function i16x8Add(s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  s32[d] = ((x0 & 0x7fff7fff) + (y0 & 0x7fff7fff)) ^ ((x0 ^ y0) & 0x80008000);
  s32[d + 1] = ((x1 & 0x7fff7fff) + (y1 & 0x7fff7fff)) ^ ((x1 ^ y1) & 0x80008000);
  s32[d + 2] = ((x2 & 0x7fff7fff) + (y2 & 0x7fff7fff)) ^ ((x2 ^ y2) & 0x80008000);
  s32[d + 3] = ((x3 & 0x7fff7fff) + (y3 & 0x7fff7fff)) ^ ((x3 ^ y3) & 0x80008000);
}

export function i16x8Sub(s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  s32[d] = ((x0 | 0x80008000) - (y0 & 0x7fff7fff)) ^ ((x0 ^ ~y0) & 0x80008000);
  s32[d + 1] = ((x1 | 0x80008000) - (y1 & 0x7fff7fff)) ^ ((x1 ^ ~y1) & 0x80008000);
  s32[d + 2] = ((x2 | 0x80008000) - (y2 & 0x7fff7fff)) ^ ((x2 ^ ~y2) & 0x80008000);
  s32[d + 3] = ((x3 | 0x80008000) - (y3 & 0x7fff7fff)) ^ ((x3 ^ ~y3) & 0x80008000);
}

/** i16x8.mul: the low 16 bits of each product; imul keeps the low bits exact. */
export function i16x8Mul(s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  s32[d] = (Math.imul(x0 >>> 16, y0 >>> 16) << 16) | (Math.imul(x0, y0) & 0xffff);
  s32[d + 1] = (Math.imul(x1 >>> 16, y1 >>> 16) << 16) | (Math.imul(x1, y1) & 0xffff);
  s32[d + 2] = (Math.imul(x2 >>> 16, y2 >>> 16) << 16) | (Math.imul(x2, y2) & 0xffff);
  s32[d + 3] = (Math.imul(x3 >>> 16, y3 >>> 16) << 16) | (Math.imul(x3, y3) & 0xffff);
}

/** i16x8 unary operations: abs, neg, extend_low/high_i8x16_s/u, extadd_pairwise_i8x16_s/u. */
export function i16x8Unary(op: number, s32: Int32Array, d: number, a: number): void {
  load1(s32, a);
  switch (op) {
    case 0x80: for (let i = 0; i < 8; i++) { const v = X16[i]!; R16[i] = v < 0 ? -v : v; } break;
    case 0x81: for (let i = 0; i < 8; i++) R16[i] = -X16[i]!; break;
    case 0x87: for (let i = 0; i < 8; i++) R16[i] = X8[i]!; break;
    case 0x88: for (let i = 0; i < 8; i++) R16[i] = X8[i + 8]!; break;
    case 0x89: for (let i = 0; i < 8; i++) R16[i] = XU8[i]!; break;
    case 0x8a: for (let i = 0; i < 8; i++) R16[i] = XU8[i + 8]!; break;
    case 0x7c: for (let i = 0; i < 8; i++) R16[i] = X8[2 * i]! + X8[2 * i + 1]!; break;
    default: for (let i = 0; i < 8; i++) R16[i] = XU8[2 * i]! + XU8[2 * i + 1]!; // 0x7d
  }
  store(s32, d);
}

/** i16x8 shifts: the count is taken modulo 16. */
export function i16x8Shift(op: number, s32: Int32Array, d: number, a: number, count: number): void {
  const n = count & 15;
  load1(s32, a);
  switch (op) {
    case 0x8b: for (let i = 0; i < 8; i++) R16[i] = X16[i]! << n; break;
    case 0x8c: for (let i = 0; i < 8; i++) R16[i] = X16[i]! >> n; break;
    default: for (let i = 0; i < 8; i++) R16[i] = XU16[i]! >>> n; // 0x8d
  }
  store(s32, d);
}

// ---------------------------------------------------------------------------------------------
// i32x4
// ---------------------------------------------------------------------------------------------

/** i32x4 binary operations. */
export function i32x4Binary(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
  let r0: number, r1: number, r2: number, r3: number;
  switch (op) {
    case 0x37: r0 = x0 === y0 ? -1 : 0; r1 = x1 === y1 ? -1 : 0; r2 = x2 === y2 ? -1 : 0; r3 = x3 === y3 ? -1 : 0; break;
    case 0x38: r0 = x0 !== y0 ? -1 : 0; r1 = x1 !== y1 ? -1 : 0; r2 = x2 !== y2 ? -1 : 0; r3 = x3 !== y3 ? -1 : 0; break;
    case 0x39: r0 = x0 < y0 ? -1 : 0; r1 = x1 < y1 ? -1 : 0; r2 = x2 < y2 ? -1 : 0; r3 = x3 < y3 ? -1 : 0; break;
    case 0x3a:
      r0 = x0 >>> 0 < y0 >>> 0 ? -1 : 0; r1 = x1 >>> 0 < y1 >>> 0 ? -1 : 0;
      r2 = x2 >>> 0 < y2 >>> 0 ? -1 : 0; r3 = x3 >>> 0 < y3 >>> 0 ? -1 : 0;
      break;
    case 0x3b: r0 = x0 > y0 ? -1 : 0; r1 = x1 > y1 ? -1 : 0; r2 = x2 > y2 ? -1 : 0; r3 = x3 > y3 ? -1 : 0; break;
    case 0x3c:
      r0 = x0 >>> 0 > y0 >>> 0 ? -1 : 0; r1 = x1 >>> 0 > y1 >>> 0 ? -1 : 0;
      r2 = x2 >>> 0 > y2 >>> 0 ? -1 : 0; r3 = x3 >>> 0 > y3 >>> 0 ? -1 : 0;
      break;
    case 0x3d: r0 = x0 <= y0 ? -1 : 0; r1 = x1 <= y1 ? -1 : 0; r2 = x2 <= y2 ? -1 : 0; r3 = x3 <= y3 ? -1 : 0; break;
    case 0x3e:
      r0 = x0 >>> 0 <= y0 >>> 0 ? -1 : 0; r1 = x1 >>> 0 <= y1 >>> 0 ? -1 : 0;
      r2 = x2 >>> 0 <= y2 >>> 0 ? -1 : 0; r3 = x3 >>> 0 <= y3 >>> 0 ? -1 : 0;
      break;
    case 0x3f: r0 = x0 >= y0 ? -1 : 0; r1 = x1 >= y1 ? -1 : 0; r2 = x2 >= y2 ? -1 : 0; r3 = x3 >= y3 ? -1 : 0; break;
    case 0x40:
      r0 = x0 >>> 0 >= y0 >>> 0 ? -1 : 0; r1 = x1 >>> 0 >= y1 >>> 0 ? -1 : 0;
      r2 = x2 >>> 0 >= y2 >>> 0 ? -1 : 0; r3 = x3 >>> 0 >= y3 >>> 0 ? -1 : 0;
      break;
    case 0xae: r0 = (x0 + y0) | 0; r1 = (x1 + y1) | 0; r2 = (x2 + y2) | 0; r3 = (x3 + y3) | 0; break;
    case 0xb1: r0 = (x0 - y0) | 0; r1 = (x1 - y1) | 0; r2 = (x2 - y2) | 0; r3 = (x3 - y3) | 0; break;
    case 0xb5: r0 = Math.imul(x0, y0); r1 = Math.imul(x1, y1); r2 = Math.imul(x2, y2); r3 = Math.imul(x3, y3); break;
    case 0xb6: r0 = x0 < y0 ? x0 : y0; r1 = x1 < y1 ? x1 : y1; r2 = x2 < y2 ? x2 : y2; r3 = x3 < y3 ? x3 : y3; break;
    case 0xb7:
      r0 = x0 >>> 0 < y0 >>> 0 ? x0 : y0; r1 = x1 >>> 0 < y1 >>> 0 ? x1 : y1;
      r2 = x2 >>> 0 < y2 >>> 0 ? x2 : y2; r3 = x3 >>> 0 < y3 >>> 0 ? x3 : y3;
      break;
    case 0xb8: r0 = x0 > y0 ? x0 : y0; r1 = x1 > y1 ? x1 : y1; r2 = x2 > y2 ? x2 : y2; r3 = x3 > y3 ? x3 : y3; break;
    case 0xb9:
      r0 = x0 >>> 0 > y0 >>> 0 ? x0 : y0; r1 = x1 >>> 0 > y1 >>> 0 ? x1 : y1;
      r2 = x2 >>> 0 > y2 >>> 0 ? x2 : y2; r3 = x3 >>> 0 > y3 >>> 0 ? x3 : y3;
      break;
    case 0xba: // dot_i16x8_s: the pairwise sums of i16 products; only -32768^2 * 2 wraps
      r0 = ((x0 >> 16) * (y0 >> 16) + ((x0 << 16) >> 16) * ((y0 << 16) >> 16)) | 0;
      r1 = ((x1 >> 16) * (y1 >> 16) + ((x1 << 16) >> 16) * ((y1 << 16) >> 16)) | 0;
      r2 = ((x2 >> 16) * (y2 >> 16) + ((x2 << 16) >> 16) * ((y2 << 16) >> 16)) | 0;
      r3 = ((x3 >> 16) * (y3 >> 16) + ((x3 << 16) >> 16) * ((y3 << 16) >> 16)) | 0;
      break;
    case 0xbc: // extmul_low_i16x8_s: lanes 0-3 are words 0 and 1
      r0 = ((x0 << 16) >> 16) * ((y0 << 16) >> 16); r1 = (x0 >> 16) * (y0 >> 16);
      r2 = ((x1 << 16) >> 16) * ((y1 << 16) >> 16); r3 = (x1 >> 16) * (y1 >> 16);
      break;
    case 0xbd:
      r0 = ((x2 << 16) >> 16) * ((y2 << 16) >> 16); r1 = (x2 >> 16) * (y2 >> 16);
      r2 = ((x3 << 16) >> 16) * ((y3 << 16) >> 16); r3 = (x3 >> 16) * (y3 >> 16);
      break;
    case 0xbe: // unsigned products reach 0xfffe0001: imul gives their bits
      r0 = Math.imul(x0 & 0xffff, y0 & 0xffff); r1 = Math.imul(x0 >>> 16, y0 >>> 16);
      r2 = Math.imul(x1 & 0xffff, y1 & 0xffff); r3 = Math.imul(x1 >>> 16, y1 >>> 16);
      break;
    case 0xbf:
      r0 = Math.imul(x2 & 0xffff, y2 & 0xffff); r1 = Math.imul(x2 >>> 16, y2 >>> 16);
      r2 = Math.imul(x3 & 0xffff, y3 & 0xffff); r3 = Math.imul(x3 >>> 16, y3 >>> 16);
      break;
    default: throw new Error(`not an i32x4 binary operation: 0x${op.toString(16)}`);
  }
  s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
}

/** i32x4 unary operations: abs, neg, extend_low/high_i16x8_s/u, extadd_pairwise_i16x8_s/u. */
export function i32x4Unary(op: number, s32: Int32Array, d: number, a: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  let r0: number, r1: number, r2: number, r3: number;
  switch (op) {
    case 0xa0: // abs(INT32_MIN) wraps to itself
      r0 = x0 < 0 ? -x0 | 0 : x0; r1 = x1 < 0 ? -x1 | 0 : x1; r2 = x2 < 0 ? -x2 | 0 : x2; r3 = x3 < 0 ? -x3 | 0 : x3;
      break;
    case 0xa1: r0 = -x0 | 0; r1 = -x1 | 0; r2 = -x2 | 0; r3 = -x3 | 0; break;
    case 0xa7: r0 = (x0 << 16) >> 16; r1 = x0 >> 16; r2 = (x1 << 16) >> 16; r3 = x1 >> 16; break;
    case 0xa8: r0 = (x2 << 16) >> 16; r1 = x2 >> 16; r2 = (x3 << 16) >> 16; r3 = x3 >> 16; break;
    case 0xa9: r0 = x0 & 0xffff; r1 = x0 >>> 16; r2 = x1 & 0xffff; r3 = x1 >>> 16; break;
    case 0xaa: r0 = x2 & 0xffff; r1 = x2 >>> 16; r2 = x3 & 0xffff; r3 = x3 >>> 16; break;
    case 0x7e:
      r0 = ((x0 << 16) >> 16) + (x0 >> 16); r1 = ((x1 << 16) >> 16) + (x1 >> 16);
      r2 = ((x2 << 16) >> 16) + (x2 >> 16); r3 = ((x3 << 16) >> 16) + (x3 >> 16);
      break;
    default: // 0x7f
      r0 = (x0 & 0xffff) + (x0 >>> 16); r1 = (x1 & 0xffff) + (x1 >>> 16);
      r2 = (x2 & 0xffff) + (x2 >>> 16); r3 = (x3 & 0xffff) + (x3 >>> 16);
  }
  s32[d] = r0; s32[d + 1] = r1; s32[d + 2] = r2; s32[d + 3] = r3;
}

/** i32x4 shifts: the count is taken modulo 32 (as JavaScript's shifts do). */
export function i32x4Shift(op: number, s32: Int32Array, d: number, a: number, count: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  switch (op) {
    case 0xab: s32[d] = x0 << count; s32[d + 1] = x1 << count; s32[d + 2] = x2 << count; s32[d + 3] = x3 << count; return;
    case 0xac: s32[d] = x0 >> count; s32[d + 1] = x1 >> count; s32[d + 2] = x2 >> count; s32[d + 3] = x3 >> count; return;
    default: s32[d] = x0 >>> count; s32[d + 1] = x1 >>> count; s32[d + 2] = x2 >>> count; s32[d + 3] = x3 >>> count; // 0xad
  }
}

// ---------------------------------------------------------------------------------------------
// i64x2 (two halves per lane: words k (low) and k + 1 (high))
// ---------------------------------------------------------------------------------------------

/** i64x2.add, i64x2.sub. */
export function i64x2AddSub(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  const al0 = s32[a]!, ah0 = s32[a + 1]!, al1 = s32[a + 2]!, ah1 = s32[a + 3]!;
  let bl0 = s32[b]!, bh0 = s32[b + 1]!, bl1 = s32[b + 2]!, bh1 = s32[b + 3]!;
  if (op === 0xd1) { // a - b = a + (-b)
    bh0 = bl0 === 0 ? -bh0 | 0 : ~bh0; bl0 = -bl0 | 0;
    bh1 = bl1 === 0 ? -bh1 | 0 : ~bh1; bl1 = -bl1 | 0;
  }
  const l0 = (al0 >>> 0) + (bl0 >>> 0), l1 = (al1 >>> 0) + (bl1 >>> 0);
  s32[d] = l0;
  s32[d + 1] = ah0 + bh0 + (l0 > 0xffffffff ? 1 : 0);
  s32[d + 2] = l1;
  s32[d + 3] = ah1 + bh1 + (l1 > 0xffffffff ? 1 : 0);
}

/** Writes the low 64 bits of the product of the i64s (al, ah) and (bl, bh) to s32 at d (as numeric.ts's i64Mul). */
function mul64(s32: Int32Array, d: number, al: number, ah: number, bl: number, bh: number): void {
  const lo = Math.imul(al, bl);
  const hi = Math.round(((al >>> 0) * (bl >>> 0) - (lo >>> 0)) * TWO_M32);
  s32[d] = lo;
  s32[d + 1] = hi + Math.imul(al, bh) + Math.imul(ah, bl);
}

/** i64x2.mul. */
export function i64x2Mul(s32: Int32Array, d: number, a: number, b: number): void {
  const al0 = s32[a]!, ah0 = s32[a + 1]!, al1 = s32[a + 2]!, ah1 = s32[a + 3]!;
  const bl0 = s32[b]!, bh0 = s32[b + 1]!, bl1 = s32[b + 2]!, bh1 = s32[b + 3]!;
  mul64(s32, d, al0, ah0, bl0, bh0);
  mul64(s32, d + 2, al1, ah1, bl1, bh1);
}

/**
 * i64x2.extmul_low/high_i32x4_s/u (0xdc-0xdf): full 64-bit products of i32 lanes. The unsigned
 * product's high word comes from doubles as in mul64; a signed product is the unsigned one
 * minus 2^32 times each negative factor's partner.
 */
export function i64x2ExtMul(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  const k = op === 0xdd || op === 0xdf ? 2 : 0;
  const x0 = s32[a + k]!, x1 = s32[a + k + 1]!, y0 = s32[b + k]!, y1 = s32[b + k + 1]!;
  const signed = op <= 0xdd;
  const lo0 = Math.imul(x0, y0), lo1 = Math.imul(x1, y1);
  let hi0 = Math.round(((x0 >>> 0) * (y0 >>> 0) - (lo0 >>> 0)) * TWO_M32);
  let hi1 = Math.round(((x1 >>> 0) * (y1 >>> 0) - (lo1 >>> 0)) * TWO_M32);
  if (signed) {
    hi0 = hi0 - (x0 < 0 ? y0 : 0) - (y0 < 0 ? x0 : 0);
    hi1 = hi1 - (x1 < 0 ? y1 : 0) - (y1 < 0 ? x1 : 0);
  }
  s32[d] = lo0; s32[d + 1] = hi0; s32[d + 2] = lo1; s32[d + 3] = hi1;
}

/** i64x2 comparisons (0xd6-0xdb): 64-bit lanes of all ones where true. */
export function i64x2Compare(op: number, s32: Int32Array, d: number, a: number, b: number): void {
  const al0 = s32[a]!, ah0 = s32[a + 1]!, al1 = s32[a + 2]!, ah1 = s32[a + 3]!;
  const bl0 = s32[b]!, bh0 = s32[b + 1]!, bl1 = s32[b + 2]!, bh1 = s32[b + 3]!;
  let r0: boolean, r1: boolean;
  switch (op) {
    case 0xd6: r0 = al0 === bl0 && ah0 === bh0; r1 = al1 === bl1 && ah1 === bh1; break;
    case 0xd7: r0 = al0 !== bl0 || ah0 !== bh0; r1 = al1 !== bl1 || ah1 !== bh1; break;
    case 0xd8: r0 = lt64(al0, ah0, bl0, bh0); r1 = lt64(al1, ah1, bl1, bh1); break;
    case 0xd9: r0 = lt64(bl0, bh0, al0, ah0); r1 = lt64(bl1, bh1, al1, ah1); break;
    case 0xda: r0 = !lt64(bl0, bh0, al0, ah0); r1 = !lt64(bl1, bh1, al1, ah1); break;
    default: r0 = !lt64(al0, ah0, bl0, bh0); r1 = !lt64(al1, ah1, bl1, bh1); // 0xdb
  }
  const m0 = r0 ? -1 : 0, m1 = r1 ? -1 : 0;
  s32[d] = m0; s32[d + 1] = m0; s32[d + 2] = m1; s32[d + 3] = m1;
}

/** Signed 64-bit a < b on halves. */
function lt64(al: number, ah: number, bl: number, bh: number): boolean {
  return ah < bh || (ah === bh && al >>> 0 < bl >>> 0);
}

/** i64x2 unary operations: abs, neg, extend_low/high_i32x4_s/u. */
export function i64x2Unary(op: number, s32: Int32Array, d: number, a: number): void {
  const l0 = s32[a]!, h0 = s32[a + 1]!, l1 = s32[a + 2]!, h1 = s32[a + 3]!;
  switch (op) {
    case 0xc0: case 0xc1: {
      // neg = two's complement; abs negates the negative lanes (INT64_MIN stays itself).
      const n0 = op === 0xc1 || h0 < 0, n1 = op === 0xc1 || h1 < 0;
      s32[d] = n0 ? -l0 | 0 : l0;
      s32[d + 1] = n0 ? (l0 === 0 ? -h0 | 0 : ~h0) : h0;
      s32[d + 2] = n1 ? -l1 | 0 : l1;
      s32[d + 3] = n1 ? (l1 === 0 ? -h1 | 0 : ~h1) : h1;
      return;
    }
    case 0xc7: s32[d] = l0; s32[d + 1] = l0 >> 31; s32[d + 2] = h0; s32[d + 3] = h0 >> 31; return;
    case 0xc8: s32[d] = l1; s32[d + 1] = l1 >> 31; s32[d + 2] = h1; s32[d + 3] = h1 >> 31; return;
    case 0xc9: s32[d] = l0; s32[d + 1] = 0; s32[d + 2] = h0; s32[d + 3] = 0; return;
    default: s32[d] = l1; s32[d + 1] = 0; s32[d + 2] = h1; s32[d + 3] = 0; // 0xca
  }
}

/** i64x2 shifts: the count is taken modulo 64. */
export function i64x2Shift(op: number, s32: Int32Array, d: number, a: number, count: number): void {
  const n = count & 63;
  const l0 = s32[a]!, h0 = s32[a + 1]!, l1 = s32[a + 2]!, h1 = s32[a + 3]!;
  if (n === 0) {
    s32[d] = l0; s32[d + 1] = h0; s32[d + 2] = l1; s32[d + 3] = h1;
    return;
  }
  if (op === 0xcb) { // shl
    if (n >= 32) {
      s32[d] = 0; s32[d + 1] = l0 << n; s32[d + 2] = 0; s32[d + 3] = l1 << n; // << uses n mod 32
    } else {
      s32[d] = l0 << n; s32[d + 1] = (h0 << n) | (l0 >>> (32 - n));
      s32[d + 2] = l1 << n; s32[d + 3] = (h1 << n) | (l1 >>> (32 - n));
    }
  } else if (op === 0xcc) { // shr_s
    if (n >= 32) {
      s32[d] = h0 >> n; s32[d + 1] = h0 >> 31; s32[d + 2] = h1 >> n; s32[d + 3] = h1 >> 31;
    } else {
      s32[d] = (l0 >>> n) | (h0 << (32 - n)); s32[d + 1] = h0 >> n;
      s32[d + 2] = (l1 >>> n) | (h1 << (32 - n)); s32[d + 3] = h1 >> n;
    }
  } else { // 0xcd shr_u
    if (n >= 32) {
      s32[d] = h0 >>> n; s32[d + 1] = 0; s32[d + 2] = h1 >>> n; s32[d + 3] = 0;
    } else {
      s32[d] = (l0 >>> n) | (h0 << (32 - n)); s32[d + 1] = h0 >>> n;
      s32[d + 2] = (l1 >>> n) | (h1 << (32 - n)); s32[d + 3] = h1 >>> n;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Lane-crossing and three-operand integer operations
// ---------------------------------------------------------------------------------------------

/**
 * i32x4.relaxed_dot_i8x16_i7x16_add_s, deterministic as wasmtime computes it: the i16x8 signed
 * dot product (pairs added modulo 2^16), pairs of those added into i32 lanes, plus c.
 */
export function i32x4DotAdd(s32: Int32Array, d: number, a: number, b: number, c: number): void {
  load3(s32, a, b, c);
  for (let i = 0; i < 8; i++) R16[i] = X8[2 * i]! * Y8[2 * i]! + X8[2 * i + 1]! * Y8[2 * i + 1]!;
  for (let k = 0; k < 4; k++) R32[k] = (R16[2 * k]! + R16[2 * k + 1]! + Z32[k]!) | 0;
  store(s32, d);
}

/** i8x16.shuffle: lane i of the result is lane imm[i] of the 32 lanes of a then b (imm[i] < 32, validated). */
export function shuffle(s32: Int32Array, d: number, a: number, b: number, imm: Int32Array, at: number): void {
  load2(s32, a, b); // X and Y are contiguous: XU8 and YU8 are 32 bytes in a row
  for (let w = 0; w < 4; w++) {
    const lanes = imm[at + w]!;
    R32[w] = (pick(lanes & 0xff)) | (pick((lanes >>> 8) & 0xff) << 8)
      | (pick((lanes >>> 16) & 0xff) << 16) | (pick(lanes >>> 24) << 24);
  }
  store(s32, d);
}

/** Byte j (0-31) of X then Y. */
function pick(j: number): number {
  return j < 16 ? XU8[j]! : YU8[j - 16]!;
}
