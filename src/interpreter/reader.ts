/**
 * A cursor over module bytes with the LEB128 readers the binary format needs: the decoder
 * (sections) and the translator (function bodies) share it. Every read is bounds-checked
 * against `end` and reports malformations as DecodeError at the offending offset, worded as
 * the reference interpreter words them.
 */
import { DecodeError } from './errors.js';

export class ByteReader {
  pos: number;
  /** Reads never go past this offset. */
  end: number;
  /** High 32 bits of the last s64 read. */
  hi = 0;

  constructor(readonly bytes: Uint8Array, start = 0, end = bytes.length) {
    this.pos = start;
    this.end = end;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  fail(message: string, offset = this.pos): never {
    throw new DecodeError(message, offset);
  }

  /** A read at `at` would cross `end`. */
  eof(at: number): never {
    throw new DecodeError('unexpected end', at);
  }

  u8(): number {
    const p = this.pos;
    if (p >= this.end) this.eof(p);
    this.pos = p + 1;
    return this.bytes[p]!;
  }

  /**
   * Unsigned LEB128, at most 64 bits, as a number: exact up to 2^53, rounded above (only
   * ever compared with limits far below that).
   */
  u64(): number {
    const bytes = this.bytes;
    let p = this.pos;
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (p >= this.end) this.eof(p);
      const b = bytes[p++]!;
      if (shift === 63) {
        // The tenth byte holds bit 63 alone.
        if (b & 0x80) this.fail('integer representation too long', p);
        if (b > 1) this.fail('integer too large', p - 1);
      }
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
    }
    this.pos = p;
    return value;
  }

  /** Unsigned LEB128, at most 32 bits, as a non-negative number. */
  u32(): number {
    const p = this.pos;
    if (p < this.end) {
      const b = this.bytes[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    return this.u32Slow();
  }

  private u32Slow(): number {
    const bytes = this.bytes;
    const end = this.end;
    let p = this.pos;
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      if (p >= end) this.eof(p);
      const b = bytes[p++]!;
      if (shift === 28) {
        if (b & 0x70) this.fail('integer too large', p - 1);
        if (b & 0x80) this.fail('integer representation too long', p);
        this.pos = p;
        return result + b * 0x10000000;
      }
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        this.pos = p;
        return result;
      }
    }
  }

  /** Signed LEB128, at most 32 bits, as an int32. */
  s32(): number {
    const bytes = this.bytes;
    const end = this.end;
    let p = this.pos;
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      if (p >= end) this.eof(p);
      const b = bytes[p++]!;
      if (shift === 28) {
        // The unused bits must all equal the sign bit (bit 3 of this byte).
        const rest = b & 0x78;
        if (rest !== 0 && rest !== 0x78) this.fail('integer too large', p - 1);
        if (b & 0x80) this.fail('integer representation too long', p);
        this.pos = p;
        return result | (b << 28);
      }
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        this.pos = p;
        return b & 0x40 ? result | (-1 << (shift + 7)) : result;
      }
    }
  }

  /** Signed LEB128 of at most 33 bits (block types), as a number. */
  s33(): number {
    const bytes = this.bytes;
    const end = this.end;
    let p = this.pos;
    let result = 0;
    let scale = 1;
    for (let shift = 0; ; shift += 7) {
      if (p >= end) this.eof(p);
      const b = bytes[p++]!;
      if (shift === 28) {
        // Bits 28..32 are payload; bit 32 is the sign, and the unused bits must copy it.
        const rest = b & 0x70;
        if (rest !== 0 && rest !== 0x70) this.fail('integer too large', p - 1);
        if (b & 0x80) this.fail('integer representation too long', p);
        this.pos = p;
        result += (b & 0x1f) * scale;
        return b & 0x10 ? result - 2 ** 33 : result;
      }
      result += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) {
        this.pos = p;
        return b & 0x40 ? result - scale : result;
      }
    }
  }

  /** Signed LEB128, at most 64 bits: returns the low 32 bits, leaves the high ones in `hi`. */
  s64(): number {
    const bytes = this.bytes;
    const end = this.end;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (;;) {
      if (p >= end) this.eof(p);
      const b = bytes[p++]!;
      if (shift === 63) {
        // Bit 63 is bit 0 of this byte; the other six payload bits must copy it.
        const rest = b & 0x7f;
        if (rest !== 0 && rest !== 0x7f) this.fail('integer too large', p - 1);
        if (b & 0x80) this.fail('integer representation too long', p);
        hi |= b << 31;
        this.pos = p;
        this.hi = hi;
        return lo;
      }
      const v = b & 0x7f;
      if (shift < 32) {
        lo |= v << shift;
        if (shift > 25) hi |= v >>> (32 - shift);
      } else {
        hi |= v << (shift - 32);
      }
      shift += 7;
      if ((b & 0x80) === 0) {
        if (b & 0x40) {
          if (shift < 32) {
            lo |= -1 << shift;
            hi = -1;
          } else {
            hi |= -1 << (shift - 32);
          }
        }
        this.pos = p;
        this.hi = hi;
        return lo;
      }
    }
  }

  /** Four little-endian bytes as a signed 32-bit integer. */
  fixed32(): number {
    const p = this.pos;
    if (p + 4 > this.end) this.eof(this.end);
    const b = this.bytes;
    this.pos = p + 4;
    return b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);
  }
}
