/**
 * Execution of the internal `Simd` instruction (opcodes.ts): every v128 instruction goes
 * through this one function, so the scalar dispatch loop gains one case, not 250, and stays
 * well under the bytecode size past which V8 stops optimising it (docs/simd.md).
 *
 * Layout: `Simd sub operands...`, where `sub` is the WebAssembly sub-opcode after 0xFD, or one
 * of the moves below (what the translator needs for v128 values that scalar instructions do
 * with one 64-bit slot). Operand words by entry point (simd-ops.ts, SimdOpInfo.entry):
 *
 * | entry       | operands                 | entry        | operands               |
 * | ----------- | ------------------------ | ------------ | ---------------------- |
 * | unary       | d a                      | load         | d addr offset          |
 * | binary      | d a b                    | store        | addr a offset          |
 * | ternary     | d a b c                  | loadLane     | d addr a lane offset   |
 * | shift       | d a count                | storeLane    | addr a lane offset     |
 * | splat       | d x                      | const        | d w0 w1 w2 w3          |
 * | extractLane | d a lane                 | shuffle      | d a b w0 w1 w2 w3      |
 * | replaceLane | d a x lane               | reduce       | d a                    |
 *
 * Value operands are frame word offsets (from `base`), `offset` the memarg's, unsigned.
 */
import { Trap, TrapKind } from './errors.js';
import type { Instance } from './instance.js';
import type { MemoryInst } from './store.js';
import {
  SIMD_OPS, type SimdEntry, simdBinary, simdConst, simdExtractLane, simdLoad, simdLoadLane, simdReduce,
  simdReplaceLane, simdShift, simdShuffle, simdSplat, simdStore, simdStoreLane, simdTernary, simdUnary,
} from './simd.js';

/** The moves of v128 values, as `sub` values past the 0xFD sub-opcodes. */
export const SimdMove = {
  /** d a: copy a v128. */
  Copy: 0x200,
  /** d cond a b: d = cond !== 0 ? a : b. */
  Select: 0x201,
  /** d global */
  GlobalGet: 0x202,
  /** global a */
  GlobalSet: 0x203,
} as const;

const ENTRY_CODES: Record<SimdEntry, number> = {
  unary: 1, binary: 2, ternary: 3, shift: 4, splat: 5, extractLane: 6, replaceLane: 7, reduce: 8,
  const: 9, shuffle: 10, load: 11, store: 12, loadLane: 13, storeLane: 14,
};
const MOVE_CODES = [15, 16, 17, 18];

/** Entry point code (as ENTRY_CODES, MOVE_CODES) by `sub`; 0 for none. */
const ENTRY_OF = new Uint8Array(SimdMove.GlobalSet + 1);
/** Bytes a memory instruction accesses, by `sub`. */
const ACCESS_BYTES = new Uint8Array(ENTRY_OF.length);
for (const info of SIMD_OPS) {
  ENTRY_OF[info.op] = ENTRY_CODES[info.entry];
  ACCESS_BYTES[info.op] = info.accessBytes;
}
Object.values(SimdMove).forEach((sub, i) => { ENTRY_OF[sub] = MOVE_CODES[i]!; });

function memoryTrap(): Trap {
  return new Trap(TrapKind.MemoryOutOfBounds);
}

/**
 * The effective address of a memory instruction whose address operand is at word `addr` and
 * memarg offset `offset`, checked against the memory's size for `bytes` bytes.
 */
function effectiveAddress(mem: MemoryInst | null, s32: Int32Array, addr: number, offset: number, bytes: number): number {
  const ea = (s32[addr]! >>> 0) + (offset >>> 0);
  if (mem === null || ea + bytes > mem.size) throw memoryTrap();
  return ea;
}

/** Runs the `Simd` instruction at `pc`, memory instructions on `mem`; returns the pc of the next one. */
export function simdOperation(
  inst: Instance, mem: MemoryInst | null, code: Int32Array, pc: number, s32: Int32Array, f32: Float32Array, f64: Float64Array,
  base: number,
): number {
  const sub = code[pc + 1]!;
  switch (ENTRY_OF[sub]) {
    case 1:
      simdUnary(sub, s32, f32, f64, base + code[pc + 2]!, base + code[pc + 3]!);
      return pc + 4;
    case 2:
      simdBinary(sub, s32, f32, f64, base + code[pc + 2]!, base + code[pc + 3]!, base + code[pc + 4]!);
      return pc + 5;
    case 3:
      simdTernary(sub, s32, f32, f64, base + code[pc + 2]!, base + code[pc + 3]!, base + code[pc + 4]!, base + code[pc + 5]!);
      return pc + 6;
    case 4:
      simdShift(sub, s32, base + code[pc + 2]!, base + code[pc + 3]!, s32[base + code[pc + 4]!]!);
      return pc + 5;
    case 5:
      simdSplat(sub, s32, base + code[pc + 2]!, base + code[pc + 3]!);
      return pc + 4;
    case 6:
      simdExtractLane(sub, s32, base + code[pc + 2]!, base + code[pc + 3]!, code[pc + 4]!);
      return pc + 5;
    case 7:
      simdReplaceLane(sub, s32, base + code[pc + 2]!, base + code[pc + 3]!, code[pc + 5]!, base + code[pc + 4]!);
      return pc + 6;
    case 8:
      s32[base + code[pc + 2]!] = simdReduce(sub, s32, base + code[pc + 3]!);
      return pc + 4;
    case 9:
      simdConst(s32, base + code[pc + 2]!, code, pc + 3);
      return pc + 7;
    case 10:
      simdShuffle(s32, base + code[pc + 2]!, base + code[pc + 3]!, base + code[pc + 4]!, code, pc + 5);
      return pc + 9;
    case 11: {
      const ea = effectiveAddress(mem, s32, base + code[pc + 3]!, code[pc + 4]!, ACCESS_BYTES[sub]!);
      simdLoad(sub, s32, mem!.view, base + code[pc + 2]!, ea);
      return pc + 5;
    }
    case 12: {
      const ea = effectiveAddress(mem, s32, base + code[pc + 2]!, code[pc + 4]!, 16);
      simdStore(s32, mem!.view, ea, base + code[pc + 3]!);
      return pc + 5;
    }
    case 13: {
      const ea = effectiveAddress(mem, s32, base + code[pc + 3]!, code[pc + 6]!, ACCESS_BYTES[sub]!);
      simdLoadLane(sub, s32, mem!.view, base + code[pc + 2]!, base + code[pc + 4]!, code[pc + 5]!, ea);
      return pc + 7;
    }
    case 14: {
      const ea = effectiveAddress(mem, s32, base + code[pc + 2]!, code[pc + 5]!, ACCESS_BYTES[sub]!);
      simdStoreLane(sub, s32, mem!.view, ea, base + code[pc + 3]!, code[pc + 4]!);
      return pc + 6;
    }
    case 15:
      copy(s32, base + code[pc + 2]!, base + code[pc + 3]!);
      return pc + 4;
    case 16: {
      const chosen = s32[base + code[pc + 3]!] !== 0 ? code[pc + 4]! : code[pc + 5]!;
      copy(s32, base + code[pc + 2]!, base + chosen);
      return pc + 6;
    }
    case 17: {
      const g = inst.globals[code[pc + 3]!]!;
      const d = base + code[pc + 2]!;
      s32[d] = g.lo; s32[d + 1] = g.hi; s32[d + 2] = g.w2; s32[d + 3] = g.w3;
      return pc + 4;
    }
    case 18: {
      const g = inst.globals[code[pc + 2]!]!;
      const a = base + code[pc + 3]!;
      g.lo = s32[a]!; g.hi = s32[a + 1]!; g.w2 = s32[a + 2]!; g.w3 = s32[a + 3]!;
      return pc + 4;
    }
    default:
      throw new Error(`internal error: no SIMD instruction 0x${sub.toString(16)} at pc ${pc}`);
  }
}

function copy(s32: Int32Array, d: number, a: number): void {
  s32[d] = s32[a]!; s32[d + 1] = s32[a + 1]!; s32[d + 2] = s32[a + 2]!; s32[d + 3] = s32[a + 3]!;
}
