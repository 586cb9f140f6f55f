/**
 * The bulk memory and table instructions. They are rare in hot loops and each does a lot of
 * work, so they live outside the dispatch loop to keep that function small enough for V8 to
 * optimise. Each takes the instruction at `pc` and returns the next pc; its work goes through
 * the execution (`meter.copy`, `meter.fill`), which does large work in pieces (pieces.ts). Case labels are
 * literals for the same reason as in interpreter.ts, named after opcodes.ts.
 */
import { Trap, TrapKind } from './errors.js';
import { initMemory, initTable, type Instance } from './instance.js';
import type { WorkMeter } from './pieces.js';

const EMPTY_REFS = new Int32Array(0);
const EMPTY_BYTES = new Uint8Array(0);

function tableTrap(): Trap {
  return new Trap(TrapKind.TableOutOfBounds);
}

/**
 * The unsigned value of the i32 operand whose frame word `code[at]` names. A function of its
 * own, not a closure made in each call: under tsx (esbuild's keepNames) every closure made also
 * names itself with a defineProperty, which took 12% of dprint-json's time in the JavaScript
 * tier (its memcpy is memory.copy).
 */
function operand(s32: Int32Array, base: number, code: Int32Array, at: number): number {
  return s32[base + code[at]!]! >>> 0;
}

export function bulkOperation(meter: WorkMeter, inst: Instance, code: Int32Array, pc: number, s32: Int32Array, base: number): number {
  switch (code[pc]) {
    case 0x16: /* TableGet */ {
      const table = inst.tables[code[pc + 2]!]!;
      const i = operand(s32, base, code, pc + 3);
      if (i >= table.size) throw tableTrap();
      s32[base + code[pc + 1]!] = table.elements[i]!;
      return pc + 4;
    }
    case 0x17: /* TableSet */ {
      const table = inst.tables[code[pc + 1]!]!;
      const i = operand(s32, base, code, pc + 2);
      if (i >= table.size) throw tableTrap();
      table.elements[i] = s32[base + code[pc + 3]!]!;
      return pc + 4;
    }
    case 0x18: /* TableSize */
      s32[base + code[pc + 1]!] = inst.tables[code[pc + 2]!]!.size;
      return pc + 3;
    case 0x19: /* TableGrow */
      s32[base + code[pc + 1]!] = inst.tables[code[pc + 2]!]!.growRaw(operand(s32, base, code, pc + 4), s32[base + code[pc + 3]!]!, meter);
      return pc + 5;
    case 0x1a: /* TableFill */ {
      const table = inst.tables[code[pc + 1]!]!;
      const i = operand(s32, base, code, pc + 2);
      const n = operand(s32, base, code, pc + 4);
      if (i + n > table.size) throw tableTrap();
      meter.fill(table.elements, i, s32[base + code[pc + 3]!]!, n);
      return pc + 5;
    }
    case 0x1b: /* TableCopy */ {
      const dst = inst.tables[code[pc + 1]!]!;
      const src = inst.tables[code[pc + 2]!]!;
      const d = operand(s32, base, code, pc + 3);
      const s = operand(s32, base, code, pc + 4);
      const n = operand(s32, base, code, pc + 5);
      if (s + n > src.size || d + n > dst.size) throw tableTrap();
      meter.copy(dst.elements, d, src.elements, s, n);
      return pc + 6;
    }
    case 0x1c: /* TableInit */
      initTable(inst, code[pc + 1]!, code[pc + 2]!, operand(s32, base, code, pc + 3), operand(s32, base, code, pc + 4), operand(s32, base, code, pc + 5), meter);
      return pc + 6;
    case 0x1d: /* ElemDrop */
      inst.elemSegments[code[pc + 1]!] = EMPTY_REFS;
      return pc + 2;
    case 0x1e: /* MemoryInit */
      initMemory(inst, code[pc + 5]!, code[pc + 1]!, operand(s32, base, code, pc + 2), operand(s32, base, code, pc + 3), operand(s32, base, code, pc + 4), meter);
      return pc + 6;
    case 0x1f: /* DataDrop */
      inst.dataSegments[code[pc + 1]!] = EMPTY_BYTES;
      return pc + 2;
    case 0x20: /* MemoryCopy */ {
      const dst = inst.memories[code[pc + 4]!]!;
      const src = inst.memories[code[pc + 5]!]!;
      const d = operand(s32, base, code, pc + 1);
      const s = operand(s32, base, code, pc + 2);
      const n = operand(s32, base, code, pc + 3);
      if (s + n > src.size || d + n > dst.size) throw new Trap(TrapKind.MemoryOutOfBounds);
      meter.copy(dst.bytes, d, src.bytes, s, n);
      return pc + 6;
    }
    case 0x21: /* MemoryFill */ {
      const mem = inst.memories[code[pc + 4]!]!;
      const d = operand(s32, base, code, pc + 1);
      const n = operand(s32, base, code, pc + 3);
      if (d + n > mem.size) throw new Trap(TrapKind.MemoryOutOfBounds);
      meter.fill(mem.bytes, d, s32[base + code[pc + 2]!]! & 0xff, n);
      return pc + 5;
    }
    default:
      throw new Error(`internal error: ${code[pc]} is not a bulk operation`);
  }
}
