/**
 * The translator's memory and table operands (a layer of compiler.ts's FunctionTranslator,
 * over the operand stack): memory, table and segment indices checked against the module,
 * memargs (alignment against the row's natural alignment, multi-memory's index, memory64's
 * offset), address types, the narrowing of memory64/table64 operands to the 32 bits a memory
 * or table here can address, and the bracketing of instructions on a memory other than 0.
 */
import type { ModuleContext } from './compiler.js';
import type { CodeBuffer } from './code-buffer.js';
import { DecodeError, Feature, formatOpcode, refuseValidation } from './errors.js';
import { memoryIndexByte, memargHasMemoryIndex } from './body-syntax.js';
import { type InstructionRow, naturalAlignment } from './instruction-set.js';
import { OperandStack, type StackControl } from './operand-stack.js';
import { Op } from './opcodes.js';
import { I64, type ValType, addressType } from './types.js';

export abstract class MemoryOperands<C extends StackControl> extends OperandStack<C> {
  constructor(protected readonly ctx: ModuleContext, out: CodeBuffer) {
    super(out);
  }

  /** The index type of table `t`: i64 for a table64. */
  protected tableAddress(t: number): ValType {
    return addressType(this.ctx.tables[t]!);
  }

  /** The address type of memory `mem`: i64 for memory64. */
  protected memoryAddress(mem: number): ValType {
    return addressType(this.ctx.memories[mem]!);
  }

  protected tableIndex(): number {
    const t = this.r.u32();
    if (t >= this.ctx.tables.length) this.invalid(`unknown table ${t}`);
    return t;
  }

  /**
   * The memory index of `instr`: a u32 with multi-memory, else a zero byte (anything else
   * refused naming multi-memory); checked against the module's memories.
   */
  protected memoryIndex(instr: string): number {
    const mem = this.ctx.features.has(Feature.MultiMemory) ? this.r.u32() : (memoryIndexByte(this.r, instr), 0);
    this.requireMemory(mem);
    return mem;
  }

  protected requireMemory(mem: number): void {
    if (mem >= this.ctx.memories.length) this.invalid(`unknown memory ${mem}`);
  }

  /**
   * A memarg of the instruction of `row`: alignment exponent, memory index (with multi-memory,
   * flagged by bit 6 of the alignment) and offset, into `margMemory`, `margOffset`. The
   * alignment exponent must not exceed the row's natural alignment, or, for atomics, must
   * equal it.
   */
  protected memarg(row: InstructionRow, opAt: number): void {
    const maxAlign = naturalAlignment(row);
    const exact = row.prefix === 0xfe;
    const r = this.r;
    let align = r.u32();
    let mem = 0;
    if (memargHasMemoryIndex(align)) {
      mem = r.u32();
      if (!this.ctx.features.has(Feature.MultiMemory)) {
        const opcode = row.prefix === 0 ? formatOpcode(row.code) : formatOpcode(row.prefix, row.code);
        const detail = `memory index ${mem} in the memarg of opcode ${opcode}`;
        throw refuseValidation(Feature.MultiMemory, detail, opAt, 'alignment must not be larger than natural');
      }
      align -= 0x40;
    } else if (align >= 0x80 && this.ctx.features.has(Feature.MultiMemory)) {
      // Multi-memory's memarg: flags of 2^7 and more are no encoding at all.
      throw new DecodeError('malformed memop flags', opAt + 1);
    }
    // memory64 reads the offset as a u64, and a 32-bit memory's must fit in 32 bits.
    const offset = this.ctx.features.has(Feature.Memory64) ? r.u64() : r.u32();
    this.requireMemory(mem);
    if (exact ? align !== maxAlign : align > maxAlign) {
      this.invalid(exact ? 'alignment must be equal to natural alignment' : 'alignment must not be larger than natural');
    }
    const is64 = this.ctx.memories[mem]!.is64 === true;
    if (offset > 0xffffffff && !is64) this.invalid('offset out of range');
    this.margMemory = mem;
    this.margIs64 = is64;
    this.margOffsetHuge = offset > 0xffffffff;
    this.margOffset = this.margOffsetHuge ? 0 : offset | 0;
  }
  protected margMemory = 0;
  protected margOffset = 0;
  /** The memory is addressed by i64 (memory64). */
  protected margIs64 = false;
  /** A memory64 offset of 2^32 or more: every access traps, since no memory here is that large. */
  protected margOffsetHuge = false;

  /**
   * Emits a `Narrow64` of the i64 in `slot`: instructions on a memory64 memory or table64
   * table work on 32-bit addresses and sizes, which is all any memory or table here can
   * have, so a 64-bit operand is checked (or clamped) to its low half (opcodes.ts).
   */
  protected emitNarrow(mode: number, slot: number, dst = 0): void {
    if (this.live) this.emit3(Op.Narrow64, mode, dst * 2, slot * 2);
  }

  /** Narrows, with `mode`, each operand slot whose type is i64. */
  protected narrowOperands(mode: number, operands: readonly (readonly [slot: number, type: ValType])[]): void {
    for (const [slot, type] of operands) if (type === I64) this.emitNarrow(mode, slot);
  }

  /**
   * Emits what `emit` emits, on memory `mem`: the dispatch loop keeps memory 0 at hand, so an
   * instruction on another memory is bracketed by `UseMemory mem` ... `UseMemory 0`.
   */
  protected onMemory(mem: number, emit: () => void): void {
    if (!this.live) return;
    if (mem !== 0) this.emit1(Op.UseMemory, mem);
    emit();
    if (mem !== 0) this.emit1(Op.UseMemory, 0);
  }

  /** Refuses, naming it, a feature the compile does not accept. */
  protected requireFeature(feature: Feature, detail: string, at: number): void {
    if (!this.ctx.features.has(feature)) throw refuseValidation(feature, detail, at);
  }
}
