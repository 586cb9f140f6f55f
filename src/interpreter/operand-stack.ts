/**
 * The translator's frame and operand stack (compiler.ts translates; this is what it
 * translates onto): the layout of a frame — parameters, locals, constant slots, legacy tries'
 * exception slots, operand temporaries — the validator's operand stack, whose entries record
 * the slot that holds each value, the deferral of `local.get` and constants (an entry may
 * point at a local's slot or be a constant not yet written, CONST, until it is
 * "materialised"), emission into the code buffer (with the retargetable last destination), and
 * the pending fuel of the current straight-line run.
 */
import { ValidationError } from './errors.js';
import { Op } from './opcodes.js';
import type { ByteReader } from './reader.js';
import type { CodeBuffer } from './code-buffer.js';
import { SimdMove } from './simd-dispatch.js';
import { F64, type FuncType, I32, I64, V128, type ValType, valTypeName, valueWords } from './types.js';
import type { BodyCounts } from './body-syntax.js';

/** Slots (of 64 bits) a value of type `t` takes in a frame. */
export function slotWidth(t: number): number {
  return valueWords(t) / 2;
}

/** Stack entry type used for the polymorphic bottom of unreachable code. */
export const UNKNOWN = 0;
/** Slot marker of a stack entry that is a constant not yet written anywhere. */
const CONST = -1;

/**
 * The operand stack as it stands before an instruction (compiler.ts, ProbeSite): its top
 * entry, linked to the one below. Consecutive instructions share the entries they did not
 * change, so recording the whole stack at every instruction costs only what changed.
 */
export interface StackNode {
  readonly type: ValType;
  /** Where the value is: words from the frame's base, or -1 for a constant (lo, hi). */
  readonly word: number;
  readonly lo: number;
  readonly hi: number;
  readonly below: StackNode | null;
  /** How many entries this one and those below it make. */
  readonly depth: number;
}

/** What the operand stack needs of a control stack entry. */
export interface StackControl {
  /** Operand stack height below the block's parameters. */
  readonly height: number;
  /** The rest of the block is unreachable: its stack bottom is polymorphic. */
  unreachable: boolean;
  /** Entered from unreachable code: validated, but nothing is emitted. */
  readonly deadCode: boolean;
}

export abstract class OperandStack<C extends StackControl> {
  /** The body being translated (its position is where errors are reported). */
  protected r!: ByteReader;
  protected localTypes: ValType[] = [];
  protected numLocals = 0;
  /**
   * Values are laid out in the frame by type (types.ts, valueWords): a v128 takes two slots,
   * anything else one. The slot of each local, and the slots the locals take together: a
   * stack entry whose location is below `localSlotsEnd` points at a local.
   */
  protected localSlot: number[] = [];
  protected localSlotsEnd = 0;
  protected paramSlotsEnd = 0;
  /**
   * Constant slots follow the locals; operand temporaries follow them. Inside a loop a
   * constant operand is read from its slot instead of being written out on every pass.
   */
  protected constBase = 0;
  protected constCapacity = 0;
  protected constSlotLo: number[] = [];
  protected constSlotHi: number[] = [];
  /** The slot of each constant given one, by `lo:hi`. */
  protected readonly constSlotOf = new Map<string, number>();
  /** The legacy tries' exception slots follow the constant slots (Handler.ExnSlot). */
  protected tryBase = 0;
  protected tryCapacity = 0;
  protected tries = 0;
  /** First slot of the operand temporaries. */
  protected tempBase = 0;
  protected loopDepth = 0;
  /** Operand stack: types and the slot holding each entry (or CONST and its value). */
  protected types: number[] = [];
  protected locs: number[] = [];
  protected constLo: number[] = [];
  protected constHi: number[] = [];
  protected sp = 0;
  /**
   * The slot of each stack height, from tempBase: `offs[h]` is where the entry at height h
   * sits, and `offs[sp]` where the next one will. Set as entries are pushed.
   */
  protected offs: number[] = [0];
  /** The most temporary slots in use at once. */
  protected maxTemp = 0;
  /** stackSnapshot's record of each entry, valid below `changedFrom`. */
  private nodes: StackNode[] = [];
  /** The lowest height whose entry may have changed since the last stackSnapshot. */
  private changedFrom = 0;
  protected deferred = 0;
  /** The control stack (the translator's); the operand stack reads the innermost block's height and reachability. */
  protected ctrls: C[] = [];
  protected pendingFuel = 0;
  /** Code position of the destination operand of the last instruction, while retargetable. */
  protected lastDst = -1;
  protected lastDstSlot = -1;
  /** Code position where that instruction starts. */
  protected lastStart = -1;

  constructor(protected readonly out: CodeBuffer) {}

  /**
   * Lays out the frame of a function body read by `r`: its parameters and locals, then a slot
   * for each constant and legacy try the body holds (`counts`), then the operand temporaries;
   * the stacks start empty.
   */
  protected layOut(r: ByteReader, type: FuncType, locals: readonly ValType[], counts: BodyCounts): void {
    this.r = r;
    this.localTypes = [...type.params, ...locals];
    this.numLocals = this.localTypes.length;
    this.localSlot.length = 0;
    let slot = 0;
    for (let i = 0; i < this.numLocals; i++) {
      if (i === type.params.length) this.paramSlotsEnd = slot;
      this.localSlot.push(slot);
      slot += slotWidth(this.localTypes[i]!);
    }
    if (this.numLocals === type.params.length) this.paramSlotsEnd = slot;
    this.localSlotsEnd = slot;
    this.constBase = slot;
    this.constCapacity = counts.constants;
    this.constSlotLo.length = 0;
    this.constSlotHi.length = 0;
    this.constSlotOf.clear();
    this.tryBase = this.constBase + this.constCapacity;
    this.tryCapacity = counts.tries;
    this.tries = 0;
    this.tempBase = this.tryBase + this.tryCapacity;
    this.loopDepth = 0;
    this.sp = 0;
    this.changedFrom = 0;
    this.offs[0] = 0;
    this.maxTemp = 0;
    this.deferred = 0;
    this.pendingFuel = 0;
    this.lastDst = -1;
    this.ctrls = [];
    this.live = true;
  }

  /** The frame size, in slots, of the body just translated. */
  get frameSlots(): number {
    return this.tempBase + this.maxTemp;
  }

  /** The words the parameters of the body just translated take, and its parameters and locals. */
  get paramWords(): number {
    return this.paramSlotsEnd * 2;
  }

  get localWords(): number {
    return this.localSlotsEnd * 2;
  }

  /** Appends the constant slots of the function just translated as FuncInfo records. */
  appendConstants(out: number[]): void {
    for (let k = 0; k < this.constSlotLo.length; k++) {
      out.push((this.constBase + k) * 2, this.constSlotLo[k]!, this.constSlotHi[k]!);
    }
  }

  /**
   * The constant slot holding the constant entry at `height`, made on first use. Found through
   * a map: a search of the slots made translating a body of many distinct constants quadratic.
   */
  protected constSlot(height: number): number {
    const lo = this.constLo[height]!;
    const hi = this.constHi[height]!;
    const key = `${lo}:${hi}`;
    const known = this.constSlotOf.get(key);
    if (known !== undefined) return known;
    const slot = this.constBase + this.constSlotLo.length;
    this.constSlotLo.push(lo);
    this.constSlotHi.push(hi);
    this.constSlotOf.set(key, slot);
    return slot;
  }

  protected invalid(message: string): never {
    throw new ValidationError(message, this.r.pos);
  }

  protected get top(): C {
    return this.ctrls[this.ctrls.length - 1]!;
  }

  /**
   * Whether code emitted now can run: false in unreachable code and in blocks entered from
   * it. Kept in step with the control stack by `refreshLive`.
   */
  protected live = true;

  protected refreshLive(): void {
    const top = this.ctrls[this.ctrls.length - 1];
    this.live = top !== undefined && !top.unreachable && !top.deadCode;
  }

  protected slotOf(height: number): number {
    return this.tempBase + this.offs[height]!;
  }

  /** Makes room for an entry of `type` at height `h` (the next one): its slot, and the next height's. */
  protected place(h: number, type: number): void {
    this.touched(h);
    this.types[h] = type;
    const next = this.offs[h]! + slotWidth(type);
    this.offs[h + 1] = next;
    if (next > this.maxTemp) this.maxTemp = next;
  }

  /** A slot above the stack's top, free for one instruction's intermediate value. */
  protected scratchSlot(): number {
    const offset = this.offs[this.sp]!;
    if (offset + 1 > this.maxTemp) this.maxTemp = offset + 1;
    return this.tempBase + offset;
  }

  /** Pushes a value held in its own slot and returns that slot. */
  protected push(type: number): number {
    const h = this.sp++;
    this.place(h, type);
    return (this.locs[h] = this.slotOf(h));
  }

  /** Pushes an entry that points at `slot`: a local's (or CONST). */
  protected pushLocal(type: number, slot: number): void {
    const h = this.sp++;
    this.place(h, type);
    this.locs[h] = slot;
    this.deferred++;
  }

  protected pushConst(type: number, lo: number, hi: number): void {
    if (!this.live) {
      this.push(type);
      return;
    }
    this.pushLocal(type, CONST);
    this.constLo[this.sp - 1] = lo;
    this.constHi[this.sp - 1] = hi;
  }

  /**
   * Whether the top entry is a deferred constant of `type` (its value is then `constLo[sp - 1]`
   * and `constHi[sp - 1]`). Of another type it is left to `pop`, which rejects it.
   */
  protected topIsConst(type: number): boolean {
    return this.sp > this.top.height && this.locs[this.sp - 1] === CONST && this.types[this.sp - 1] === type;
  }

  /** Whether the entry under the top is a deferred constant of `type`. */
  protected secondIsConst(type: number): boolean {
    return this.sp - 2 >= this.top.height && this.locs[this.sp - 2] === CONST && this.types[this.sp - 2] === type;
  }

  /** Pops a deferred constant (see topIsConst) and returns its low half. */
  protected popConst(): number {
    this.touched(--this.sp);
    this.deferred--;
    return this.constLo[this.sp]!;
  }

  /** Pops a value of the expected type (UNKNOWN accepts any) and returns its slot. */
  protected pop(expected: number): number {
    const ctrl = this.top;
    if (this.sp === ctrl.height) {
      if (ctrl.unreachable) return this.slotOf(this.sp);
      this.invalid(`type mismatch: expected ${expected === UNKNOWN ? 'a value' : valTypeName(expected)} but the stack is empty`);
    }
    const h = --this.sp;
    this.touched(h);
    const actual = this.types[h]!;
    if (actual !== expected && actual !== UNKNOWN && expected !== UNKNOWN) {
      this.invalid(`type mismatch: expected ${valTypeName(expected)}, found ${valTypeName(actual)}`);
    }
    const loc = this.locs[h]!;
    if (loc === CONST) {
      this.deferred--;
      // Inside a loop, read it from its constant slot; elsewhere write it into the entry's
      // own slot just before its consumer (once, so not worth a slot).
      if (this.loopDepth > 0 && this.live && this.constSlotLo.length < this.constCapacity) return this.constSlot(h);
      this.emitConst(this.slotOf(h), h);
      return this.slotOf(h);
    }
    if (loc < this.localSlotsEnd) this.deferred--;
    return loc;
  }

  /** Pops any value, returning its type (UNKNOWN at a polymorphic bottom). */
  protected popAny(): number {
    const ctrl = this.top;
    if (this.sp === ctrl.height) {
      if (ctrl.unreachable) return UNKNOWN;
      this.invalid('type mismatch: expected a value but the stack is empty');
    }
    const h = --this.sp;
    this.touched(h);
    if (this.locs[h]! < this.localSlotsEnd) this.deferred--;
    return this.types[h]!;
  }

  protected pushTypes(types: readonly ValType[]): void {
    for (const t of types) this.push(t);
  }

  /** Copies the entry at `height` into its own slot if it still points at a local or is a constant. */
  protected materialize(height: number): void {
    const own = this.slotOf(height);
    if (this.locs[height] === own) return;
    this.emitMove(own, height);
    if (this.locs[height]! < this.localSlotsEnd) this.deferred--;
    this.locs[height] = own;
    this.touched(height);
  }

  /** Emits what writes the value of the entry at `height` into slot `to`. */
  protected emitMove(to: number, height: number): void {
    if (!this.live) return;
    const loc = this.locs[height]!;
    if (loc === CONST) this.emitConst(to, height);
    else this.emitCopy(this.types[height]!, to, loc);
  }

  /**
   * Emits a copy of a value of `type` from slot `from` to slot `to`. An i32's is noted beside
   * the code (CodeBuffer.i32Copies): the high word of its slot means nothing (no instruction
   * reads it), and the JavaScript tier moves the low word alone, keeping no variable for the
   * high words of the i32s it moves.
   */
  protected emitCopy(type: number, to: number, from: number): void {
    if (to === from) return;
    if (type === V128) {
      this.emit3(Op.Simd, SimdMove.Copy, to * 2, from * 2);
      return;
    }
    if (type === I32) this.out.noteI32Copy();
    this.emit2(Op.Copy, to * 2, from * 2);
  }

  protected emitConst(to: number, height: number): void {
    if (!this.live) return;
    const t = this.types[height];
    if (t === I64 || t === F64) this.emit3(Op.Const64, to * 2, this.constLo[height]!, this.constHi[height]!);
    else this.emit2(Op.Const32, to * 2, this.constLo[height]!);
  }

  protected materializeAll(): void {
    if (this.deferred === 0) return;
    for (let h = 0; h < this.sp; h++) this.materialize(h);
  }

  protected materializeTop(n: number): void {
    for (let h = Math.max(this.sp - n, 0); h < this.sp; h++) this.materialize(h);
  }

  protected materializeLocal(local: number): void {
    if (this.deferred === 0) return;
    for (let h = 0; h < this.sp; h++) if (this.locs[h] === local) this.materialize(h);
  }

  /** The entry at height `h` has changed (or is gone): stackSnapshot records it anew. */
  protected touched(h: number): void {
    if (h < this.changedFrom) this.changedFrom = h;
  }

  /**
   * The whole operand stack as it stands, as a probe records it (compiler.ts, ProbeSite):
   * entries unchanged since the last snapshot are shared with it, so the cost is what changed.
   */
  protected stackSnapshot(): StackNode | null {
    for (let h = this.changedFrom; h < this.sp; h++) {
      const loc = this.locs[h]!;
      const below = h > 0 ? this.nodes[h - 1]! : null;
      this.nodes[h] = loc === CONST
        ? { type: this.types[h]! as ValType, word: -1, lo: this.constLo[h]!, hi: this.constHi[h]!, below, depth: h + 1 }
        : { type: this.types[h]! as ValType, word: loc * 2, lo: 0, hi: 0, below, depth: h + 1 };
    }
    this.changedFrom = this.sp;
    return this.sp > 0 ? this.nodes[this.sp - 1]! : null;
  }

  protected emit0(op: number): void {
    this.out.push(op);
    this.lastDst = -1;
  }

  protected emit1(op: number, a: number): void {
    this.out.push2(op, a);
    this.lastDst = -1;
  }

  protected emit2(op: number, a: number, b: number): void {
    this.out.push3(op, a, b);
    this.lastDst = -1;
  }

  protected emit3(op: number, a: number, b: number, c: number): void {
    this.out.push4(op, a, b, c);
    this.lastDst = -1;
  }

  /** Emits an instruction whose first operand is a destination slot a later local.set may retarget. */
  protected emitProducer(op: number, dstSlot: number, count = 0, a = 0, b = 0, c = 0): void {
    const at = this.out.length;
    if (count <= 2) this.out.push4(op, dstSlot * 2, a, b);
    else this.out.push5(op, dstSlot * 2, a, b, c);
    // Unused operand words were written as padding; drop them again.
    this.out.truncate(at + 2 + count);
    this.lastStart = at;
    this.lastDst = at + 1;
    this.lastDstSlot = dstSlot;
  }

  /** Charges the pending fuel with a Fuel instruction (where no branch can carry it). */
  protected flushFuel(): void {
    if (this.pendingFuel > 0 && this.live) this.emit1(Op.Fuel, this.pendingFuel);
    this.pendingFuel = 0;
  }

  /** Hands the pending fuel to the branch, call or return about to be emitted. */
  protected takeFuel(): number {
    const fuel = this.pendingFuel;
    this.pendingFuel = 0;
    return fuel;
  }

  protected charge(): void {
    if (this.live) this.pendingFuel++;
  }

  /** A label: control may arrive here from elsewhere, so nothing may be retargeted across it. */
  protected label(): number {
    this.lastDst = -1;
    return this.out.length;
  }

  /** Drops entries down to `height`, keeping the count of deferred entries right. */
  protected truncate(height: number): void {
    for (let h = height; h < this.sp; h++) if (this.locs[h]! < this.localSlotsEnd) this.deferred--;
    this.sp = height;
    this.touched(height);
  }

  protected peekType(): number {
    return this.sp > this.top.height ? this.types[this.sp - 1]! : UNKNOWN;
  }

  protected popLoc(): number {
    if (this.sp > this.top.height) return this.pop(UNKNOWN);
    this.popAny();
    return this.slotOf(this.sp);
  }

  /**
   * Emits `Simd sub [dst] words...`; with a destination slot (dst >= 0), as a producer whose
   * destination a following local.set may retarget.
   */
  protected emitSimd(sub: number, dst: number, words: readonly number[]): void {
    const at = this.out.length;
    this.out.push2(Op.Simd, sub);
    if (dst >= 0) this.out.push(dst * 2);
    for (const w of words) this.out.push(w);
    if (dst >= 0) {
      this.lastStart = at;
      this.lastDst = at + 2;
      this.lastDstSlot = dst;
    } else {
      this.lastDst = -1;
    }
  }

  protected emit4(op: number, a: number, b: number, c: number, d: number): void {
    this.out.push4(op, a, b, c);
    this.out.push(d);
    this.lastDst = -1;
  }
}
