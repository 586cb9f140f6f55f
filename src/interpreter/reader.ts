/**
 * A cursor over module bytes with the LEB128 readers the binary format needs. Every read is
 * bounds-checked and reports malformations as DecodeError with the offending offset.
 */
import { DecodeError } from './errors.js';

export class ByteReader {
  pos: number;

  constructor(readonly bytes: Uint8Array, start = 0, readonly end = bytes.length) {
    this.pos = start;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  fail(message: string, offset = this.pos): never {
    throw new DecodeError(message, offset);
  }

  u8(): number {
    if (this.pos >= this.end) this.fail('unexpected end');
    return this.bytes[this.pos++]!;
  }

  /** Unsigned LEB128 of at most 32 bits, returned as a non-negative number. */
  u32(): number {
    const start = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.u8();
      if (shift === 28) {
        if (byte & 0x80) this.fail('integer representation too long', start);
        if (byte & 0x70) this.fail('integer too large', start);
        return (result | (byte << 28)) >>> 0;
      }
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  }

  /** Signed LEB128 of at most 32 bits. */
  s32(): number {
    const start = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.u8();
      if (shift === 28) {
        if (byte & 0x80) this.fail('integer representation too long', start);
        // The unused bits must all equal the sign bit (bit 3 of this byte).
        const rest = byte & 0x78;
        if (rest !== 0 && rest !== 0x78) this.fail('integer too large', start);
        return result | (byte << 28);
      }
      result |= (byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) === 0) {
        return shift < 32 ? (result << (32 - shift)) >> (32 - shift) : result;
      }
    }
  }

  /**
   * Signed LEB128 of at most 33 bits (block types). Returns the value as a number; only
   * non-negative values are meaningful as type indices.
   */
  s33(): number {
    const start = this.pos;
    let result = 0;
    let mul = 1;
    for (let i = 0; ; i++) {
      const byte = this.u8();
      if (i === 4) {
        if (byte & 0x80) this.fail('integer representation too long', start);
        // 33 bits: 4*7 = 28 bits so far, this byte carries bits 28..32 and the sign.
        const rest = byte & 0x70;
        if (rest !== 0 && rest !== 0x70) this.fail('integer too large', start);
        result += (byte & 0x1f) * mul;
        return (byte & 0x10) ? result - 2 ** 33 : result;
      }
      result += (byte & 0x7f) * mul;
      mul *= 128;
      if ((byte & 0x80) === 0) {
        return (byte & 0x40) ? result - mul : result;
      }
    }
  }

  /**
   * Signed LEB128 of at most 64 bits, split into halves: the low 32 bits are returned and the
   * high 32 bits are left in `hi`.
   */
  hi = 0;
  s64(): number {
    const start = this.pos;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      const byte = this.u8();
      if (i === 9) {
        if (byte & 0x80) this.fail('integer representation too long', start);
        // Bit 63 is bit 0 of this byte; the other six payload bits must copy it.
        const rest = byte & 0x7f;
        if (rest !== 0 && rest !== 0x7f) this.fail('integer too large', start);
        hi |= (byte & 1) << 31;
        this.hi = hi;
        return lo;
      }
      const payload = byte & 0x7f;
      if (shift < 32) {
        lo |= payload << shift;
        if (shift > 25) hi |= payload >>> (32 - shift);
      } else {
        hi |= payload << (shift - 32);
      }
      shift += 7;
      if ((byte & 0x80) === 0) {
        if (byte & 0x40) {
          // Sign-extend from `shift` bits.
          if (shift < 32) {
            lo |= -1 << shift;
            hi = -1;
          } else if (shift < 64) {
            hi |= -1 << (shift - 32);
          }
        }
        this.hi = hi;
        return lo;
      }
    }
  }

  /** Four little-endian bytes as a signed 32-bit integer. */
  fixed32(): number {
    if (this.pos + 4 > this.end) this.fail('unexpected end');
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 4;
    return b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);
  }
}
