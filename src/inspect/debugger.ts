/**
 * The stepping debugger's engine side: a monitor (probes.ts) that decides at every
 * instruction whether to pause there — a breakpoint, or the end of a step — and, when it
 * does, holds the execution pending before the instruction (the interpreter's Probe
 * instruction returns its promise) and reads the frames: each one's function, the offset of
 * its instruction (a caller's: its call), the locals and the exact operand stack.
 *
 * A pause is a pending execution, as an asynchronous host call is: the driver waits on it and
 * the event loop runs meanwhile. Nothing is charged for it, so a debugged run consumes the
 * fuel of an undebugged one; the sandbox stops the deadline's clock while paused (the
 * watchdog's pause()).
 */
import type { Execution, InstructionMonitor } from '../interpreter/execution.js';
import { functionAt } from '../interpreter/execution.js';
import { ByteReader } from '../interpreter/reader.js';
import type { WasmValue } from '../interpreter/values.js';
import type { ProbedModule } from './probes.js';

/** One frame of a paused guest, innermost first, its values as `V`. */
export interface PausedFrame<V = WasmValue> {
  readonly funcIndex: number;
  /** As a backtrace names it: `module!function`. */
  readonly funcName: string;
  /** Byte offset in the module of the instruction about to run (a caller's: its call). */
  readonly offset: number;
  /** That instruction, as the text format writes it. */
  readonly instruction: string;
  /** Parameters, then declared locals, by index. */
  readonly locals: readonly V[];
  /**
   * The WebAssembly operand stack, bottom first, entry for entry as the specification has it
   * (a caller's: without the arguments of its call).
   */
  readonly stack: readonly V[];
}

/** Where to pause next, besides breakpoints. */
export type StepMode =
  /** At breakpoints only. */
  | 'continue'
  /** At the next instruction, wherever it is. */
  | 'step'
  /** At the next instruction of this frame or of a caller (calls run through). */
  | 'over'
  /** At the next instruction of a caller. */
  | 'out';

/** The opcode of call_indirect, which takes a table index besides the arguments (its immediate: a type index). */
const CALL_INDIRECT = 0x11;

/** Frames shown at most; deeper ones are left out (a recursion thousands deep). */
export const MAX_PAUSED_FRAMES = 100;

export class DebugMonitor implements InstructionMonitor {
  private mode: StepMode = 'continue';
  /** The frame stack's height at the last pause (the step modes are relative to it); before the first, any step pauses. */
  private pausedFsp = Number.MAX_SAFE_INTEGER;
  /** Per probe site, 1 where a breakpoint is. */
  private readonly breakpoints: Uint8Array;
  /** Let the next probe pass: it is the one the execution was held at, reached again on release. */
  private passOnce = false;
  private release: (() => void) | null = null;

  constructor(
    readonly probed: ProbedModule,
    /** Told of each pause, with the frames, before the execution is held. */
    private readonly onPause: (frames: PausedFrame[]) => void,
  ) {
    this.breakpoints = new Uint8Array(probed.sites.length);
  }

  /** Whether the execution is held at a pause. */
  get paused(): boolean {
    return this.release !== null;
  }

  /** Pauses before the instruction at probe `site` whenever it is reached. */
  addBreakpoint(site: number): void {
    this.breakpoints[site] = 1;
  }

  clearBreakpoints(): void {
    this.breakpoints.fill(0);
  }

  /** Lets a held execution go on (or sets how a run not yet started pauses), until the next pause `mode` asks for. */
  resume(mode: StepMode): void {
    this.mode = mode;
    const release = this.release;
    if (release === null) return;
    this.release = null;
    this.passOnce = true;
    release();
  }

  probe(site: number, ex: Execution, base: number, fsp: number): Promise<void> | null {
    // Running to a breakpoint, at an instruction without one: the common case, first.
    if (this.mode === 'continue' && this.breakpoints[site] === 0 && !this.passOnce) return null;
    if (ex.inst!.module !== this.probed.module) return null;
    if (this.passOnce) {
      this.passOnce = false;
      return null;
    }
    if (this.breakpoints[site] === 0 && !this.stepEnds(fsp)) return null;
    this.pausedFsp = fsp;
    const frames = this.framesAt(site, ex, base, fsp);
    return new Promise<void>((resolve) => {
      this.release = resolve;
      this.onPause(frames);
    });
  }

  private stepEnds(fsp: number): boolean {
    switch (this.mode) {
      case 'continue': return false;
      case 'step': return true;
      case 'over': return fsp <= this.pausedFsp;
      case 'out': return fsp < this.pausedFsp;
    }
  }

  /** The frames of `ex`, held at probe `site` in the frame at `base` with `fsp` frames below. */
  private framesAt(site: number, ex: Execution, base: number, fsp: number): PausedFrame[] {
    const probed = this.probed;
    const store = ex.store;
    const here = probed.sites[site]!;
    const frames = [this.frame(here.funcIndex, here.offset, probed.stack(site, store, ex.s32, base), ex, base)];
    for (const caller of ex.callers(fsp)) {
      // A sandbox's guest is one instance; frames of any other module are not shown.
      if (frames.length >= MAX_PAUSED_FRAMES || caller.inst.module !== probed.module) break;
      const call = functionAt(caller.inst, caller.callPc);
      const callSite = probed.siteAt(call.funcIndex, call.offset);
      const stack = callSite < 0 ? [] : probed.stack(callSite, store, ex.s32, caller.base);
      frames.push(this.frame(call.funcIndex, call.offset, stack.slice(0, Math.max(0, stack.length - this.operandsOf(call.offset))), ex, caller.base));
    }
    return frames;
  }

  /**
   * How many operands the call instruction at `offset` takes: its callee's parameters (read
   * from the instruction, not from the frame above, which a tail call may have replaced), and
   * for call_indirect the table index too.
   */
  private operandsOf(offset: number): number {
    const module = this.probed.module;
    const bytes = module.ir.bytes;
    const index = new ByteReader(bytes, offset + 1).u32();
    if (bytes[offset] === CALL_INDIRECT) return module.ir.types[index]!.params.length + 1;
    return module.funcTypes[index]!.params.length;
  }

  private frame(funcIndex: number, offset: number, stack: WasmValue[], ex: Execution, base: number): PausedFrame {
    const probed = this.probed;
    return {
      funcIndex,
      funcName: probed.qualifiedName(funcIndex),
      offset,
      instruction: probed.instructions(funcIndex).get(offset) ?? '?',
      locals: probed.locals(funcIndex, ex.store, ex.s32, base),
      stack,
    };
  }
}
