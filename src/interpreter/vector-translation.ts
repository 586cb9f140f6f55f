/**
 * The translation of SIMD (0xFD) and atomic (0xFE) instructions, each from its row of the
 * instruction table (the composed rows of simd-ops.ts and atomic-ops.ts): a layer of
 * compiler.ts's FunctionTranslator, over its memory operands. Also the canonical-NaN mode's
 * `Canonicalize`, which scalar arithmetic uses too.
 */
import { DecodeError } from './errors.js';
import type { InstructionRow } from './instruction-set.js';
import { MemoryOperands } from './memory-operands.js';
import { Narrow, Op } from './opcodes.js';
import type { StackControl } from './operand-stack.js';
import { I64 } from './types.js';

/** `Canonicalize` kinds from this on are a SIMD sub-opcode plus it (below it: 32 and 64, scalars). */
export const CANONICALIZE_SIMD = 0x1000;

export abstract class VectorTranslator<C extends StackControl> extends MemoryOperands<C> {
  /**
   * In the canonical-NaN mode (ModuleContext.canonicalNaNs), makes a NaN just written to slot
   * `d` by floating-point arithmetic the canonical one: `Canonicalize kind d`, `kind` 32 or 64
   * for a scalar, or a SIMD sub-opcode whose lanes it rewrites (simd.ts, simdCanonicalize).
   */
  protected canonicalize(kind: number, d: number): void {
    if (!this.ctx.canonicalNaNs || !this.live) return;
    this.emit2(Op.Canonicalize, kind, d * 2);
  }

  /**
   * A 0xFE instruction (threads), as its row in the instruction table (atomic-ops.ts)
   * describes it: one `Atomic` instruction (atomic-dispatch.ts), its operands in stack order
   * after its result, then the memarg offset; atomic.fence is a no-op for one agent.
   */
  protected atomic(row: InstructionRow, opAt: number): void {
    const r = this.r;
    const info = row.atomic!;
    const sub = info.op;
    if (info.imm === 'zeroByte') {
      const at = r.pos;
      if (r.u8() !== 0) throw new DecodeError('zero flag expected', at);
      return;
    }
    this.memarg(row, opAt);
    const mem = this.margMemory;
    const offset = this.margOffset;
    const addressType = this.memoryAddress(mem);
    const params = [addressType, ...info.params.slice(1)];
    const operands: number[] = [];
    for (let i = params.length - 1; i >= 0; i--) operands[i] = this.pop(params[i]!) * 2;
    const d = info.results.length > 0 ? this.push(info.results[0]!) : -1;
    this.onMemory(mem, () => {
      if (addressType === I64) this.emitNarrow(this.margOffsetHuge ? Narrow.MemoryAlwaysTraps : Narrow.MemoryCheck, operands[0]! / 2);
      const at = this.out.length;
      this.out.push2(Op.Atomic, sub);
      if (d >= 0) this.out.push(d * 2);
      for (const w of operands) this.out.push(w);
      this.out.push(offset);
      this.lastDst = -1;
      if (d >= 0) {
        this.lastStart = at;
        this.lastDst = at + 2;
        this.lastDstSlot = d;
      }
    });
  }

  /**
   * A 0xFD instruction, as its row in the instruction table (simd-ops.ts) describes it:
   * immediates, operand and result types, then one `Simd` instruction (simd-dispatch.ts).
   */
  protected simd(row: InstructionRow, opAt: number): void {
    const r = this.r;
    const info = row.simd!;
    const sub = info.op;
    const immediates: number[] = [];
    let offset = 0;
    let mem = 0;
    switch (info.imm) {
      case 'memarg':
      case 'memargLane': {
        this.memarg(row, opAt);
        offset = this.margOffset;
        mem = this.margMemory;
        if (info.imm === 'memargLane') immediates.push(this.laneIndex(info.lanes));
        break;
      }
      case 'lane':
        immediates.push(this.laneIndex(info.lanes));
        break;
      case 'bytes16':
        for (let k = 0; k < 4; k++) immediates.push(r.fixed32());
        // Shuffle lane indices are bytes below 32: no byte may have any of its top three bits.
        if (info.entry === 'shuffle' && immediates.some((w) => (w & 0xe0e0e0e0) !== 0)) {
          this.invalid('invalid lane index');
        }
        break;
      case 'none':
        break;
    }
    // A memory instruction's address (its first operand) has its memory's address type.
    const isMemory = info.imm === 'memarg' || info.imm === 'memargLane';
    const params = isMemory ? [this.memoryAddress(mem), ...info.params.slice(1)] : info.params;
    const operands: number[] = [];
    for (let i = params.length - 1; i >= 0; i--) operands[i] = this.pop(params[i]!) * 2;
    const d = info.results.length > 0 ? this.push(info.results[0]!) : -1;
    if (!this.live) return;
    // Operand words in the order simd-dispatch.ts reads them: values in stack order, then a
    // lane index, then a memarg offset; the 16 bytes of a const or shuffle come last.
    const words = [...operands, ...(info.entry === 'const' || info.entry === 'shuffle' ? [] : immediates)];
    if (info.imm === 'memarg' || info.imm === 'memargLane') words.push(offset);
    if (info.entry === 'const' || info.entry === 'shuffle') words.push(...immediates);
    this.onMemory(mem, () => {
      if (isMemory && params[0] === I64) {
        this.emitNarrow(this.margOffsetHuge ? Narrow.MemoryAlwaysTraps : Narrow.MemoryCheck, operands[0]! / 2);
      }
      this.emitSimd(sub, d, words);
    });
    if (row.nanResults !== 0) this.canonicalize(CANONICALIZE_SIMD + sub, d);
  }

  /** A lane index byte, checked against the shape's lane count. */
  protected laneIndex(lanes: number): number {
    const lane = this.r.u8();
    if (lane >= lanes) this.invalid('invalid lane index');
    return lane;
  }
}
