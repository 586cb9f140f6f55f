/**
 * `Sandbox`: compile untrusted WebAssembly once, run it under hard limits as often as you
 * like.
 *
 * ```ts
 * const sandbox = Sandbox.denyAll();
 * const out = await sandbox.run(wasmOrWat, 'add', [Value.i32(2), Value.i32(40)]);
 * out.values;        // [I32(42)]
 * out.fuelConsumed;  // 4
 * ```
 *
 * Every run gets a fresh engine and store: runs share nothing, and many may be in flight on
 * one sandbox at once. Four fences bound a run — fuel (deterministic CPU), the wall-clock
 * deadline (epoch interruption driven by a per-run watchdog), the memory and table caps, and
 * the deny-by-default host ABI — and every failure is a `SandboxError` naming the fence.
 */
import { DecodeError, ValidationError } from '../interpreter/errors.js';
import { ALL_FEATURES, compileModuleInSteps, type FeatureSet, WASMTIME_FEATURES } from '../interpreter/index.js';
import { driveSteps } from './driver.js';
import { HOT_THRESHOLD } from '../jit/policy.js';
import type { ExternKind } from '../interpreter/types.js';
import { HostAbi } from '../host/abi.js';
import { GuestMemory } from '../host/memory.js';
import { SandboxError } from './errors.js';
import { Limits, type LimitsOptions } from './limits.js';
import { Session, lineTableOf, type EngineModule, type Observations, type RunOptions } from './session.js';
import { toLcov } from '../inspect/lcov.js';
import type { Profile } from '../inspect/profile.js';
import type { FunctionCoverage, TraceEntry } from '../inspect/monitors.js';
import { describe, disassemble, functionNamed, type ModuleDescription } from '../inspect/describe.js';
import { Value } from './value.js';
import { toBinary } from './wat.js';
import { Debugger } from './debugger.js';

/** What a run returns. */
export class RunOutput {
  constructor(
    /** The values the export returned, in order (empty for a function without results). */
    readonly values: Value[],
    /** Fuel consumed by the run (for an instance call: by that call). */
    readonly fuelConsumed: number,
    /** The largest linear memory, in bytes, granted by a `memory.grow`; 0 when memory never grew. */
    readonly peakMemoryBytes: number,
    /** The code the guest exited with (WASI's `proc_exit`; `values` is then empty); 0 when it returned. */
    readonly exitCode: number = 0,
    observed: Observations = {},
  ) {
    if (observed.profile !== undefined) this.profile = observed.profile;
    if (observed.coverage !== undefined) this.coverage = observed.coverage;
    if (observed.trace !== undefined) this.trace = observed.trace;
    Object.freeze(this);
  }

  /** The deterministic fuel profile, when the run asked for one (RunOptions.profile). */
  readonly profile?: Profile;
  /** Which instructions ran, per defined function, when the run asked (RunOptions.coverage). */
  readonly coverage?: readonly FunctionCoverage[];
  /** The first instructions run, when the run asked (RunOptions.trace). */
  readonly trace?: readonly TraceEntry[];
}

export interface ModuleImport {
  readonly module: string;
  readonly name: string;
  readonly kind: ExternKind;
}

export interface ModuleExport {
  readonly name: string;
  readonly kind: ExternKind;
}

const engineModules = new WeakMap<CompiledModule, EngineModule>();
/** Each module's probed version (Sandbox.probedVersion). */
const probedModules = new WeakMap<EngineModule, Promise<EngineModule>>();

/**
 * A decoded and validated module, reusable across runs, instances and sandboxes. Obtain one
 * from `sandbox.compile()`.
 */
export class CompiledModule {
  /** What the module imports, in order. */
  readonly imports: readonly ModuleImport[];
  /** What the module exports. */
  readonly exports: readonly ModuleExport[];

  private constructor(inner: EngineModule) {
    const ir = inner.ir;
    this.imports = Object.freeze(ir.imports.map((i) => Object.freeze({ module: i.module, name: i.name, kind: i.desc.kind })));
    this.exports = Object.freeze(ir.exports.map((e) => Object.freeze({ name: e.name, kind: e.kind })));
    engineModules.set(this, inner);
    Object.freeze(this);
  }

  /** @internal */
  static wrap(inner: EngineModule): CompiledModule {
    return new CompiledModule(inner);
  }

  /** What the module imports, exports, defines and uses, without running it (docs/inspect.md). */
  describe(): ModuleDescription {
    return describe(engineModules.get(this)!);
  }

  /**
   * Coverage from a run of this module (RunOutput.coverage) as an lcov tracefile, its lines
   * from the module's DWARF line tables (`clang -g`, Rust debug builds); null for a module
   * without them.
   */
  lcov(coverage: readonly FunctionCoverage[]): string | null {
    const inner = engineModules.get(this)!;
    const lines = lineTableOf(inner);
    return lines === null ? null : toLcov(inner, coverage, lines);
  }

  /**
   * The instructions of a function — by index, by its `name`-section name or export name — or
   * of every defined function, each with its byte offset in the module, as `wasm-objdump -d`
   * lists them. Throws `RangeError` for a function the module does not define.
   */
  disassemble(func?: number | string): string {
    const inner = engineModules.get(this)!;
    if (typeof func !== 'string') return disassemble(inner, func);
    const index = functionNamed(inner.ir, func);
    if (index === undefined) throw new RangeError(`disassemble: no function named ${JSON.stringify(func)}`);
    return disassemble(inner, index);
  }
}

/** The module as `compile`, `run` and `instantiate` accept it. */
export type ModuleSource = CompiledModule | Uint8Array | ArrayBuffer | string;

/**
 * One instance of a module, kept for guests called more than once: its globals and memory
 * persist from call to call. Each call runs under the instance's limits afresh — the full
 * fuel budget and its own deadline. Calls on one instance run one at a time, in order.
 */
export class Instance {
  private queue: Promise<unknown> = Promise.resolve();

  /** @internal */
  constructor(private readonly session: Session) {}

  /** The limits every call runs under. */
  get limits(): Limits {
    return this.session.limits;
  }

  /** The instance's exported memory `memory` (bounds-checked `read`/`write`), or null when it exports none. */
  get memory(): GuestMemory | null {
    return this.session.memory;
  }

  /** Every memory the instance exports, by export name (`memory` among them, when exported). */
  get memories(): ReadonlyMap<string, GuestMemory> {
    return this.session.memories;
  }

  /**
   * Calls the exported function `exportName` with `params`. Resolves with its results, the
   * fuel this call consumed, and the instance's peak memory so far; rejects with a
   * `SandboxError` only.
   */
  call(exportName: string, params: readonly Value[] = [], options: RunOptions = {}): Promise<RunOutput> {
    const session = this.session;
    const result = this.queue.then(async () => {
      try {
        const out = await session.frame(() => session.call(exportName, params), options);
        return new RunOutput(out.value, out.fuelConsumed, session.peakMemoryBytes, session.exitCode ?? 0, out);
      } catch (e) {
        throw asSandboxError(e);
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** How `Sandbox.instantiate` prepares an instance. */
export interface InstanceOptions {
  /**
   * Compile the module with a probe before every instruction, so that calls may ask for
   * `coverage` and `trace` (RunOptions). The same results and fuel; slower. Off by default.
   */
  readonly inspect?: boolean;
}

/** How a `Sandbox` compiles: see `SandboxOptions`. */
export interface SandboxOptions {
  /**
   * The WebAssembly features its modules may use; anything else is `InvalidModule` naming the
   * feature. `'all'` (the default): everything this engine runs — wasmtime 45's defaults,
   * shared memory and atomics (single-threaded) and exception handling. `'wasmtime'`: exactly
   * wasmtime 45's defaults (SIMD, relaxed SIMD, tail calls, multi-memory, extended constants,
   * memory64), so a module runs here if and only if sandboxd would accept it. Or a set of the
   * engine's `Feature` names.
   */
  readonly features?: 'all' | 'wasmtime' | FeatureSet;
  /**
   * Make every NaN that floating-point arithmetic produces (scalar and SIMD) the canonical
   * one, so the same module gives bit-identical results and memory on every machine and
   * engine (docs/determinism.md). Off by default, as in wasmtime.
   */
  readonly canonicalNaNs?: boolean;
  /**
   * Where guest code runs (docs/jit.md). `'auto'` (the default): in the interpreter, and a
   * function that gets hot in the JavaScript tier — its code translated to JavaScript — from
   * its next call or loop header on. `'interpreter'`: always in the interpreter (the same
   * results, fuel and errors, only slower). `'eager'`: every function in the JavaScript tier
   * from its first call (for tests). Where `new Function` is refused (a Content Security
   * Policy), every choice runs in the interpreter.
   */
  readonly tier?: 'auto' | 'interpreter' | 'eager';
  /**
   * When a function body becomes the interpreter's code (docs/performance.md). `'lazy'` (the
   * default): every body is validated at compile time, so an invalid module is refused before
   * anything runs, but one is translated on its first call, within the run and its deadline
   * (bodies over 64 KiB at compile time) — compiles several times faster, and functions never
   * called cost nothing. `'eager'`: every body translated at compile time (slower compiles,
   * runs that start with everything ready).
   */
  readonly translation?: 'lazy' | 'eager';
}

/** The store's jitThreshold for each SandboxOptions.tier. */
const JIT_THRESHOLDS = { auto: HOT_THRESHOLD, interpreter: Infinity, eager: 0 } as const;

export class Sandbox {
  /** The capabilities granted to every module this sandbox runs. */
  readonly host: HostAbi;
  /** What its modules may use (SandboxOptions.features). */
  readonly features: FeatureSet;
  /** SandboxOptions.canonicalNaNs. */
  readonly canonicalNaNs: boolean;
  /** SandboxOptions.tier. */
  readonly tier: 'auto' | 'interpreter' | 'eager';
  /** SandboxOptions.translation. */
  readonly translation: 'lazy' | 'eager';

  /** A sandbox granting `host` (nothing, by default). */
  constructor(host: HostAbi = HostAbi.denyAll(), options: SandboxOptions = {}) {
    if (!(host instanceof HostAbi)) throw new TypeError('Sandbox: expected a HostAbi');
    this.host = host;
    const features = options.features ?? 'all';
    if (features === 'all') this.features = ALL_FEATURES;
    else if (features === 'wasmtime') this.features = WASMTIME_FEATURES;
    else if (features instanceof Set) this.features = new Set(features);
    else throw new TypeError("Sandbox: features must be 'all', 'wasmtime' or a Set of features");
    this.canonicalNaNs = options.canonicalNaNs === true;
    const tier = options.tier ?? 'auto';
    if (!Object.hasOwn(JIT_THRESHOLDS, tier)) throw new TypeError("Sandbox: tier must be 'auto', 'interpreter' or 'eager'");
    this.tier = tier;
    const translation = options.translation ?? 'lazy';
    if (translation !== 'lazy' && translation !== 'eager') throw new TypeError("Sandbox: translation must be 'lazy' or 'eager'");
    this.translation = translation;
  }

  /** A sandbox that grants nothing: any import is a `DisallowedImport`. */
  static denyAll(): Sandbox {
    return new Sandbox(HostAbi.denyAll());
  }

  /**
   * Decodes and validates a module once: `.wasm` bytes, `.wat` bytes or `.wat` text (the
   * text through wabt, which parses the syntax of every feature the engine runs; the engine
   * then accepts what `features` allows). Rejects with `SandboxError` kind
   * `InvalidModule` (or `Host` for an internal fault). A binary module compiles in steps, with
   * the event loop given its turn between them.
   */
  async compile(bytes: Uint8Array | ArrayBuffer | string): Promise<CompiledModule> {
    try {
      const binary = await toBinary(bytes);
      const options = { canonicalNaNs: this.canonicalNaNs, lazyTranslation: this.translation === 'lazy' };
      return CompiledModule.wrap(await driveSteps(compileModuleInSteps(binary, this.features, options)));
    } catch (e) {
      throw compileError(e);
    }
  }

  /**
   * Runs `exportName(...params)` in a fresh store under `limits` (sandboxd's defaults when
   * omitted). The start function, if any, runs first, within the same budget and deadline.
   */
  async run(
    moduleOrBytes: ModuleSource,
    exportName: string,
    params: readonly Value[] = [],
    limits?: Limits | LimitsOptions,
    options: RunOptions = {},
  ): Promise<RunOutput> {
    try {
      const lim = Limits.from(limits);
      let module = engineModules.get(moduleOrBytes as CompiledModule) ?? (await this.compiledFrom(moduleOrBytes));
      if (options.coverage === true || options.trace != null) module = await untilAborted(this.probedVersion(module), options.signal);
      const session = new Session(module, this.host, lim, JIT_THRESHOLDS[this.tier]);
      const out = await session.frame(() => {
        // A start function that exited (proc_exit) ended the run.
        const callExport = () => (session.exitCode === null ? session.call(exportName, params) : []);
        // The export starts in a microtask, never within this call: an embedder's code right
        // after run() (an abort, a binding its host functions read) comes first.
        const started = session.instantiate() ?? Promise.resolve();
        return started.then(callExport);
      }, options);
      return new RunOutput(out.value, out.fuelConsumed, session.peakMemoryBytes, session.exitCode ?? 0, out);
    } catch (e) {
      throw asSandboxError(e);
    }
  }

  /**
   * A debugger for a run of `exportName(...params)` under `limits`, as `run` would make it:
   * nothing runs until its first command (`continue`, `step`, …); breakpoints may be set
   * before. The run has the same results and consumes the same fuel as `run`'s; its deadline
   * counts only the time the guest runs, not the time it is paused (docs/inspect.md).
   */
  async debug(
    moduleOrBytes: ModuleSource,
    exportName: string,
    params: readonly Value[] = [],
    limits?: Limits | LimitsOptions,
    /** `signal` ends the run (kind `Aborted`), running or paused. */
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<Debugger> {
    try {
      const lim = Limits.from(limits);
      const plain = engineModules.get(moduleOrBytes as CompiledModule) ?? (await this.compiledFrom(moduleOrBytes));
      const module = await untilAborted(this.probedVersion(plain), options.signal);
      // A debugged run stays in the interpreter (a monitor keeps it there, whatever the tier).
      const session = new Session(module, this.host, lim, Infinity);
      return new Debugger(session, async (monitor) => {
        const { value, fuelConsumed } = await session.frame(async () => {
          await session.instantiate();
          return session.exitCode === null ? session.call(exportName, params) : [];
        }, options.signal !== undefined ? { signal: options.signal } : {}, monitor);
        return new RunOutput(value, fuelConsumed, session.peakMemoryBytes, session.exitCode ?? 0);
      });
    } catch (e) {
      throw asSandboxError(e);
    }
  }

  /**
   * Instantiates a module for repeated calls. The start function, if any, runs now under
   * `limits`; each later `call` gets the same limits afresh.
   */
  async instantiate(moduleOrBytes: ModuleSource, limits?: Limits | LimitsOptions, options: InstanceOptions = {}): Promise<Instance> {
    try {
      const lim = Limits.from(limits);
      let module = engineModules.get(moduleOrBytes as CompiledModule) ?? (await this.compiledFrom(moduleOrBytes));
      if (options.inspect === true) module = await this.probedVersion(module);
      const session = new Session(module, this.host, lim, JIT_THRESHOLDS[this.tier]);
      await session.frame(() => session.instantiate());
      return new Instance(session);
    } catch (e) {
      throw asSandboxError(e);
    }
  }

  /**
   * The engine's module for bytes or text, compiled now. A `CompiledModule` is looked up without
   * an await, so that a run's deadline is armed within the call that starts it: a thousand
   * runs started in one tick would otherwise arm theirs only after all were set up, and end
   * that much past them.
   */
  private async compiledFrom(source: ModuleSource): Promise<EngineModule> {
    if (source instanceof CompiledModule) return engineModules.get(source)!;
    return engineModules.get(await this.compile(source))!;
  }

  /**
   * The module compiled again, as it was (its features, its NaN mode), with a probe before
   * every instruction, for coverage, the trace and the debugger (src/inspect/probes.ts): made
   * once per module, in steps.
   */
  private probedVersion(module: EngineModule): Promise<EngineModule> {
    let probed = probedModules.get(module);
    if (probed === undefined) {
      const options = { canonicalNaNs: module.canonicalNaNs, probes: true };
      probed = (async () => driveSteps(compileModuleInSteps(module.ir.bytes, module.features, options)))();
      probedModules.set(module, probed);
    }
    return probed;
  }
}

/**
 * `promise`, or a SandboxError of kind Aborted as soon as `signal` aborts: compiling a module
 * again with probes takes as long as compiling it, and a Stop must not wait for it. (The
 * compilation goes on, for whoever else waits on it.)
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined || !(signal instanceof AbortSignal)) return promise;
  if (signal.aborted) return Promise.reject(SandboxError.aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(SandboxError.aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function compileError(e: unknown): SandboxError {
  if (e instanceof SandboxError) return e;
  if (e instanceof DecodeError || e instanceof ValidationError) {
    return SandboxError.invalidModule(e.message, 0, e);
  }
  return asSandboxError(e);
}

/** The last line of defence: nothing but a `SandboxError` leaves the public API. */
function asSandboxError(e: unknown): SandboxError {
  if (e instanceof SandboxError) return e;
  if (e instanceof RangeError && /^Limits:/.test(e.message)) return SandboxError.host(`invalid limits: ${e.message.replace(/^Limits: /, '')}`, 0, e);
  if (e instanceof TypeError && /^Limits:/.test(e.message)) return SandboxError.host(`invalid limits: ${e.message.replace(/^Limits: /, '')}`, 0, e);
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return SandboxError.host(`internal error: ${message}`, 0, e);
}
