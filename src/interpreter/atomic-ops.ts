/**
 * The instruction table of WebAssembly's 0xFE prefix: the threads proposal's atomic
 * instructions (proposals/threads/Overview.md of WebAssembly/threads). One row per
 * instruction, so the decoder, the validator and the translator can treat every atomic
 * instruction the same way: read `imm`, check `params`/`results` and the memarg's alignment
 * (it must EQUAL `alignLog2`), then emit one internal instruction `Atomic sub operands...`
 * whose operand words are `operands` (atomic-dispatch.ts executes it). See docs/atomics.md.
 */
import { I32, I64, type ValType } from './types.js';

/** What atomic-dispatch.ts does for the instruction. */
export type AtomicEntry =
  | 'load' // zero-extending load of accessBytes
  | 'store' // wrapping store of accessBytes
  | 'rmw' // read, modify (`rmw`), write; returns the value read, zero-extended
  | 'cmpxchg' // compare (expected wrapped to the width) and exchange; returns the value read
  | 'wait32' // memory.atomic.wait32
  | 'wait64' // memory.atomic.wait64
  | 'notify' // memory.atomic.notify
  | 'fence'; // atomic.fence

/** The modify step of a read-modify-write instruction. */
export type AtomicRmwOp = 'add' | 'sub' | 'and' | 'or' | 'xor' | 'xchg';

/**
 * The immediates after the sub-opcode in the binary format:
 * - `memarg`: alignment exponent and offset (u32 LEBs; with multi-memory, the memory index
 *   as for the other memory instructions);
 * - `zeroByte`: one byte that must be 0x00 (atomic.fence).
 */
export type AtomicImmediate = 'memarg' | 'zeroByte';

/**
 * The words of the internal instruction after `Atomic sub`, by name:
 * `d` the result's slot, `addr` the i32 address, `value` the operand of a store or rmw,
 * `expected` / `replacement` of cmpxchg and wait, `timeout` the i64 of a wait, `count` the i32
 * of notify, `offset` the memarg offset (an immediate, not a slot).
 */
export type AtomicOperand = 'd' | 'addr' | 'value' | 'expected' | 'replacement' | 'timeout' | 'count' | 'offset';

export interface AtomicOpInfo {
  /** The sub-opcode after 0xFE (a u32 LEB in the binary). */
  readonly op: number;
  /** The text-format name. */
  readonly name: string;
  readonly entry: AtomicEntry;
  /** For `rmw`: the modify step; null otherwise. */
  readonly rmw: AtomicRmwOp | null;
  readonly imm: AtomicImmediate;
  /** Operand types, bottom of the stack first. */
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  /**
   * The bytes accessed (1, 2, 4 or 8): the bounds check covers them and the effective address
   * must be a multiple of them. 0 for atomic.fence.
   */
  readonly accessBytes: number;
  /**
   * The one alignment exponent the memarg may have: log2(accessBytes). Any other value is a
   * validation error (the reference interpreter: "atomic alignment must be natural"). -1 for
   * atomic.fence, which has no memarg.
   */
  readonly alignLog2: number;
  /** The type of the value in memory, as the instruction sees it (I32 or I64); I32 for notify, 0 for fence. */
  readonly valueType: ValType;
  /** The operand words of the internal instruction after `Atomic sub`, in order. */
  readonly operands: readonly AtomicOperand[];
}

/** Operand words by entry (atomic-dispatch.ts's layout table). */
export const ATOMIC_OPERANDS: Readonly<Record<AtomicEntry, readonly AtomicOperand[]>> = {
  load: ['d', 'addr', 'offset'],
  store: ['addr', 'value', 'offset'],
  rmw: ['d', 'addr', 'value', 'offset'],
  cmpxchg: ['d', 'addr', 'expected', 'replacement', 'offset'],
  wait32: ['d', 'addr', 'expected', 'timeout', 'offset'],
  wait64: ['d', 'addr', 'expected', 'timeout', 'offset'],
  notify: ['d', 'addr', 'count', 'offset'],
  fence: [],
};

const table: AtomicOpInfo[] = [];
const byOp: (AtomicOpInfo | undefined)[] = [];

function def(
  op: number, name: string, entry: AtomicEntry, params: ValType[], results: ValType[], accessBytes: number,
  valueType: ValType, rmw: AtomicRmwOp | null = null,
): void {
  const info: AtomicOpInfo = {
    op, name, entry, rmw,
    imm: entry === 'fence' ? 'zeroByte' : 'memarg',
    params, results, accessBytes,
    alignLog2: accessBytes === 0 ? -1 : Math.log2(accessBytes),
    valueType,
    operands: ATOMIC_OPERANDS[entry],
  };
  table.push(info);
  byOp[op] = info;
}

// ---- wait, notify, fence --------------------------------------------------------------------
def(0x00, 'memory.atomic.notify', 'notify', [I32, I32], [I32], 4, I32);
def(0x01, 'memory.atomic.wait32', 'wait32', [I32, I32, I64], [I32], 4, I32);
def(0x02, 'memory.atomic.wait64', 'wait64', [I32, I64, I64], [I32], 8, I64);
def(0x03, 'atomic.fence', 'fence', [], [], 0, 0);

/** The seven widths of each load, store and rmw family, in opcode order: type, bytes, name part. */
const WIDTHS: readonly (readonly [ValType, number, string])[] = [
  [I32, 4, ''], [I64, 8, ''], [I32, 1, '8'], [I32, 2, '16'], [I64, 1, '8'], [I64, 2, '16'], [I64, 4, '32'],
];
const tname = (t: ValType): string => (t === I32 ? 'i32' : 'i64');

// ---- loads 0x10-0x16, stores 0x17-0x1d ---------------------------------------------------------
WIDTHS.forEach(([t, bytes, w], i) => {
  def(0x10 + i, `${tname(t)}.atomic.load${w}${w === '' ? '' : '_u'}`, 'load', [I32], [t], bytes, t);
});
WIDTHS.forEach(([t, bytes, w], i) => {
  def(0x17 + i, `${tname(t)}.atomic.store${w}`, 'store', [I32, t], [], bytes, t);
});

// ---- read-modify-write 0x1e-0x47, compare-exchange 0x48-0x4e -----------------------------------
const RMW_OPS: readonly AtomicRmwOp[] = ['add', 'sub', 'and', 'or', 'xor', 'xchg'];
RMW_OPS.forEach((rmw, k) => {
  WIDTHS.forEach(([t, bytes, w], i) => {
    const name = w === '' ? `${tname(t)}.atomic.rmw.${rmw}` : `${tname(t)}.atomic.rmw${w}.${rmw}_u`;
    def(0x1e + 7 * k + i, name, 'rmw', [I32, t], [t], bytes, t, rmw);
  });
});
WIDTHS.forEach(([t, bytes, w], i) => {
  const name = w === '' ? `${tname(t)}.atomic.rmw.cmpxchg` : `${tname(t)}.atomic.rmw${w}.cmpxchg_u`;
  def(0x48 + i, name, 'cmpxchg', [I32, t, t], [t], bytes, t);
});

/** Every 0xFE instruction, by sub-opcode (67 rows: 0x00-0x03 and 0x10-0x4e). */
export const ATOMIC_OPS: readonly AtomicOpInfo[] = table;

/** The largest sub-opcode in use. */
export const ATOMIC_MAX_OP = 0x4e;

/** The row of sub-opcode `sub`, or undefined when there is none (an unknown opcode: malformed). */
export function atomicOpInfo(sub: number): AtomicOpInfo | undefined {
  return byOp[sub];
}
