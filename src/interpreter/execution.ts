/**
 * One invocation of a function, as a resumable state machine.
 *
 * WebAssembly calls never recurse on the JavaScript stack: frames live in `frames` as
 * (return pc, return base, instance id) triples and values in one growable stack buffer.
 * `resume()` runs the dispatch loop (interpreter.ts) until the function returns, the fuel
 * slice is spent, a host function was called, or an asynchronous host call is pending; all
 * of these leave the state here, so the caller may yield to the event loop in between.
 */
import {
  CATCH_STRIDE, CatchClause, CatchKind, FUNC_INFO_STRIDE, FuncInfo, Handler, HANDLER_STRIDE, entryWork, readyFrame,
} from './compiler.js';
import { type BacktraceFrame, Trap, TrapKind, UncaughtException } from './errors.js';
import { Op } from './opcodes.js';
import type { Instance } from './instance.js';
import { indirectCallee, runLoop } from './interpreter.js';
import { CopyInPieces, FillInPieces, InSequence, WorkMeter } from './pieces.js';
import { type StackViews, returnStack, stackViews, takeStack } from './stack-pool.js';
import { hostBuffer } from './host-buffers.js';
import type { FuelProfiler } from '../inspect/profile.js';
import { ExceptionInst, type FuncInst, NULL_REF, type Store, type TagInst } from './store.js';
import { isRefType, rowWords, V128, type ValType, valTypeName, valueWords } from './types.js';
import { FuncRef, WasmValue } from './values.js';

export type Status = 'done' | 'paused' | 'pending';

/** What watches a module compiled with probes (Store.monitor; src/inspect). */
export interface InstructionMonitor {
  /**
   * Probe `site` (CompiledFunctions.probes) of `ex.inst`'s module is reached: the instruction
   * there is about to run, its frame's words at `base` of `ex.s32`, `fsp` the height of
   * `ex.frames` (three words a frame; `ex`'s own fields are not up to date while it runs).
   * Returns null to let it run, or a promise that holds the execution pending before the probe
   * until it settles (a debugger's pause); the probe is then reached again.
   */
  probe(site: number, ex: Execution, base: number, fsp: number): Promise<void> | null;
}

/** Fuel an execution's first function's entry costs (charged when the execution is made), as any call's entry. */
export const ENTRY_FUEL = 1;

/**
 * What a tail call did: entered a WebAssembly function in place of the caller's frame, or
 * called a host function (it has no frame to replace) whose results are in place or pending.
 */
export type TailCallOutcome = 'entered' | 'host-done' | 'host-pending';

/** Room beyond the first frame, so that short runs never grow the stack. */
const STACK_SLACK_WORDS = 256;
const MAX_STACK_WORDS = 1 << 22;
/**
 * Frames the call stack starts with (3 words each): 5 keeps it at 60 bytes, within what V8
 * stores inside the typed array object itself. From 16 frames (192 bytes) on, each run paid
 * for a separate backing store, which made V8 collect garbage far more often.
 */
const INITIAL_FRAMES = 5;

/**
 * How long past its deadline a run may go on from host calls to its next check point (ms,
 * from the first resume that found the deadline passed): within the slice overrun the driver
 * allows (SLICE_OVERRUN_MS), and far more than a guest's own instructions between two check
 * points take.
 */
const DEADLINE_GRACE_MS = 2;

/** The stack of an execution that has given its own back. */
const NO_STACK = stackViews(new ArrayBuffer(0));

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export class Execution {
  /** The value stack; s32, f32 and f64 are its views, kept in fields for the dispatch loop. */
  private stack: StackViews;
  s32: Int32Array;
  f32: Float32Array;
  f64: Float64Array;
  frames: Int32Array;
  fsp = 0;
  pc = 0;
  base = 0;
  inst: Instance | null;
  /** The memory that memory instructions use (opcodes.ts, UseMemory): 0 but for one instruction at a time. */
  memoryIndex = 0;
  /**
   * The slice's fuel left, handed to translated code (src/jit), which counts it as the dispatch
   * loop does, and back from it where it did not return to a translated caller, with its answer
   * (translate.ts, ABNORMAL).
   */
  jitLeft = 0;
  answer = 0;
  /** While translated code runs, the slice's fuel beyond its `left` (translate.ts, CLOCK_FUEL). */
  fuelReserve = 0;
  /**
   * The interpreter may go back into the JavaScript tier at `pc` (runLoop) or at the next
   * return (runStretch): the execution has not started yet, or translated code has just left
   * it one instruction (a host call, memory.grow, a call it could not make, a callee's
   * return) or a paused callee's entry, after which the function's translation can go on;
   * or the interpreter paused at a function's entry or loop header to go on with its
   * translation, or to enter the translation just made, or went back to the top after a step
   * that grew the code (interpreter.ts).
   * Without this, a loop left mid-body would go on in the interpreter until it ended: its
   * back-edges skip the header, where the tier is entered.
   */
  rejoin = false;
  /**
   * Set when the execution paused because a function it was about to enter had just been
   * translated (src/jit), or to go on translating it: its pace is about to change, and the
   * slice spent translating says nothing of it; the driver should measure it anew. Whoever
   * reads it clears it.
   */
  freshCode = false;
  /**
   * When (performance.now()) the current slice should end, whatever fuel it has left: the
   * JavaScript tier looks at it now and then (the driver sets it; never, by default).
   */
  sliceDeadline = Infinity;
  /** The current slice's planned length (ms; the driver sets it), of which a translation under way may take half (JitTable.advanceWaiting). */
  sliceMs = 0;
  /** Set by invokeSync: no event loop to wait on (see atomicWaitSuspend). */
  synchronous = false;
  /**
   * Where the execution was when an instruction threw, recorded by the code that ran it (the
   * dispatch loop, or translated code: the innermost first): the position of the instruction,
   * the frame array's top and the instance. Null until something throws.
   */
  trapAt: { pc: number; fsp: number; inst: Instance } | null = null;
  /**
   * The run's fuel profile (src/inspect/profile.ts), told of every change of function; null
   * when no profile was asked for. A profiled execution stays in the interpreter.
   */
  profiler: FuelProfiler | null = null;
  /**
   * Told of every instruction of a module compiled with probes (CompileOptions.probes) before
   * it runs: coverage, the trace, the debugger (src/inspect). The store's when the execution
   * is made; null when nothing watches. A watched execution stays in the interpreter.
   */
  readonly monitor: InstructionMonitor | null;
  /**
   * Whether its functions may run in the JavaScript tier: the store uses it, and nothing
   * watches the execution (a profile, a monitor), since only the interpreter tells them.
   */
  mayUseTier(): boolean {
    return this.store.jitThreshold !== Infinity && this.profiler === null && this.monitor === null;
  }

  /** A memory.atomic.wait is letting its timeout pass: pending, with no result to deliver. */
  private waiting = false;
  private waitOver = false;
  /** How much fuel the next resume() may spend before pausing. */
  sliceFuel = Infinity;
  results: WasmValue[] = [];
  /** The promise of a pending asynchronous host call; await it, then resume(). */
  pending: Promise<void> | null = null;
  private settled: Settled | null = null;
  /** The host function whose promise is pending, and where its results go. */
  private pendingHost: FuncInst | null = null;
  private pendingBase = 0;
  /** A host call has returned (or its promise settled) since the last resume: no check point here. */
  private afterHostCall = false;
  /** When a resume first went on past the deadline after a host call (step()); -1 before. */
  private graceSince = -1;
  /** The last pause was at a check point (runLoop's pauseOrRunOut): there, a deadline ends the run. */
  pausedAtCheckPoint = false;
  private finished = false;
  private failure: { error: unknown } | null = null;
  /**
   * Bulk work (bytes moved, filled, zeroed), apart from fuel: it pauses the execution when
   * there is much of it, and keeps an instruction's large work to be done in pieces (pieces.ts).
   */
  readonly meter = new WorkMeter();
  /** Fuel charged at entry must be checked before the first instruction runs. */
  private entryCheck = true;
  private readonly resultTypes: readonly ValType[];

  constructor(readonly store: Store, readonly func: FuncInst, args: readonly WasmValue[]) {
    const params = func.type.params;
    if (args.length !== params.length) {
      throw new TypeError(`expected ${params.length} arguments, got ${args.length}`);
    }
    this.resultTypes = func.type.results;
    this.monitor = store.monitor;
    // (A function translated on its first call is translated here: its frame's size is known then.)
    func.instance?.module.functions.ensureTranslated(func.index, this.meter);
    const frameWords = func.instance === null ? 0 : func.instance.module.functions.info[func.index * FUNC_INFO_STRIDE + FuncInfo.FrameEnd]!;
    const words = Math.max(frameWords, rowWords(params), rowWords(this.resultTypes)) + STACK_SLACK_WORDS;
    this.stack = NO_STACK;
    this.s32 = NO_STACK.s32;
    this.f32 = NO_STACK.f32;
    this.f64 = NO_STACK.f64;
    this.useStack(takeStack(words));
    this.frames = new Int32Array(Math.min(INITIAL_FRAMES, store.maxCallDepth + 1) * 3);
    for (let i = 0; i < args.length; i++) {
      if (args[i]!.type !== params[i]) throw new TypeError(`argument ${i} has the wrong type`);
    }
    this.writeRow(0, args);
    this.inst = func.instance;
    // The bottom frame returns to pc -1, which ends the execution.
    this.frames[0] = -1;
    this.frames[1] = 0;
    this.frames[2] = -1;
    this.fsp = 3;
    if (func.instance !== null) {
      this.prepareFrame(func.instance, func.index, 0);
      this.rejoin = true;
    }
    store.fuel -= ENTRY_FUEL;
  }

  resume(): Status {
    if (this.failure !== null) throw this.failure.error;
    try {
      return this.step();
    } catch (error) {
      // A trap or a host exception ends the execution for good.
      if (error instanceof Trap && error.backtrace === undefined) error.backtrace = this.backtrace();
      this.failure = { error };
      this.releaseStack();
      throw error;
    }
  }

  private useStack(stack: StackViews): void {
    this.stack = stack;
    this.s32 = stack.s32;
    this.f32 = stack.f32;
    this.f64 = stack.f64;
  }

  /** Gives the value stack back for another execution; this one will not touch it again. */
  private releaseStack(): void {
    returnStack(this.stack);
    this.useStack(NO_STACK);
  }

  private step(): Status {
    if (this.finished) return 'done';
    const store = this.store;
    if (this.settled !== null) {
      this.deliverSettled();
      if (this.finished) return 'done';
    }
    if (store.engine.epoch >= store.epochDeadline) {
      // The epoch moves only between slices, so a resume looks at it for the check point the
      // run paused at. Right after a host call the run is at none: it goes on to the next (a
      // function's entry, a loop header), where a slice of no fuel pauses it, and traps there —
      // wasmtime's point — unless it returns first; other pauses on the way (a translation, a
      // piece of bulk work) are no check points either. For DEADLINE_GRACE_MS at most: host
      // calls with no check point between them (straight-line code may hold thousands) would
      // otherwise outlast the deadline by all their time.
      if (this.deadlineEndsHere) throw new Trap(TrapKind.Interrupt);
      const now = performance.now();
      if (this.graceSince < 0) this.graceSince = now;
      else if (now - this.graceSince > DEADLINE_GRACE_MS) throw new Trap(TrapKind.Interrupt);
      this.sliceFuel = 0;
    }
    this.afterHostCall = false;
    this.pausedAtCheckPoint = false;
    if (this.entryCheck) {
      this.entryCheck = false;
      if (store.fuel <= 0) throw new Trap(TrapKind.OutOfFuel);
      if (this.inst === null) {
        if (!this.callHost(this.func, 0)) return 'pending';
        this.finish();
        return 'done';
      }
    }
    if (this.pendingHost !== null) return 'pending';
    if (this.waiting) {
      if (!this.waitOver) return 'pending';
      this.waiting = false;
      this.pending = null;
    }
    // An instruction whose work goes on in pieces: one piece per resume(), so the driver
    // looks at the clock between them.
    if (!this.meter.continuePending()) return 'paused';
    this.meter.reset();
    // Whatever the execution was pending on (a host call, a wait, a monitor's hold) is over.
    this.pending = null;
    const status = runLoop(this);
    if (status === 'done') this.finish();
    return status;
  }

  private finish(): void {
    this.finished = true;
    this.results = this.readRow(0, this.resultTypes);
    this.releaseStack();
  }

  /**
   * Calls a host function with the arguments at `base` (words). Returns true when it
   * finished synchronously (its results are in place), false when its promise is pending.
   */
  callHost(f: FuncInst, base: number): boolean {
    const args = this.readRow(base, f.type.params);
    const caller = { instance: this.inst };
    const out = f.host!(args, caller);
    if (out instanceof Promise) {
      this.pendingHost = f;
      this.pendingBase = base;
      this.pending = out.then(
        (value) => this.settle({ ok: true, value }),
        (error: unknown) => this.settle({ ok: false, error }),
      );
      return false;
    }
    this.writeHostResults(f, base, out);
    this.afterHostCall = true;
    return true;
  }

  private settle(settled: Settled): void {
    this.settled = settled;
    this.afterHostCall = true;
  }

  /**
   * Whether the run's deadline may end it where it stands (the driver's question while it
   * waits, step()'s on resuming): on a host call or a wait still in flight, or anywhere but on
   * its way from a host call that has returned to its next check point (step()).
   */
  get deadlineEndsHere(): boolean {
    if ((this.pendingHost !== null && this.settled === null) || (this.waiting && !this.waitOver)) return true;
    return !(this.afterHostCall || (this.graceSince >= 0 && !this.pausedAtCheckPoint));
  }

  private deliverSettled(): void {
    const settled = this.settled!;
    const f = this.pendingHost!;
    this.settled = null;
    this.pending = null;
    this.pendingHost = null;
    if (!settled.ok) throw settled.error;
    this.writeHostResults(f, this.pendingBase, settled.value);
    if (this.inst === null) this.finish();
  }

  private writeHostResults(f: FuncInst, base: number, out: unknown): void {
    const types = f.type.results;
    if (!Array.isArray(out) || out.length !== types.length) {
      throw new TypeError(`host function returned ${Array.isArray(out) ? out.length : 'a non-array'} values, expected ${types.length}`);
    }
    this.ensureStack(base + rowWords(types));
    out.forEach((v: unknown, i) => {
      if (!(v instanceof WasmValue) || v.type !== types[i]) throw new TypeError(`host function result ${i} has the wrong type`);
    });
    this.writeRow(base, out as WasmValue[]);
  }

  /** Reads values of `types` laid out in a row from word `word` (types.ts, valueWords). */
  private readRow(word: number, types: readonly ValType[]): WasmValue[] {
    const values: WasmValue[] = [];
    const s32 = this.s32;
    for (const type of types) {
      if (isRefType(type)) values.push(this.store.idToRef(type, s32[word]!));
      else if (type === V128) values.push(WasmValue.v128Words(s32[word]!, s32[word + 1]!, s32[word + 2]!, s32[word + 3]!));
      else values.push(WasmValue.fromSlot(type, s32[word]!, s32[word + 1]!));
      word += valueWords(type);
    }
    return values;
  }

  /** Writes `values` in a row from word `word`. */
  private writeRow(word: number, values: readonly WasmValue[]): void {
    const s32 = this.s32;
    for (const v of values) {
      if (isRefType(v.type)) {
        s32[word] = this.store.refToId(v);
      } else {
        s32[word] = v.lo;
        s32[word + 1] = v.hi;
        if (v.type === V128) {
          s32[word + 2] = v.w2;
          s32[word + 3] = v.w3;
        }
      }
      word += valueWords(v.type);
    }
  }

  /**
   * Enters function `index` of `inst`, its arguments at `callBase`, for the calls the
   * dispatch loop leaves to this slower path: into another instance, or when the value stack
   * or the frame array must grow first. Pushes the frame of the caller — `this.inst`, to go on
   * at `returnPc` with base `callerBase`; `fsp` is the dispatch loop's — and leaves the
   * execution at the callee's first instruction. Charging the entry's fuel is the caller's job.
   */
  enterFunction(inst: Instance, index: number, callBase: number, returnPc: number, callerBase: number, fsp: number): void {
    if (fsp === this.frames.length) this.growFrames();
    this.frames[fsp] = returnPc;
    this.frames[fsp + 1] = callerBase;
    this.frames[fsp + 2] = this.inst!.id;
    this.fsp = fsp + 3;
    this.prepareFrame(inst, index, callBase);
    this.inst = inst;
  }

  /**
   * The `TailCall` instruction at `pc` (opcodes.ts), its fuel charged, the state saved here:
   * finds the callee (trapping as call_indirect does), moves the arguments down to this
   * frame's base and enters the callee there, so the frame stack does not grow. A host callee
   * is called as by an ordinary call; the `Return` after the instruction returns its results.
   */
  tailCall(code: Int32Array, pc: number): TailCallOutcome {
    const inst = this.inst!;
    const store = this.store;
    const fid = code[pc + 1] === 0
      ? inst.funcIds[code[pc + 2]!]!
      : indirectCallee(inst, code[pc + 2]!, code[pc + 3]!, this.s32[this.base + code[pc + 5]!]! >>> 0);
    const callee = store.funcs[fid]!;
    const callBase = this.base + code[pc + 4]!;
    if (callee.instance === null) {
      this.pc = pc + 7;
      return this.callHost(callee, callBase) ? 'host-done' : 'host-pending';
    }
    const functions = callee.instance.module.functions;
    functions.ensureTranslated(callee.index, this.meter);
    const words = functions.info[callee.index * FUNC_INFO_STRIDE + FuncInfo.ParamsEnd]!;
    this.s32.copyWithin(this.base, callBase, callBase + words);
    this.inst = callee.instance;
    this.prepareFrame(callee.instance, callee.index, this.base);
    return 'entered';
  }

  /**
   * AtomicWaitHook (atomic-dispatch.ts): a memory.atomic.wait nobody can wake (one agent) must
   * let `timeoutNs` pass. The execution is pending on a timer meanwhile, so the host's event
   * loop runs; a wait with no timeout pends for ever, and the run ends at its deadline as any
   * pending run does. A synchronous invocation cannot wait: a finite wait counts as elapsed,
   * an endless one is a trap (Interrupt, what the deadline would have given).
   */
  atomicWaitSuspend(timeoutNs: number): boolean {
    if (this.synchronous) {
      if (timeoutNs === Infinity) throw new Trap(TrapKind.Interrupt);
      return false;
    }
    this.waiting = true;
    this.waitOver = false;
    this.pending = timeoutNs === Infinity
      ? new Promise<void>(() => {})
      : new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutNs / 1e6);
        // A run that ends first (its deadline) must not keep the process alive for the timer.
        (timer as { unref?: () => void }).unref?.();
      }).then(() => {
        this.waitOver = true;
      });
    return true;
  }

  /**
   * The `Throw` or `ThrowRef` instruction at `pc` (opcodes.ts), its fuel charged, the frame's
   * base, fsp and instance saved here: makes or finds the exception and throws it.
   */
  throwFrom(code: Int32Array, pc: number): void {
    const inst = this.inst!;
    let exn: ExceptionInst;
    if (code[pc] === Op.Throw) {
      const tag = inst.tags[code[pc + 1]!]!;
      const from = this.base + code[pc + 2]!;
      exn = new ExceptionInst(tag, this.s32.slice(from, from + rowWords(tag.type.params)));
    } else {
      const id = this.s32[this.base + code[pc + 1]!]!;
      if (id === NULL_REF) throw new Trap(TrapKind.NullReference);
      exn = this.store.externs[id] as ExceptionInst;
    }
    this.throwException(exn, pc);
  }

  /**
   * Throws `exn` from code position `at` of the current frame: the innermost handler whose
   * catch clause takes it, in this frame and then in its callers' (frames are dropped as it
   * goes), gets its payload (and reference) and goes on at the clause's pad. An exception no
   * handler takes ends the execution as an UncaughtException trap.
   */
  private throwException(exn: ExceptionInst, at: number): void {
    const store = this.store;
    let inst = this.inst!;
    let base = this.base;
    let fsp = this.fsp;
    for (;;) {
      const { handlers, catches } = inst.module.functions;
      for (let h = innermostHandler(handlers, at); h >= 0; h = handlers[h * HANDLER_STRIDE + Handler.Next]!) {
        const hAt = h * HANDLER_STRIDE;
        for (let c = handlers[hAt + Handler.CatchStart]!, e = handlers[hAt + Handler.CatchEnd]!; c < e; c++) {
          const cAt = c * CATCH_STRIDE;
          const kind = catches[cAt + CatchClause.Kind]!;
          const withPayload = kind === CatchKind.Catch || kind === CatchKind.CatchRef;
          if (withPayload && inst.tags[catches[cAt + CatchClause.Tag]!] !== exn.tag) continue;
          let dst = base + catches[cAt + CatchClause.Dst]!;
          this.ensureStack(dst + exn.payload.length + 2);
          if (withPayload) {
            this.s32.set(exn.payload, dst);
            dst += exn.payload.length;
          }
          if (kind === CatchKind.CatchRef || kind === CatchKind.CatchAllRef) this.s32[dst] = store.exceptionId(exn);
          const slot = handlers[hAt + Handler.ExnSlot]!;
          if (slot >= 0) this.s32[base + slot] = store.exceptionId(exn);
          this.pc = catches[cAt + CatchClause.Pad]!;
          this.base = base;
          this.fsp = fsp;
          this.inst = inst;
          return;
        }
      }
      // No handler here: on to the caller, at its call instruction.
      fsp -= 3;
      const returnPc = this.frames[fsp]!;
      if (returnPc < 0) throw new UncaughtException(exn, describeTag(this.inst!, exn.tag));
      at = returnPc - 1;
      base = this.frames[fsp + 1]!;
      inst = store.instances[this.frames[fsp + 2]!]!;
    }
  }

  /**
   * Readies function `index`'s frame at `base`: stack room, zeroed locals, constants; pc and
   * base. A function not translated yet is translated first (the dispatch loop's calls into
   * one come here: CompiledFunctions).
   */
  private prepareFrame(inst: Instance, index: number, base: number): void {
    inst.module.functions.ensureTranslated(index, this.meter);
    const info = inst.module.functions.info;
    const at = index * FUNC_INFO_STRIDE;
    this.meter.note(entryWork(info, at) * 4);
    this.ensureStack(base + info[at + FuncInfo.FrameEnd]!, base);
    readyFrame(this.s32, base, inst.module.functions, index);
    this.pc = info[at + FuncInfo.Entry]!;
    this.base = base;
  }

  /**
   * Makes the value stack at least `words` long, or traps when that is past the limit. Growing,
   * it doubles, into a buffer whose every word it then writes: on a VM slow to map fresh pages
   * (2026-12-01), copying 8 MiB into a fresh 16 MiB buffer at once held the event loop for 42-45
   * ms; a calloc'd buffer could be zeroed in one go by the C library (hostBuffer's note: up to 60
   * ms for 16 MiB there); and a guest deepening into untouched pages ran at a fraction of the
   * pace its fuel promised the driver. So the buffer comes unzeroed where the host allows
   * (hostBuffer), and only the words from `settled` to the old length are copied at once, with
   * the new frame's words up to `words` zeroed; the rest goes through the meter like a bulk
   * instruction's work (in pieces when large, the execution pausing until it is done;
   * pieces.ts): the words below `settled` copied, those past `words` zeroed. A caller passes
   * `settled` only where nothing reads below it before the execution runs on: a frame being
   * entered there, its callers' frames all below it, every call path pausing after an entry
   * when the meter says so.
   */
  ensureStack(words: number, settled = 0): void {
    if (words <= this.s32.length) return;
    if (words > MAX_STACK_WORDS) throw new Trap(TrapKind.StackOverflow);
    let size = this.s32.length * 2;
    while (size < words) size *= 2;
    size = Math.min(size, MAX_STACK_WORDS);
    const oldStack = this.stack;
    const old = oldStack.s32;
    this.useStack(stackViews(hostBuffer(size * 4).buffer));
    this.s32.set(old.subarray(settled), settled);
    this.s32.fill(0, old.length, words);
    const rest = [new CopyInPieces(this.s32, 0, old, 0, settled), new FillInPieces(this.s32, words, 0, size - words)];
    this.meter.perform(new InSequence(rest, () => returnStack(oldStack)), (settled + size - words) * 4);
  }

  /**
   * The frames the execution is in — where it trapped (trapAt), or else where it stands —
   * innermost first: each function and the byte offset in its module of the instruction it is
   * at (for a caller, its call).
   */
  backtrace(): BacktraceFrame[] {
    const at = this.trapAt ?? (this.inst === null ? null : { pc: this.pc, fsp: this.fsp, inst: this.inst });
    if (at === null) return [];
    const out = [functionAt(at.inst, at.pc)];
    for (const caller of this.callers(at.fsp)) {
      if (out.length > this.store.maxCallDepth) break;
      out.push(functionAt(caller.inst, caller.callPc));
    }
    return out;
  }

  /**
   * The callers of the frame whose record tops `frames` at `fsp`, innermost first: the position
   * of each one's call instruction (its return position is the word after), its frame's base and
   * its instance. The bottom frame's record (return position -1) ends them.
   */
  *callers(fsp: number): Generator<{ callPc: number; base: number; inst: Instance }> {
    for (let f = fsp - 3; f >= 0; f -= 3) {
      const returnPc = this.frames[f]!;
      if (returnPc < 0) return;
      yield { callPc: returnPc - 1, base: this.frames[f + 1]!, inst: this.store.instances[this.frames[f + 2]!]! };
    }
  }

  /** Makes room for one more frame, or traps past the store's call depth. */
  private growFrames(): void {
    const depth = this.frames.length / 3;
    if (depth >= this.store.maxCallDepth + 1) throw new Trap(TrapKind.StackOverflow);
    const frames = new Int32Array(Math.min(depth * 2, this.store.maxCallDepth + 1) * 3);
    frames.set(this.frames);
    this.frames = frames;
  }
}

/**
 * The innermost handler (compiler.ts, Handler) whose range holds code position `at`, or -1:
 * handlers are in the order their ranges start and nest, so it is the last to start at or
 * before `at`, or one of its parents.
 */
function innermostHandler(handlers: Int32Array, at: number): number {
  let lo = 0;
  let hi = handlers.length / HANDLER_STRIDE;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (handlers[mid * HANDLER_STRIDE + Handler.Start]! <= at) lo = mid + 1;
    else hi = mid;
  }
  let h = lo - 1;
  while (h >= 0 && handlers[h * HANDLER_STRIDE + Handler.End]! <= at) h = handlers[h * HANDLER_STRIDE + Handler.Parent]!;
  return h;
}

/** A tag as an uncaught exception's message names it: by an export of `inst`, else by its type. */
function describeTag(inst: Instance, tag: TagInst): string {
  for (const [name, value] of inst.exports) if (value === tag) return `tag "${name}"`;
  return `a tag of type (${tag.type.params.map(valTypeName).join(', ')})`;
}

/** Prepares an execution of `func` with `args`; nothing runs until resume(). */
export function invoke(store: Store, func: FuncRef, args: readonly WasmValue[]): Execution {
  const f = func instanceof FuncRef && func.id !== NULL_REF ? store.funcs[func.id] : undefined;
  if (f === undefined) throw new TypeError('not a function of this store');
  return new Execution(store, f, args);
}

/** Runs `func` to completion without yielding; asynchronous host functions are refused. */
export function invokeSync(store: Store, func: FuncRef, args: readonly WasmValue[]): WasmValue[] {
  const execution = invoke(store, func, args);
  execution.synchronous = true;
  for (;;) {
    const status = execution.resume();
    if (status === 'done') return execution.results;
    if (status === 'pending') throw new TypeError('an asynchronous host function cannot be called synchronously');
  }
}

/** The function of `inst` whose code holds position `pc`, and the module offset it came from. */
export function functionAt(inst: Instance, pc: number): BacktraceFrame {
  const module = inst.module;
  const offsets = module.functions.offsets;
  const lo = module.functionIndexAt(pc);
  // The last (code position, offset) pair at or before pc.
  let a = 0;
  let b = offsets.length / 2 - 1;
  while (a < b) {
    const mid = (a + b + 1) >> 1;
    if (offsets[mid * 2]! <= pc) a = mid;
    else b = mid - 1;
  }
  const funcName = module.ir.functionNames.get(lo);
  const moduleName = module.ir.moduleName;
  return {
    funcIndex: lo,
    offset: offsets.length > 0 ? offsets[a * 2 + 1]! : 0,
    ...(funcName !== undefined ? { funcName } : {}),
    ...(moduleName !== null ? { moduleName } : {}),
  };
}
