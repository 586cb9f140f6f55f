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
import { simdOpInfo } from './simd-ops.js';
import { atomicOpInfo } from './atomic-ops.js';
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
  set(0x12, 0x12, IMM_U32); // return_call
  set(0x13, 0x13, IMM_SPECIAL); // return_call_indirect
  set(0x06, 0x07, IMM_SPECIAL); // try, catch (legacy exception handling)
  set(0x08, 0x09, IMM_U32); // throw, rethrow
  set(0x0a, 0x0a, IMM_NONE); // throw_ref
  set(0x18, 0x19, IMM_SPECIAL); // delegate, catch_all (legacy)
  set(0x1f, 0x1f, IMM_SPECIAL); // try_table
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
  set(0xfc, 0xfe, IMM_SPECIAL); // prefixes
  return t;
})();

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
      switch (OPCODE_IMM[op]!) {
        case IMM_ILLEGAL:
          throw unknownOpcode(r, op, opAt);
        case IMM_NONE:
          break;
        case IMM_U32:
          r.u32();
          break;
        case IMM_MEMARG:
          this.skipMemarg(r);
          break;
        case IMM_ZERO:
          this.memoryIndex(r, op === 0x3f ? 'memory.size' : 'memory.grow');
          break;
        default:
          switch (op) {
            case 0x02:
            case 0x03:
            case 0x04:
            case 0x06:
            case 0x1f:
              skipBlockType(r);
              if (op === 0x1f) skipCatchClauses(r);
              if (op === 0x06) this.tries++;
              nesting.push(op === 0x04 ? NEST_IF : op === 0x06 ? NEST_TRY : NEST_BLOCK);
              break;
            case 0x05:
              if (nesting.length === 0 || nesting[nesting.length - 1] !== NEST_IF) r.fail('END opcode expected', opAt);
              nesting[nesting.length - 1] = NEST_ELSE;
              break;
            case 0x07: // catch
            case 0x19: // catch_all
              if (op === 0x07) r.u32();
              if (nesting.length === 0 || nesting[nesting.length - 1]! < NEST_TRY) r.fail('END opcode expected', opAt);
              nesting[nesting.length - 1] = NEST_CATCH;
              break;
            case 0x18: // delegate: ends a try
              r.u32();
              if (nesting.length === 0 || nesting[nesting.length - 1] !== NEST_TRY) r.fail('END opcode expected', opAt);
              nesting.pop();
              break;
            case 0x0b:
              if (nesting.length === 0) return true;
              nesting.pop();
              break;
            case 0x0e: {
              const n = count(r);
              for (let i = 0; i <= n; i++) r.u32();
              break;
            }
            case 0x11:
            case 0x13:
              r.u32();
              r.u32();
              break;
            case 0x1c: {
              const n = count(r);
              for (let i = 0; i < n; i++) {
                const refused = proposalType(r, r.pos);
                if (refused !== null) throw refused;
                r.u8();
              }
              break;
            }
            case 0x41:
              r.s32();
              this.constants++;
              break;
            case 0x42:
              r.s64();
              this.constants++;
              break;
            case 0x43:
              skipBytes(r, 4);
              this.constants++;
              break;
            case 0x44:
              skipBytes(r, 8);
              this.constants++;
              break;
            case 0xd0: {
              const exn = r.pos < r.end && r.bytes[r.pos] === 0x69 && this.features.has(Feature.ExceptionHandling);
              const refused = exn ? null : proposalHeapType(r, r.pos);
              if (refused !== null) throw refused;
              r.u8();
              break;
            }
            case 0xfc:
              this.skipFC(r, opAt);
              break;
            case 0xfd:
              this.skipFD(r, opAt);
              break;
            case 0xfe:
              this.skipFE(r, opAt);
              break;
          }
      }
    }
  }

  private skipFC(r: ByteReader, opAt: number): void {
    const sub = r.u32();
    if (sub <= 7) return;
    switch (sub) {
      case 8: // memory.init
        r.u32();
        this.memoryIndex(r, 'memory.init');
        return;
      case 10: // memory.copy
        this.memoryIndex(r, 'memory.copy');
        this.memoryIndex(r, 'memory.copy');
        return;
      case 11: // memory.fill
        this.memoryIndex(r, 'memory.fill');
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
        throw prefixedOpcode(0xfc, sub, opAt);
    }
  }

  /** Atomic instructions' immediates, as their table (atomic-ops.ts) gives them. */
  private skipFE(r: ByteReader, opAt: number): void {
    const sub = r.u32();
    const info = atomicOpInfo(sub);
    if (info === undefined) throw prefixedOpcode(0xfe, sub, opAt);
    if (info.imm === 'zeroByte') {
      const at = r.pos;
      if (r.u8() !== 0) r.fail('zero flag expected', at);
      return;
    }
    this.skipMemarg(r);
  }

  /** SIMD immediates, as the instruction table (simd-ops.ts) gives them. */
  private skipFD(r: ByteReader, opAt: number): void {
    const sub = r.u32();
    const info = simdOpInfo(sub);
    if (info === undefined) throw prefixedOpcode(0xfd, sub, opAt);
    switch (info.imm) {
      case 'memarg':
      case 'memargLane':
        this.skipMemarg(r);
        if (info.imm === 'memargLane') skipBytes(r, 1);
        return;
      case 'lane':
        skipBytes(r, 1);
        return;
      case 'bytes16':
        skipBytes(r, 16);
        return;
      case 'none':
        return;
    }
  }

  /**
   * A memarg: its alignment, with multi-memory's flag a memory index (read whatever the
   * features: the translator refuses it by name), then the offset, a u64 with memory64.
   */
  private skipMemarg(r: ByteReader): void {
    if (memargHasMemoryIndex(r.u32())) r.u32();
    if (this.features.has(Feature.Memory64)) r.u64();
    else r.u32();
  }

  /** A memory index: a u32 with multi-memory, else a zero byte. */
  private memoryIndex(r: ByteReader, instr: string): void {
    if (this.features.has(Feature.MultiMemory)) r.u32();
    else memoryIndexByte(r, instr);
  }
}

/** A block type: empty, a value type, or a type index (s33). */
function skipBlockType(r: ByteReader): void {
  const b = r.pos < r.end ? r.bytes[r.pos]! : -1;
  if (b === 0x40 || (b & 0xc0) === 0x40) {
    const refused = b === 0x69 ? null : proposalType(r, r.pos);
    if (refused !== null) throw refused;
    r.u8();
  } else r.s33();
}

/** try_table's catch clauses: a kind (catch, catch_ref, catch_all, catch_all_ref), a tag for the first two, a label. */
function skipCatchClauses(r: ByteReader): void {
  const n = count(r);
  for (let i = 0; i < n; i++) {
    const at = r.pos;
    const kind = r.u8();
    if (kind > 3) r.fail('malformed catch clause', at);
    if (kind < 2) r.u32();
    r.u32();
  }
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
