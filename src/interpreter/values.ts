/**
 * Values crossing the engine boundary. Numbers are carried as raw bits in two signed 32-bit
 * halves, exactly as they sit in the engine's value stack, so NaN payloads survive every
 * crossing and no BigInt is needed unless a caller asks for one.
 */
import { EXNREF, EXTERNREF, F32, F64, FUNCREF, I32, I64, V128, type ValType, valTypeName } from './types.js';

const scratch = new ArrayBuffer(8);
const scratchF32 = new Float32Array(scratch);
const scratchF64 = new Float64Array(scratch);
const scratchI32 = new Int32Array(scratch);

/** A reference to a function in a store; compared by identity of `id` within one store. */
export class FuncRef {
  constructor(readonly id: number) {}
}

export class WasmValue {
  private constructor(
    readonly type: ValType,
    /** Low 32 bits (i32, f32 bits, low half of i64/f64). */
    readonly lo: number,
    /** High 32 bits of i64/f64; 0 otherwise. */
    readonly hi: number,
    /** For reference types: null, a FuncRef, or the host value of an externref. */
    readonly ref: unknown = null,
    /** Bits 64..95 of a v128; 0 otherwise. */
    readonly w2 = 0,
    /** Bits 96..127 of a v128; 0 otherwise. */
    readonly w3 = 0,
  ) {}

  static i32(n: number): WasmValue {
    return new WasmValue(I32, n | 0, 0);
  }
  static i64Halves(lo: number, hi: number): WasmValue {
    return new WasmValue(I64, lo | 0, hi | 0);
  }
  static i64(n: bigint): WasmValue {
    const u = BigInt.asUintN(64, n);
    return new WasmValue(I64, Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0);
  }
  static f32(x: number): WasmValue {
    scratchF32[0] = x;
    return new WasmValue(F32, scratchI32[0], 0);
  }
  static f32Bits(bits: number): WasmValue {
    return new WasmValue(F32, bits | 0, 0);
  }
  static f64(x: number): WasmValue {
    scratchF64[0] = x;
    return new WasmValue(F64, scratchI32[0], scratchI32[1]);
  }
  static f64Halves(lo: number, hi: number): WasmValue {
    return new WasmValue(F64, lo | 0, hi | 0);
  }
  static f64Bits(bits: bigint): WasmValue {
    const v = WasmValue.i64(bits);
    return new WasmValue(F64, v.lo, v.hi);
  }
  /** A v128 from its four 32-bit words, lowest (bytes 0..3) first. */
  static v128Words(w0: number, w1: number, w2: number, w3: number): WasmValue {
    return new WasmValue(V128, w0 | 0, w1 | 0, null, w2 | 0, w3 | 0);
  }
  /** A v128 from its 16 bytes in memory order (byte 0 is the lowest). */
  static v128(bytes: Uint8Array): WasmValue {
    if (bytes.length !== 16) throw new TypeError(`a v128 is 16 bytes, got ${bytes.length}`);
    const w = (i: number): number => bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    return WasmValue.v128Words(w(0), w(4), w(8), w(12));
  }
  static funcref(ref: FuncRef | null): WasmValue {
    return new WasmValue(FUNCREF, 0, 0, ref);
  }
  /** A reference to an exception (exception handling; store.ts ExceptionInst), or null. */
  static exnref(exception: object | null): WasmValue {
    return new WasmValue(EXNREF, 0, 0, exception);
  }
  static externref(value: unknown): WasmValue {
    return new WasmValue(EXTERNREF, 0, 0, value ?? null);
  }
  /**
   * A numeric value as a 64-bit slot holds it: the high half of a slot that holds an i32 or
   * f32 is whatever was there before, so it is dropped here.
   */
  static fromSlot(type: ValType, lo: number, hi: number): WasmValue {
    return new WasmValue(type, lo | 0, type === I64 || type === F64 ? hi | 0 : 0);
  }
  /** The zero value of a type (null for references). */
  static zero(type: ValType): WasmValue {
    return new WasmValue(type, 0, 0, null);
  }

  /** The four 32-bit words of a v128, lowest first. */
  get v128Words(): [number, number, number, number] {
    return [this.lo, this.hi, this.w2, this.w3];
  }
  /** The 16 bytes of a v128 in memory order. */
  get v128Bytes(): Uint8Array {
    const out = new Uint8Array(16);
    this.v128Words.forEach((w, i) => {
      for (let k = 0; k < 4; k++) out[i * 4 + k] = (w >>> (8 * k)) & 0xff;
    });
    return out;
  }

  get asI32(): number {
    return this.lo;
  }
  get asI64(): bigint {
    return BigInt.asIntN(64, (BigInt(this.hi >>> 0) << 32n) | BigInt(this.lo >>> 0));
  }
  get asF32(): number {
    scratchI32[0] = this.lo;
    return scratchF32[0]!;
  }
  get asF64(): number {
    scratchI32[0] = this.lo;
    scratchI32[1] = this.hi;
    return scratchF64[0]!;
  }
  /** Unsigned bit pattern of an i32/f32. */
  get bits32(): number {
    return this.lo >>> 0;
  }
  /** Unsigned bit pattern of an i64/f64. */
  get bits64(): bigint {
    return (BigInt(this.hi >>> 0) << 32n) | BigInt(this.lo >>> 0);
  }

  toString(): string {
    switch (this.type) {
      case I32: return `i32:${this.asI32}`;
      case I64: return `i64:${this.asI64}`;
      case F32: return `f32:${this.asF32}`;
      case F64: return `f64:${this.asF64}`;
      case V128: return `v128:0x${[this.w3, this.w2, this.hi, this.lo].map((w) => (w >>> 0).toString(16).padStart(8, '0')).join('')}`;
      default: return `${valTypeName(this.type)}:${this.ref === null ? 'null' : String(this.ref)}`;
    }
  }
}
