/**
 * The internal instruction set that function bodies are translated into.
 *
 * Code is one Int32Array per module. An instruction is its opcode word followed by operand
 * words. Operands that name values are frame-relative offsets in 32-bit words (slot * 2):
 * every value occupies one 64-bit slot, a v128 two, so the low half of slot k is word 2k of
 * the frame.
 * Locals and operand-stack temporaries share the frame, which lets the translator read
 * `local.get` operands in place instead of copying them (see compiler.ts).
 *
 * Numeric instructions keep their WebAssembly opcode byte (0x45..0xC4, as binary `op d a b`
 * or unary `op d a`), and so do loads (`op d addr offset`) and stores (`op addr value
 * offset`). The 0xFC-prefixed instructions become 0xE0 + their sub-opcode. Everything else
 * uses the low numbers below, which WebAssembly's own numeric range never overlaps.
 */
export const Op = {
  Unreachable: 0x00, //
  Jump: 0x01, // target fuel
  BranchIfNonZero: 0x02, // cond target fuel
  BranchIfZero: 0x03, // cond target fuel
  BranchTable: 0x04, // index fuel count target*(count+1)
  Copy: 0x05, // d a        (one 64-bit slot)
  Const32: 0x06, // d value (low half only)
  Const64: 0x07, // d lo hi
  Fuel: 0x08, // amount
  Loop: 0x09, // func      (a check point: fuel, pause; func is the function it is in, for the JavaScript tier)
  Call: 0x0a, // func argBase fuel
  CallIndirect: 0x0b, // typeIndex table argBase indexSlot fuel
  CallImport: 0x0c, // func argBase fuel
  Return: 0x0d, // src words fuel  (the results, `words` words from src, move to the frame's base)
  Select: 0x0e, // d cond a b
  GlobalGet: 0x0f, // d global
  GlobalSet: 0x10, // global a
  MemorySize: 0x11, // d
  MemoryGrow: 0x12, // d delta
  RefNull: 0x13, // d
  RefIsNull: 0x14, // d a
  RefFunc: 0x15, // d func
  TableGet: 0x16, // d table index
  TableSet: 0x17, // table index value
  TableSize: 0x18, // d table
  TableGrow: 0x19, // d table init delta
  TableFill: 0x1a, // table start value count
  TableCopy: 0x1b, // dstTable srcTable d s n
  TableInit: 0x1c, // table segment d s n
  ElemDrop: 0x1d, // segment
  MemoryInit: 0x1e, // segment d s n memory
  DataDrop: 0x1f, // segment
  MemoryCopy: 0x20, // d s n dstMemory srcMemory
  MemoryFill: 0x21, // d value n memory
  /** Every v128 instruction: `Simd sub operands...`, executed by simd-dispatch.ts (its layouts there). */
  Simd: 0x22,
  /**
   * return_call and return_call_indirect: `TailCall kind index table argBase indexSlot fuel`,
   * kind 0 (index = function; table, indexSlot unused) or 1 (index = type). Always followed by
   * `Return argBase words 0`, which returns a host callee's results (execution.ts, tailCall).
   */
  TailCall: 0x23,
  /**
   * `UseMemory index`: the memory that memory instructions use from here on (the dispatch
   * loop keeps one at hand). The translator brackets an instruction on a memory other than 0
   * with `UseMemory k` ... `UseMemory 0`.
   */
  UseMemory: 0x24,
  /**
   * `Narrow64 mode d a`: an i64 address, index or size (memory64, table64) made 32-bit, which
   * is all a memory or table here can have (Narrow says how).
   */
  Narrow64: 0x25,
  /** `Throw tag argBase fuel`: throws an exception of the module's tag, its payload in a row at argBase. */
  Throw: 0x26,
  /** `ThrowRef a 0 fuel`: throws again the exception whose reference is in `a` (null traps). */
  ThrowRef: 0x27,
  /** Every atomic instruction (threads): `Atomic sub operands...`, executed by atomic-dispatch.ts (its layouts there). */
  Atomic: 0x3f,
  /** `Canonicalize kind d`: a NaN in d made canonical; kind 32, 64, or a SIMD sub-opcode (canonical-NaN mode). */
  Canonicalize: 0x40,
  /** `Probe site`: the execution's monitor is told (CompileOptions.probes; ProbeSite in compiler.ts). */
  Probe: 0x41,
  /** i32 binary operations with a constant right operand: base + IMM_BINARY index, `op d a imm`. */
  I32BinaryImmBase: 0xc5,
  /** i32 comparisons with a constant right operand: base + comparison index, `op d a imm`. */
  I32CompareImmBase: 0xd0,
  /** First of the 0xFC saturating truncations: 0xE0 + sub-opcode (0..7), `op d a`. */
  TruncSatBase: 0xe0,
  /** Branch if an i32 comparison holds: base + comparison index, `op a b target fuel`. */
  BranchCompareBase: 0x100,
  /** The same with a constant right operand: `op a imm target fuel`. */
  BranchCompareImmBase: 0x10a,
  /**
   * i64 shifts and rotations by a constant count, one opcode per case of the count:
   * base + I64ShiftForm, `op d a k` (compiler.ts, i64ShiftForm, says which k each form takes).
   */
  I64ShiftImmBase: 0x114,
} as const;

/** The forms of I64ShiftImmBase: the operation, and whether the count is 32 + k or k. */
export const I64ShiftForm = {
  Shl: 0, ShlHigh: 1, ShrS: 2, ShrSHigh: 3, ShrU: 4, ShrUHigh: 5, Rotl: 6, RotlHigh: 7, SwapHalves: 8,
} as const;

/** Modes of `Narrow64`, on the i64 in `a`. */
export const Narrow = {
  /** Trap (out of bounds memory access) unless its high half is 0; it is then used as an i32. */
  MemoryCheck: 0,
  /** The same with the table trap (out of bounds table access). */
  TableCheck: 1,
  /** Trap: a memory64 access whose offset is 2^32 or more. */
  MemoryAlwaysTraps: 2,
  /** d = its low half, or -1 (0xffffffff, which no grow can satisfy) unless its high half is 0. */
  Clamp: 3,
} as const;

/**
 * The i32 comparisons by index: eq, ne, lt_s, lt_u, gt_s, gt_u, le_s, le_u, ge_s, ge_u — the
 * WebAssembly opcode minus 0x46.
 */
export const I32_COMPARE_FIRST = 0x46;
export const I32_COMPARE_LAST = 0x4f;
/** The comparison that holds exactly when comparison i does not. */
export const NEGATED_COMPARE = [1, 0, 8, 9, 6, 7, 4, 5, 2, 3] as const;

/** WebAssembly i32 binary opcodes that have a constant-operand form, by form index. */
export const IMM_BINARY = [0x6a, 0x6b, 0x6c, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78] as const;
