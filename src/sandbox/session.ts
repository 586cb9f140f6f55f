/**
 * A session: one engine, one store and (at most) one instance of a module, run under one set
 * of limits. `Sandbox.run` makes a session per run; `Sandbox.instantiate` keeps one per
 * `Instance`. Sessions share nothing with each other — not even the engine, so one run's
 * deadline (an epoch increment) can never interrupt another.
 *
 * Every stretch of guest execution happens inside `frame()`: it sets the fuel budget and the
 * epoch deadline, arms the watchdog, and on the way out disarms it, measures the fuel
 * consumed, and turns whatever was thrown into a `SandboxError`.
 */
import { type BacktraceFrame, DecodeError, LinkError, Trap, TrapKind, ValidationError } from '../interpreter/errors.js';
import { LineTable } from '../inspect/dwarf.js';
import { Engine, Store, instantiate, instantiateInSteps, invoke } from '../interpreter/index.js';
import type { Resource } from '../interpreter/store.js';
import { EXTERNREF, F32, F64, FUNCREF, I32, I64, V128, type FuncType, type Import, type ModuleIR, type ValType, sameFuncType, valTypeName } from '../interpreter/types.js';
import { FuncRef, WasmValue } from '../interpreter/values.js';
import { GuestExit, HostFunctionError, HostTrap, type HostAbi, type HostBinding } from '../host/abi.js';
import { GuestMemory, GuestMemoryError, type EngineMemory } from '../host/memory.js';
import { Watchdog } from '../watchdog/watchdog.js';
import { FuelProfiler, type Profile } from '../inspect/profile.js';
import { InstructionWatch, type FunctionCoverage, type TraceEntry } from '../inspect/monitors.js';
import { ProbedModule } from '../inspect/probes.js';
import { ENTRY_FUEL, type Execution, type InstructionMonitor } from '../interpreter/execution.js';
import { Pacer, drive, driveSteps, enterRun } from './driver.js';
import { type LimitedResource, SandboxError } from './errors.js';
import type { Limits } from './limits.js';
import { Value } from './value.js';

const PAGE_SIZE = 65536;

/** The engine's compiled module (docs/engine-api.md: `compileModule(bytes)`). */
export type EngineModule = Parameters<typeof instantiate>[1];
type EngineInstance = ReturnType<typeof instantiate>;

export class Session implements HostBinding {
  readonly engine = new Engine();
  readonly store: InstanceType<typeof Store>;
  readonly pacer = new Pacer();
  /** The cap that refused a growth or an allocation during the current frame, if any. */
  refused: LimitedResource | null = null;
  instance: EngineInstance | null = null;
  memory: GuestMemory | null = null;
  private memoryMap: Map<string, GuestMemory> | null = null;
  /** Every exported memory, by export name (multi-memory); `memory` is the one named "memory". Made on first use. */
  get memories(): Map<string, GuestMemory> {
    return (this.memoryMap ??= new Map());
  }
  /** The host function granted for each import; none for a module without imports. */
  private readonly imports: Map<Import, FuncRef> | null;
  private watchdog: Watchdog | null = null;
  /** The current frame's abort controller, made only when a host function asks for its signal. */
  private controller: AbortController | null = null;
  private inFrame = false;
  /** The current frame's abort signal fired (RunOptions.signal): its interrupt is an abort, not a timeout. */
  private aborted = false;
  /** The current frame's profiler, when the run asked for a profile (src/inspect/profile.ts). */
  private profiler: FuelProfiler | null = null;
  /** Fuel consumed by the frames that have ended. */
  private fuelOfEndedFrames = 0;
  /** The code the guest exited with (a host function threw `GuestExit`), or null while it has not. */
  exitCode: number | null = null;

  /**
   * Checks the module against the host ABI and the limits — before any guest code can run —
   * and prepares the store. Throws `SandboxError`: `DisallowedImport` for the first import
   * not granted, `InvalidModule` for a granted import of the wrong type, `MemoryLimitExceeded`
   * for a declared minimum above a cap, `Host` when the limits allow no instance.
   */
  constructor(
    readonly module: EngineModule,
    readonly host: HostAbi,
    readonly limits: Limits,
    /** StoreOptions.jitThreshold: when functions move to the JavaScript tier. */
    jitThreshold: number,
  ) {
    const ir = module.ir;
    const grants = ir.imports.map((imp) => {
      const grant = host.grantFor(imp.module, imp.name);
      if (grant === undefined) throw SandboxError.disallowedImport(imp.module, imp.name);
      if (imp.desc.kind !== 'func') {
        throw SandboxError.invalidModule(
          `incompatible import type for \`${imp.module}::${imp.name}\`: expected func of type \`${signature(grant.type)}\`, found ${imp.desc.kind}`,
        );
      }
      const wanted = ir.types[imp.desc.typeIndex]!;
      if (!sameFuncType(wanted, grant.type)) {
        throw SandboxError.invalidModule(
          `incompatible import type for \`${imp.module}::${imp.name}\`: expected func of type \`${signature(grant.type)}\`, found func of type \`${signature(wanted)}\``,
        );
      }
      return [imp, grant] as const;
    });
    if (limits.instances < 1) {
      throw SandboxError.host(`instantiation failed: the limits allow ${limits.instances} instances and the module needs 1`);
    }
    refuseOverLimits(ir, limits);

    this.store = new Store(this.engine, {
      jitThreshold,
      maxMemoryBytes: limits.memoryBytes,
      maxTableElements: limits.tableElements,
      maxMemories: limits.memories,
      maxTables: limits.tables,
      onGrowRefused: (what) => {
        this.refused = REFUSED_LIMIT[what];
      },
    });
    if (grants.length === 0) this.imports = null;
    else {
      const imports = new Map<Import, FuncRef>();
      for (const [imp, grant] of grants) imports.set(imp, this.store.createHostFunction(grant.type, grant.bind(this)));
      this.imports = imports;
    }
  }

  // The session is the host functions' HostBinding. (A per-session object literal with a
  // getter took V8's slow path for literals: a fifth of Sandbox.run's time on a tiny guest.)

  memoryOf(): GuestMemory | null {
    return this.memory;
  }

  get signal(): AbortSignal {
    if (!this.inFrame) return endedSignal();
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  totalFuelConsumed(): number {
    return this.fuelOfEndedFrames + (this.inFrame ? this.fuelConsumed() : 0);
  }

  /**
   * Runs `body` — guest execution — under the session's limits: the full fuel budget, a fresh
   * epoch deadline, an armed watchdog. Resolves with its value and the fuel consumed; rejects
   * with a `SandboxError` (carrying the fuel consumed) and nothing else.
   */
  async frame<T>(
    body: () => T | Promise<T>,
    options: RunOptions = {},
    /** A monitor of the caller's (the debugger's), in place of the one `options` ask for. */
    monitor: InstructionMonitor | null = null,
  ): Promise<{ value: T; fuelConsumed: number } & Observations> {
    const { store, engine, limits } = this;
    const signal = checkedSignal(options);
    const watch = this.watchFor(options);
    store.fuel = limits.fuel;
    this.profiler = options.profile === true ? new FuelProfiler(store.fuel) : null;
    store.monitor = monitor ?? watch;
    this.refused = null;
    store.epochDeadline = engine.epoch + 1;
    this.inFrame = true;
    const watchdog = (this.watchdog = Watchdog.arm(engine, limits.timeoutMs));
    this.aborted = false;
    const unlinkAbort = signal === undefined ? null : this.linkAbort(signal, watchdog);
    const turn = enterRun(watchdog);
    try {
      if (turn !== null) await turn;
      this.checkDeadline();
      const value = await body();
      return this.withObservations({ value, fuelConsumed: this.fuelConsumed() }, watch);
    } catch (e) {
      throw this.withObservations(this.classify(e), watch);
    } finally {
      unlinkAbort?.();
      store.monitor = null;
      this.watchdog.disarm();
      this.watchdog = null;
      this.fuelOfEndedFrames += this.fuelConsumed();
      this.inFrame = false;
      this.controller?.abort();
      this.controller = null;
    }
  }

  /**
   * Has `signal` end the frame as its deadline would, wherever the run is (classify() tells
   * them apart): at once if it has aborted. Returns what unlinks it when the frame ends.
   */
  private linkAbort(signal: AbortSignal, watchdog: Watchdog): () => void {
    const onAbort = (): void => {
      // Once the deadline has passed, the run ends by it (a run may go on past it: Execution.step).
      if (watchdog.fired) return;
      this.aborted = true;
      watchdog.expireNow();
    };
    if (signal.aborted) {
      onAbort();
      return () => undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  /**
   * Instantiates the module and runs its start function, if any (inside a frame). Segment
   * initialisation goes in steps (instantiateInSteps), with the clock looked at between them:
   * the event loop gets its turns, and the deadline holds.
   */
  instantiate(): Promise<void> | undefined {
    // Without a promise where nothing waits (a small module, no start function): most runs.
    const instance = driveSteps(instantiateInSteps(this.store, this.module, (imp) => this.imports?.get(imp)), this.watchdog!);
    return instance instanceof Promise ? instance.then((made) => this.start(made)) : this.start(instance);
  }

  /** Takes `instance` as the session's and runs its start function, if any. */
  private start(instance: EngineInstance): Promise<void> | undefined {
    this.instance = instance;
    for (const e of this.module.ir.exports) {
      if (e.kind === 'memory') this.memories.set(e.name, new GuestMemory(instance.exported(e.name) as unknown as EngineMemory));
    }
    this.memory = this.memoryMap?.get('memory') ?? null;
    if (instance.startFunction === null) return undefined;
    return this.runGuest(invoke(this.store, instance.startFunction, [])).then(() => undefined);
  }

  /**
   * The monitor for the coverage and trace `options` ask for, or null. They need the module
   * compiled with probes (Sandbox.run compiles it so when asked; an instance must be made with
   * `{ inspect: true }`).
   */
  private watchFor(options: RunOptions): InstructionWatch | null {
    const traceLimit = options.trace == null ? null : options.trace.limit;
    if (traceLimit !== null && !(Number.isSafeInteger(traceLimit) && traceLimit >= 0)) {
      throw SandboxError.host(`invalid run options: trace.limit must be a whole number, got ${String(traceLimit)}`);
    }
    if (options.coverage !== true && traceLimit === null) return null;
    const probed = ProbedModule.of(this.module);
    if (probed === null) {
      throw SandboxError.host('coverage and trace need an instance made with { inspect: true } (Sandbox.instantiate)');
    }
    return new InstructionWatch(probed, { coverage: options.coverage === true, traceLimit });
  }

  /** `into`, with what the frame observed for the run's options: the profile (its last stretch counted), coverage, the trace. */
  private withObservations<T extends object>(into: T, watch: InstructionWatch | null): T & Observations {
    const out = into as T & { profile?: Profile; coverage?: readonly FunctionCoverage[]; trace?: readonly TraceEntry[] };
    if (this.profiler !== null) {
      this.profiler.leaveTo(0, this.store.fuel);
      out.profile = this.profiler.profile();
      this.profiler = null;
    }
    const coverage = watch?.coverage();
    if (coverage != null) out.coverage = coverage;
    if (watch !== null && watch.tracing) out.trace = watch.trace();
    return out;
  }

  /** Drives guest code to its end: its results, or none when the guest exited (`GuestExit`). */
  private runGuest(execution: Execution): Promise<WasmValue[]> {
    if (this.profiler !== null && execution.inst !== null) {
      // Its function was entered when the execution was made (ENTRY_FUEL charged then).
      execution.profiler = this.profiler;
      this.profiler.enter(1, execution.inst, execution.pc, this.store.fuel + ENTRY_FUEL);
    }
    return drive(execution, this.store, this.watchdog!, this.pacer).catch((e: unknown) => {
      if (!(e instanceof GuestExit)) throw e;
      this.exitCode = e.code;
      return [];
    });
  }

  /**
   * Stops (true) or restarts (false) the frame's deadline clock: a debugger's pause, while the
   * guest does not run, does not count towards its deadline.
   */
  holdClock(held: boolean): void {
    if (held) this.watchdog?.pause();
    else this.watchdog?.resume();
  }

  /** Throws the engine's `Interrupt` once the frame's deadline has passed. */
  private checkDeadline(): void {
    if (this.engine.epoch >= this.store.epochDeadline) throw new Trap(TrapKind.Interrupt);
  }

  /**
   * Calls the exported function `name` with `params` (inside a frame, after instantiate).
   * Throws at once what it finds wrong with the call (frame() takes either).
   */
  call(name: string, params: readonly Value[]): Promise<Value[]> {
    if (this.exitCode !== null) throw SandboxError.trap(`the guest has exited (code ${this.exitCode}) and cannot be called again`);
    const func = this.instance?.exported(name);
    if (!(func instanceof FuncRef)) throw SandboxError.export(`no exported function named \`${name}\``);
    const type = this.store.funcs[func.id]!.type;
    if (!Array.isArray(params)) throw SandboxError.export(`the parameters of \`${name}\` must be an array of Value`);
    if (type.params.length !== params.length) {
      throw SandboxError.export(
        `function \`${name}\` expects ${type.params.length} parameter(s) but ${params.length} were supplied`,
      );
    }
    const args: WasmValue[] = [];
    for (let i = 0; i < params.length; i++) {
      const want = type.params[i]!;
      const got = params[i] as unknown as Value | undefined;
      if (!(got instanceof Value) || TYPE_CODES[got.type] !== want) {
        throw SandboxError.export(
          `function \`${name}\` parameter ${i} has type ${debugType(want)} but the supplied value does not match`,
        );
      }
      args.push(toWasm(got));
    }
    return this.runGuest(invoke(this.store, func, args)).then((results) => results.map(fromWasm));
  }

  /** The high-water mark of granted memory growth (0 when memory never grew). */
  get peakMemoryBytes(): number {
    return this.store.peakMemoryBytes;
  }

  fuelConsumed(): number {
    const used = this.limits.fuel - this.store.fuel;
    return Math.min(this.limits.fuel, Math.max(0, used));
  }

  /** Maps anything thrown during a frame onto a `SandboxError`. */
  private classify(e: unknown): SandboxError {
    const fuel = this.fuelConsumed();
    const limits = this.limits;
    if (e instanceof SandboxError) {
      e.fuelConsumed = fuel;
      return e;
    }
    // A refused growth explains whatever failure follows it (a trap on -1, an out-of-bounds
    // access past the memory the guest did not get, even running out of fuel or time).
    if (this.refused !== null) return SandboxError.limitExceeded(this.refused, limits[this.refused], fuel);
    if (e instanceof Trap) {
      const backtrace = withSources(e.backtrace ?? [], this.module);
      if (e.kind === TrapKind.Interrupt && this.aborted) return withBacktrace(SandboxError.aborted(fuel), backtrace);
      if (e.kind === TrapKind.OutOfFuel) return withBacktrace(SandboxError.fuelExhausted(limits.fuel, limits.fuel), backtrace);
      if (e.kind === TrapKind.Interrupt) return withBacktrace(SandboxError.timeout(limits.timeoutMs, fuel), backtrace);
      return SandboxError.trap(e.message, fuel, e, backtrace);
    }
    if (e instanceof HostTrap || e instanceof GuestMemoryError) return SandboxError.trap(e.message, fuel, e);
    if (e instanceof HostFunctionError) return SandboxError.host(e.message, fuel, e);
    if (e instanceof DecodeError || e instanceof ValidationError || e instanceof LinkError) {
      return SandboxError.invalidModule(e.message, fuel, e);
    }
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return SandboxError.host(`internal error: ${message}`, fuel, e);
  }
}

/** The `Limits` field behind each of the store's caps. */
const REFUSED_LIMIT: Readonly<Record<Resource, LimitedResource>> = {
  memory: 'memoryBytes',
  table: 'tableElements',
  memories: 'memories',
  tables: 'tables',
};

/**
 * Refuses, before the store allocates anything, a module whose declared memories or tables
 * (their number, or the sum of their minimum sizes) exceed the limits.
 */
function refuseOverLimits(ir: ModuleIR, limits: Limits): void {
  if (ir.memories.length > limits.memories) throw SandboxError.limitExceeded('memories', limits.memories);
  if (ir.tables.length > limits.tables) throw SandboxError.limitExceeded('tables', limits.tables);
  let bytes = 0;
  for (const m of ir.memories) bytes += m.limits.min * PAGE_SIZE;
  if (bytes > limits.memoryBytes) throw SandboxError.memoryLimitExceeded(limits.memoryBytes);
  let elements = 0;
  for (const t of ir.tables) elements += t.limits.min;
  if (elements > limits.tableElements) throw SandboxError.limitExceeded('tableElements', limits.tableElements);
}

let ended: AbortSignal | null = null;

/** The signal a host function sees after its call has ended: already aborted. Made on first
 * use, since building an abort signal costs the CLI's cold start about a millisecond. */
function endedSignal(): AbortSignal {
  return (ended ??= AbortSignal.abort());
}

const TYPE_CODES = { i32: I32, i64: I64, f32: F32, f64: F64, v128: V128 } as const;

function signature(t: FuncType): string {
  return `(${t.params.map(valTypeName).join(', ')}) -> (${t.results.map(valTypeName).join(', ')})`;
}

/** wasmtime's `ValType` Debug names. */
function debugType(t: ValType): string {
  switch (t) {
    case I32: return 'I32';
    case I64: return 'I64';
    case F32: return 'F32';
    case F64: return 'F64';
    case V128: return 'V128';
    case FUNCREF: return 'FuncRef';
    case EXTERNREF: return 'ExternRef';
    default: return valTypeName(t);
  }
}

function toWasm(v: Value): WasmValue {
  switch (v.type) {
    case 'i32': return WasmValue.i32(v.value as number);
    case 'i64': return WasmValue.i64(v.value as bigint);
    case 'f32': return WasmValue.f32(v.value as number);
    case 'f64': return WasmValue.f64(v.value as number);
    default: return WasmValue.v128(v.value as Uint8Array);
  }
}

export function fromWasm(w: WasmValue): Value {
  switch (w.type) {
    case I32: return Value.i32(w.asI32);
    case I64: return Value.i64(w.asI64);
    case F32: return Value.f32(w.asF32);
    case F64: return Value.f64(w.asF64);
    case V128: return Value.v128(w.v128Bytes);
    case FUNCREF: return unsupported(`FuncRef(${w.ref === null ? 'None' : 'Some(..)'})`);
    case EXTERNREF: return unsupported(`ExternRef(${w.ref === null ? 'None' : 'Some(..)'})`);
    default: return unsupported(debugType(w.type));
  }
}

function unsupported(what: string): never {
  throw SandboxError.export(`unsupported return type ${what}`);
}

/** RunOptions.signal, checked: an AbortSignal or nothing. Throws `SandboxError` (Host) for anything else. */
function checkedSignal(options: RunOptions): AbortSignal | undefined {
  if (typeof options !== 'object' || options === null) throw SandboxError.host('invalid run options: expected an object');
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw SandboxError.host('invalid run options: signal must be an AbortSignal');
  return signal;
}

/** Each frame with its source position, where the module's DWARF line tables give one. */
function withSources(frames: readonly BacktraceFrame[], module: EngineModule): readonly BacktraceFrame[] {
  if (frames.length === 0) return frames;
  const lines = lineTableOf(module);
  if (lines === null) return frames;
  return frames.map((f) => {
    const source = lines.locate(f.offset);
    return source === undefined ? f : { ...f, source };
  });
}

/** Each module's line table, parsed when a backtrace first needs it (null: no DWARF). */
const lineTables = new WeakMap<EngineModule, LineTable | null>();

export function lineTableOf(module: EngineModule): LineTable | null {
  let table = lineTables.get(module);
  if (table === undefined) lineTables.set(module, (table = LineTable.fromModule(module.ir.bytes)));
  return table;
}

function withBacktrace(error: SandboxError, backtrace: SandboxError['backtrace']): SandboxError {
  error.backtrace = backtrace;
  return error;
}

/** What a run or an instance call may ask for besides its results (docs/inspect.md). A profile, coverage or a trace keeps the run in the interpreter. */
export interface RunOptions {
  /** The deterministic fuel profile (src/inspect/profile.ts), on the output or the error. */
  readonly profile?: boolean;
  /** Which instructions ran, per function (src/inspect/monitors.ts), on the output or the error. */
  readonly coverage?: boolean;
  /** The first `limit` instructions run, each with the top of the operand stack (src/inspect/monitors.ts). */
  readonly trace?: { readonly limit: number };
  /**
   * Ends the run when it aborts: a `SandboxError` of kind `Aborted`, at the guest's next check
   * point (loop header or function entry), or at once while it waits (a host call, a pause).
   */
  readonly signal?: AbortSignal;
}

/** What a frame observed, as the run's options asked (RunOptions). */
export interface Observations {
  readonly profile?: Profile;
  readonly coverage?: readonly FunctionCoverage[];
  readonly trace?: readonly TraceEntry[];
}
