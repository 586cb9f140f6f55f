/**
 * Scratch registers for SIMD lane access: one module-level 80-byte buffer viewed at every lane
 * width, so an operation on 8- or 16-bit lanes copies its operands' 4 words in, works on the
 * typed views, and copies 4 result words out, with nothing allocated per instruction.
 *
 * X, Y, Z hold up to three operands, R the result. Because operands are copied before the
 * result is written back, a destination may overlap any operand.
 *
 * Lane order is memory order (little-endian), as in WebAssembly: word 0 holds bytes 0-3, lane 0
 * of an i8x16 is the low byte of word 0. Like the rest of the engine (an f64 slot is read as a
 * Float64Array element over two Int32Array words), this assumes a little-endian host.
 */

const buffer = new ArrayBuffer(80);

export const X32 = new Int32Array(buffer, 0, 4);
export const Y32 = new Int32Array(buffer, 16, 4);
export const Z32 = new Int32Array(buffer, 32, 4);
export const R32 = new Int32Array(buffer, 48, 4);

export const X8 = new Int8Array(buffer, 0, 16);
export const Y8 = new Int8Array(buffer, 16, 16);
export const Z8 = new Int8Array(buffer, 32, 16);
export const R8 = new Int8Array(buffer, 48, 16);
export const XU8 = new Uint8Array(buffer, 0, 16);
export const YU8 = new Uint8Array(buffer, 16, 16);
export const RU8 = new Uint8Array(buffer, 48, 16);

export const X16 = new Int16Array(buffer, 0, 8);
export const Y16 = new Int16Array(buffer, 16, 8);
export const R16 = new Int16Array(buffer, 48, 8);
export const XU16 = new Uint16Array(buffer, 0, 8);
export const YU16 = new Uint16Array(buffer, 16, 8);

export const XF = new Float32Array(buffer, 0, 4);
export const YF = new Float32Array(buffer, 16, 4);
export const ZF = new Float32Array(buffer, 32, 4);
export const XD = new Float64Array(buffer, 0, 2);
export const YD = new Float64Array(buffer, 16, 2);
export const ZD = new Float64Array(buffer, 32, 2);

/** One double and its two words, for bit manipulation of a single f64. */
export const W64 = new Float64Array(buffer, 64, 1);
export const W32 = new Int32Array(buffer, 64, 2);

/** Copies the v128 at word offset `a` into X. */
export function load1(s32: Int32Array, a: number): void {
  X32[0] = s32[a]!;
  X32[1] = s32[a + 1]!;
  X32[2] = s32[a + 2]!;
  X32[3] = s32[a + 3]!;
}

/** Copies the v128s at `a` and `b` into X and Y. */
export function load2(s32: Int32Array, a: number, b: number): void {
  X32[0] = s32[a]!;
  X32[1] = s32[a + 1]!;
  X32[2] = s32[a + 2]!;
  X32[3] = s32[a + 3]!;
  Y32[0] = s32[b]!;
  Y32[1] = s32[b + 1]!;
  Y32[2] = s32[b + 2]!;
  Y32[3] = s32[b + 3]!;
}

/** Copies the v128s at `a`, `b` and `c` into X, Y and Z. */
export function load3(s32: Int32Array, a: number, b: number, c: number): void {
  load2(s32, a, b);
  Z32[0] = s32[c]!;
  Z32[1] = s32[c + 1]!;
  Z32[2] = s32[c + 2]!;
  Z32[3] = s32[c + 3]!;
}

/** Copies R into the v128 at word offset `d`. */
export function store(s32: Int32Array, d: number): void {
  s32[d] = R32[0]!;
  s32[d + 1] = R32[1]!;
  s32[d + 2] = R32[2]!;
  s32[d + 3] = R32[3]!;
}
