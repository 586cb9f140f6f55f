/**
 * The instruction set, described once: one row per WebAssembly instruction this engine knows —
 * its encoding (prefix and code), text name, immediates, operand and result types where they
 * are fixed, fuel cost and the feature that brings it. Everything that reads instructions reads
 * them from here: the syntax scan (body-syntax.ts) steps over immediates by `imm`, the
 * translator (compiler.ts) dispatches on the row, checks its types, gates its feature and
 * charges its fuel, and the disassembler (disassemble.ts) prints `name` and immediates. In the
 * way wasmi's `for_each_op` list and V8's opcode lists serve their engines. See
 * docs/instruction-set.md.
 *
 * The 0xFD (SIMD) and 0xFE (atomics) sections are composed from their own tables, simd-ops.ts
 * and atomic-ops.ts, whose rows carry what only their translation needs (entry points, lanes,
 * operand layouts); a row here links to that row in `simd` / `atomic`.
 */
import { Feature } from './errors.js';
import { ATOMIC_OPS, type AtomicOpInfo } from './atomic-ops.js';
import { SIMD_OPS, type SimdOpInfo } from './simd-ops.js';
import { EXNREF, F32, F64, FUNCREF, I32, I64, type ValType } from './types.js';
import type { FeatureSet } from './features.js';

/** The prefix byte of an instruction's encoding; 0 for the single-byte opcodes. */
export type Prefix = 0 | 0xfc | 0xfd | 0xfe;

/**
 * The immediates that follow an opcode, as the binary format encodes them. Numbers, so that
 * the scan's and the disassembler's switches on them are jump tables.
 */
export const Imm = {
  None: 0,
  // One u32 index (1 to LAST_INDEX_IMM, so that the scan reads all of them in one step):
  /** br, br_if, rethrow, delegate: a label depth. */
  Label: 1,
  /** call, return_call, ref.func: a function index. */
  Func: 2,
  Local: 3,
  Global: 4,
  /** table.get, table.set, table.grow, table.size, table.fill: a table index. */
  Table: 5,
  /** throw, catch: a tag index. */
  Tag: 6,
  /** data.drop: a data segment index. */
  Data: 7,
  /** elem.drop: an element segment index. */
  Elem: 8,
  // Constants (I32 to F64, which the scan counts):
  I32: 9,
  I64: 10,
  F32: 11,
  F64: 12,
  /** block, loop, if, try: a block type (empty, a value type, or an s33 type index). */
  BlockType: 13,
  /** try_table: a block type, then a vector of catch clauses (kind byte, tag for kinds 0 and 1, label). */
  TryTable: 14,
  /** br_table: a vector of label depths, then the default one. */
  BrTable: 15,
  /** call_indirect, return_call_indirect: a type index, then a table index. */
  CallIndirect: 16,
  /** Typed select: a vector of value types (exactly one is valid). */
  SelectTypes: 17,
  /** Loads, stores, atomics: alignment exponent (bit 6: a memory index follows), offset (u64 with memory64). */
  Memarg: 18,
  /** memory.size, memory.grow, memory.fill: a memory index (a zero byte without multi-memory). */
  Memory: 19,
  /** ref.null: a heap type. */
  HeapType: 20,
  /** memory.init: a data segment index, then a memory index. */
  DataMemory: 21,
  /** memory.copy: destination and source memory indices. */
  MemoryPair: 22,
  /** table.init: an element segment index, then a table index. */
  ElemTable: 23,
  /** table.copy: destination and source table indices. */
  TablePair: 24,
  /** SIMD lane loads and stores: a memarg, then a lane index byte. */
  MemargLane: 25,
  /** SIMD lane instructions: a lane index byte. */
  Lane: 26,
  /** v128.const: 16 bytes of value. */
  V128: 27,
  /** i8x16.shuffle: 16 lane index bytes. */
  Shuffle: 28,
  /** atomic.fence: one byte that must be zero. */
  ZeroByte: 29,
} as const;
export type Imm = (typeof Imm)[keyof typeof Imm];
/** The last immediate kind that is one u32 index. */
export const LAST_INDEX_IMM = Imm.Elem;

export interface InstructionRow {
  readonly prefix: Prefix;
  /** The opcode byte, or the sub-opcode after a prefix (a u32 LEB in the binary). */
  readonly code: number;
  /** The text-format name (typed select is `select`, like the untyped one). */
  readonly name: string;
  readonly imm: Imm;
  /**
   * Operand types, bottom of the stack first, and result types — null where the validator
   * computes them from immediates or the stack (control, locals, globals, calls, select,
   * tables, memory.size/grow/init/copy/fill, ref.null, ref.is_null). A memory access lists its
   * address as i32; on a memory64 memory the validator takes it as i64.
   */
  readonly params: readonly ValType[] | null;
  readonly results: readonly ValType[] | null;
  /**
   * Fuel, as wasmtime counts it: 0 for nop, drop, block, loop, unreachable, return, else and
   * end, 1 for every other operator (a call's extra unit is the callee's entry's).
   */
  readonly fuel: 0 | 1;
  /** The feature that brings the instruction; null for WebAssembly 2.0 without SIMD. */
  readonly feature: Feature | null;
  /** Memory accesses: the bytes accessed (natural alignment is their log2); 0 otherwise. */
  readonly accessBytes: number;
  /**
   * 32 or 64 when the instruction's float results (scalar, or SIMD lanes) may be a NaN that
   * its arithmetic made — Cranelift's list for NaN canonicalisation: arithmetic, rounding,
   * sqrt, min/max, demote, promote, fused multiply-add — which the canonical-NaN mode rewrites;
   * 0 for everything else (bit operations such as abs, neg, copysign; loads; conversions from
   * integers).
   */
  readonly nanResults: 0 | 32 | 64;
  /** The row's index in INSTRUCTIONS (for per-row arrays, such as which rows a compile accepts). */
  readonly id: number;
  /** 0xFD rows: the SIMD table's row. */
  readonly simd: SimdOpInfo | null;
  /** 0xFE rows: the atomics table's row. */
  readonly atomic: AtomicOpInfo | null;
}

const rows: InstructionRow[] = [];
const single: (InstructionRow | undefined)[] = new Array<InstructionRow | undefined>(256).fill(undefined);
const fc: (InstructionRow | undefined)[] = [];
const fd: (InstructionRow | undefined)[] = [];
const fe: (InstructionRow | undefined)[] = [];

/** The free parts of a row; the rest is derived. */
interface RowSpec {
  readonly imm?: Imm;
  readonly params?: readonly ValType[] | null;
  readonly results?: readonly ValType[] | null;
  readonly fuel?: 0 | 1;
  readonly feature?: Feature | null;
  readonly accessBytes?: number;
  readonly nanResults?: 0 | 32 | 64;
  readonly simd?: SimdOpInfo;
  readonly atomic?: AtomicOpInfo;
}

function add(prefix: Prefix, code: number, name: string, spec: RowSpec): void {
  const row: InstructionRow = {
    prefix, code, name,
    imm: spec.imm ?? Imm.None,
    params: spec.params === undefined ? [] : spec.params,
    results: spec.results === undefined ? [] : spec.results,
    fuel: spec.fuel ?? 1,
    feature: spec.feature ?? null,
    accessBytes: spec.accessBytes ?? 0,
    nanResults: spec.nanResults ?? 0,
    id: rows.length,
    simd: spec.simd ?? null,
    atomic: spec.atomic ?? null,
  };
  rows.push(row);
  const section = prefix === 0 ? single : prefix === 0xfc ? fc : prefix === 0xfd ? fd : fe;
  section[code] = row;
}

/** A row whose types the validator works out. */
const COMPUTED = { params: null, results: null } as const;
const EH = Feature.ExceptionHandling;

// ---- control ------------------------------------------------------------------------------
add(0, 0x00, 'unreachable', { ...COMPUTED, fuel: 0 });
add(0, 0x01, 'nop', { fuel: 0 });
add(0, 0x02, 'block', { ...COMPUTED, imm: Imm.BlockType, fuel: 0 });
add(0, 0x03, 'loop', { ...COMPUTED, imm: Imm.BlockType, fuel: 0 });
add(0, 0x04, 'if', { ...COMPUTED, imm: Imm.BlockType });
add(0, 0x05, 'else', { ...COMPUTED, fuel: 0 });
add(0, 0x06, 'try', { ...COMPUTED, imm: Imm.BlockType, feature: EH });
add(0, 0x07, 'catch', { ...COMPUTED, imm: Imm.Tag, feature: EH });
add(0, 0x08, 'throw', { ...COMPUTED, imm: Imm.Tag, feature: EH });
add(0, 0x09, 'rethrow', { ...COMPUTED, imm: Imm.Label, feature: EH });
add(0, 0x0a, 'throw_ref', { params: [EXNREF], results: null, feature: EH });
add(0, 0x0b, 'end', { ...COMPUTED, fuel: 0 });
add(0, 0x0c, 'br', { ...COMPUTED, imm: Imm.Label });
add(0, 0x0d, 'br_if', { ...COMPUTED, imm: Imm.Label });
add(0, 0x0e, 'br_table', { ...COMPUTED, imm: Imm.BrTable });
add(0, 0x0f, 'return', { ...COMPUTED, fuel: 0 });
add(0, 0x10, 'call', { ...COMPUTED, imm: Imm.Func });
add(0, 0x11, 'call_indirect', { ...COMPUTED, imm: Imm.CallIndirect });
add(0, 0x12, 'return_call', { ...COMPUTED, imm: Imm.Func, feature: Feature.TailCalls });
add(0, 0x13, 'return_call_indirect', { ...COMPUTED, imm: Imm.CallIndirect, feature: Feature.TailCalls });
add(0, 0x18, 'delegate', { ...COMPUTED, imm: Imm.Label, feature: EH });
add(0, 0x19, 'catch_all', { ...COMPUTED, feature: EH });
add(0, 0x1f, 'try_table', { ...COMPUTED, imm: Imm.TryTable, feature: EH });

// ---- parametric, variables, tables --------------------------------------------------------
add(0, 0x1a, 'drop', { ...COMPUTED, fuel: 0 });
add(0, 0x1b, 'select', COMPUTED);
add(0, 0x1c, 'select', { ...COMPUTED, imm: Imm.SelectTypes });
add(0, 0x20, 'local.get', { ...COMPUTED, imm: Imm.Local });
add(0, 0x21, 'local.set', { ...COMPUTED, imm: Imm.Local });
add(0, 0x22, 'local.tee', { ...COMPUTED, imm: Imm.Local });
add(0, 0x23, 'global.get', { ...COMPUTED, imm: Imm.Global });
add(0, 0x24, 'global.set', { ...COMPUTED, imm: Imm.Global });
add(0, 0x25, 'table.get', { ...COMPUTED, imm: Imm.Table });
add(0, 0x26, 'table.set', { ...COMPUTED, imm: Imm.Table });

// ---- memory -------------------------------------------------------------------------------
/** Loads 0x28-0x35 and stores 0x36-0x3e: name, value type, bytes accessed. */
const LOADS: readonly (readonly [string, ValType, number])[] = [
  ['i32.load', I32, 4], ['i64.load', I64, 8], ['f32.load', F32, 4], ['f64.load', F64, 8],
  ['i32.load8_s', I32, 1], ['i32.load8_u', I32, 1], ['i32.load16_s', I32, 2], ['i32.load16_u', I32, 2],
  ['i64.load8_s', I64, 1], ['i64.load8_u', I64, 1], ['i64.load16_s', I64, 2], ['i64.load16_u', I64, 2],
  ['i64.load32_s', I64, 4], ['i64.load32_u', I64, 4],
];
const STORES: readonly (readonly [string, ValType, number])[] = [
  ['i32.store', I32, 4], ['i64.store', I64, 8], ['f32.store', F32, 4], ['f64.store', F64, 8],
  ['i32.store8', I32, 1], ['i32.store16', I32, 2], ['i64.store8', I64, 1], ['i64.store16', I64, 2], ['i64.store32', I64, 4],
];
LOADS.forEach(([name, t, bytes], i) => add(0, 0x28 + i, name, { imm: Imm.Memarg, params: [I32], results: [t], accessBytes: bytes }));
STORES.forEach(([name, t, bytes], i) => add(0, 0x36 + i, name, { imm: Imm.Memarg, params: [I32, t], results: [], accessBytes: bytes }));
add(0, 0x3f, 'memory.size', { ...COMPUTED, imm: Imm.Memory });
add(0, 0x40, 'memory.grow', { ...COMPUTED, imm: Imm.Memory });

// ---- constants ----------------------------------------------------------------------------
add(0, 0x41, 'i32.const', { imm: Imm.I32, results: [I32] });
add(0, 0x42, 'i64.const', { imm: Imm.I64, results: [I64] });
add(0, 0x43, 'f32.const', { imm: Imm.F32, results: [F32] });
add(0, 0x44, 'f64.const', { imm: Imm.F64, results: [F64] });

// ---- numeric 0x45-0xc4 ----------------------------------------------------------------------
/** The float operations whose result may be a NaN they made (InstructionRow.nanResults). */
const NAN_MAKING: ReadonlySet<string> = new Set([
  'ceil', 'floor', 'trunc', 'nearest', 'sqrt', 'add', 'sub', 'mul', 'div', 'min', 'max', 'demote_f64', 'promote_f32',
]);

/** Adds one numeric row per name from `code` on: `arity` operands of type `operand`, one `result`. */
function numeric(code: number, names: readonly string[], arity: 1 | 2, operand: ValType, result: ValType): void {
  const params = arity === 1 ? [operand] : [operand, operand];
  const width = result === F32 ? 32 : result === F64 ? 64 : 0;
  names.forEach((name, i) => {
    const nanResults = NAN_MAKING.has(name.slice(name.indexOf('.') + 1)) ? width : 0;
    add(0, code + i, name, { params, results: [result], nanResults });
  });
}
const ICMP = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u'];
const FCMP = ['eq', 'ne', 'lt', 'gt', 'le', 'ge'];
const IUNARY = ['clz', 'ctz', 'popcnt'];
const IBINARY = ['add', 'sub', 'mul', 'div_s', 'div_u', 'rem_s', 'rem_u', 'and', 'or', 'xor', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr'];
const FUNARY = ['abs', 'neg', 'ceil', 'floor', 'trunc', 'nearest', 'sqrt'];
const FBINARY = ['add', 'sub', 'mul', 'div', 'min', 'max', 'copysign'];
const prefixed = (type: string, ops: readonly string[]): string[] => ops.map((o) => `${type}.${o}`);
numeric(0x45, ['i32.eqz'], 1, I32, I32);
numeric(0x46, prefixed('i32', ICMP), 2, I32, I32);
numeric(0x50, ['i64.eqz'], 1, I64, I32);
numeric(0x51, prefixed('i64', ICMP), 2, I64, I32);
numeric(0x5b, prefixed('f32', FCMP), 2, F32, I32);
numeric(0x61, prefixed('f64', FCMP), 2, F64, I32);
numeric(0x67, prefixed('i32', IUNARY), 1, I32, I32);
numeric(0x6a, prefixed('i32', IBINARY), 2, I32, I32);
numeric(0x79, prefixed('i64', IUNARY), 1, I64, I64);
numeric(0x7c, prefixed('i64', IBINARY), 2, I64, I64);
numeric(0x8b, prefixed('f32', FUNARY), 1, F32, F32);
numeric(0x92, prefixed('f32', FBINARY), 2, F32, F32);
numeric(0x99, prefixed('f64', FUNARY), 1, F64, F64);
numeric(0xa0, prefixed('f64', FBINARY), 2, F64, F64);
numeric(0xa7, ['i32.wrap_i64'], 1, I64, I32);
numeric(0xa8, ['i32.trunc_f32_s', 'i32.trunc_f32_u'], 1, F32, I32);
numeric(0xaa, ['i32.trunc_f64_s', 'i32.trunc_f64_u'], 1, F64, I32);
numeric(0xac, ['i64.extend_i32_s', 'i64.extend_i32_u'], 1, I32, I64);
numeric(0xae, ['i64.trunc_f32_s', 'i64.trunc_f32_u'], 1, F32, I64);
numeric(0xb0, ['i64.trunc_f64_s', 'i64.trunc_f64_u'], 1, F64, I64);
numeric(0xb2, ['f32.convert_i32_s', 'f32.convert_i32_u'], 1, I32, F32);
numeric(0xb4, ['f32.convert_i64_s', 'f32.convert_i64_u'], 1, I64, F32);
numeric(0xb6, ['f32.demote_f64'], 1, F64, F32);
numeric(0xb7, ['f64.convert_i32_s', 'f64.convert_i32_u'], 1, I32, F64);
numeric(0xb9, ['f64.convert_i64_s', 'f64.convert_i64_u'], 1, I64, F64);
numeric(0xbb, ['f64.promote_f32'], 1, F32, F64);
numeric(0xbc, ['i32.reinterpret_f32'], 1, F32, I32);
numeric(0xbd, ['i64.reinterpret_f64'], 1, F64, I64);
numeric(0xbe, ['f32.reinterpret_i32'], 1, I32, F32);
numeric(0xbf, ['f64.reinterpret_i64'], 1, I64, F64);
numeric(0xc0, ['i32.extend8_s', 'i32.extend16_s'], 1, I32, I32);
numeric(0xc2, ['i64.extend8_s', 'i64.extend16_s', 'i64.extend32_s'], 1, I64, I64);

// ---- references ---------------------------------------------------------------------------
add(0, 0xd0, 'ref.null', { ...COMPUTED, imm: Imm.HeapType });
add(0, 0xd1, 'ref.is_null', COMPUTED);
add(0, 0xd2, 'ref.func', { imm: Imm.Func, params: [], results: [FUNCREF] });

// ---- 0xFC: saturating truncation, bulk memory and tables ---------------------------------------
[
  ['i32.trunc_sat_f32_s', F32, I32], ['i32.trunc_sat_f32_u', F32, I32], ['i32.trunc_sat_f64_s', F64, I32],
  ['i32.trunc_sat_f64_u', F64, I32], ['i64.trunc_sat_f32_s', F32, I64], ['i64.trunc_sat_f32_u', F32, I64],
  ['i64.trunc_sat_f64_s', F64, I64], ['i64.trunc_sat_f64_u', F64, I64],
].forEach(([name, from, to], i) => add(0xfc, i, name as string, { params: [from as ValType], results: [to as ValType] }));
add(0xfc, 8, 'memory.init', { ...COMPUTED, imm: Imm.DataMemory });
add(0xfc, 9, 'data.drop', { imm: Imm.Data });
add(0xfc, 10, 'memory.copy', { ...COMPUTED, imm: Imm.MemoryPair });
add(0xfc, 11, 'memory.fill', { ...COMPUTED, imm: Imm.Memory });
add(0xfc, 12, 'table.init', { ...COMPUTED, imm: Imm.ElemTable });
add(0xfc, 13, 'elem.drop', { imm: Imm.Elem });
add(0xfc, 14, 'table.copy', { ...COMPUTED, imm: Imm.TablePair });
add(0xfc, 15, 'table.grow', { ...COMPUTED, imm: Imm.Table });
add(0xfc, 16, 'table.size', { ...COMPUTED, imm: Imm.Table });
add(0xfc, 17, 'table.fill', { ...COMPUTED, imm: Imm.Table });

// ---- 0xFD: SIMD, from simd-ops.ts ------------------------------------------------------------
const SIMD_IMM = { none: Imm.None, memarg: Imm.Memarg, memargLane: Imm.MemargLane, lane: Imm.Lane, bytes16: Imm.V128 } as const;
for (const info of SIMD_OPS) {
  add(0xfd, info.op, info.name, {
    imm: info.entry === 'shuffle' ? Imm.Shuffle : SIMD_IMM[info.imm],
    params: info.params, results: info.results,
    feature: info.relaxed ? Feature.RelaxedSimd : Feature.Simd,
    accessBytes: info.accessBytes,
    nanResults: info.nanLanes,
    simd: info,
  });
}

// ---- 0xFE: atomics, from atomic-ops.ts ----------------------------------------------------------
for (const info of ATOMIC_OPS) {
  add(0xfe, info.op, info.name, {
    imm: info.imm === 'zeroByte' ? Imm.ZeroByte : Imm.Memarg,
    params: info.params, results: info.results,
    feature: Feature.Atomics,
    accessBytes: info.accessBytes,
    atomic: info,
  });
}

/** Every instruction, single-byte ones first, then 0xFC, 0xFD and 0xFE, each in code order but for a few single bytes. */
export const INSTRUCTIONS: readonly InstructionRow[] = rows;

/**
 * The operators extended constant expressions allow in a constant expression (i32/i64 add,
 * sub, mul), by opcode; their names and types are their rows'.
 */
export const EXTENDED_CONST_OPS: ReadonlySet<number> = new Set([0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e]);

/** The single-byte opcodes' rows, by opcode (undefined: not an instruction here). */
export const SINGLE_BYTE: readonly (InstructionRow | undefined)[] = single;

/** In SINGLE_BYTE_IMM: a prefix byte (0xfc-0xfe), whose sub-opcode says the row; no row at all. */
export const IMM_PREFIX = 254;
export const IMM_NO_ROW = 255;
/**
 * The immediate kind of each single-byte opcode's row, by opcode (or IMM_PREFIX, IMM_NO_ROW):
 * the syntax scan's hot loop reads a byte here rather than the row.
 */
export const SINGLE_BYTE_IMM: Uint8Array = (() => {
  const kinds = new Uint8Array(256).fill(IMM_NO_ROW);
  for (let op = 0; op < 256; op++) {
    const row = single[op];
    if (row !== undefined) kinds[op] = row.imm;
  }
  kinds[0xfc] = kinds[0xfd] = kinds[0xfe] = IMM_PREFIX;
  return kinds;
})();

/** The row of `code` after `prefix` (0: a single-byte opcode), or undefined for none. Arrays, not maps: the translator asks per instruction. */
export function instructionRow(prefix: Prefix, code: number): InstructionRow | undefined {
  switch (prefix) {
    case 0: return single[code];
    case 0xfc: return fc[code];
    case 0xfd: return fd[code];
    case 0xfe: return fe[code];
  }
}

/**
 * Whether a compile with `features` accepts the row: its feature, and for relaxed SIMD the
 * SIMD it extends too.
 */
export function rowAccepted(row: InstructionRow, features: ReadonlySet<Feature>): boolean {
  if (row.feature === null) return true;
  if (row.feature === Feature.RelaxedSimd && !features.has(Feature.Simd)) return false;
  return features.has(row.feature);
}

/** The alignment exponent of a memory access's natural alignment: log2 of its bytes. */
export function naturalAlignment(row: InstructionRow): number {
  return 31 - Math.clz32(row.accessBytes);
}

/** Bits of rowFlags: the compile accepts the row (its feature is on); its fuel is charged when it is dispatched. */
export const ACCEPTED = 1;
export const CHARGED_ON_DISPATCH = 2;

/**
 * Per row of the instruction table (by `id`), for one feature set: ACCEPTED and
 * CHARGED_ON_DISPATCH. Computed once per feature set, so that the translator (and the body validator) gate features and
 * the translator charges fuel for every instruction by one array load. Every row whose fuel is 1 is charged on
 * dispatch — before its operands are popped, which changes nothing, since charging only counts
 * (pendingFuel) while the code is live, and no instruction takes the pending fuel before
 * it would have charged — except legacy catch and catch_all, which charge in their clause.
 */
const rowFlagsBySet = new WeakMap<FeatureSet, Uint8Array>();
export function rowFlags(features: FeatureSet): Uint8Array {
  let flags = rowFlagsBySet.get(features);
  if (flags === undefined) {
    flags = new Uint8Array(INSTRUCTIONS.length);
    for (const row of INSTRUCTIONS) {
      const chargedInClause = row.prefix === 0 && (row.code === 0x07 || row.code === 0x19);
      flags[row.id] = (rowAccepted(row, features) ? ACCEPTED : 0) | (row.fuel === 1 && !chargedInClause ? CHARGED_ON_DISPATCH : 0);
    }
    rowFlagsBySet.set(features, flags);
  }
  return flags;
}
