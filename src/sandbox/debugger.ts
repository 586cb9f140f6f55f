/**
 * `Debugger`: a guest run that stops where it is asked to — at breakpoints, after a step —
 * and shows its frames, locals, operand stack, globals and memory while stopped. Made by
 * `sandbox.debug()`. The run is an ordinary sandboxed run (the same limits, fuel and
 * results) of the module compiled with a probe before every instruction; the engine side
 * is src/inspect/debugger.ts. While paused the guest is a pending execution: the event loop
 * runs, and the deadline's clock is stopped.
 */
import { DebugMonitor, type PausedFrame, type StepMode } from '../inspect/debugger.js';
import { ProbedModule } from '../inspect/probes.js';
import { functionNamed } from '../inspect/describe.js';
import { GuestMemory } from '../host/memory.js';
import type { EngineMemory } from '../host/memory.js';
import { isRefType, valTypeName } from '../interpreter/types.js';
import type { WasmValue } from '../interpreter/values.js';
import { SandboxError } from './errors.js';
import type { RunOutput } from './sandbox.js';
import { fromWasm, type Session } from './session.js';
import type { Value } from './value.js';

/** A reference value (funcref, externref, exnref), which `Value` does not carry: shown, not handed out. */
export interface RefValue {
  readonly type: 'funcref' | 'externref' | 'exnref';
  readonly isNull: boolean;
  toString(): string;
}

/** A value in a paused frame or a global. */
export type DebugValue = Value | RefValue;

/** One frame of the paused guest, innermost first (see PausedFrame). */
export type DebugFrame = PausedFrame<DebugValue>;

/** What a debugger command ends with. */
export type DebugEvent =
  | { readonly kind: 'paused'; readonly frames: readonly DebugFrame[] }
  | { readonly kind: 'finished'; readonly output: RunOutput }
  | { readonly kind: 'failed'; readonly error: SandboxError };

export interface DebugGlobal {
  readonly index: number;
  /** Its export name, when exported. */
  readonly name?: string;
  readonly type: string;
  readonly mutable: boolean;
  readonly value: DebugValue;
}

/** Where to break: a function (by index, export name or `name`-section name) and optionally the byte offset of one of its instructions. */
export interface BreakpointSpec {
  readonly func: number | string;
  readonly offset?: number;
}

export class Debugger {
  private readonly monitor: DebugMonitor;
  private started = false;
  private ended: DebugEvent | null = null;
  /** The pending command's resolution, while the guest runs. */
  private settle: ((event: DebugEvent) => void) | null = null;
  private lastFrames: readonly DebugFrame[] = [];

  /** @internal — use `sandbox.debug()`. */
  constructor(
    private readonly session: Session,
    /** Starts the run under the monitor: instantiation, the start function, the export. */
    private readonly run: (monitor: DebugMonitor) => Promise<RunOutput>,
  ) {
    const probed = ProbedModule.of(session.module);
    if (probed === null) throw new TypeError('Debugger: the module was not compiled with probes');
    this.monitor = new DebugMonitor(probed, (frames) => {
      this.session.holdClock(true);
      this.lastFrames = frames.map(debugFrame);
      this.finishCommand({ kind: 'paused', frames: this.lastFrames });
    });
  }

  /** `'ready'` (not started), `'running'` (a command is under way), `'paused'` or `'ended'`. */
  get state(): 'ready' | 'running' | 'paused' | 'ended' {
    if (this.ended !== null) return 'ended';
    if (!this.started) return 'ready';
    return this.monitor.paused ? 'paused' : 'running';
  }

  /** The frames of the last pause (empty before the first). */
  get frames(): readonly DebugFrame[] {
    return this.lastFrames;
  }

  /**
   * Breaks before an instruction of a function whenever it is about to run: at `offset` (a
   * byte offset `disassemble` lists), or the function's first instruction. Returns where.
   * Throws `RangeError` for a function the module does not define, or an offset that is not
   * an instruction that can run.
   */
  breakAt(spec: BreakpointSpec): { funcIndex: number; funcName: string; offset: number } {
    const probed = this.monitor.probed;
    const funcIndex = resolveFunction(probed, spec.func);
    const site = spec.offset === undefined ? probed.entrySite(funcIndex) : probed.siteAt(funcIndex, spec.offset);
    if (site < 0) {
      throw new RangeError(spec.offset === undefined
        ? `breakAt: function ${funcIndex} has no instruction that can run`
        : `breakAt: no instruction that can run at offset ${spec.offset} of function ${funcIndex}`);
    }
    this.monitor.addBreakpoint(site);
    return { funcIndex, funcName: probed.qualifiedName(funcIndex), offset: probed.sites[site]!.offset };
  }

  /**
   * The instructions of a defined function (by default the paused one), each with its byte
   * offset, as `disassemble` lists them: what a debugger shows around the current instruction.
   */
  instructions(funcIndex: number | undefined = this.lastFrames[0]?.funcIndex): Array<{ offset: number; text: string }> {
    const probed = this.monitor.probed;
    if (funcIndex === undefined || !probed.defines(funcIndex)) throw new RangeError(`instructions: the module defines no function ${String(funcIndex)}`);
    return [...probed.instructions(funcIndex)].map(([offset, text]) => ({ offset, text }));
  }

  clearBreakpoints(): void {
    this.monitor.clearBreakpoints();
  }

  /** Runs to the next breakpoint, or to the end. */
  continue(): Promise<DebugEvent> {
    return this.command('continue');
  }

  /** Runs one WebAssembly instruction (into a call). */
  step(): Promise<DebugEvent> {
    return this.command('step');
  }

  /** Runs to the next instruction of this function (a call runs through), or of its caller after it returns. */
  stepOver(): Promise<DebugEvent> {
    return this.command('over');
  }

  /** Runs until the current function has returned, pausing at its caller's next instruction. */
  stepOut(): Promise<DebugEvent> {
    return this.command('out');
  }

  /** The instance's globals, imports first, with their current values (empty before the instance exists). */
  globals(): DebugGlobal[] {
    const instance = this.session.instance;
    if (instance === null) return [];
    const names = new Map<number, string>();
    for (const e of this.session.module.ir.exports) if (e.kind === 'global' && !names.has(e.index)) names.set(e.index, e.name);
    return instance.globals.map((g, index) => {
      const name = names.get(index);
      return {
        index,
        ...(name !== undefined ? { name } : {}),
        type: valTypeName(g.type.valType),
        mutable: g.type.mutable,
        value: debugValue(g.value),
      };
    });
  }

  /**
   * A memory of the instance, bounds-checked (`read`): by export name, or by index; without
   * an argument the one exported as `memory`, else memory 0. Null when there is none (or the
   * instance does not exist yet).
   */
  memory(which?: string | number): GuestMemory | null {
    const instance = this.session.instance;
    if (instance === null) return null;
    if (typeof which === 'string') return this.session.memories.get(which) ?? null;
    if (which === undefined && this.session.memory !== null) return this.session.memory;
    const memory = instance.memories[which ?? 0];
    return memory === undefined ? null : new GuestMemory(memory as unknown as EngineMemory);
  }

  private command(mode: StepMode): Promise<DebugEvent> {
    if (this.ended !== null) return Promise.resolve(this.ended);
    if (this.settle !== null) return Promise.reject(new Error('Debugger: a command is already running; await it first'));
    const next = new Promise<DebugEvent>((resolve) => {
      this.settle = resolve;
    });
    if (!this.started) {
      this.started = true;
      this.monitor.resume(mode);
      this.run(this.monitor).then(
        (output) => this.end({ kind: 'finished', output }),
        (e: unknown) => this.end({ kind: 'failed', error: e instanceof SandboxError ? e : SandboxError.host(`internal error: ${String(e)}`, 0, e) }),
      );
    } else {
      this.session.holdClock(false);
      this.monitor.resume(mode);
    }
    return next;
  }

  private end(event: DebugEvent): void {
    this.ended = event;
    this.lastFrames = [];
    this.finishCommand(event);
  }

  private finishCommand(event: DebugEvent): void {
    const settle = this.settle;
    this.settle = null;
    settle?.(event);
  }
}

function resolveFunction(probed: ProbedModule, func: number | string): number {
  const index = typeof func === 'number' ? func : functionNamed(probed.module.ir, func);
  if (index === undefined || !probed.defines(index)) {
    throw new RangeError(`breakAt: the module defines no function ${typeof func === 'string' ? JSON.stringify(func) : func}`);
  }
  return index;
}

function debugFrame(frame: PausedFrame): DebugFrame {
  return { ...frame, locals: frame.locals.map(debugValue), stack: frame.stack.map(debugValue) };
}

function debugValue(w: WasmValue): DebugValue {
  if (!isRefType(w.type)) return fromWasm(w);
  const type = valTypeName(w.type) as RefValue['type'];
  const isNull = w.ref === null;
  return Object.freeze({ type, isNull, toString: () => `${type}:${isNull ? 'null' : 'ref'}` });
}
