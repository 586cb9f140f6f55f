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
import type { FeatureSet } from './features.js';
import type { Steps } from './steps.js';
import { DecodeError, Feature, formatOpcode, refuseDecode } from './errors.js';
import { ByteReader } from './reader.js';
import {
  Imm, IMM_NO_ROW, IMM_PREFIX, type InstructionRow, instructionRow, LAST_INDEX_IMM, SINGLE_BYTE, SINGLE_BYTE_IMM,
} from './instruction-set.js';
import type { ModuleIR } from './types.js';

/**
 * Steps over instructions up to and including the `end` that closes the sequence the cursor
 * is in, checking only that they are well formed. Returns how many of them were constants
 * (i32/i64/f32/f64.const).
 */
export function skipInstructions(r: ByteReader, features: FeatureSet): number {
  const scan = new InstructionScan(features);
  scan.advance(r, Infinity);
  return scan.constants;
}

/** What a scan of a function body counts: what the translator reserves frame slots for. */
export interface BodyCounts {
  /** Constant instructions (i32/i64/f32/f64.const). */
  readonly constants: number;
  /** Legacy `try` blocks (each keeps its caught exception in a slot, for `rethrow`). */
  readonly tries: number;
}

/** Block nesting states: block/loop/try_table; if before and after its else; legacy try before and after a catch. */
const NEST_BLOCK = 0;
const NEST_IF = 1;
const NEST_ELSE = 2;
const NEST_TRY = 3;
const NEST_CATCH = 4;

/** skipInstructions, resumable: its state lives here, so that a long body can be scanned in steps. */
class InstructionScan {
  private readonly nesting: number[] = [];
  /** The constant instructions stepped over so far. */
  constants = 0;
  /** The legacy `try` blocks stepped over so far. */
  tries = 0;

  /** `features`: multi-memory's memory indices are read as such only when it is on. */
  constructor(private readonly features: FeatureSet) {}

  /** Scans until the closing `end` (true) or until the cursor has reached `until` (false). */
  advance(r: ByteReader, until: number): boolean {
    const nesting = this.nesting;
    for (;;) {
      if (r.pos >= until) return false;
      const opAt = r.pos;
      const op = r.u8();
      // The immediates by the opcode's kind; none, one index and i32.const, most of a body, without a call.
      const imm = SINGLE_BYTE_IMM[op]!;
      if (imm <= LAST_INDEX_IMM) {
        if (imm !== Imm.None) r.u32();
      } else if (imm === IMM_PREFIX) {
        r.pos = opAt;
        readImmediates(r, readOpcode(r), this.features, null);
        continue;
      } else if (imm === IMM_NO_ROW) {
        throw unknownOpcode(r, op, opAt);
      } else if (imm === Imm.I32) {
        r.s32();
        this.constants++;
      } else {
        if (imm <= Imm.F64) this.constants++;
        readImmediates(r, SINGLE_BYTE[op]!, this.features, null);
      }
      // Block structure: which opcodes open, divide and close blocks (the single bytes up to try_table).
      if (op > 0x1f) continue;
      switch (op) {
        case 0x02: // block
        case 0x03: // loop
        case 0x1f: // try_table
          nesting.push(NEST_BLOCK);
          break;
        case 0x04: // if
          nesting.push(NEST_IF);
          break;
        case 0x06: // try
          this.tries++;
          nesting.push(NEST_TRY);
          break;
        case 0x05: // else
          if (nesting.length === 0 || nesting[nesting.length - 1] !== NEST_IF) r.fail('END opcode expected', opAt);
          nesting[nesting.length - 1] = NEST_ELSE;
          break;
        case 0x07: // catch
        case 0x19: // catch_all
          if (nesting.length === 0 || nesting[nesting.length - 1]! < NEST_TRY) r.fail('END opcode expected', opAt);
          nesting[nesting.length - 1] = NEST_CATCH;
          break;
        case 0x18: // delegate: ends a try
          if (nesting.length === 0 || nesting[nesting.length - 1] !== NEST_TRY) r.fail('END opcode expected', opAt);
          nesting.pop();
          break;
        case 0x0b: // end
          if (nesting.length === 0) return true;
          nesting.pop();
          break;
      }
    }
  }
}

/**
 * Reads an opcode — a single byte, or a prefix and its sub-opcode — and returns its row in the
 * instruction table; an opcode without one is refused or illegal (unknownOpcode, prefixedOpcode).
 */
export function readOpcode(r: ByteReader): InstructionRow {
  const opAt = r.pos;
  const op = r.u8();
  if (op === 0xfc || op === 0xfd || op === 0xfe) {
    const sub = r.u32();
    const row = instructionRow(op, sub);
    if (row === undefined) throw prefixedOpcode(op, sub, opAt);
    return row;
  }
  const row = SINGLE_BYTE[op];
  if (row === undefined) throw unknownOpcode(r, op, opAt);
  return row;
}

/**
 * Reads the immediates of an instruction whose opcode has just been read, as its row's `imm`
 * says, checking only that they are well formed (and refusing later proposals' encodings by
 * name). With `out`, their values are appended to it in encoding order (the disassembler's
 * use): indices, depths and lane indices as they are; a memarg as alignment exponent, memory
 * index, offset; a block type as its s33 value (negative: empty or a value type); an i64 as
 * low then high half; f32, f64 and 16-byte immediates as their bytes; a vector's length before
 * its elements; a catch clause as kind, tag (-1 for none), label. `features`: multi-memory's
 * memory indices and memory64's offsets are read as such only when they are on.
 */
export function readImmediates(r: ByteReader, row: InstructionRow, features: FeatureSet, out: number[] | null): void {
  switch (row.imm) {
    case Imm.None:
      return;
    case Imm.Label:
    case Imm.Func:
    case Imm.Local:
    case Imm.Global:
    case Imm.Table:
    case Imm.Tag:
    case Imm.Data:
    case Imm.Elem: {
      const x = r.u32();
      out?.push(x);
      return;
    }
    case Imm.CallIndirect:
    case Imm.ElemTable:
    case Imm.TablePair: {
      const x = r.u32();
      const y = r.u32();
      out?.push(x, y);
      return;
    }
    case Imm.Memarg:
    case Imm.MemargLane:
      readMemarg(r, features, out);
      if (row.imm === Imm.MemargLane) readBytes(r, 1, out);
      return;
    case Imm.Memory:
      readMemoryIndex(r, features, row.name, out);
      return;
    case Imm.DataMemory: {
      const seg = r.u32();
      out?.push(seg);
      readMemoryIndex(r, features, row.name, out);
      return;
    }
    case Imm.MemoryPair:
      readMemoryIndex(r, features, row.name, out);
      readMemoryIndex(r, features, row.name, out);
      return;
    case Imm.BlockType:
      readBlockType(r, out);
      return;
    case Imm.TryTable:
      readBlockType(r, out);
      readCatchClauses(r, out);
      return;
    case Imm.BrTable: {
      const n = count(r);
      out?.push(n);
      for (let i = 0; i <= n; i++) {
        const depth = r.u32();
        out?.push(depth);
      }
      return;
    }
    case Imm.SelectTypes: {
      const n = count(r);
      out?.push(n);
      for (let i = 0; i < n; i++) {
        const refused = proposalType(r, r.pos);
        if (refused !== null) throw refused;
        const t = r.u8();
        out?.push(t);
      }
      return;
    }
    case Imm.I32: {
      const v = r.s32();
      out?.push(v);
      return;
    }
    case Imm.I64: {
      const lo = r.s64();
      out?.push(lo, r.hi);
      return;
    }
    case Imm.F32:
      readBytes(r, 4, out);
      return;
    case Imm.F64:
      readBytes(r, 8, out);
      return;
    case Imm.HeapType: {
      const exn = r.pos < r.end && r.bytes[r.pos] === 0x69 && features.has(Feature.ExceptionHandling);
      const refused = exn ? null : proposalHeapType(r, r.pos);
      if (refused !== null) throw refused;
      const t = r.u8();
      out?.push(t);
      return;
    }
    case Imm.Lane:
      readBytes(r, 1, out);
      return;
    case Imm.V128:
    case Imm.Shuffle:
      readBytes(r, 16, out);
      return;
    case Imm.ZeroByte: {
      const at = r.pos;
      if (r.u8() !== 0) r.fail('zero flag expected', at);
      return;
    }
  }
}

/**
 * A memarg: its alignment, with multi-memory's flag a memory index (read whatever the
 * features: the translator refuses it by name), then the offset, a u64 with memory64.
 */
function readMemarg(r: ByteReader, features: FeatureSet, out: number[] | null): void {
  let align = r.u32();
  let mem = 0;
  if (memargHasMemoryIndex(align)) {
    mem = r.u32();
    align -= 0x40;
  }
  const offset = features.has(Feature.Memory64) ? r.u64() : r.u32();
  out?.push(align, mem, offset);
}

/** A memory index: a u32 with multi-memory, else a zero byte. */
function readMemoryIndex(r: ByteReader, features: FeatureSet, instr: string, out: number[] | null): void {
  if (features.has(Feature.MultiMemory)) {
    const mem = r.u32();
    out?.push(mem);
  } else {
    memoryIndexByte(r, instr);
    out?.push(0);
  }
}

/** A block type: empty (0x40), a value type (its byte), or a type index; with `out`, its s33 value (negative: 0x40 or a value type's byte, minus 0x80). */
function readBlockType(r: ByteReader, out: number[] | null): void {
  const b = r.pos < r.end ? r.bytes[r.pos]! : -1;
  if (b === 0x40 || (b & 0xc0) === 0x40) {
    const refused = b === 0x69 ? null : proposalType(r, r.pos);
    if (refused !== null) throw refused;
    r.u8();
    out?.push(b - 0x80);
  } else {
    const index = r.s33();
    out?.push(index);
  }
}

/** try_table's catch clauses: a kind (catch, catch_ref, catch_all, catch_all_ref), a tag for the first two, a label. */
function readCatchClauses(r: ByteReader, out: number[] | null): void {
  const n = count(r);
  out?.push(n);
  for (let i = 0; i < n; i++) {
    const at = r.pos;
    const kind = r.u8();
    if (kind > 3) r.fail('malformed catch clause', at);
    const tag = kind < 2 ? r.u32() : -1;
    const label = r.u32();
    out?.push(kind, tag, label);
  }
}

function count(r: ByteReader): number {
  const n = r.u32();
  if (n > r.end - r.pos) r.eof(r.end);
  return n;
}

/** Steps over `n` bytes (with `out`, appending each). */
function readBytes(r: ByteReader, n: number, out: number[] | null): void {
  if (r.pos + n > r.end) r.eof(r.end);
  if (out !== null) for (let i = 0; i < n; i++) out.push(r.bytes[r.pos + i]!);
  r.pos += n;
}

// ---------------------------------------------------------------------------------------------
// Encodings of later proposals: the translator and the scan above refuse them alike, naming
// the proposal (errors.ts, `refusal`). Each is malformed in WebAssembly 2.0, so each is a
// DecodeError, except a memarg's memory index, which 2.0 reads as too large an alignment
// (the translator refuses it as invalid).

const EH = Feature.ExceptionHandling;

/** Single-byte opcodes and prefixes of later proposals. */
const PROPOSAL_OPCODES: ReadonlyMap<number, readonly [string, Feature]> = new Map<number, readonly [string, Feature]>([
  [0x06, ['try, legacy exception handling', EH]],
  [0x07, ['catch, legacy exception handling', EH]],
  [0x08, ['throw', EH]],
  [0x09, ['rethrow, legacy exception handling', EH]],
  [0x0a, ['throw_ref', EH]],
  [0x12, ['return_call', Feature.TailCalls]],
  [0x13, ['return_call_indirect', Feature.TailCalls]],
  [0x14, ['call_ref', Feature.FunctionReferences]],
  [0x15, ['return_call_ref', Feature.TailCalls]],
  [0x18, ['delegate, legacy exception handling', EH]],
  [0x19, ['catch_all, legacy exception handling', EH]],
  [0x1f, ['try_table', EH]],
  [0xd3, ['ref.eq', Feature.Gc]],
  [0xd4, ['ref.as_non_null', Feature.FunctionReferences]],
  [0xd5, ['br_on_null', Feature.FunctionReferences]],
  [0xd6, ['br_on_non_null', Feature.FunctionReferences]],
  [0xfb, ['a GC instruction', Feature.Gc]],
  [0xfe, ['an atomic instruction', Feature.Atomics]],
]);

/**
 * The error for a single-byte opcode that WebAssembly 2.0 does not define (at `opAt`, the
 * cursor just past it): a refusal when a later proposal defines it, else "illegal opcode". A
 * prefix's sub-opcode is read, when there is one, to be named too.
 */
export function unknownOpcode(r: ByteReader, op: number, opAt: number): DecodeError {
  const known = PROPOSAL_OPCODES.get(op);
  if (known === undefined) return new DecodeError(`illegal opcode ${formatOpcode(op)}`, opAt);
  const [name, feature] = known;
  if (op !== 0xfb && op !== 0xfe) return refuseDecode(feature, `${name}, opcode ${formatOpcode(op)}`, opAt);
  let sub: number | undefined;
  try {
    sub = r.u32();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
  return refuseDecode(feature, `${name}, opcode ${formatOpcode(op, sub)}`, opAt);
}

/**
 * The error for a 0xfc or 0xfd sub-opcode that WebAssembly 2.0 does not define: a refusal
 * when a later proposal does (wide arithmetic, relaxed SIMD), else "illegal opcode".
 */
export function prefixedOpcode(prefix: 0xfc | 0xfd | 0xfe, sub: number, opAt: number): DecodeError {
  const opcode = formatOpcode(prefix, sub);
  if (prefix === 0xfc && sub >= 19 && sub <= 22) return refuseDecode(Feature.WideArithmetic, `opcode ${opcode}`, opAt);
  if (prefix === 0xfd && sub >= 0x100 && sub <= 0x113) return refuseDecode(Feature.RelaxedSimd, `opcode ${opcode}`, opAt);
  return new DecodeError(`illegal opcode ${opcode}`, opAt);
}

/** Abstract heap types of later proposals, by their one-byte code. */
const HEAP_TYPES: ReadonlyMap<number, readonly [string, Feature]> = new Map<number, readonly [string, Feature]>([
  [0x73, ['nofunc', Feature.Gc]],
  [0x72, ['noextern', Feature.Gc]],
  [0x71, ['none', Feature.Gc]],
  [0x6e, ['any', Feature.Gc]],
  [0x6d, ['eq', Feature.Gc]],
  [0x6c, ['i31', Feature.Gc]],
  [0x6b, ['struct', Feature.Gc]],
  [0x6a, ['array', Feature.Gc]],
  [0x69, ['exn', EH]],
  [0x74, ['noexn', EH]],
]);

/**
 * The refusal of the type at `at` where a value type is expected, when a later proposal
 * defines it: `anyref` (0x6e) and its kin, `exnref` (0x69), and `(ref null ht)`/`(ref ht)`
 * (0x63/0x64, whose heap type decides the proposal). Null for everything else, which the
 * caller judges. The cursor does not move.
 */
export function proposalType(r: ByteReader, at: number): DecodeError | null {
  if (at >= r.end) return null;
  const b = r.bytes[at]!;
  const shorthand = HEAP_TYPES.get(b);
  if (shorthand !== undefined) {
    return refuseDecode(shorthand[1], `value type ${shorthand[0]}ref, ${formatOpcode(b)}`, at);
  }
  if (b !== 0x63 && b !== 0x64) return null;
  const ref = b === 0x63 ? 'ref null ' : 'ref ';
  const h = at + 1 < r.end ? r.bytes[at + 1]! : -1;
  const heap = HEAP_TYPES.get(h);
  if (heap !== undefined) return refuseDecode(heap[1], `value type (${ref}${heap[0]}), ${formatOpcode(b)} ${formatOpcode(h)}`, at);
  const name = h === 0x70 ? 'func' : h === 0x6f ? 'extern' : typeIndexAt(r, at + 1);
  return refuseDecode(Feature.FunctionReferences, `value type (${ref}${name}), ${formatOpcode(b)}`, at);
}

/** The type index (an s33) at `at`, as text, for a message; the cursor does not move. */
function typeIndexAt(r: ByteReader, at: number): string {
  try {
    return `type ${new ByteReader(r.bytes, at, r.end).s33()}`;
  } catch (e) {
    if (e instanceof DecodeError) return 'a type index';
    throw e;
  }
}

/**
 * The refusal of the heap type at `at`, the immediate of `ref.null`, when a later proposal
 * defines it: an abstract heap type, or a type index. Null otherwise; the cursor does not move.
 */
export function proposalHeapType(r: ByteReader, at: number): DecodeError | null {
  if (at >= r.end) return null;
  const b = r.bytes[at]!;
  const heap = HEAP_TYPES.get(b);
  if (heap !== undefined) return refuseDecode(heap[1], `ref.null ${heap[0]}, heap type ${formatOpcode(b)}`, at);
  // A type index (non-negative s33): 0x00-0x3f in one byte, or any longer encoding.
  if (b < 0x40 || b >= 0x80) return refuseDecode(Feature.FunctionReferences, `ref.null of ${typeIndexAt(r, at)}`, at);
  return null;
}

/**
 * In a memarg, alignment exponents 64 to 127 say that a memory index follows (multi-memory);
 * in WebAssembly 2.0 they are merely too large ("alignment must not be larger than natural").
 */
export function memargHasMemoryIndex(align: number): boolean {
  return align >= 0x40 && align < 0x80;
}

/**
 * The byte after memory.size, memory.grow, memory.init, memory.copy and memory.fill: zero in
 * WebAssembly 2.0, a memory index in multi-memory (a non-zero one is refused as such).
 */
export function memoryIndexByte(r: ByteReader, instr: string): void {
  const at = r.pos;
  const b = r.u8();
  if (b === 0) return;
  if (b < 0x80) throw refuseDecode(Feature.MultiMemory, `memory index ${b} in ${instr}`, at, 'zero byte expected');
  r.fail('zero byte expected', at);
}

/** The first malformed encoding in the bodies from `first` on, or null if they all decode; in steps. */
export function* findMalformedBodyInSteps(ir: ModuleIR, first: number, features: FeatureSet): Steps<DecodeError | null> {
  for (let i = first; i < ir.codes.length; i++) {
    const body = ir.codes[i]!;
    const r = new ByteReader(ir.bytes, body.codeStart, body.codeEnd);
    const scan = new InstructionScan(features);
    try {
      while (!scan.advance(r, r.pos + SCAN_BYTES_PER_STEP)) yield;
      if (!r.atEnd) r.fail('operators remaining after end of function body');
    } catch (e) {
      if (e instanceof DecodeError) return e;
      throw e;
    }
  }
  return null;
}

/** Body bytes to scan between two steps of countConstantsInSteps. */
const SCAN_BYTES_PER_STEP = 16 * 1024;

/**
 * How many constant instructions and legacy `try` blocks a body holds: the translator reserves
 * a frame slot for each before it starts. For a malformed body the answer does not matter
 * (the translator reports the malformation), so it is 0 and 0. In steps, for a large body's sake.
 */
export function* countInBodyInSteps(bytes: Uint8Array, start: number, end: number, features: FeatureSet): Steps<BodyCounts> {
  const r = new ByteReader(bytes, start, end);
  const scan = new InstructionScan(features);
  try {
    while (!scan.advance(r, r.pos + SCAN_BYTES_PER_STEP)) yield;
  } catch (e) {
    if (e instanceof DecodeError) return { constants: 0, tries: 0 };
    throw e;
  }
  return { constants: scan.constants, tries: scan.tries };
}
