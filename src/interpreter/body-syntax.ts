/**
 * The syntax of instruction sequences, without their meaning: how to step over each
 * instruction's immediates. Two places need it:
 *
 * - The translator validates while it decodes, so it can meet a type error before a
 *   malformed encoding later in the module; the specification decodes the whole module
 *   first, so the malformation must win. When the translator rejects a body, this scan
 *   decides which of the two the module really is. It also counts a body's constants, so the
 *   translator can reserve their slots before it starts.
 * - The decoder skips the rest of a constant expression once it meets an instruction that is
 *   not constant, so that the remainder of the module is still checked.
 */
import { DecodeError } from './errors.js';
import { ByteReader } from './reader.js';
import type { ModuleIR } from './types.js';

/** Immediate shapes of the single-byte opcodes (0 = illegal opcode). */
const IMM_ILLEGAL = 0;
const IMM_NONE = 1;
const IMM_U32 = 2;
const IMM_MEMARG = 3;
const IMM_ZERO = 4;
const IMM_SPECIAL = 5;
const OPCODE_IMM = (() => {
  const t = new Uint8Array(256);
  const set = (from: number, to: number, kind: number): void => {
    for (let i = from; i <= to; i++) t[i] = kind;
  };
  set(0x00, 0x01, IMM_NONE); // unreachable, nop
  set(0x02, 0x05, IMM_SPECIAL); // block, loop, if, else
  set(0x0b, 0x0b, IMM_SPECIAL); // end
  set(0x0c, 0x0d, IMM_U32); // br, br_if
  set(0x0e, 0x0e, IMM_SPECIAL); // br_table
  set(0x0f, 0x0f, IMM_NONE); // return
  set(0x10, 0x10, IMM_U32); // call
  set(0x11, 0x11, IMM_SPECIAL); // call_indirect
  set(0x1a, 0x1b, IMM_NONE); // drop, select
  set(0x1c, 0x1c, IMM_SPECIAL); // select t*
  set(0x20, 0x26, IMM_U32); // local.*, global.*, table.get/set
  set(0x28, 0x3e, IMM_MEMARG); // loads and stores
  set(0x3f, 0x40, IMM_ZERO); // memory.size, memory.grow
  set(0x41, 0x44, IMM_SPECIAL); // constants
  set(0x45, 0xc4, IMM_NONE); // numeric
  set(0xd0, 0xd0, IMM_SPECIAL); // ref.null
  set(0xd1, 0xd1, IMM_NONE); // ref.is_null
  set(0xd2, 0xd2, IMM_U32); // ref.func
  set(0xfc, 0xfd, IMM_SPECIAL); // prefixes
  return t;
})();

/**
 * Steps over instructions up to and including the `end` that closes the sequence the cursor
 * is in, checking only that they are well formed. Returns how many of them were constants
 * (i32/i64/f32/f64.const).
 */
export function skipInstructions(r: ByteReader): number {
  // Block nesting: 0 = block/loop, 1 = if before its else, 2 = if after its else.
  const nesting: number[] = [];
  let constants = 0;
  for (;;) {
    const opAt = r.pos;
    const op = r.u8();
    switch (OPCODE_IMM[op]!) {
      case IMM_ILLEGAL:
        return r.fail(`illegal opcode ${op.toString(16).padStart(2, '0')}`, opAt);
      case IMM_NONE:
        break;
      case IMM_U32:
        r.u32();
        break;
      case IMM_MEMARG:
        r.u32();
        r.u32();
        break;
      case IMM_ZERO:
        zero(r);
        break;
      default:
        switch (op) {
          case 0x02:
          case 0x03:
          case 0x04: {
            const b = r.pos < r.end ? r.bytes[r.pos]! : -1;
            if (b === 0x40 || (b & 0xc0) === 0x40) r.u8();
            else r.s33();
            nesting.push(op === 0x04 ? 1 : 0);
            break;
          }
          case 0x05:
            if (nesting.length === 0 || nesting[nesting.length - 1] !== 1) r.fail('END opcode expected', opAt);
            nesting[nesting.length - 1] = 2;
            break;
          case 0x0b:
            if (nesting.length === 0) return constants;
            nesting.pop();
            break;
          case 0x0e: {
            const n = count(r);
            for (let i = 0; i <= n; i++) r.u32();
            break;
          }
          case 0x11:
            r.u32();
            r.u32();
            break;
          case 0x1c: {
            const n = count(r);
            for (let i = 0; i < n; i++) r.u8();
            break;
          }
          case 0x41:
            r.s32();
            constants++;
            break;
          case 0x42:
            r.s64();
            constants++;
            break;
          case 0x43:
            skipBytes(r, 4);
            constants++;
            break;
          case 0x44:
            skipBytes(r, 8);
            constants++;
            break;
          case 0xd0:
            r.u8();
            break;
          case 0xfc:
            skipFC(r, opAt);
            break;
          case 0xfd:
            skipFD(r, opAt);
            break;
        }
    }
  }
}

function zero(r: ByteReader): void {
  if (r.u8() !== 0) r.fail('zero byte expected', r.pos - 1);
}

function count(r: ByteReader): number {
  const n = r.u32();
  if (n > r.end - r.pos) r.eof(r.end);
  return n;
}

function skipBytes(r: ByteReader, n: number): void {
  if (r.pos + n > r.end) r.eof(r.end);
  r.pos += n;
}

function skipFC(r: ByteReader, opAt: number): void {
  const sub = r.u32();
  if (sub <= 7) return;
  switch (sub) {
    case 8: // memory.init
      r.u32();
      zero(r);
      return;
    case 10: // memory.copy
      zero(r);
      zero(r);
      return;
    case 11: // memory.fill
      zero(r);
      return;
    case 12: // table.init
    case 14: // table.copy
      r.u32();
      r.u32();
      return;
    case 9: // data.drop
    case 13: // elem.drop
    case 15: // table.grow
    case 16: // table.size
    case 17: // table.fill
      r.u32();
      return;
    default:
      r.fail(`illegal opcode fc ${sub.toString(16)}`, opAt);
  }
}

/** SIMD immediates: enough to step over them (the engine refuses SIMD at validation). */
function skipFD(r: ByteReader, opAt: number): void {
  const sub = r.u32();
  if (sub <= 11 || sub === 92 || sub === 93) {
    r.u32();
    r.u32();
  } else if (sub === 12 || sub === 13) {
    skipBytes(r, 16);
  } else if (sub >= 21 && sub <= 34) {
    skipBytes(r, 1);
  } else if (sub >= 84 && sub <= 91) {
    r.u32();
    r.u32();
    skipBytes(r, 1);
  } else if (sub > 0xff) {
    r.fail(`illegal opcode fd ${sub.toString(16)}`, opAt);
  }
}

/** Checks a body's encoding through its final `end`; returns its number of constants. */
function scanBody(bytes: Uint8Array, start: number, end: number): number {
  const r = new ByteReader(bytes, start, end);
  const constants = skipInstructions(r);
  if (!r.atEnd) r.fail('operators remaining after end of function body');
  return constants;
}

/** The first malformed encoding in the bodies from `first` on, or null if they all decode. */
export function findMalformedBody(ir: ModuleIR, first: number): DecodeError | null {
  for (let i = first; i < ir.codes.length; i++) {
    const body = ir.codes[i]!;
    try {
      scanBody(ir.bytes, body.codeStart, body.codeEnd);
    } catch (e) {
      if (e instanceof DecodeError) return e;
      throw e;
    }
  }
  return null;
}

/**
 * How many constant instructions a body holds: the translator reserves that many constant
 * slots in the frame before it starts. For a malformed body the answer does not matter (the
 * translator reports the malformation), so it is 0.
 */
export function countConstants(bytes: Uint8Array, start: number, end: number): number {
  try {
    return scanBody(bytes, start, end);
  } catch (e) {
    if (e instanceof DecodeError) return 0;
    throw e;
  }
}
