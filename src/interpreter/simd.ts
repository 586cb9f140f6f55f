/**
 * Execution of WebAssembly's SIMD instructions (the 0xFD prefix: WebAssembly 2.0's fixed-width
 * SIMD and relaxed SIMD in its deterministic form), outside the scalar dispatch loop: the loop
 * has one case per entry point below and passes the sub-opcode; each entry point is a `switch`
 * on it with numeric-literal labels (a jump table in V8). simd-ops.ts says which entry point
 * and which immediates each sub-opcode has. docs/simd.md describes the design.
 *
 * Representation. A v128 occupies four consecutive 32-bit words of the value stack (two 64-bit
 * slots), in memory order: word 0 holds bytes 0-3, so lane 0 of any shape is at the lowest
 * address, as in linear memory. Operands are word offsets into the stack's views `s32`, `f32`,
 * `f64` (one buffer); a v128 offset must be even (slot-aligned), since f64 lanes are read as
 * f64[offset >> 1]. Scalars follow the engine's slot convention: an i32 or f32 in the slot's
 * low word, an i64 as (low word, high word), an f64 as the slot's Float64Array element.
 *
 * Aliasing. Every entry point reads all its operands before it writes its destination, so the
 * destination may be any operand (or overlap one).
 *
 * NaN results follow one rule (wasmtime's on x86-64; simd-float.ts, docs/simd.md);
 * `simdCanonicalize` rewrites them to the canonical NaN for a NaN-canonicalising mode.
 */
import {
  convertLowToF64, convertToF32, demote, f32x4Abs, f32x4Add, f32x4Compare, f32x4Div, f32x4Madd, f32x4Max,
  f32x4Min, f32x4Mul, f32x4Neg, f32x4Pmax, f32x4Pmin, f32x4Round, f32x4Sub, f64x2Abs, f64x2Add, f64x2Compare,
  f64x2Div, f64x2Madd, f64x2Max, f64x2Min, f64x2Mul, f64x2Neg, f64x2Pmax, f64x2Pmin, f64x2Round, f64x2Sub,
  canonicalizeNaNLanes, promote, truncSat,
} from './simd-float.js';
import {
  i16x8Add, i16x8Binary, i16x8Mul, i16x8Shift, i16x8Sub, i16x8Unary, i32x4Binary, i32x4DotAdd, i32x4Shift,
  i32x4Unary, i64x2AddSub, i64x2Compare, i64x2ExtMul, i64x2Mul, i64x2Shift, i64x2Unary, i8x16Add, i8x16Binary,
  i8x16Shift, i8x16Sub, i8x16Unary, shuffle,
} from './simd-int.js';
import { SIMD_OPS } from './simd-ops.js';

export { SIMD_OPS, simdOpInfo, type SimdEntry, type SimdImmediate, type SimdOpInfo } from './simd-ops.js';

function unknown(kind: string, op: number): never {
  throw new Error(`not a SIMD ${kind} instruction: 0xfd 0x${op.toString(16)}`);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------------------------

/** v128 -> v128 instructions (SimdOpInfo.entry 'unary'). */
export function simdUnary(op: number, s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number, a: number): void {
  switch (op) {
    case 0x4d: { // v128.not
      const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
      s32[d] = ~x0; s32[d + 1] = ~x1; s32[d + 2] = ~x2; s32[d + 3] = ~x3;
      return;
    }
    case 0x5e: demote(s32, f32, f64, d, a); return;
    case 0x5f: promote(s32, f32, f64, d, a); return;
    case 0x60: case 0x61: case 0x62: i8x16Unary(op, s32, d, a); return;
    case 0x67: case 0x68: case 0x69: case 0x6a: case 0xe3: f32x4Round(op, s32, f32, d, a); return;
    case 0x74: case 0x75: case 0x7a: case 0x94: case 0xef: f64x2Round(op, s32, f64, d, a); return;
    case 0x7c: case 0x7d: case 0x80: case 0x81: case 0x87: case 0x88: case 0x89: case 0x8a:
      i16x8Unary(op, s32, d, a);
      return;
    case 0x7e: case 0x7f: case 0xa0: case 0xa1: case 0xa7: case 0xa8: case 0xa9: case 0xaa:
      i32x4Unary(op, s32, d, a);
      return;
    case 0xc0: case 0xc1: case 0xc7: case 0xc8: case 0xc9: case 0xca: i64x2Unary(op, s32, d, a); return;
    case 0xe0: f32x4Abs(s32, d, a); return;
    case 0xe1: f32x4Neg(s32, d, a); return;
    case 0xec: f64x2Abs(s32, d, a); return;
    case 0xed: f64x2Neg(s32, d, a); return;
    case 0xf8: case 0xf9: case 0xfc: case 0xfd: case 0x101: case 0x102: case 0x103: case 0x104:
      truncSat(op, s32, f32, f64, d, a);
      return;
    case 0xfa: case 0xfb: convertToF32(op, s32, f32, d, a); return;
    case 0xfe: case 0xff: convertLowToF64(op, s32, f64, d, a); return;
    default: unknown('unary', op);
  }
}

/** v128 v128 -> v128 instructions (SimdOpInfo.entry 'binary'). */
export function simdBinary(
  op: number, s32: Int32Array, f32: Float32Array, f64: Float64Array, d: number, a: number, b: number,
): void {
  switch (op) {
    case 0x0e: case 0x23: case 0x24: case 0x25: case 0x26: case 0x27: case 0x28: case 0x29: case 0x2a:
    case 0x2b: case 0x2c: case 0x65: case 0x66: case 0x6f: case 0x70: case 0x72: case 0x73: case 0x76:
    case 0x77: case 0x78: case 0x79: case 0x7b: case 0x100:
      i8x16Binary(op, s32, d, a, b);
      return;
    case 0x2d: case 0x2e: case 0x2f: case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35:
    case 0x36: case 0x82: case 0x85: case 0x86: case 0x8f: case 0x90: case 0x92: case 0x93: case 0x96:
    case 0x97: case 0x98: case 0x99: case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: case 0x111:
    case 0x112:
      i16x8Binary(op, s32, d, a, b);
      return;
    case 0x37: case 0x38: case 0x39: case 0x3a: case 0x3b: case 0x3c: case 0x3d: case 0x3e: case 0x3f:
    case 0x40: case 0xae: case 0xb1: case 0xb5: case 0xb6: case 0xb7: case 0xb8: case 0xb9: case 0xba:
    case 0xbc: case 0xbd: case 0xbe: case 0xbf:
      i32x4Binary(op, s32, d, a, b);
      return;
    case 0x41: case 0x42: case 0x43: case 0x44: case 0x45: case 0x46: f32x4Compare(op, s32, f32, d, a, b); return;
    case 0x47: case 0x48: case 0x49: case 0x4a: case 0x4b: case 0x4c: f64x2Compare(op, s32, f64, d, a, b); return;
    case 0x4e: case 0x4f: case 0x50: case 0x51: { // and, andnot, or, xor
      const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
      const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
      if (op === 0x4e) {
        s32[d] = x0 & y0; s32[d + 1] = x1 & y1; s32[d + 2] = x2 & y2; s32[d + 3] = x3 & y3;
      } else if (op === 0x4f) {
        s32[d] = x0 & ~y0; s32[d + 1] = x1 & ~y1; s32[d + 2] = x2 & ~y2; s32[d + 3] = x3 & ~y3;
      } else if (op === 0x50) {
        s32[d] = x0 | y0; s32[d + 1] = x1 | y1; s32[d + 2] = x2 | y2; s32[d + 3] = x3 | y3;
      } else {
        s32[d] = x0 ^ y0; s32[d + 1] = x1 ^ y1; s32[d + 2] = x2 ^ y2; s32[d + 3] = x3 ^ y3;
      }
      return;
    }
    case 0x6e: i8x16Add(s32, d, a, b); return;
    case 0x71: i8x16Sub(s32, d, a, b); return;
    case 0x8e: i16x8Add(s32, d, a, b); return;
    case 0x91: i16x8Sub(s32, d, a, b); return;
    case 0x95: i16x8Mul(s32, d, a, b); return;
    case 0xce: case 0xd1: i64x2AddSub(op, s32, d, a, b); return;
    case 0xd5: i64x2Mul(s32, d, a, b); return;
    case 0xd6: case 0xd7: case 0xd8: case 0xd9: case 0xda: case 0xdb: i64x2Compare(op, s32, d, a, b); return;
    case 0xdc: case 0xdd: case 0xde: case 0xdf: i64x2ExtMul(op, s32, d, a, b); return;
    case 0xe4: f32x4Add(s32, f32, d, a, b); return;
    case 0xe5: f32x4Sub(s32, f32, d, a, b); return;
    case 0xe6: f32x4Mul(s32, f32, d, a, b); return;
    case 0xe7: f32x4Div(s32, f32, d, a, b); return;
    case 0xe8: case 0x10d: f32x4Min(op, s32, f32, d, a, b); return;
    case 0xe9: case 0x10e: f32x4Max(op, s32, f32, d, a, b); return;
    case 0xea: f32x4Pmin(s32, f32, d, a, b); return;
    case 0xeb: f32x4Pmax(s32, f32, d, a, b); return;
    case 0xf0: f64x2Add(s32, f64, d, a, b); return;
    case 0xf1: f64x2Sub(s32, f64, d, a, b); return;
    case 0xf2: f64x2Mul(s32, f64, d, a, b); return;
    case 0xf3: f64x2Div(s32, f64, d, a, b); return;
    case 0xf4: case 0x10f: f64x2Min(op, s32, f64, d, a, b); return;
    case 0xf5: case 0x110: f64x2Max(op, s32, f64, d, a, b); return;
    case 0xf6: f64x2Pmin(s32, f64, d, a, b); return;
    case 0xf7: f64x2Pmax(s32, f64, d, a, b); return;
    default: unknown('binary', op);
  }
}

/** v128 v128 v128 -> v128 instructions (SimdOpInfo.entry 'ternary'). */
export function simdTernary(
  op: number, s32: Int32Array, _f32: Float32Array, _f64: Float64Array, d: number, a: number, b: number, c: number,
): void {
  switch (op) {
    // v128.bitselect, and relaxed_laneselect of every shape (deterministic: a bitselect):
    // the bits of a where c is 1, of b where c is 0.
    case 0x52: case 0x109: case 0x10a: case 0x10b: case 0x10c: {
      const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
      const y0 = s32[b]!, y1 = s32[b + 1]!, y2 = s32[b + 2]!, y3 = s32[b + 3]!;
      const m0 = s32[c]!, m1 = s32[c + 1]!, m2 = s32[c + 2]!, m3 = s32[c + 3]!;
      s32[d] = (x0 & m0) | (y0 & ~m0);
      s32[d + 1] = (x1 & m1) | (y1 & ~m1);
      s32[d + 2] = (x2 & m2) | (y2 & ~m2);
      s32[d + 3] = (x3 & m3) | (y3 & ~m3);
      return;
    }
    case 0x105: case 0x106: f32x4Madd(op, s32, d, a, b, c); return;
    case 0x107: case 0x108: f64x2Madd(op, s32, d, a, b, c); return;
    case 0x113: i32x4DotAdd(s32, d, a, b, c); return;
    default: unknown('ternary', op);
  }
}

/** v128 i32 -> v128 shifts (entry 'shift'); `count` is the i32 shift amount itself (any value). */
export function simdShift(op: number, s32: Int32Array, d: number, a: number, count: number): void {
  switch (op) {
    case 0x6b: case 0x6c: case 0x6d: i8x16Shift(op, s32, d, a, count); return;
    case 0x8b: case 0x8c: case 0x8d: i16x8Shift(op, s32, d, a, count); return;
    case 0xab: case 0xac: case 0xad: i32x4Shift(op, s32, d, a, count); return;
    case 0xcb: case 0xcc: case 0xcd: i64x2Shift(op, s32, d, a, count); return;
    default: unknown('shift', op);
  }
}

// ---------------------------------------------------------------------------------------------
// Lanes and whole-vector tests
// ---------------------------------------------------------------------------------------------

/** Splats the scalar at slot word `x` into the v128 at `d` (entry 'splat'). Floats are copied as bits. */
export function simdSplat(op: number, s32: Int32Array, d: number, x: number): void {
  let w0: number, w1: number;
  switch (op) {
    case 0x0f: w0 = w1 = Math.imul(s32[x]! & 0xff, 0x01010101); break;
    case 0x10: w0 = w1 = Math.imul(s32[x]! & 0xffff, 0x00010001); break;
    case 0x11: case 0x13: w0 = w1 = s32[x]!; break;
    case 0x12: case 0x14: w0 = s32[x]!; w1 = s32[x + 1]!; break;
    default: unknown('splat', op);
  }
  s32[d] = w0; s32[d + 1] = w1; s32[d + 2] = w0; s32[d + 3] = w1;
}

/**
 * Writes lane `lane` of the v128 at `a` to the scalar slot at word `d` (entry 'extractLane'):
 * an i32 or f32 to word d, an i64 or f64 to words d and d + 1. Floats are copied as bits.
 */
export function simdExtractLane(op: number, s32: Int32Array, d: number, a: number, lane: number): void {
  switch (op) {
    case 0x15: s32[d] = (s32[a + (lane >> 2)]! << (24 - 8 * (lane & 3))) >> 24; return;
    case 0x16: s32[d] = (s32[a + (lane >> 2)]! >>> (8 * (lane & 3))) & 0xff; return;
    case 0x18: s32[d] = (s32[a + (lane >> 1)]! << (16 - 16 * (lane & 1))) >> 16; return;
    case 0x19: s32[d] = (s32[a + (lane >> 1)]! >>> (16 * (lane & 1))) & 0xffff; return;
    case 0x1b: case 0x1f: s32[d] = s32[a + lane]!; return;
    case 0x1d: case 0x21: {
      const lo = s32[a + 2 * lane]!, hi = s32[a + 2 * lane + 1]!;
      s32[d] = lo; s32[d + 1] = hi;
      return;
    }
    default: unknown('extract_lane', op);
  }
}

/** Copies the v128 at `a` to `d` with lane `lane` replaced by the scalar at slot word `x` (entry 'replaceLane'). */
export function simdReplaceLane(op: number, s32: Int32Array, d: number, a: number, lane: number, x: number): void {
  const v = s32[x]!, v1 = s32[x + 1]!;
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  s32[d] = x0; s32[d + 1] = x1; s32[d + 2] = x2; s32[d + 3] = x3;
  switch (op) {
    case 0x17: {
      const w = d + (lane >> 2), sh = 8 * (lane & 3);
      s32[w] = (s32[w]! & ~(0xff << sh)) | ((v & 0xff) << sh);
      return;
    }
    case 0x1a: {
      const w = d + (lane >> 1), sh = 16 * (lane & 1);
      s32[w] = (s32[w]! & ~(0xffff << sh)) | ((v & 0xffff) << sh);
      return;
    }
    case 0x1c: case 0x20: s32[d + lane] = v; return;
    case 0x1e: case 0x22: s32[d + 2 * lane] = v; s32[d + 2 * lane + 1] = v1; return;
    default: unknown('replace_lane', op);
  }
}

/** v128 -> i32 (entry 'reduce'): any_true, all_true, bitmask. Returns the i32. */
export function simdReduce(op: number, s32: Int32Array, a: number): number {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  switch (op) {
    case 0x53: return (x0 | x1 | x2 | x3) !== 0 ? 1 : 0;
    case 0x63: return allBytes(x0) && allBytes(x1) && allBytes(x2) && allBytes(x3) ? 1 : 0;
    case 0x83: return allHalves(x0) && allHalves(x1) && allHalves(x2) && allHalves(x3) ? 1 : 0;
    case 0xa3: return x0 !== 0 && x1 !== 0 && x2 !== 0 && x3 !== 0 ? 1 : 0;
    case 0xc3: return (x0 | x1) !== 0 && (x2 | x3) !== 0 ? 1 : 0;
    case 0x64: return byteSigns(x0) | (byteSigns(x1) << 4) | (byteSigns(x2) << 8) | (byteSigns(x3) << 12);
    case 0x84:
      return (x0 >>> 15 & 1) | (x0 >>> 30 & 2) | (x1 >>> 13 & 4) | (x1 >>> 28 & 8)
        | (x2 >>> 11 & 16) | (x2 >>> 26 & 32) | (x3 >>> 9 & 64) | (x3 >>> 24 & 128);
    case 0xa4: return (x0 >>> 31) | (x1 >>> 31 << 1) | (x2 >>> 31 << 2) | (x3 >>> 31 << 3);
    case 0xc4: return (x1 >>> 31) | (x3 >>> 31 << 1);
    default: return unknown('reduce', op);
  }
}

/** Whether every byte of x is non-zero (a byte is zero iff subtracting 1 borrows into its top bit where it was clear). */
function allBytes(x: number): boolean {
  return ((x - 0x01010101) & ~x & 0x80808080) === 0;
}

/** Whether both 16-bit halves of x are non-zero. */
function allHalves(x: number): boolean {
  return (x & 0xffff) !== 0 && (x >>> 16) !== 0;
}

/** The sign bits of the four bytes of x, as bits 0-3. */
function byteSigns(x: number): number {
  return (x >>> 7 & 1) | (x >>> 14 & 2) | (x >>> 21 & 4) | (x >>> 28 & 8);
}

/** v128.const: copies the 16 bytes stored as 4 words at imm[at..at + 3] (low word first) to `d`. */
export function simdConst(s32: Int32Array, d: number, imm: Int32Array, at: number): void {
  s32[d] = imm[at]!; s32[d + 1] = imm[at + 1]!; s32[d + 2] = imm[at + 2]!; s32[d + 3] = imm[at + 3]!;
}

/**
 * i8x16.shuffle: the 16 lane indices are stored as 4 words at imm[at..at + 3], index i in
 * byte i (i & 3) of word i >> 2, as the instruction's 16 immediate bytes read as a v128.
 */
export function simdShuffle(s32: Int32Array, d: number, a: number, b: number, imm: Int32Array, at: number): void {
  shuffle(s32, d, a, b, imm, at);
}

// ---------------------------------------------------------------------------------------------
// Memory. `ea` is the effective address (address + offset), already checked by the caller:
// ea + SimdOpInfo.accessBytes <= the memory's size.
// ---------------------------------------------------------------------------------------------

/** Loads (entry 'load'): v128.load, the extending loads, the splats, load32/64_zero. */
export function simdLoad(op: number, s32: Int32Array, view: DataView, d: number, ea: number): void {
  let w0: number, w1: number, w2: number, w3: number;
  switch (op) {
    case 0x00:
      w0 = view.getInt32(ea, true); w1 = view.getInt32(ea + 4, true);
      w2 = view.getInt32(ea + 8, true); w3 = view.getInt32(ea + 12, true);
      break;
    case 0x01: case 0x02: { // load8x8_s/u: eight bytes to eight i16 lanes
      const u = op === 0x02;
      w0 = ext8(view, ea, u) & 0xffff | ext8(view, ea + 1, u) << 16;
      w1 = ext8(view, ea + 2, u) & 0xffff | ext8(view, ea + 3, u) << 16;
      w2 = ext8(view, ea + 4, u) & 0xffff | ext8(view, ea + 5, u) << 16;
      w3 = ext8(view, ea + 6, u) & 0xffff | ext8(view, ea + 7, u) << 16;
      break;
    }
    case 0x03: w0 = view.getInt16(ea, true); w1 = view.getInt16(ea + 2, true); w2 = view.getInt16(ea + 4, true); w3 = view.getInt16(ea + 6, true); break;
    case 0x04: w0 = view.getUint16(ea, true); w1 = view.getUint16(ea + 2, true); w2 = view.getUint16(ea + 4, true); w3 = view.getUint16(ea + 6, true); break;
    case 0x05: w0 = view.getInt32(ea, true); w2 = view.getInt32(ea + 4, true); w1 = w0 >> 31; w3 = w2 >> 31; break;
    case 0x06: w0 = view.getInt32(ea, true); w2 = view.getInt32(ea + 4, true); w1 = 0; w3 = 0; break;
    case 0x07: w0 = w1 = w2 = w3 = Math.imul(view.getUint8(ea), 0x01010101); break;
    case 0x08: w0 = w1 = w2 = w3 = Math.imul(view.getUint16(ea, true), 0x00010001); break;
    case 0x09: w0 = w1 = w2 = w3 = view.getInt32(ea, true); break;
    case 0x0a: w0 = w2 = view.getInt32(ea, true); w1 = w3 = view.getInt32(ea + 4, true); break;
    case 0x5c: w0 = view.getInt32(ea, true); w1 = w2 = w3 = 0; break;
    case 0x5d: w0 = view.getInt32(ea, true); w1 = view.getInt32(ea + 4, true); w2 = w3 = 0; break;
    default: unknown('load', op);
  }
  s32[d] = w0; s32[d + 1] = w1; s32[d + 2] = w2; s32[d + 3] = w3;
}

/** A byte of memory, sign- or zero-extended. */
function ext8(view: DataView, ea: number, unsigned: boolean): number {
  return unsigned ? view.getUint8(ea) : view.getInt8(ea);
}

/** v128.store (entry 'store'): the v128 at `a` to memory at `ea`. */
export function simdStore(s32: Int32Array, view: DataView, ea: number, a: number): void {
  view.setInt32(ea, s32[a]!, true);
  view.setInt32(ea + 4, s32[a + 1]!, true);
  view.setInt32(ea + 8, s32[a + 2]!, true);
  view.setInt32(ea + 12, s32[a + 3]!, true);
}

/** v128.load8/16/32/64_lane (entry 'loadLane'): the v128 at `a` with lane `lane` loaded from `ea`, to `d`. */
export function simdLoadLane(op: number, s32: Int32Array, view: DataView, d: number, a: number, lane: number, ea: number): void {
  const x0 = s32[a]!, x1 = s32[a + 1]!, x2 = s32[a + 2]!, x3 = s32[a + 3]!;
  s32[d] = x0; s32[d + 1] = x1; s32[d + 2] = x2; s32[d + 3] = x3;
  switch (op) {
    case 0x54: {
      const w = d + (lane >> 2), sh = 8 * (lane & 3);
      s32[w] = (s32[w]! & ~(0xff << sh)) | (view.getUint8(ea) << sh);
      return;
    }
    case 0x55: {
      const w = d + (lane >> 1), sh = 16 * (lane & 1);
      s32[w] = (s32[w]! & ~(0xffff << sh)) | (view.getUint16(ea, true) << sh);
      return;
    }
    case 0x56: s32[d + lane] = view.getInt32(ea, true); return;
    case 0x57: s32[d + 2 * lane] = view.getInt32(ea, true); s32[d + 2 * lane + 1] = view.getInt32(ea + 4, true); return;
    default: unknown('load_lane', op);
  }
}

/** v128.store8/16/32/64_lane (entry 'storeLane'): lane `lane` of the v128 at `a` to memory at `ea`. */
export function simdStoreLane(op: number, s32: Int32Array, view: DataView, ea: number, a: number, lane: number): void {
  switch (op) {
    case 0x58: view.setUint8(ea, s32[a + (lane >> 2)]! >>> (8 * (lane & 3))); return;
    case 0x59: view.setUint16(ea, s32[a + (lane >> 1)]! >>> (16 * (lane & 1)), true); return;
    case 0x5a: view.setInt32(ea, s32[a + lane]!, true); return;
    case 0x5b: view.setInt32(ea, s32[a + 2 * lane]!, true); view.setInt32(ea + 4, s32[a + 2 * lane + 1]!, true); return;
    default: unknown('store_lane', op);
  }
}

// ---------------------------------------------------------------------------------------------
// NaN canonicalisation
// ---------------------------------------------------------------------------------------------

/** SimdOpInfo.nanLanes by sub-opcode. */
const NAN_LANES = new Uint8Array(0x114);
for (const info of SIMD_OPS) NAN_LANES[info.op] = info.nanLanes;

/**
 * For a NaN-canonicalising mode (as wasmtime's `cranelift_nan_canonicalization`): after the
 * instruction `op` wrote the v128 at `d`, rewrites each of its NaN lanes to the canonical NaN
 * (0x7fc00000, or 0x7ff8000000000000), if `op` is floating-point arithmetic (nanLanes); does
 * nothing for any other instruction.
 */
export function simdCanonicalize(op: number, s32: Int32Array, d: number): void {
  const lanes = NAN_LANES[op]!;
  if (lanes !== 0) canonicalizeNaNLanes(s32, d, lanes);
}
