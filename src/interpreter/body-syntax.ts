/**
 * A purely syntactic pass over function bodies. The translator validates while it decodes,
 * so it can meet a type error before a malformed encoding later in the module; the
 * specification decodes the whole module first, so the malformation must win. When the
 * translator rejects a body, this scan decides which of the two the module really is.
 */
import { DecodeError } from './errors.js';
import { ByteReader } from './reader.js';
import type { ModuleIR } from './types.js';

/** The first malformed encoding in the bodies from `first` on, or null if they all decode. */
export function findMalformedBody(ir: ModuleIR, first: number): DecodeError | null {
  for (let i = first; i < ir.codes.length; i++) {
    const body = ir.codes[i]!;
    try {
      scanBody(new ByteReader(ir.bytes, body.codeStart, body.codeEnd));
    } catch (e) {
      if (e instanceof DecodeError) return e;
      if (e instanceof Unscannable) return null;
      throw e;
    }
  }
  return null;
}

/**
 * How many constant instructions (i32/i64/f32/f64.const) a body holds: the translator
 * reserves that many constant slots in the frame before it starts. A malformed body counts
 * as far as it goes; the translator reports the malformation.
 */
export function countConstants(bytes: Uint8Array, start: number, end: number): number {
  try {
    return scanBody(new ByteReader(bytes, start, end));
  } catch (e) {
    if (e instanceof DecodeError || e instanceof Unscannable) return 0;
    throw e;
  }
}

/** Checks a body's encoding; returns its number of constant instructions. */
function scanBody(r: ByteReader): number {
  let depth = 1;
  let constants = 0;
  while (depth > 0) {
    const op = r.u8();
    if (op >= 0x41 && op <= 0x44) constants++;
    if (op === 0x02 || op === 0x03 || op === 0x04) {
      blockType(r);
      depth++;
    } else if (op === 0x0b) {
      depth--;
    } else {
      immediates(r, op);
    }
  }
  if (!r.atEnd) r.fail('operators remaining after end of function body');
  return constants;
}

function blockType(r: ByteReader): void {
  const b = r.bytes[r.pos];
  if (b === 0x40 || (b !== undefined && b >= 0x6f && b <= 0x7f)) r.pos++;
  else r.s33();
}

function immediates(r: ByteReader, op: number): void {
  if ((op >= 0x45 && op <= 0xc4) || op === 0x00 || op === 0x01 || op === 0x05 || op === 0x0f
    || op === 0x1a || op === 0x1b || op === 0xd1) return;
  if (op >= 0x28 && op <= 0x3e) {
    r.u32();
    r.u32();
    return;
  }
  switch (op) {
    case 0x0c: case 0x0d: case 0x10: case 0x20: case 0x21: case 0x22: case 0x23: case 0x24:
    case 0x25: case 0x26: case 0xd2:
      r.u32();
      return;
    case 0x0e: {
      const n = r.u32();
      if (n > r.end - r.pos) r.fail('unexpected end');
      for (let i = 0; i <= n; i++) r.u32();
      return;
    }
    case 0x11:
      r.u32();
      r.u32();
      return;
    case 0x1c: {
      const n = r.u32();
      if (n > r.end - r.pos) r.fail('unexpected end');
      for (let i = 0; i < n; i++) r.u8();
      return;
    }
    case 0x3f: case 0x40:
      if (r.u8() !== 0) r.fail('zero byte expected', r.pos - 1);
      return;
    case 0x41: r.s32(); return;
    case 0x42: r.s64(); return;
    case 0x43: r.fixed32(); return;
    case 0x44: r.fixed32(); r.fixed32(); return;
    case 0xd0: r.u8(); return;
    case 0xfc: prefixed(r); return;
    case 0xfd: throw new Unscannable();
    default: r.fail(`illegal opcode 0x${op.toString(16)}`, r.pos - 1);
  }
}

function prefixed(r: ByteReader): void {
  const sub = r.u32();
  const zero = (): void => {
    if (r.u8() !== 0) r.fail('zero byte expected', r.pos - 1);
  };
  if (sub <= 7) return;
  switch (sub) {
    case 8: r.u32(); zero(); return;
    case 9: case 13: case 15: case 16: case 17: r.u32(); return;
    case 10: zero(); zero(); return;
    case 11: zero(); return;
    case 12: case 14: r.u32(); r.u32(); return;
    default: r.fail(`illegal opcode 0xfc ${sub}`, r.pos - 1);
  }
}

/** SIMD immediates are not modelled; a body using them is left to the translator's verdict. */
class Unscannable extends Error {}
