/**
 * Validates each function body and, in the same pass, translates it into the internal
 * instruction set of opcodes.ts.
 *
 * The translation is a register machine over the frame: every value has a slot, and an
 * instruction names the slots it reads and writes. The validator's operand stack records,
 * for each entry, the slot that currently holds it. `local.get` pushes the local's own slot
 * instead of emitting a copy, and an instruction whose result is immediately stored with
 * `local.set`/`local.tee` writes the local directly. Entries that still point at a local are
 * copied to their own slot ("materialised") before anything could overwrite that local,
 * before control flow joins, and where calls need their arguments in a row. Constants are
 * deferred the same way, so that `x + 1` becomes one instruction with an immediate operand,
 * and a comparison that feeds `br_if` or `if` fuses with the branch.
 *
 * The frame, the operand stack with its deferred entries, emission and pending fuel are
 * operand-stack.ts's (OperandStack, which the translator extends); this file dispatches each
 * instruction by its row in the instruction table (instruction-set.ts) and translates
 * control, calls, locals, memory, exception handling, SIMD and atomics.
 *
 * Fuel follows wasmtime: operators are counted at translation time and the count of each
 * straight-line run is charged where the run ends, exactly where wasmtime flushes its fuel
 * counter: branches, calls and returns carry the amount as an operand, and a `Fuel`
 * instruction does it before a loop header or a label reached by falling through.
 */
import { DecodeError, Feature, formatOpcode, refuseValidation, ValidationError } from './errors.js';
import { I32_COMPARE_FIRST, I32_COMPARE_LAST, I64ShiftForm, IMM_BINARY, Narrow, NEGATED_COMPARE, Op } from './opcodes.js';
import { ACCEPTED, CHARGED_ON_DISPATCH, type InstructionRow, instructionRow, type Prefix, rowFlags, SINGLE_BYTE } from './instruction-set.js';
import { ByteReader } from './reader.js';
import {
  EXNREF, EXTERNREF, F32, F64, FUNCREF, I32, I64, V128,
  type FuncType, type GlobalType, type MemoryType, type ModuleIR, type TableType, type ValType, addressType,
  idleWordMask, isRefType, rowWords, valTypeName, valueWords,
} from './types.js';
import {
  type BodyCounts, countInBodyInSteps, findMalformedBodyInSteps, prefixedOpcode, proposalHeapType, proposalType, unknownOpcode,
} from './body-syntax.js';
import { CodeBuffer, WordArray } from './code-buffer.js';
import { BodyValidator } from './body-validator.js';
import { runSteps, type Steps } from './steps.js';
import { type StackNode, UNKNOWN } from './operand-stack.js';
import { VectorTranslator } from './vector-translation.js';
import { SimdMove } from './simd-dispatch.js';
import type { FeatureSet } from './features.js';

export { CANONICALIZE_SIMD } from './vector-translation.js';

/** WebAssembly's i64.extend_i32_s and _u, which turn a 32-bit size into memory64's i64. */
const I64_EXTEND_I32_S = 0xac;
const I64_EXTEND_I32_U = 0xad;

/**
 * Control kinds. TryTable and Try are exception handling's try_table and legacy `try` (in
 * its body); a legacy try becomes Catch at its first catch or catch_all clause.
 */
const enum Kind { Block, Loop, If, Else, Function, TryTable, Try, Catch }

interface Control {
  kind: Kind;
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  /** Operand stack height below the block's parameters. */
  readonly height: number;
  unreachable: boolean;
  /** Entered from unreachable code: validated, but nothing is emitted. */
  readonly deadCode: boolean;
  /** Loop: the header's code position. */
  readonly loopPc: number;
  /** Positions of branch targets to patch with the end label. */
  readonly fixups: number[];
  /** If: position of the conditional branch to patch with the else label. */
  elseFixup: number;
  /** TryTable, Try, Catch: the index of its handler record (-1 in dead code). */
  handler: number;
  /** Try, Catch: its catch clauses so far (CATCH_STRIDE words each), recorded at its end. */
  readonly legacyCatches: number[];
  /** Catch: a catch_all has been seen, so no clause may follow. */
  catchAll: boolean;
}

/**
 * Exception handlers, one record of HANDLER_STRIDE words per try_table or legacy try, in the
 * order their bodies start: the code range [Start, End) they cover, the Parent record (the
 * innermost enclosing try body, -1 for none), the Next record to try when no catch clause
 * matches (the parent, or a legacy `delegate`'s target; -1: the caller), their catch clauses
 * [CatchStart, CatchEnd) in `catches`, and a legacy try's ExnSlot (the frame word where the
 * caught exception's reference goes, for `rethrow`; -1 for try_table).
 */
export const Handler = { Start: 0, End: 1, Parent: 2, Next: 3, CatchStart: 4, CatchEnd: 5, ExnSlot: 6 } as const;
export const HANDLER_STRIDE = 8;
/**
 * Catch clauses, CATCH_STRIDE words each: Kind (CatchKind), Tag (the module's tag index, -1 for
 * catch_all), Pad (where execution goes on) and Dst (the frame word where the payload goes, the
 * exception's reference after it for the _ref kinds).
 */
export const CatchClause = { Kind: 0, Tag: 1, Pad: 2, Dst: 3 } as const;
export const CATCH_STRIDE = 4;
export const CatchKind = { Catch: 0, CatchRef: 1, CatchAll: 2, CatchAllRef: 3 } as const;

export const FUNC_INFO_STRIDE = 8;
/**
 * Offsets within a function's `info` record: the entry pc; the frame's extent in words (end
 * of parameters, end of locals, end of the frame); the range of its constant-slot records in
 * `constants`; and FastFrameEnd, which the dispatch loop's call compares with the value
 * stack's length: FrameEnd for most functions, but past any stack for a function whose entry
 * zeroes or writes more than LARGE_FRAME_WORDS words, so that its calls take the slow path
 * (`Execution.enterFunction`), where that work is counted like bulk work (pieces.ts); and
 * CodeEnd, where its code ends (the JavaScript tier reads a function's code on its own).
 */
export const FuncInfo = { Entry: 0, ParamsEnd: 1, LocalsEnd: 2, FrameEnd: 3, ConstsStart: 4, ConstsEnd: 5, FastFrameEnd: 6, CodeEnd: 7 } as const;

/** What a probe (Op.Probe) stands before: the function, the instruction's module offset, the operand stack. */
export interface ProbeSite {
  readonly funcIndex: number;
  readonly offset: number;
  /** The operand stack before the instruction runs — the specification's, entry for entry — top first. */
  readonly stack: StackNode | null;
}

/** See FuncInfo.FastFrameEnd. */
export const LARGE_FRAME_WORDS = 4096;

export interface ModuleContext {
  readonly ir: ModuleIR;
  /** What the module may use; the rest is refused by name. */
  readonly features: FeatureSet;
  readonly funcTypes: readonly FuncType[];
  readonly numImportedFuncs: number;
  readonly tables: readonly TableType[];
  readonly globals: readonly GlobalType[];
  readonly memories: readonly MemoryType[];
  /** The payload type of each tag, imports first (exception handling). */
  readonly tags: readonly FuncType[];
  /** Make every NaN that float arithmetic produces the canonical one (CompileOptions.canonicalNaNs). */
  readonly canonicalNaNs: boolean;
  /** A probe before every instruction (CompileOptions.probes). */
  readonly probes: boolean;
  readonly declaredRefs: ReadonlySet<number>;
}

/** Block types without a type index, made once: blocks only read them. */
const EMPTY_BLOCK_TYPE: [readonly ValType[], readonly ValType[]] = [[], []];
const SINGLE_RESULT_BLOCK_TYPES = new Map<number, [readonly ValType[], readonly ValType[]]>(
  [I32, I64, F32, F64, FUNCREF, EXTERNREF, V128, EXNREF].map((t) => [t, [[], [t]]]),
);

/** Bytes of function bodies to translate between two steps of compileFunctionsInSteps. */
const BYTES_PER_STEP = 4096;
/** Checking a body (body-validator.ts) is about this many times faster than translating it (130 MB/s against 30, ffmpeg-core.wasm): how it counts against a step. */
const VALIDATION_SPEEDUP = 4;

/**
 * With lazy translation, the largest body translated on its first call rather than at compile
 * time: translating 64 KiB takes a few milliseconds, which a call may hold the event loop for;
 * larger bodies are translated at compile time, in steps.
 */
export const LAZY_MAX_BODY_BYTES = 1 << 16;
/** The code buffer's first size (words) when compiling lazily (compileFunctionsInSteps). */
const LAZY_FIRST_WORDS = 1024;
/**
 * A translation on first call counts as this many bytes of bulk work per byte of body
 * (WorkMeter.note), so that an execution pauses after a few of them, as after a large copy:
 * translating runs at tens of megabytes a second, copying at gigabytes.
 */
const TRANSLATION_WORK_PER_BYTE = 128;
/** FuncInfo.Entry of a function not translated yet. */
const NOT_TRANSLATED = -1;
/** FuncInfo.FastFrameEnd of a large frame, or of a function not translated yet: past any value stack. */
const PAST_ANY_STACK = 0x3fffffff;

/**
 * A module's functions in the internal instruction set: what the rest of the engine needs to
 * know of them. With lazy translation, a body checked at compile time (body-validator.ts) is
 * translated on its first call (`ensureTranslated`), appended to the code: `code`, `constants`,
 * `offsets`, `handlers` and `catches` are then replaced by longer arrays, so their users read
 * them anew after a call into a function not translated yet (the dispatch loop does at each
 * stretch; such a call takes its slow path, FuncInfo.FastFrameEnd being past any stack).
 */
export class CompiledFunctions {
  code: Int32Array;
  /**
   * FUNC_INFO_STRIDE words per function index (imports included, where they are unused),
   * laid out as FuncInfo says. One array, so a call reads them with one load of the array.
   * A function not translated yet has Entry NOT_TRANSLATED and FastFrameEnd PAST_ANY_STACK.
   */
  readonly info: Int32Array;
  /** Per function index: the words of its results, which a return leaves at its frame's base (0 for imports). */
  readonly resultWords: Int32Array;
  /** Per function index: its parameters' and its results' words that mean nothing (idleWordMask). */
  readonly idleParamWords: Int32Array;
  readonly idleResultWords: Int32Array;
  /** Where the code's Copy instructions move an i32 (CodeBuffer.i32Copies; lazy translation adds to it). */
  readonly i32Copies: readonly number[];
  /**
   * Constant slots, as (frame word, low half, high half) triples: a function's entry writes
   * its constants into its frame, so that code inside loops reads them like locals.
   */
  constants: Int32Array;
  /** Exception handlers (Handler) and their catch clauses (CatchClause), for the whole module. */
  handlers: Int32Array;
  catches: Int32Array;
  /** With CompileOptions.probes: what each probe stands before (Op.Probe's operand indexes it). */
  readonly probes: readonly ProbeSite[];
  /**
   * Where code came from: (code position, module byte offset) pairs in code order, one for the
   * first word each WebAssembly instruction emitted. A trap's or a call's position maps to the
   * last pair at or before it (a backtrace reports byte offsets, as wasmtime does).
   */
  offsets: Int32Array;
  /** The translated functions' indexes, in the order of their code. */
  private readonly codeOrder: number[];
  /** Lazy translation's state while functions wait for their first call; null once none does. */
  private lazy: {
    readonly ctx: ModuleContext;
    readonly translator: FunctionTranslator;
    readonly out: CodeBuffer;
    readonly code: WordArray;
    readonly offsets: WordArray;
    readonly constants: WordArray;
    waiting: number;
  } | null;

  constructor(ctx: ModuleContext, translator: FunctionTranslator, out: CodeBuffer, parts: {
    code: Int32Array; codeLength: number; offsets: Int32Array; info: Int32Array; resultWords: Int32Array;
    idleParamWords: Int32Array; idleResultWords: Int32Array; constants: number[]; codeOrder: number[]; waiting: number;
  }) {
    this.info = parts.info;
    this.resultWords = parts.resultWords;
    this.idleParamWords = parts.idleParamWords;
    this.idleResultWords = parts.idleResultWords;
    this.codeOrder = parts.codeOrder;
    this.probes = translator.probeSites;
    this.i32Copies = out.i32Copies;
    this.handlers = new Int32Array(translator.handlers);
    this.catches = new Int32Array(translator.catches);
    const code = new WordArray(parts.code, parts.codeLength);
    this.code = code.words;
    this.offsets = parts.offsets;
    this.constants = new Int32Array(parts.constants);
    this.lazy = parts.waiting === 0 ? null : {
      ctx, translator, out, code,
      offsets: new WordArray(this.offsets), constants: new WordArray(this.constants), waiting: parts.waiting,
    };
  }

  /** Whether function `index` (a defined one) has been translated. */
  isTranslated(index: number): boolean {
    return this.info[index * FUNC_INFO_STRIDE + FuncInfo.Entry]! !== NOT_TRANSLATED;
  }

  /**
   * Translates function `index` if it waits for its first call (nothing otherwise), counting
   * the work on `meter` (an execution's, which then pauses after much of it; null where the
   * caller bounds the work itself).
   */
  ensureTranslated(index: number, meter: { note(bytes: number): void } | null): void {
    if (this.isTranslated(index)) return;
    const lazy = this.lazy!;
    const { ctx, translator, out } = lazy;
    const i = index - ctx.numImportedFuncs;
    const body = ctx.ir.codes[i]!;
    meter?.note((body.codeEnd - body.codeStart) * TRANSLATION_WORK_PER_BYTE);
    out.restartAt(this.code.length);
    translator.offsets.restartAt(this.offsets.length);
    const constants: number[] = [];
    runSteps(translateFunction(ctx, translator, out, i, this.info, constants, this.constants.length));
    out.appendTo(lazy.code);
    translator.offsets.appendTo(lazy.offsets);
    lazy.constants.append(new Int32Array(constants));
    this.code = lazy.code.words;
    this.offsets = lazy.offsets.words;
    this.constants = lazy.constants.words;
    if (translator.handlers.length !== this.handlers.length) this.handlers = new Int32Array(translator.handlers);
    if (translator.catches.length !== this.catches.length) this.catches = new Int32Array(translator.catches);
    this.codeOrder.push(index);
    if (--lazy.waiting === 0) this.lazy = null;
  }

  /** The index of the function whose code holds position `pc`. */
  functionIndexAt(pc: number): number {
    const order = this.codeOrder;
    // The last function starting at or before pc, in code order.
    let lo = 0;
    let hi = order.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.info[order[mid]! * FUNC_INFO_STRIDE + FuncInfo.Entry]! <= pc) lo = mid;
      else hi = mid - 1;
    }
    return order[lo] ?? 0;
  }
}

/**
 * Validates and translates every function body, yielding after every BYTES_PER_STEP bytes of
 * bodies — inside a large body too — so that a caller can give the event loop its turn. With
 * `lazy`, a body of up to LAZY_MAX_BODY_BYTES that the body validator proves valid is left for
 * its first call (CompiledFunctions.ensureTranslated); the others are translated now, which
 * also gives an invalid one's exact error.
 */
export function* compileFunctionsInSteps(ctx: ModuleContext, lazy: boolean): Steps<CompiledFunctions> {
  // Translated code runs to about one word per byte of WebAssembly. Compiling lazily, the few
  // bodies translated now start from a small buffer, which grows as they need: sized by the
  // module, the buffers cost a small module's compile time in allocating and zeroing memory
  // never written (lz77.wasm, 5 KB: 0.194-0.218 ms a compile, 0.170-0.192 without; 2026-12-02).
  const expectedWords = lazy ? LAZY_FIRST_WORDS : ctx.ir.bytes.length;
  const out = new CodeBuffer(expectedWords);
  const total = ctx.funcTypes.length;
  const info = new Int32Array(total * FUNC_INFO_STRIDE).fill(-1);
  const resultWords = new Int32Array(total);
  const idleParamWords = new Int32Array(total);
  const idleResultWords = new Int32Array(total);
  const constants: number[] = [];
  const translator = new FunctionTranslator(ctx, out, expectedWords / 2);
  const validator = lazy ? new BodyValidator(ctx) : null;
  const codeOrder: number[] = [];
  let waiting = 0;
  let waitingBytes = 0;
  let done = 0;
  for (let i = 0; i < ctx.ir.codes.length; i++) {
    const index = ctx.numImportedFuncs + i;
    const body = ctx.ir.codes[i]!;
    const size = body.codeEnd - body.codeStart;
    const type = ctx.funcTypes[index]!;
    for (const t of type.results) resultWords[index] += valueWords(t);
    idleParamWords[index] = idleWordMask(type.params);
    idleResultWords[index] = idleWordMask(type.results);
    if (validator !== null && size <= LAZY_MAX_BODY_BYTES && validator.proves(i)) {
      info[index * FUNC_INFO_STRIDE + FuncInfo.FastFrameEnd] = PAST_ANY_STACK;
      waiting++;
      waitingBytes += size;
      done += size / VALIDATION_SPEEDUP;
    } else {
      yield* translateFunction(ctx, translator, out, i, info, constants);
      codeOrder.push(index);
      done += size;
    }
    if (done >= BYTES_PER_STEP) {
      yield;
      done = 0;
    }
  }
  // Room for the code still to come, at about a word per byte (more is made when it runs out).
  const codeLength = out.length;
  const code = yield* out.finishInSteps(codeLength + waitingBytes);
  const offsets = yield* translator.offsets.finishInSteps();
  return new CompiledFunctions(ctx, translator, out, {
    code, codeLength, offsets, info, resultWords, idleParamWords, idleResultWords, constants, codeOrder, waiting,
  });
}

/**
 * Translates the `i`th defined function's body with `translator` (emitting into `out`), in
 * steps of BYTES_PER_STEP bytes, and records it in `info`, its constant slots appended to
 * `constants` (which start at `constantsBase` of the module's).
 */
function* translateFunction(
  ctx: ModuleContext, translator: FunctionTranslator, out: CodeBuffer, i: number, info: Int32Array, constants: number[], constantsBase = 0,
): Steps<void> {
  const index = ctx.numImportedFuncs + i;
  const type = ctx.funcTypes[index]!;
  const body = ctx.ir.codes[i]!;
  const entry = out.length;
  try {
    const counts = yield* countInBodyInSteps(ctx.ir.bytes, body.codeStart, body.codeEnd, ctx.features);
    translator.begin(index, type, body.locals, body.codeStart, body.codeEnd, counts);
    for (;;) {
      const from = translator.position;
      const finished = translator.advance(from + BYTES_PER_STEP);
      if (finished) break;
      yield;
    }
  } catch (e) {
    // A malformed encoding anywhere from here on outranks the validation error.
    if (e instanceof ValidationError) throw (yield* findMalformedBodyInSteps(ctx.ir, i, ctx.features)) ?? e;
    throw e;
  }
  const frameSlots = translator.frameSlots;
  const at = index * FUNC_INFO_STRIDE;
  info[at + FuncInfo.Entry] = entry;
  info[at + FuncInfo.ParamsEnd] = translator.paramWords;
  info[at + FuncInfo.LocalsEnd] = translator.localWords;
  info[at + FuncInfo.FrameEnd] = frameSlots * 2;
  info[at + FuncInfo.ConstsStart] = constantsBase + constants.length;
  translator.appendConstants(constants);
  info[at + FuncInfo.ConstsEnd] = constantsBase + constants.length;
  const entryWords = entryWork(info, at);
  info[at + FuncInfo.FastFrameEnd] = entryWords > LARGE_FRAME_WORDS ? PAST_ANY_STACK : frameSlots * 2;
  info[at + FuncInfo.CodeEnd] = out.length;
}

/** The words a function's entry writes: its locals zeroed, its constants (3 words of record each → 2 written). */
export function entryWork(info: Int32Array, at: number): number {
  const locals = info[at + FuncInfo.LocalsEnd]! - info[at + FuncInfo.ParamsEnd]!;
  return locals + ((info[at + FuncInfo.ConstsEnd]! - info[at + FuncInfo.ConstsStart]!) / 3) * 2;
}

/** Readies function `index`'s frame at `base` (words): its locals zeroed, its constant slots written. */
export function readyFrame(s32: Int32Array, base: number, fns: CompiledFunctions, index: number): void {
  const at = index * FUNC_INFO_STRIDE;
  s32.fill(0, base + fns.info[at + FuncInfo.ParamsEnd]!, base + fns.info[at + FuncInfo.LocalsEnd]!);
  const pool = fns.constants;
  for (let c = fns.info[at + FuncInfo.ConstsStart]!, e = fns.info[at + FuncInfo.ConstsEnd]!; c < e; c += 3) {
    s32[base + pool[c]!] = pool[c + 1]!;
    s32[base + pool[c]! + 1] = pool[c + 2]!;
  }
}

class FunctionTranslator extends VectorTranslator<Control> {
  /** The module's exception handler and catch clause records (Handler, CatchClause). */
  readonly handlers: number[] = [];
  /** CompiledFunctions.probes, as they are made. */
  readonly probeSites: ProbeSite[] = [];
  /** CompiledFunctions.offsets, as they are made (in chunks, as the code: code-buffer.ts). */
  readonly offsets: CodeBuffer;
  readonly catches: number[] = [];
  /** rowFlags of the compile's features. */
  private readonly rowFlags: Uint8Array;
  /** The index of the function being translated (a loop header names it: the JavaScript tier enters there). */
  private funcIndex = 0;

  /** `expectedOffsets`: a guess at how many words `offsets` will hold, to size its first chunk. */
  constructor(ctx: ModuleContext, out: CodeBuffer, expectedOffsets: number) {
    super(ctx, out);
    this.rowFlags = rowFlags(ctx.features);
    this.offsets = new CodeBuffer(expectedOffsets);
  }

  /**
   * Starts on a function body: translate it with advance(), then read frameSlots. `counts`:
   * how many constant instructions and legacy tries the body holds (countInBodyInSteps).
   */
  begin(index: number, type: FuncType, locals: readonly ValType[], start: number, end: number, counts: BodyCounts): void {
    this.funcIndex = index;
    this.layOut(new ByteReader(this.ctx.ir.bytes, start, end), type, locals, counts);
    this.pushControl(Kind.Function, [], type.results, -1);
  }

  /** Where in the module's bytes the translation has got to. */
  get position(): number {
    return this.r.pos;
  }

  /**
   * Translates instructions until the body ends (true) or the position reaches `until`
   * (false: call again).
   */
  advance(until: number): boolean {
    while (this.ctrls.length > 0) {
      if (this.r.pos >= until) return false;
      if (this.r.atEnd) throw new DecodeError('unexpected end of function body (END opcode expected)', this.r.pos);
      const emittedBefore = this.out.length;
      const at = this.r.pos;
      if (this.ctx.probes && this.live) this.probe(at);
      this.instruction();
      if (this.out.length > emittedBefore) this.offsets.push2(emittedBefore, at);
    }
    if (!this.r.atEnd) throw new DecodeError('operators remaining after end of function body', this.r.pos);
    return true;
  }

  // ---- errors -------------------------------------------------------------------------

  // ---- operand stack ------------------------------------------------------------------

  // ---- emission -----------------------------------------------------------------------

  // ---- control ------------------------------------------------------------------------

  private pushControl(kind: Kind, params: readonly ValType[], results: readonly ValType[], loopPc: number): Control {
    const deadCode = this.ctrls.length > 0 && !this.live;
    const ctrl: Control = {
      kind, params, results, height: this.sp - params.length, unreachable: false, deadCode, loopPc, fixups: [], elseFixup: -1,
      handler: -1, legacyCatches: [], catchAll: false,
    };
    this.ctrls.push(ctrl);
    this.refreshLive();
    return ctrl;
  }

  private setUnreachable(): void {
    const ctrl = this.top;
    this.truncate(ctrl.height);
    ctrl.unreachable = true;
    this.live = false;
    this.pendingFuel = 0;
    this.lastDst = -1;
  }

  private labelTypes(ctrl: Control): readonly ValType[] {
    return ctrl.kind === Kind.Loop ? ctrl.params : ctrl.results;
  }

  private readLabel(): Control {
    const depth = this.r.u32();
    if (depth >= this.ctrls.length) this.invalid('unknown label');
    return this.ctrls[this.ctrls.length - 1 - depth]!;
  }

  /**
   * Checks that the top of the stack matches a label's types, leaving it in place. The entries
   * left behind carry the label's types, except for br_table, which keeps what it found
   * (so a polymorphic bottom stays polymorphic for its next target), as the spec requires.
   */
  private checkLabelOperands(types: readonly ValType[], keepFound = false): void {
    const n = types.length;
    const ctrl = this.top;
    const available = this.sp - ctrl.height;
    if (available < n) {
      if (!ctrl.unreachable) this.stackMismatch('instruction', types);
      // Below a polymorphic stack: make the missing entries, under the ones that exist.
      // In unreachable code every entry sits in its own slot, so moving them is free.
      const missing = n - available;
      for (let h = this.sp - 1; h >= ctrl.height; h--) this.types[h + missing] = this.types[h]!;
      for (let k = 0; k < missing; k++) this.types[ctrl.height + k] = UNKNOWN;
      this.sp += missing;
      for (let h = ctrl.height; h < this.sp; h++) {
        this.place(h, this.types[h]!);
        this.locs[h] = this.slotOf(h);
      }
    }
    for (let i = 0; i < n; i++) {
      const h = this.sp - n + i;
      const actual = this.types[h]!;
      const expected = types[i]!;
      if (actual !== expected && actual !== UNKNOWN) {
        this.stackMismatch('instruction', types);
      }
      if (!keepFound && actual !== expected) {
        this.types[h] = expected;
        this.touched(h);
      }
    }
  }

  /**
   * Emits the copies that move the top `n` values to the slots where `target` expects them
   * (for a return: their own slots, in a row), without changing what the translator believes
   * about the fall-through path.
   */
  private emitBranchCopies(target: Control, n: number): void {
    for (let i = 0; i < n; i++) this.emitMove(this.targetSlot(target, n, i), this.sp - n + i);
    this.lastDst = -1;
  }

  private needsCopies(target: Control, n: number): boolean {
    for (let i = 0; i < n; i++) {
      if (this.locs[this.sp - n + i] !== this.targetSlot(target, n, i)) return true;
    }
    return false;
  }

  /**
   * Where value i of the top n goes for a branch to `target`: a block's values go to its
   * slots from the block's height on (laid out as the top n are, having their types); a
   * return's to their own slots, in a row.
   */
  private targetSlot(target: Control, n: number, i: number): number {
    const own = this.offs[this.sp - n + i]!;
    if (target.kind === Kind.Function) return this.tempBase + own;
    return this.slotOf(target.height) + own - this.offs[this.sp - n]!;
  }

  /** The words the top n values take, in a row (what a Return copies). */
  private topWords(n: number): number {
    return (this.offs[this.sp]! - this.offs[this.sp - n]!) * 2;
  }

  /** Emits an unconditional transfer to `target` (copies already done), charging `fuel`. */
  private emitJumpTo(target: Control, n: number, fuel: number): void {
    if (target.kind === Kind.Function) {
      this.out.push4(Op.Return, this.slotOf(this.sp - n) * 2, this.topWords(n), fuel);
    } else {
      this.out.push3(Op.Jump, target.kind === Kind.Loop ? target.loopPc : -1, fuel);
      if (target.kind !== Kind.Loop) target.fixups.push(this.out.length - 2);
    }
    this.lastDst = -1;
  }

  private branchTargetPosition(target: Control, at: number): void {
    if (target.kind === Kind.Loop) this.out.set(at, target.loopPc);
    else target.fixups.push(at);
  }

  private blockType(): [readonly ValType[], readonly ValType[]] {
    const r = this.r;
    const b = r.bytes[r.pos];
    if (b === 0x40) {
      r.pos++;
      return EMPTY_BLOCK_TYPE;
    }
    if (b === I32 || b === I64 || b === F32 || b === F64 || b === FUNCREF || b === EXTERNREF || b === V128
      || (b === EXNREF && this.ctx.features.has(Feature.ExceptionHandling))) {
      r.pos++;
      if (b === V128) this.requireFeature(Feature.Simd, `block type v128, ${formatOpcode(V128)}`, r.pos - 1);
      return SINGLE_RESULT_BLOCK_TYPES.get(b)!;
    }
    const refused = proposalType(r, r.pos);
    if (refused !== null) throw refused;
    const index = r.s33();
    if (index < 0 || index >= this.ctx.ir.types.length) this.invalid(`unknown type ${index}`);
    const t = this.ctx.ir.types[index]!;
    return [t.params, t.results];
  }

  /** Checks that the block's results, and nothing else, are on its part of the stack. */
  private checkBlockResults(ctrl: Control): void {
    this.checkLabelOperands(ctrl.results);
    if (this.sp !== ctrl.height + ctrl.results.length) this.stackMismatch('block', ctrl.results);
  }

  /**
   * A type mismatch between what `what` (an instruction, a block's end) requires of the stack
   * and what the current block's part of it holds, worded as the reference tools word it:
   * "type mismatch: instruction requires [i32] but stack has [i64]".
   */
  private stackMismatch(what: 'instruction' | 'block', required: readonly ValType[]): never {
    const has: string[] = [];
    for (let h = this.top.height; h < this.sp; h++) has.push(this.types[h] === UNKNOWN ? 'any' : valTypeName(this.types[h]!));
    this.invalid(`type mismatch: ${what} requires [${required.map(valTypeName).join(', ')}] but stack has [${has.join(', ')}]`);
  }

  private endBlock(): void {
    const ctrl = this.top;
    if (ctrl.kind === Kind.Loop) this.loopDepth--;
    this.closeHandler(ctrl);
    const results = ctrl.results;
    this.checkBlockResults(ctrl);
    if (this.live) this.materializeTop(results.length);
    if (ctrl.kind === Kind.Function) {
      if (this.live) this.emit3(Op.Return, this.slotOf(this.sp - results.length) * 2, this.topWords(results.length), this.takeFuel());
      this.ctrls.pop();
      this.refreshLive();
      return;
    }
    this.flushFuel();
    if (ctrl.kind === Kind.If) {
      // No else: the false path must turn the parameters into the results unchanged.
      if (ctrl.params.length !== results.length || ctrl.params.some((t, i) => t !== results[i])) {
        this.invalid('type mismatch: if without else must leave its parameters unchanged');
      }
    }
    const here = this.label();
    if (ctrl.elseFixup >= 0) this.out.set(ctrl.elseFixup, here);
    for (const at of ctrl.fixups) this.out.set(at, here);
    this.ctrls.pop();
    this.refreshLive();
    this.truncate(ctrl.height);
    this.pushTypes(results);
  }

  // ---- the instruction loop -----------------------------------------------------------

  /**
   * A probe before the instruction at module offset `at` (CompileOptions.probes): its site
   * records the function, the offset and the operand stack as it stands — each entry a slot
   * of the frame or a constant — so that a monitor can read the values there. The probe
   * emits no fuel and moves nothing; it only ends the retargeting of the last destination.
   */
  private probe(at: number): void {
    this.emit1(Op.Probe, this.probeSites.length);
    this.probeSites.push({ funcIndex: this.funcIndex, offset: at, stack: this.stackSnapshot() });
  }

  /**
   * Translates one instruction: finds its row in the instruction table, refuses it if its
   * feature is off, charges its fuel, then translates it — numeric instructions and memory
   * accesses from their rows alone, everything else by its own case.
   */

  private instruction(): void {
    const r = this.r;
    const opAt = r.pos;
    const op = r.u8();
    const row = op < 0xfc ? SINGLE_BYTE[op] : this.prefixedRow(op, opAt);
    if (row === undefined) throw unknownOpcode(r, op, opAt);
    const flags = this.rowFlags[row.id]!;
    if ((flags & ACCEPTED) === 0) throw this.refusal(row, opAt);
    if ((flags & CHARGED_ON_DISPATCH) !== 0) this.charge();
    if (op >= 0x45 && op <= 0xc4) {
      this.numeric(op, row);
      return;
    }
    if (op >= 0x28 && op <= 0x3e) {
      this.memoryAccess(op, row);
      return;
    }
    switch (op) {
      case 0x00: // unreachable
        this.flushFuel();
        if (this.live) this.emit0(Op.Unreachable);
        this.setUnreachable();
        return;
      case 0x01: // nop
        return;
      case 0x02: { // block
        const [params, results] = this.blockType();
        this.checkLabelOperands(params);
        this.materializeAll();
        this.lastDst = -1;
        this.pushControl(Kind.Block, params, results, -1);
        return;
      }
      case 0x03: { // loop
        const [params, results] = this.blockType();
        this.checkLabelOperands(params);
        this.materializeAll();
        this.flushFuel();
        const pc = this.label();
        if (this.live) this.emit1(Op.Loop, this.funcIndex);
        this.pushControl(Kind.Loop, params, results, pc);
        this.loopDepth++;
        return;
      }
      case 0x04: { // if
        const [params, results] = this.blockType();
        const fusable = this.fusableCondition();
        const cond = this.pop(I32);
        this.checkLabelOperands(params);
        if (this.deferred > 0) this.materializeAll();
        const wasLive = this.live;
        // Jump to the else branch when the condition is false.
        const at = wasLive ? this.emitConditionalJump(cond, false, this.stillFusable(fusable)) : -1;
        const ctrl = this.pushControl(Kind.If, params, results, -1);
        ctrl.elseFixup = at;
        return;
      }
      case 0x05: { // else
        const ctrl = this.top;
        if (ctrl.kind !== Kind.If) this.invalid('else without a matching if');
        this.checkBlockResults(ctrl);
        if (this.live) {
          this.materializeTop(ctrl.results.length);
          this.emit2(Op.Jump, -1, this.takeFuel());
          ctrl.fixups.push(this.out.length - 2);
        }
        const here = this.label();
        if (ctrl.elseFixup >= 0) this.out.set(ctrl.elseFixup, here);
        ctrl.elseFixup = -1;
        ctrl.kind = Kind.Else;
        this.truncate(ctrl.height);
        ctrl.unreachable = false;
        this.refreshLive();
        this.pendingFuel = 0;
        this.pushTypes(ctrl.params);
        return;
      }
      case 0x0b: // end
        this.endBlock();
        return;
      case 0x0c: { // br
        const target = this.readLabel();
        const types = this.labelTypes(target);
        this.checkLabelOperands(types);
        if (this.live) {
          if (target.kind === Kind.Function) this.materializeTop(types.length);
          else this.emitBranchCopies(target, types.length);
          this.emitJumpTo(target, types.length, this.takeFuel());
        }
        this.setUnreachable();
        return;
      }
      case 0x0d: { // br_if
        const target = this.readLabel();
        const fusable = this.fusableCondition();
        const cond = this.pop(I32);
        const types = this.labelTypes(target);
        this.checkLabelOperands(types);
        if (this.live) this.conditionalBranch(target, types.length, cond, this.stillFusable(fusable));
        return;
      }
      case 0x0e: { // br_table
        this.branchTable();
        return;
      }
      case 0x0f: { // return
        const fn = this.ctrls[0]!;
        this.checkLabelOperands(fn.results);
        if (this.live) {
          this.materializeTop(fn.results.length);
          this.emit3(Op.Return, this.slotOf(this.sp - fn.results.length) * 2, this.topWords(fn.results.length), this.takeFuel());
        }
        this.setUnreachable();
        return;
      }
      case 0x10: { // call
        const index = r.u32();
        if (index >= this.ctx.funcTypes.length) this.invalid(`unknown function ${index}`);
        const type = this.ctx.funcTypes[index]!;
        this.call(type, index < this.ctx.numImportedFuncs ? Op.CallImport : Op.Call, index, -1, -1);
        return;
      }
      case 0x11: { // call_indirect
        const { typeIndex, table, indexSlot } = this.indirectCallee('call_indirect');
        this.call(this.ctx.ir.types[typeIndex]!, Op.CallIndirect, typeIndex, table, indexSlot);
        return;
      }
      case 0x12: { // return_call
        const index = r.u32();
        if (index >= this.ctx.funcTypes.length) this.invalid(`unknown function ${index}`);
        this.tailCall(this.ctx.funcTypes[index]!, 0, index, 0, -1);
        return;
      }
      case 0x13: { // return_call_indirect
        const { typeIndex, table, indexSlot } = this.indirectCallee('return_call_indirect');
        this.tailCall(this.ctx.ir.types[typeIndex]!, 1, typeIndex, table, indexSlot);
        return;
      }
      case 0x06: // try (legacy)
      case 0x07: // catch (legacy)
      case 0x08: // throw
      case 0x09: // rethrow (legacy)
      case 0x0a: // throw_ref
      case 0x18: // delegate (legacy)
      case 0x19: // catch_all (legacy)
      case 0x1f: // try_table
        this.exceptionInstruction(op);
        return;
      case 0x1a: // drop
        this.popAny();
        return;
      case 0x1b: // select
        this.select(null);
        return;
      case 0x1c: { // typed select
        const n = r.u32();
        if (n !== 1) this.invalid('invalid result arity for select');
        const t = this.valType();
        this.select(t);
        return;
      }
      case 0x20: { // local.get
        const x = this.localIndex();
        if (this.live) this.pushLocal(this.localTypes[x]!, this.localSlot[x]!);
        else this.push(this.localTypes[x]!);
        return;
      }
      case 0x21: { // local.set
        const x = this.localIndex();
        this.storeLocal(x, false);
        return;
      }
      case 0x22: { // local.tee
        const x = this.localIndex();
        this.storeLocal(x, true);
        return;
      }
      case 0x23: { // global.get
        const g = r.u32();
        if (g >= this.ctx.globals.length) this.invalid(`unknown global ${g}`);
        const type = this.ctx.globals[g]!.valType;
        const d = this.push(type);
        if (!this.live) return;
        if (type === V128) this.emitSimd(SimdMove.GlobalGet, d, [g]);
        else this.emitProducer(Op.GlobalGet, d, 1, g);
        return;
      }
      case 0x24: { // global.set
        const g = r.u32();
        if (g >= this.ctx.globals.length) this.invalid(`unknown global ${g}`);
        const gt = this.ctx.globals[g]!;
        // The 3.0 reference interpreter (whose binary format memory64 brings) words it differently.
        if (!gt.mutable) this.invalid(this.ctx.features.has(Feature.Memory64) ? 'immutable global' : 'global is immutable');
        const a = this.pop(gt.valType);
        if (!this.live) return;
        if (gt.valType === V128) this.emitSimd(SimdMove.GlobalSet, -1, [g, a * 2]);
        else this.emit2(Op.GlobalSet, g, a * 2);
        return;
      }
      case 0x25: { // table.get
        const t = this.tableIndex();
        const at = this.tableAddress(t);
        const i = this.pop(at);
        const d = this.push(this.ctx.tables[t]!.elemType);
        this.narrowOperands(Narrow.TableCheck, [[i, at]]);
        if (this.live) this.emitProducer(Op.TableGet, d, 2, t, i * 2);
        return;
      }
      case 0x26: { // table.set
        const t = this.tableIndex();
        const at = this.tableAddress(t);
        const v = this.pop(this.ctx.tables[t]!.elemType);
        const i = this.pop(at);
        this.narrowOperands(Narrow.TableCheck, [[i, at]]);
        if (this.live) this.emit3(Op.TableSet, t, i * 2, v * 2);
        return;
      }
      case 0x3f: { // memory.size
        const mem = this.memoryIndex('memory.size');
        const at = addressType(this.ctx.memories[mem]!);
        const d = this.push(at);
        this.onMemory(mem, () => {
          this.emitProducer(Op.MemorySize, d, 0);
          if (at === I64) this.emitProducer(I64_EXTEND_I32_U, d, 1, d * 2);
        });
        return;
      }
      case 0x40: { // memory.grow
        const mem = this.memoryIndex('memory.grow');
        const at = addressType(this.ctx.memories[mem]!);
        const a = this.pop(at);
        const d = this.push(at);
        this.onMemory(mem, () => {
          if (at === I64) {
            // A delta of 2^32 pages or more fails like any too large one: -1.
            this.emitNarrow(Narrow.Clamp, a, d);
            this.emitProducer(Op.MemoryGrow, d, 1, d * 2);
            this.emitProducer(I64_EXTEND_I32_S, d, 1, d * 2);
          } else {
            this.emitProducer(Op.MemoryGrow, d, 1, a * 2);
          }
        });
        return;
      }
      case 0x41: { // i32.const
        const v = r.s32();
        this.pushConst(I32, v, 0);
        return;
      }
      case 0x42: { // i64.const
        const lo = r.s64();
        const hi = r.hi;
        this.pushConst(I64, lo, hi);
        return;
      }
      case 0x43: { // f32.const
        const bits = r.fixed32();
        this.pushConst(F32, bits, 0);
        return;
      }
      case 0x44: { // f64.const
        const lo = r.fixed32();
        const hi = r.fixed32();
        this.pushConst(F64, lo, hi);
        return;
      }
      case 0xd0: { // ref.null
        const t = r.u8();
        if (t !== FUNCREF && t !== EXTERNREF && !(t === EXNREF && this.ctx.features.has(Feature.ExceptionHandling))) throw proposalHeapType(r, r.pos - 1) ?? new DecodeError('malformed reference type', r.pos - 1);
        const d = this.push(t);
        if (this.live) this.emitProducer(Op.RefNull, d, 0);
        return;
      }
      case 0xd1: { // ref.is_null
        const t = this.peekType();
        if (t !== UNKNOWN && !isRefType(t)) this.invalid(`type mismatch: ref.is_null expects a reference, found ${valTypeName(t)}`);
        const loc = this.popLoc();
        const d = this.push(I32);
        if (this.live) this.emitProducer(Op.RefIsNull, d, 1, loc * 2);
        return;
      }
      case 0xd2: { // ref.func
        const f = r.u32();
        if (f >= this.ctx.funcTypes.length) this.invalid(`unknown function ${f}`);
        if (!this.ctx.declaredRefs.has(f)) this.invalid('undeclared function reference');
        const d = this.push(FUNCREF);
        if (this.live) this.emitProducer(Op.RefFunc, d, 1, f);
        return;
      }
      case 0xfc:
        this.prefixed(row);
        return;
      case 0xfd:
        this.simd(row, opAt);
        return;
      case 0xfe:
        this.atomic(row, opAt);
        return;
    }
  }

  /**
   * The row of a prefixed instruction (`op` is 0xfc and up), its sub-opcode read; undefined for
   * no prefix (0xff). Without atomics, 0xfe is refused before its sub-opcode: the proposal
   * owns the whole prefix.
   */
  private prefixedRow(op: number, opAt: number): InstructionRow | undefined {
    if (op === 0xff) return undefined;
    if (op === 0xfe && !this.ctx.features.has(Feature.Atomics)) throw unknownOpcode(this.r, op, opAt);
    const sub = this.r.u32();
    const row = instructionRow(op as Prefix, sub);
    if (row === undefined) throw prefixedOpcode(op as 0xfc | 0xfd | 0xfe, sub, opAt);
    return row;
  }

  /**
   * The error for a row whose feature the compile does not accept, worded as the scan words
   * unknown opcodes (body-syntax.ts): single bytes (exception handling, tail calls) name
   * their proposal; relaxed SIMD without its feature is refused as its sub-opcode; any other
   * SIMD instruction without SIMD is refused as a validation error.
   */
  private refusal(row: InstructionRow, opAt: number): DecodeError | ValidationError {
    if (row.prefix === 0) return unknownOpcode(this.r, row.code, opAt);
    if (row.feature === Feature.RelaxedSimd && !this.ctx.features.has(Feature.RelaxedSimd)) return prefixedOpcode(0xfd, row.code, opAt);
    return refuseValidation(Feature.Simd, `opcode ${formatOpcode(row.prefix, row.code)}`, opAt);
  }

  private localIndex(): number {
    const x = this.r.u32();
    if (x >= this.numLocals) this.invalid(`unknown local ${x}`);
    return x;
  }

  private valType(): ValType {
    const t = this.r.u8();
    if (t === I32 || t === I64 || t === F32 || t === F64 || t === FUNCREF || t === EXTERNREF) return t;
    if (t === EXNREF && this.ctx.features.has(Feature.ExceptionHandling)) return t;
    if (t === V128) {
      this.requireFeature(Feature.Simd, `value type v128, ${formatOpcode(V128)}`, this.r.pos - 1);
      return t;
    }
    throw proposalType(this.r, this.r.pos - 1) ?? new DecodeError('malformed value type', this.r.pos - 1);
  }

  private storeLocal(x: number, tee: boolean): void {
    const type = this.localTypes[x]!;
    const slot = this.localSlot[x]!;
    const h = this.sp - 1;
    if (this.topIsConst(type) && this.live) {
      this.materializeLocal(slot);
      this.emitConst(slot, h);
      if (!tee) this.popConst();
      return;
    }
    const producedHere = this.lastDst >= 0 && h >= this.top.height && this.locs[h] === this.slotOf(h) && this.lastDstSlot === this.slotOf(h);
    const a = this.pop(type);
    if (!this.live) {
      if (tee) this.push(type);
      return;
    }
    this.materializeLocal(slot);
    if (producedHere && this.lastDst >= 0) {
      // The previous instruction computed this value: let it write the local directly.
      this.out.set(this.lastDst, slot * 2);
      this.lastDst = -1;
      if (tee) this.pushLocal(type, slot);
      return;
    }
    this.emitCopy(type, slot, a);
    if (tee) this.pushLocal(type, slot);
  }

  private select(typed: ValType | null): void {
    const c = this.pop(I32);
    let type: number;
    let b: number;
    let a: number;
    if (typed !== null) {
      b = this.pop(typed);
      a = this.pop(typed);
      type = typed;
    } else {
      const tb = this.peekType();
      b = this.popLoc();
      const ta = this.peekType();
      a = this.popLoc();
      if ((ta !== UNKNOWN && isRefType(ta)) || (tb !== UNKNOWN && isRefType(tb))) {
        this.invalid('type mismatch: select without a type needs numeric operands');
      }
      if (ta !== UNKNOWN && tb !== UNKNOWN && ta !== tb) this.invalid('type mismatch: select operands differ');
      type = ta === UNKNOWN ? tb : ta;
    }
    const d = this.push(type);
    if (!this.live) return;
    if (type === V128) this.emitSimd(SimdMove.Select, d, [c * 2, a * 2, b * 2]);
    else this.emitProducer(Op.Select, d, 3, c * 2, a * 2, b * 2);
  }

  /**
   * If the top of the stack is an i32 comparison (or eqz) just computed by the last
   * instruction, returns that instruction's position (else -1), so a branch on it can absorb
   * it as long as nothing else is emitted in between.
   */
  private fusableCondition(): number {
    const h = this.sp - 1;
    if (this.lastDst < 0 || h < this.top.height || this.locs[h] !== this.slotOf(h) || this.lastDstSlot !== this.slotOf(h)) return -1;
    const op = this.out.get(this.lastStart);
    const fusable = op === 0x45 || (op >= I32_COMPARE_FIRST && op <= I32_COMPARE_LAST)
      || (op >= Op.I32CompareImmBase && op < Op.I32CompareImmBase + 10);
    return fusable ? this.lastStart : -1;
  }

  private stillFusable(position: number): boolean {
    return position >= 0 && this.lastDst >= 0 && this.lastStart === position;
  }

  /**
   * Emits a jump taken when the condition in `cond` is `when` (true: non-zero), with the
   * pending fuel, and returns the position of its target operand. With `fuse`, the
   * comparison that computed `cond` (the last instruction) is taken back and folded in.
   */
  private emitConditionalJump(cond: number, when: boolean, fuse: boolean): number {
    const fuel = this.takeFuel();
    if (fuse) {
      const at = this.lastStart;
      const op = this.out.get(at);
      const a = this.out.get(at + 2);
      const b = this.out.get(at + 3);
      this.out.truncate(at);
      if (op === 0x45) {
        // eqz: branch on the operand itself, with the sense flipped.
        this.emit3(when ? Op.BranchIfZero : Op.BranchIfNonZero, a, -1, fuel);
        return this.out.length - 2;
      }
      const imm = op >= Op.I32CompareImmBase;
      const index = imm ? op - Op.I32CompareImmBase : op - I32_COMPARE_FIRST;
      const compare = when ? index : NEGATED_COMPARE[index]!;
      this.out.push4((imm ? Op.BranchCompareImmBase : Op.BranchCompareBase) + compare, a, b, -1);
      this.out.push(fuel);
      this.lastDst = -1;
      return this.out.length - 2;
    }
    this.emit3(when ? Op.BranchIfNonZero : Op.BranchIfZero, cond * 2, -1, fuel);
    return this.out.length - 2;
  }

  private conditionalBranch(target: Control, n: number, cond: number, fuse: boolean): void {
    if (target.kind !== Kind.Function && !this.needsCopies(target, n)) {
      this.branchTargetPosition(target, this.emitConditionalJump(cond, true, fuse));
      return;
    }
    // Copies are needed on the branch path only: skip over them when the condition is false.
    const skip = this.emitConditionalJump(cond, false, fuse);
    this.emitBranchCopies(target, n);
    this.emitJumpTo(target, n, 0);
    this.out.set(skip, this.label());
  }

  private branchTable(): void {
    const r = this.r;
    const count = r.u32();
    if (count > r.end - r.pos) throw new DecodeError('unexpected end: br_table target count', r.pos);
    const targets: Control[] = [];
    for (let i = 0; i <= count; i++) targets.push(this.readLabel());
    const index = this.pop(I32);
    const arity = this.labelTypes(targets[count]!).length;
    for (const t of targets) {
      const types = this.labelTypes(t);
      if (types.length !== arity) this.invalid('type mismatch: br_table targets have different arities');
      this.checkLabelOperands(types, true);
    }
    if (this.live) {
      this.out.push4(Op.BranchTable, index * 2, this.takeFuel(), count);
      const table = this.out.length;
      for (let i = 0; i <= count; i++) this.out.push(-1);
      // Each distinct target gets one stub unless it needs no copies and is not a return.
      const stubs = new Map<Control, number>();
      for (let i = 0; i <= count; i++) {
        const t = targets[i]!;
        if (t.kind !== Kind.Function && !this.needsCopies(t, arity)) {
          this.branchTargetPosition(t, table + i);
          continue;
        }
        let stub = stubs.get(t);
        if (stub === undefined) {
          stub = this.out.length;
          stubs.set(t, stub);
          this.emitBranchCopies(t, arity);
          this.emitJumpTo(t, arity, 0);
        }
        this.out.set(table + i, stub);
      }
      this.lastDst = -1;
    }
    this.setUnreachable();
  }

  /**
   * Takes the operands of a call, tail call or throw off the stack, after materialising them
   * into their own slots, where they then lie in a row (laid out by type, as the callee's
   * parameters or the payload): returns the row's first word.
   */
  private argumentRow(params: readonly ValType[]): number {
    this.checkLabelOperands(params);
    if (this.live) this.materializeTop(params.length);
    this.truncate(Math.max(this.sp - params.length, this.top.height));
    return this.slotOf(this.sp) * 2;
  }

  private call(type: FuncType, op: number, index: number, table: number, indexSlot: number): void {
    const argBase = this.argumentRow(type.params);
    if (this.live) {
      const fuel = this.takeFuel();
      if (op === Op.CallIndirect) {
        this.emit4(op, index, table, argBase, indexSlot * 2);
        this.out.push(fuel);
      } else {
        this.emit3(op, index, argBase, fuel);
      }
    }
    this.pushTypes(type.results);
  }

  /**
   * The operands of memory.copy or table.copy — destination, source, length — whose types are
   * the destination's and the source's address types, and for the length i64 only when both
   * are (memory64); each i64 narrowed with `mode`. Returns their slots.
   */
  private copyOperands(dt: ValType, st: ValType, mode: number): [number, number, number] {
    const nt = dt === I64 && st === I64 ? I64 : I32;
    const n = this.pop(nt);
    const s = this.pop(st);
    const d = this.pop(dt);
    this.narrowOperands(mode, [[d, dt], [s, st], [n, nt]]);
    return [d, s, n];
  }

  /**
   * The immediates and the table index operand of call_indirect or return_call_indirect
   * (`instr`): the type, the table (of funcref), and the slot of the index, narrowed for a
   * table64.
   */
  private indirectCallee(instr: string): { typeIndex: number; table: number; indexSlot: number } {
    const r = this.r;
    const typeIndex = r.u32();
    const table = r.u32();
    if (typeIndex >= this.ctx.ir.types.length) this.invalid(`unknown type ${typeIndex}`);
    if (table >= this.ctx.tables.length) this.invalid(`unknown table ${table}`);
    if (this.ctx.tables[table]!.elemType !== FUNCREF) this.invalid(`type mismatch: ${instr} on a table of externref`);
    const at = this.tableAddress(table);
    const indexSlot = this.pop(at);
    this.narrowOperands(Narrow.TableCheck, [[indexSlot, at]]);
    return { typeIndex, table, indexSlot };
  }

  /**
   * return_call / return_call_indirect (kind 0 / 1): the callee's results must be the
   * function's. Emits `TailCall`, then the `Return` that a host callee's results take.
   */
  private tailCall(type: FuncType, kind: number, index: number, table: number, indexSlot: number): void {
    const results = this.ctrls[0]!.results;
    if (type.results.length !== results.length || type.results.some((t, i) => t !== results[i])) {
      this.invalid('type mismatch: the callee of a tail call must return what the caller returns');
    }
    const argBase = this.argumentRow(type.params);
    if (this.live) {
      this.out.push4(Op.TailCall, kind, index, table);
      this.out.push3(argBase, indexSlot * 2, this.takeFuel());
      this.emit3(Op.Return, argBase, rowWords(results), 0);
    }
    this.setUnreachable();
  }

  /** A load or store, typed by its row: a load's result, a store's value (its second operand). */
  private memoryAccess(op: number, row: InstructionRow): void {
    this.memarg(row, this.r.pos - 1);
    const offset = this.margOffset;
    const mem = this.margMemory;
    const is64 = this.margIs64;
    const huge = this.margOffsetHuge;
    if (op <= 0x35) {
      const resultType = row.results![0]!;
      const [base, add] = is64 ? [-1, 0] : this.takeAddress(this.sp - 1);
      const addr = this.pop(is64 ? I64 : I32);
      const d = this.push(resultType);
      this.onMemory(mem, () => {
        if (is64) this.emitNarrow(huge ? Narrow.MemoryAlwaysTraps : Narrow.MemoryCheck, addr);
        this.emitProducer(op, d, 3, base < 0 ? addr * 2 : base, offset, add);
      });
    } else {
      const valueType = row.params![1]!;
      const [base, add] = is64 ? [-1, 0] : this.takeAddress(this.sp - 2);
      const v = this.pop(valueType);
      const addr = this.pop(is64 ? I64 : I32);
      this.onMemory(mem, () => {
        if (is64) this.emitNarrow(huge ? Narrow.MemoryAlwaysTraps : Narrow.MemoryCheck, addr);
        this.out.push5(op, base < 0 ? addr * 2 : base, v * 2, offset, add);
        this.lastDst = -1;
      });
    }
  }

  /**
   * Memory instructions add an i32 constant to their address operand, wrapping, before the
   * offset: `op ... address offset add`. When the address at stack height `h` was computed by
   * the last instruction as `x + constant` (as compilers emit for `p->field`), that addition
   * is taken back and folded in — one dispatch fewer. Returns [x's operand, constant], or
   * [-1, 0] when there is nothing to fold.
   */
  private takeAddress(h: number): [number, number] {
    if (!this.live || this.lastDst < 0 || h < this.top.height || this.locs[h] !== this.slotOf(h)
      || this.lastDstSlot !== this.slotOf(h) || this.out.get(this.lastStart) !== Op.I32BinaryImmBase) {
      return [-1, 0];
    }
    const at = this.lastStart;
    const x = this.out.get(at + 2);
    const constant = this.out.get(at + 3);
    this.out.truncate(at);
    this.lastDst = -1;
    return [x, constant];
  }

  /** A numeric instruction (0x45-0xc4), typed by its row: one or two operands of one type, one result. */
  private numeric(op: number, row: InstructionRow): void {
    const operandType = row.params![0]!;
    const binary = row.params!.length === 2;
    const result = row.results![0]!;
    if (binary && operandType === I64 && this.live && this.topIsConst(I64) && op >= 0x86 && op <= 0x8a) {
      // A shift or rotation by a constant: the form for its count (i64ShiftForm), or a copy.
      const shift = i64ShiftForm(op, this.popConst());
      const a = this.pop(I64);
      const d = this.push(result);
      if (shift === null) this.emitProducer(Op.Copy, d, 1, a * 2);
      else this.emitProducer(Op.I64ShiftImmBase + shift[0], d, 2, a * 2, shift[1]);
      return;
    }
    if (binary && operandType === I32 && this.live) {
      if (this.topIsConst(I32)) {
        const form = immediateForm(op);
        if (form >= 0) {
          const imm = this.popConst();
          const a = this.pop(I32);
          this.emitProducer(form, this.push(result), 2, a * 2, imm);
          return;
        }
      } else if (this.secondIsConst(I32)) {
        // A constant left operand: swap it to the right where that keeps the meaning.
        const swapped = SWAPPED_OPERANDS.get(op);
        if (swapped !== undefined) {
          const b = this.pop(I32);
          const imm = this.popConst();
          this.emitProducer(immediateForm(swapped), this.push(result), 2, b * 2, imm);
          return;
        }
      }
    }
    let b = 0;
    if (binary) b = this.pop(operandType);
    const a = this.pop(operandType);
    const d = this.push(result);
    if (!this.live) return;
    if (binary) this.emitProducer(op, d, 2, a * 2, b * 2);
    else if (isReinterpret(op)) this.emitProducer(Op.Copy, d, 1, a * 2);
    else this.emitProducer(op, d, 1, a * 2);
    if (row.nanResults !== 0) this.canonicalize(row.nanResults, d);
  }

  /** A 0xFC instruction: saturating truncations typed by their rows, the rest by sub-opcode. */
  private prefixed(row: InstructionRow): void {
    const r = this.r;
    const sub = row.code;
    if (sub <= 7) {
      const a = this.pop(row.params![0]!);
      const d = this.push(row.results![0]!);
      if (this.live) this.emitProducer(Op.TruncSatBase + sub, d, 1, a * 2);
      return;
    }
    switch (sub) {
      case 8: { // memory.init
        const seg = r.u32();
        const mem = this.memoryIndex('memory.init');
        this.requireDataSegment(seg);
        const at = this.memoryAddress(mem);
        const n = this.pop(I32);
        const s = this.pop(I32);
        const d = this.pop(at);
        this.narrowOperands(Narrow.MemoryCheck, [[d, at]]);
        if (this.live) {
          this.emit4(Op.MemoryInit, seg, d * 2, s * 2, n * 2);
          this.out.push(mem);
        }
        return;
      }
      case 9: { // data.drop
        const seg = r.u32();
        this.requireDataSegment(seg);
        if (this.live) this.emit1(Op.DataDrop, seg);
        return;
      }
      case 10: { // memory.copy
        const dstMem = this.memoryIndex('memory.copy');
        const srcMem = this.memoryIndex('memory.copy');
        const [d, s, n] = this.copyOperands(this.memoryAddress(dstMem), this.memoryAddress(srcMem), Narrow.MemoryCheck);
        if (this.live) {
          this.emit4(Op.MemoryCopy, d * 2, s * 2, n * 2, dstMem);
          this.out.push(srcMem);
        }
        return;
      }
      case 11: { // memory.fill
        const mem = this.memoryIndex('memory.fill');
        const at = this.memoryAddress(mem);
        const n = this.pop(at);
        const v = this.pop(I32);
        const d = this.pop(at);
        this.narrowOperands(Narrow.MemoryCheck, [[d, at], [n, at]]);
        if (this.live) this.emit4(Op.MemoryFill, d * 2, v * 2, n * 2, mem);
        return;
      }
      case 12: { // table.init
        const seg = r.u32();
        const t = this.tableIndex();
        const elems = this.ctx.ir.elements;
        if (seg >= elems.length) this.invalid(`unknown elem segment ${seg}`);
        if (elems[seg]!.elemType !== this.ctx.tables[t]!.elemType) this.invalid('type mismatch: table.init segment and table types differ');
        const at = this.tableAddress(t);
        const n = this.pop(I32);
        const s = this.pop(I32);
        const d = this.pop(at);
        this.narrowOperands(Narrow.TableCheck, [[d, at]]);
        if (this.live) {
          this.out.push4(Op.TableInit, t, seg, d * 2);
          this.out.push2(s * 2, n * 2);
          this.lastDst = -1;
        }
        return;
      }
      case 13: { // elem.drop
        const seg = r.u32();
        if (seg >= this.ctx.ir.elements.length) this.invalid(`unknown elem segment ${seg}`);
        if (this.live) this.emit1(Op.ElemDrop, seg);
        return;
      }
      case 14: { // table.copy
        const dst = this.tableIndex();
        const src = this.tableIndex();
        if (this.ctx.tables[dst]!.elemType !== this.ctx.tables[src]!.elemType) this.invalid('type mismatch: table.copy between tables of different types');
        const [d, s, n] = this.copyOperands(this.tableAddress(dst), this.tableAddress(src), Narrow.TableCheck);
        if (this.live) {
          this.out.push4(Op.TableCopy, dst, src, d * 2);
          this.out.push2(s * 2, n * 2);
          this.lastDst = -1;
        }
        return;
      }
      case 15: { // table.grow
        const t = this.tableIndex();
        const at = this.tableAddress(t);
        const n = this.pop(at);
        const init = this.pop(this.ctx.tables[t]!.elemType);
        const d = this.push(at);
        if (!this.live) return;
        if (at === I64) {
          // A delta of 2^32 elements or more fails like any too large one: -1. (Clamped into
          // a free slot: d may be where init still is.)
          const delta = this.scratchSlot();
          this.emitNarrow(Narrow.Clamp, n, delta);
          this.emitProducer(Op.TableGrow, d, 3, t, init * 2, delta * 2);
          this.emitProducer(I64_EXTEND_I32_S, d, 1, d * 2);
        } else {
          this.emitProducer(Op.TableGrow, d, 3, t, init * 2, n * 2);
        }
        return;
      }
      case 16: { // table.size
        const t = this.tableIndex();
        const at = this.tableAddress(t);
        const d = this.push(at);
        if (!this.live) return;
        this.emitProducer(Op.TableSize, d, 1, t);
        if (at === I64) this.emitProducer(I64_EXTEND_I32_U, d, 1, d * 2);
        return;
      }
      case 17: { // table.fill
        const t = this.tableIndex();
        const at = this.tableAddress(t);
        const n = this.pop(at);
        const v = this.pop(this.ctx.tables[t]!.elemType);
        const i = this.pop(at);
        this.narrowOperands(Narrow.TableCheck, [[i, at], [n, at]]);
        if (this.live) this.emit4(Op.TableFill, t, i * 2, v * 2, n * 2);
        return;
      }
    }
  }

  // ---- exception handling ---------------------------------------------------------------

  private exceptionInstruction(op: number): void {
    const r = this.r;
    switch (op) {
      case 0x1f: { // try_table
        const [params, results] = this.blockType();
        const n = r.u32();
        if (n > r.end - r.pos) throw new DecodeError('unexpected end: catch clause count', r.pos);
        const clauses: { kind: number; tag: number; target: Control; types: readonly ValType[] }[] = [];
        for (let i = 0; i < n; i++) {
          const at = r.pos;
          const kind = r.u8();
          if (kind > CatchKind.CatchAllRef) throw new DecodeError('malformed catch clause', at);
          const tag = kind <= CatchKind.CatchRef ? this.tagIndex() : -1;
          const target = this.readLabel();
          const types = [...(tag >= 0 ? this.ctx.tags[tag]!.params : []), ...(kind === CatchKind.CatchRef || kind === CatchKind.CatchAllRef ? [EXNREF] : [])];
          const label = this.labelTypes(target);
          if (label.length !== types.length || label.some((t, k) => t !== types[k])) this.invalid('type mismatch: catch clause and label types differ');
          clauses.push({ kind, tag, target, types });
        }
        this.checkLabelOperands(params);
        this.materializeAll();
        let handler = -1;
        if (this.live) {
          // The catch clauses land on pads that branch to their labels, placed before the body.
          this.out.push3(Op.Jump, -1, this.takeFuel());
          const skip = this.out.length - 2;
          const catchStart = this.catches.length / CATCH_STRIDE;
          for (const c of clauses) this.catches.push(c.kind, c.tag, this.catchPad(c.target, c.types), this.slotOf(c.target.height) * 2);
          this.out.set(skip, this.label());
          handler = this.openHandler(-1);
          this.handlers[handler * HANDLER_STRIDE + Handler.CatchStart] = catchStart;
          this.handlers[handler * HANDLER_STRIDE + Handler.CatchEnd] = this.catches.length / CATCH_STRIDE;
        }
        this.pushControl(Kind.TryTable, params, results, -1).handler = handler;
        return;
      }
      case 0x08: { // throw
        const tag = this.tagIndex();
        const argBase = this.argumentRow(this.ctx.tags[tag]!.params);
        if (this.live) this.emit3(Op.Throw, tag, argBase, this.takeFuel());
        this.setUnreachable();
        return;
      }
      case 0x0a: { // throw_ref
        const a = this.pop(EXNREF);
        if (this.live) this.emit3(Op.ThrowRef, a * 2, 0, this.takeFuel());
        this.setUnreachable();
        return;
      }
      case 0x06: { // try
        const [params, results] = this.blockType();
        this.checkLabelOperands(params);
        this.materializeAll();
        let handler = -1;
        if (this.live) {
          this.lastDst = -1;
          handler = this.openHandler((this.tryBase + this.tries++) * 2);
        }
        this.pushControl(Kind.Try, params, results, -1).handler = handler;
        return;
      }
      case 0x07: // catch
      case 0x19: { // catch_all
        const ctrl = this.top;
        if (ctrl.kind !== Kind.Try && ctrl.kind !== Kind.Catch) this.invalid(`${op === 0x07 ? 'catch' : 'catch_all'} without a matching try`);
        if (ctrl.catchAll) this.invalid(`${op === 0x07 ? 'catch' : 'catch_all'} after catch_all`);
        const tag = op === 0x07 ? this.tagIndex() : -1;
        this.checkBlockResults(ctrl);
        if (this.live) {
          this.materializeTop(ctrl.results.length);
          this.emit2(Op.Jump, -1, this.takeFuel());
          ctrl.fixups.push(this.out.length - 2);
        }
        if (ctrl.kind === Kind.Try && ctrl.handler >= 0) this.handlers[ctrl.handler * HANDLER_STRIDE + Handler.End] = this.out.length;
        const pad = this.label();
        ctrl.kind = Kind.Catch;
        ctrl.catchAll = op === 0x19;
        this.truncate(ctrl.height);
        ctrl.unreachable = false;
        this.refreshLive();
        this.pendingFuel = 0;
        if (ctrl.handler >= 0) ctrl.legacyCatches.push(op === 0x07 ? CatchKind.Catch : CatchKind.CatchAll, tag, pad, this.slotOf(ctrl.height) * 2);
        this.pushTypes(tag >= 0 ? this.ctx.tags[tag]!.params : []);
        // The clause starts a new straight-line run (unwinding reaches it), so its unit of fuel
        // is charged in that run, here, not where the instruction is dispatched (CHARGED_ON_DISPATCH).
        this.charge();
        return;
      }
      case 0x18: { // delegate
        const ctrl = this.top;
        if (ctrl.kind !== Kind.Try) this.invalid('delegate without a matching try');
        const depth = r.u32();
        if (depth >= this.ctrls.length - 1) this.invalid('unknown label');
        if (ctrl.handler >= 0) {
          // Exceptions of the body go on to the handler of the labelled block (outward from it).
          this.handlers[ctrl.handler * HANDLER_STRIDE + Handler.Next] = this.enclosingHandler(this.ctrls.length - 2 - depth);
        }
        this.endBlock();
        return;
      }
      case 0x09: { // rethrow
        const depth = r.u32();
        if (depth >= this.ctrls.length) this.invalid('unknown label');
        const target = this.ctrls[this.ctrls.length - 1 - depth]!;
        if (target.kind !== Kind.Catch) this.invalid('invalid rethrow label');
        if (this.live) this.emit3(Op.ThrowRef, this.handlers[target.handler * HANDLER_STRIDE + Handler.ExnSlot]!, 0, this.takeFuel());
        this.setUnreachable();
        return;
      }
    }
  }

  private tagIndex(): number {
    const t = this.r.u32();
    if (t >= this.ctx.tags.length) this.invalid(`unknown tag ${t}`);
    return t;
  }

  /**
   * Emits the landing pad of a try_table catch clause to `target`, whose values (`types`) the
   * unwinder writes from the label's height on; returns its position. A branch to the label:
   * a jump, or to the function's label a return.
   */
  private catchPad(target: Control, types: readonly ValType[]): number {
    const pad = this.out.length;
    const slots = rowWords(types) / 2;
    const from = this.offs[target.height]!;
    if (from + slots > this.maxTemp) this.maxTemp = from + slots;
    if (target.kind === Kind.Function) {
      this.out.push4(Op.Return, this.slotOf(target.height) * 2, slots * 2, 0);
    } else {
      this.out.push3(Op.Jump, target.kind === Kind.Loop ? target.loopPc : -1, 0);
      if (target.kind !== Kind.Loop) target.fixups.push(this.out.length - 2);
    }
    return pad;
  }

  /** The handler of the innermost try_table or legacy try body at or outside control `index`; -1 for none. */
  private enclosingHandler(index: number): number {
    for (let i = index; i >= 0; i--) {
      const c = this.ctrls[i]!;
      if (c.kind === Kind.TryTable || c.kind === Kind.Try) return c.handler;
    }
    return -1;
  }

  /** Starts the handler record of a body that begins here; its end and catches come later. */
  private openHandler(exnSlot: number): number {
    const index = this.handlers.length / HANDLER_STRIDE;
    const parent = this.enclosingHandler(this.ctrls.length - 1);
    this.handlers.push(this.out.length, -1, parent, parent, 0, 0, exnSlot, 0);
    return index;
  }

  /** At the end of a try_table or legacy try: the end of its range, and a legacy try's catch clauses. */
  private closeHandler(ctrl: Control): void {
    if (ctrl.handler < 0) return;
    const at = ctrl.handler * HANDLER_STRIDE;
    if (ctrl.kind === Kind.TryTable || ctrl.kind === Kind.Try) this.handlers[at + Handler.End] = this.out.length;
    if (ctrl.kind === Kind.Try || ctrl.kind === Kind.Catch) {
      this.handlers[at + Handler.CatchStart] = this.catches.length / CATCH_STRIDE;
      this.catches.push(...ctrl.legacyCatches);
      this.handlers[at + Handler.CatchEnd] = this.catches.length / CATCH_STRIDE;
    }
  }

  private requireDataSegment(seg: number): void {
    const count = this.ctx.ir.dataCount;
    if (count === null) {
      // The binary format requires the section wherever these instructions appear.
      if (seg < this.ctx.ir.data.length) throw new DecodeError('data count section required', this.r.pos);
      this.invalid(`unknown data segment ${seg}`);
    }
    if (seg >= count) this.invalid(`unknown data segment ${seg}`);
  }
}

/** i32 operations `c op x` that equal `x op' c`, as op -> op'. */
const SWAPPED_OPERANDS: ReadonlyMap<number, number> = new Map([
  [0x6a, 0x6a], [0x6c, 0x6c], [0x71, 0x71], [0x72, 0x72], [0x73, 0x73], // add mul and or xor
  [0x46, 0x46], [0x47, 0x47], // eq ne
  [0x48, 0x4a], [0x49, 0x4b], [0x4a, 0x48], [0x4b, 0x49], // lt <-> gt
  [0x4c, 0x4e], [0x4d, 0x4f], [0x4e, 0x4c], [0x4f, 0x4d], // le <-> ge
]);

/** The constant-operand opcode for an i32 binary or comparison opcode, or -1. */
function immediateForm(op: number): number {
  if (op >= I32_COMPARE_FIRST && op <= I32_COMPARE_LAST) return Op.I32CompareImmBase + (op - I32_COMPARE_FIRST);
  const i = (IMM_BINARY as readonly number[]).indexOf(op);
  return i >= 0 ? Op.I32BinaryImmBase + i : -1;
}

/**
 * The I64ShiftImmBase form and its k for i64 shift or rotation `op` (0x86-0x8a) by `count`,
 * or null where the result is the operand (a count of 0 modulo 64). Each form covers the
 * counts for which one formula holds: 1..31 (k = count) or 32..63 (k = count - 32); a
 * rotation right by c is one left by 64 - c, and a rotation by 32 swaps the halves.
 */
export function i64ShiftForm(op: number, count: number): [number, number] | null {
  let n = count & 63;
  if (op === 0x8a) n = (64 - n) & 63;
  if (n === 0) return null;
  const high = n >= 32;
  const k = n & 31;
  switch (op) {
    case 0x86: return [high ? I64ShiftForm.ShlHigh : I64ShiftForm.Shl, k];
    case 0x87: return [high ? I64ShiftForm.ShrSHigh : I64ShiftForm.ShrS, k];
    case 0x88: return [high ? I64ShiftForm.ShrUHigh : I64ShiftForm.ShrU, k];
    default: return n === 32 ? [I64ShiftForm.SwapHalves, 0] : [high ? I64ShiftForm.RotlHigh : I64ShiftForm.Rotl, k];
  }
}

function isReinterpret(op: number): boolean {
  return op >= 0xbc && op <= 0xbf;
}
