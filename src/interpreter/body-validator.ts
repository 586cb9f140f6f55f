/**
 * A validation-only pass over a function body, for lazy translation (compiler.ts,
 * CompiledFunctions): a module's bodies must all be checked before anything runs, so that an
 * invalid one is refused at compile time, but translating them all is about four times the work
 * of checking them (30 MB/s against 130) — the translator allocates slots and emits code as it
 * validates. This pass
 * keeps only the types, in the way V8's function-body decoder runs without an interface.
 *
 * It answers one question: is the body proved valid? `false` means "not proved": the body is
 * invalid or malformed, or it uses something this pass leaves to the translator (exception
 * handling, multi-memory's memory indices, exnref, an encoding with a redundant byte where the
 * translator would take it). The compile then translates that body at once, which gives the exact
 * error, worded and ordered as the eager compile gives it. So every check here must be at
 * least as strict as the translator's; where it is stricter, or knows less, the cost is only
 * an eager translation. The translator still validates whatever it translates later: a body
 * this pass let through wrongly would be refused then, as an invalid module, never run.
 */
import type { ModuleContext } from './compiler.js';
import { DecodeError, Feature } from './errors.js';
import { ACCEPTED, Imm, type InstructionRow, instructionRow, naturalAlignment, type Prefix, rowFlags, SINGLE_BYTE } from './instruction-set.js';
import { ByteReader } from './reader.js';
import { EXTERNREF, F32, F64, FUNCREF, type FuncType, I32, I64, V128, type ValType, addressType, isRefType } from './types.js';

/** An operand of any type: what a pop from below an unreachable block's stack yields. */
const ANY = 0;

const EMPTY: readonly ValType[] = [];
/** Block types without a type index (empty, or one value type), made once. */
const SINGLE: ReadonlyMap<number, readonly ValType[]> = new Map([I32, I64, F32, F64, V128, FUNCREF, EXTERNREF].map((t) => [t, [t]]));

/** Control kinds: what `else` and `end` need to know of the block they close. */
const BLOCK = 0;
const LOOP = 1;
const IF = 2;
const ELSE = 3;

/** Thrown to end the pass with "not proved"; caught in `proves`. */
const NOT_PROVED = Symbol('not proved');

export class BodyValidator {
  private readonly flags: Uint8Array;
  private r = new ByteReader(new Uint8Array(0));
  /** The operand stack's types, and its height. */
  private readonly stack: ValType[] = [];
  private sp = 0;
  /** The control stack, as parallel arrays: kind, operand height below the block, unreachable, label and end types. */
  private readonly kinds: number[] = [];
  private readonly heights: number[] = [];
  private readonly unreachable: boolean[] = [];
  private readonly params: (readonly ValType[])[] = [];
  private readonly results: (readonly ValType[])[] = [];
  private depth = 0;
  private locals: readonly ValType[] = EMPTY;

  constructor(private readonly ctx: ModuleContext) {
    this.flags = rowFlags(ctx.features);
  }

  /** Whether the body of the module's `codeIndex`th defined function is proved valid. */
  proves(codeIndex: number): boolean {
    const ctx = this.ctx;
    const body = ctx.ir.codes[codeIndex]!;
    const type = ctx.funcTypes[ctx.numImportedFuncs + codeIndex]!;
    this.r = new ByteReader(ctx.ir.bytes, body.codeStart, body.codeEnd);
    this.locals = body.locals.length === 0 ? type.params : [...type.params, ...body.locals];
    this.sp = 0;
    this.depth = 0;
    this.pushControl(BLOCK, EMPTY, type.results);
    try {
      while (this.depth > 0) this.instruction(type);
      return this.r.atEnd;
    } catch (e) {
      if (e === NOT_PROVED || e instanceof DecodeError) return false;
      throw e;
    }
  }

  // ---- the operand stack -------------------------------------------------------------

  private push(t: ValType): void {
    this.stack[this.sp++] = t;
  }

  private pushAll(types: readonly ValType[]): void {
    for (let i = 0; i < types.length; i++) this.stack[this.sp++] = types[i]!;
  }

  /** Pops an operand of type `expected` (ANY: of any type); returns its type. */
  private pop(expected: ValType): ValType {
    const c = this.depth - 1;
    if (this.sp === this.heights[c]) {
      if (this.unreachable[c]) return ANY;
      throw NOT_PROVED;
    }
    const t = this.stack[--this.sp]!;
    if (t !== expected && t !== ANY && expected !== ANY) throw NOT_PROVED;
    return t;
  }

  private popAll(types: readonly ValType[]): void {
    for (let i = types.length - 1; i >= 0; i--) this.pop(types[i]!);
  }

  /**
   * Checks that the top of the stack holds `types`, leaving it as it is: br_table checks each
   * target so, keeping what it finds (below an unreachable block's stack anything matches).
   */
  private peekAll(types: readonly ValType[]): void {
    const c = this.depth - 1;
    const n = types.length;
    for (let i = 0; i < n; i++) {
      const h = this.sp - n + i;
      if (h < this.heights[c]!) {
        if (!this.unreachable[c]) throw NOT_PROVED;
        continue;
      }
      const t = this.stack[h]!;
      if (t !== types[i] && t !== ANY) throw NOT_PROVED;
    }
  }

  // ---- control -----------------------------------------------------------------------

  private pushControl(kind: number, params: readonly ValType[], results: readonly ValType[]): void {
    const c = this.depth++;
    this.kinds[c] = kind;
    this.heights[c] = this.sp;
    this.unreachable[c] = false;
    this.params[c] = params;
    this.results[c] = results;
    this.pushAll(params);
  }

  private setUnreachable(): void {
    const c = this.depth - 1;
    this.sp = this.heights[c]!;
    this.unreachable[c] = true;
  }

  /** Pops the innermost block's results, which must be all its part of the stack holds. */
  private popResults(): void {
    const c = this.depth - 1;
    this.popAll(this.results[c]!);
    if (this.sp !== this.heights[c]) throw NOT_PROVED;
  }

  /** The types a branch to label `depth` carries. */
  private label(depth: number): readonly ValType[] {
    if (depth >= this.depth) throw NOT_PROVED;
    const c = this.depth - 1 - depth;
    return this.kinds[c] === LOOP ? this.params[c]! : this.results[c]!;
  }

  /** A block type: [params, results]. */
  private blockType(): readonly [readonly ValType[], readonly ValType[]] {
    const r = this.r;
    if (r.pos >= r.end) throw NOT_PROVED;
    const b = r.bytes[r.pos]!;
    if (b === 0x40) {
      r.pos++;
      return [EMPTY, EMPTY];
    }
    const single = SINGLE.get(b);
    if (single !== undefined) {
      if (b === V128 && !this.ctx.features.has(Feature.Simd)) throw NOT_PROVED;
      r.pos++;
      return [EMPTY, single];
    }
    if ((b & 0xc0) === 0x40) throw NOT_PROVED; // another one-byte type: a proposal's
    const index = r.s33();
    if (index < 0 || index >= this.ctx.ir.types.length) throw NOT_PROVED;
    const t = this.ctx.ir.types[index]!;
    return [t.params, t.results];
  }

  // ---- instructions ------------------------------------------------------------------

  private instruction(type: FuncType): void {
    const r = this.r;
    const op = r.u8();
    let row: InstructionRow | undefined;
    if (op < 0xfc) row = SINGLE_BYTE[op];
    else if (op !== 0xff) row = instructionRow(op as Prefix, r.u32());
    if (row === undefined || (this.flags[row.id]! & ACCEPTED) === 0) throw NOT_PROVED;
    if (op === 0xfc && row.code >= 8) {
      this.bulk(row.code);
      return;
    }
    if (row.params !== null && row.results !== null) {
      // Typed by its row: numeric instructions, constants, loads and stores, most of SIMD.
      switch (row.imm) {
        case Imm.None: break;
        case Imm.I32: r.s32(); break;
        case Imm.I64: r.s64(); break;
        case Imm.F32: r.fixed32(); break;
        case Imm.F64: r.fixed32(); r.fixed32(); break;
        case Imm.V128: this.skip(16); break;
        case Imm.Shuffle:
          // Lane indices below 32.
          for (let k = 0; k < 16; k++) if (r.u8() >= 32) throw NOT_PROVED;
          break;
        case Imm.Lane: this.lane(row); break;
        case Imm.ZeroByte: if (r.u8() !== 0) throw NOT_PROVED; break;
        case Imm.Func: { // ref.func: a function declared as referenced outside function bodies
          const f = r.u32();
          if (f >= this.ctx.funcTypes.length || !this.ctx.declaredRefs.has(f)) throw NOT_PROVED;
          break;
        }
        case Imm.Memarg:
        case Imm.MemargLane: {
          // The address, the first operand, is the memory's address type.
          const address = this.memarg(row);
          if (row.imm === Imm.MemargLane) this.lane(row);
          const params = row.params;
          for (let i = params.length - 1; i > 0; i--) this.pop(params[i]!);
          this.pop(address);
          this.pushAll(row.results);
          return;
        }
        default: throw NOT_PROVED;
      }
      this.popAll(row.params);
      this.pushAll(row.results);
      return;
    }
    const ctx = this.ctx;
    switch (op) {
      case 0x00: // unreachable
        this.setUnreachable();
        return;
      case 0x01: // nop
        return;
      case 0x02: // block
      case 0x03: { // loop
        const [params, results] = this.blockType();
        this.popAll(params);
        this.pushControl(op === 0x02 ? BLOCK : LOOP, params, results);
        return;
      }
      case 0x04: { // if
        const [params, results] = this.blockType();
        this.pop(I32);
        this.popAll(params);
        this.pushControl(IF, params, results);
        return;
      }
      case 0x05: { // else
        const c = this.depth - 1;
        if (this.kinds[c] !== IF) throw NOT_PROVED;
        this.popResults();
        this.kinds[c] = ELSE;
        this.unreachable[c] = false;
        this.pushAll(this.params[c]!);
        return;
      }
      case 0x0b: { // end
        const c = this.depth - 1;
        this.popResults();
        const params = this.params[c]!;
        const results = this.results[c]!;
        // An if without else passes its parameters through as its results.
        if (this.kinds[c] === IF && (params.length !== results.length || params.some((t, i) => t !== results[i]))) throw NOT_PROVED;
        this.depth--;
        this.pushAll(results);
        return;
      }
      case 0x0c: // br
        this.popAll(this.label(r.u32()));
        this.setUnreachable();
        return;
      case 0x0d: { // br_if
        // The operands stay, typed as the label's (below an unreachable block's stack too).
        const types = this.label(r.u32());
        this.pop(I32);
        this.popAll(types);
        this.pushAll(types);
        return;
      }
      case 0x0e: { // br_table
        const count = r.u32();
        if (count > r.end - r.pos) throw NOT_PROVED;
        const first = r.pos;
        for (let i = 0; i < count; i++) r.u32();
        const arity = this.label(r.u32()).length;
        const after = r.pos;
        this.pop(I32);
        r.pos = first;
        for (let i = 0; i <= count; i++) {
          const types = this.label(r.u32());
          if (types.length !== arity) throw NOT_PROVED;
          this.peekAll(types);
        }
        r.pos = after;
        this.setUnreachable();
        return;
      }
      case 0x0f: // return
        this.popAll(this.results[0]!);
        this.setUnreachable();
        return;
      case 0x10: { // call
        const index = r.u32();
        if (index >= ctx.funcTypes.length) throw NOT_PROVED;
        this.call(ctx.funcTypes[index]!);
        return;
      }
      case 0x11: // call_indirect
        this.call(this.indirectCallee());
        return;
      case 0x12: { // return_call
        const index = r.u32();
        if (index >= ctx.funcTypes.length) throw NOT_PROVED;
        this.tailCall(ctx.funcTypes[index]!, type);
        return;
      }
      case 0x13: // return_call_indirect
        this.tailCall(this.indirectCallee(), type);
        return;
      case 0x1a: // drop
        this.pop(ANY);
        return;
      case 0x1b: { // select
        this.pop(I32);
        const b = this.pop(ANY);
        const a = this.pop(ANY);
        if (isRefType(a) || isRefType(b) || (a !== b && a !== ANY && b !== ANY)) throw NOT_PROVED;
        this.push(a === ANY ? b : a);
        return;
      }
      case 0x1c: { // typed select
        if (r.u32() !== 1) throw NOT_PROVED;
        const t = r.u8();
        if (!SINGLE.has(t) || (t === V128 && !ctx.features.has(Feature.Simd))) throw NOT_PROVED;
        this.pop(I32);
        this.pop(t);
        this.pop(t);
        this.push(t);
        return;
      }
      case 0x20: // local.get
        this.push(this.local());
        return;
      case 0x21: // local.set
        this.pop(this.local());
        return;
      case 0x22: { // local.tee
        const t = this.local();
        this.pop(t);
        this.push(t);
        return;
      }
      case 0x23: { // global.get
        const g = r.u32();
        if (g >= ctx.globals.length) throw NOT_PROVED;
        this.push(ctx.globals[g]!.valType);
        return;
      }
      case 0x24: { // global.set
        const g = r.u32();
        if (g >= ctx.globals.length || !ctx.globals[g]!.mutable) throw NOT_PROVED;
        this.pop(ctx.globals[g]!.valType);
        return;
      }
      case 0x25: { // table.get
        const t = this.table();
        this.pop(addressType(ctx.tables[t]!));
        this.push(ctx.tables[t]!.elemType);
        return;
      }
      case 0x26: { // table.set
        const t = this.table();
        this.pop(ctx.tables[t]!.elemType);
        this.pop(addressType(ctx.tables[t]!));
        return;
      }
      case 0x3f: // memory.size
        this.push(this.memory());
        return;
      case 0x40: { // memory.grow
        const at = this.memory();
        this.pop(at);
        this.push(at);
        return;
      }
      case 0xd0: { // ref.null
        const t = r.u8();
        if (t !== FUNCREF && t !== EXTERNREF) throw NOT_PROVED;
        this.push(t);
        return;
      }
      case 0xd1: { // ref.is_null
        const t = this.pop(ANY);
        if (t !== ANY && !isRefType(t)) throw NOT_PROVED;
        this.push(I32);
        return;
      }
      default: // exception handling
        throw NOT_PROVED;
    }
  }

  /** The 0xFC instructions from 8 on: bulk memory and tables. */
  private bulk(sub: number): void {
    const r = this.r;
    const ctx = this.ctx;
    switch (sub) {
      case 8: { // memory.init
        this.dataSegment(r.u32());
        const at = this.memory();
        this.pop(I32);
        this.pop(I32);
        this.pop(at);
        return;
      }
      case 9: // data.drop
        this.dataSegment(r.u32());
        return;
      case 10: { // memory.copy
        const dt = this.memory();
        const st = this.memory();
        this.copyOperands(dt, st);
        return;
      }
      case 11: { // memory.fill
        const at = this.memory();
        this.pop(at);
        this.pop(I32);
        this.pop(at);
        return;
      }
      case 12: { // table.init
        const seg = r.u32();
        const t = this.table();
        if (seg >= ctx.ir.elements.length || ctx.ir.elements[seg]!.elemType !== ctx.tables[t]!.elemType) throw NOT_PROVED;
        this.pop(I32);
        this.pop(I32);
        this.pop(addressType(ctx.tables[t]!));
        return;
      }
      case 13: // elem.drop
        if (r.u32() >= ctx.ir.elements.length) throw NOT_PROVED;
        return;
      case 14: { // table.copy
        const d = this.table();
        const s = this.table();
        if (ctx.tables[d]!.elemType !== ctx.tables[s]!.elemType) throw NOT_PROVED;
        this.copyOperands(addressType(ctx.tables[d]!), addressType(ctx.tables[s]!));
        return;
      }
      case 15: { // table.grow
        const t = this.table();
        const at = addressType(ctx.tables[t]!);
        this.pop(at);
        this.pop(ctx.tables[t]!.elemType);
        this.push(at);
        return;
      }
      case 16: // table.size
        this.push(addressType(ctx.tables[this.table()]!));
        return;
      case 17: { // table.fill
        const t = this.table();
        const at = addressType(ctx.tables[t]!);
        this.pop(at);
        this.pop(ctx.tables[t]!.elemType);
        this.pop(at);
        return;
      }
      default:
        throw NOT_PROVED;
    }
  }

  // ---- immediates and the module's index spaces -----------------------------------------

  private local(): ValType {
    const x = this.r.u32();
    if (x >= this.locals.length) throw NOT_PROVED;
    return this.locals[x]!;
  }

  private table(): number {
    const t = this.r.u32();
    if (t >= this.ctx.tables.length) throw NOT_PROVED;
    return t;
  }

  /** A memory instruction's memory byte: memory 0, written as a zero byte; returns its address type. */
  private memory(): ValType {
    if (this.r.u8() !== 0 || this.ctx.memories.length === 0) throw NOT_PROVED;
    return addressType(this.ctx.memories[0]!);
  }

  /**
   * A memarg of memory 0 for `row`'s access: alignment (at most the natural one; for atomics,
   * exactly), offset; returns the address type.
   */
  private memarg(row: InstructionRow): ValType {
    const r = this.r;
    const align = r.u32();
    const natural = naturalAlignment(row);
    if ((row.prefix === 0xfe ? align !== natural : align > natural) || this.ctx.memories.length === 0) throw NOT_PROVED;
    const offset = this.offset();
    const memory = this.ctx.memories[0]!;
    if (offset > 0xffffffff && memory.is64 !== true) throw NOT_PROVED;
    return addressType(memory);
  }

  /**
   * A memarg's offset: a u64 with memory64, else a u32. Offsets of up to four bytes (below
   * 2^28, valid either way) are read here, the rest by the reader.
   */
  private offset(): number {
    const r = this.r;
    const bytes = r.bytes;
    let p = r.pos;
    let value = 0;
    for (let shift = 0; shift < 28 && p < r.end; shift += 7) {
      const b = bytes[p++]!;
      value |= (b & 0x7f) << shift;
      if (b < 0x80) {
        r.pos = p;
        return value;
      }
    }
    return this.ctx.features.has(Feature.Memory64) ? r.u64() : r.u32();
  }

  /** A SIMD lane index byte, below the row's lane count. */
  private lane(row: InstructionRow): void {
    if (this.r.u8() >= row.simd!.lanes) throw NOT_PROVED;
  }

  private skip(bytes: number): void {
    this.r.pos += bytes;
    if (this.r.pos > this.r.end) throw NOT_PROVED;
  }

  private dataSegment(seg: number): void {
    const count = this.ctx.ir.dataCount;
    if (count === null || seg >= count) throw NOT_PROVED;
  }

  /** call_indirect's and return_call_indirect's immediates and table operand: the callee's type. */
  private indirectCallee(): FuncType {
    const r = this.r;
    const typeIndex = r.u32();
    const t = this.table();
    if (typeIndex >= this.ctx.ir.types.length || this.ctx.tables[t]!.elemType !== FUNCREF) throw NOT_PROVED;
    this.pop(addressType(this.ctx.tables[t]!));
    return this.ctx.ir.types[typeIndex]!;
  }

  private call(callee: FuncType): void {
    this.popAll(callee.params);
    this.pushAll(callee.results);
  }

  private tailCall(callee: FuncType, caller: FuncType): void {
    const results = caller.results;
    if (callee.results.length !== results.length || callee.results.some((t, i) => t !== results[i])) throw NOT_PROVED;
    this.popAll(callee.params);
    this.setUnreachable();
  }

  /** memory.copy's or table.copy's destination, source and length: the length is i64 only when both are. */
  private copyOperands(dt: ValType, st: ValType): void {
    this.pop(dt === I64 && st === I64 ? I64 : I32);
    this.pop(st);
    this.pop(dt);
  }
}
