/**
 * The host ABI: deny by default, an explicit allow-list.
 *
 * There are no ambient host functions, and no WASI unless `allowWasi` grants it.
 * `HostAbi.denyAll()` grants nothing, so a module that imports anything is rejected — `DisallowedImport`, naming the
 * first ungranted import — before any of its code runs. Every capability is opted into:
 *
 * ```ts
 * // host::log(ptr: i32, len: i32): the sink collects every line the guest logs.
 * const { host, logs } = HostAbi.denyAll().allowLog();
 * await new Sandbox(host).run(wat, 'run', []);
 * console.log(logs.lines);                        // ['hello from the guest']
 *
 * // host::random() -> i64: splitmix64 seeded by 42 (reproducible, NOT cryptographic).
 * const seeded = HostAbi.denyAll().allowRandom(42n);
 *
 * // Any named function of your own, synchronous or returning a promise.
 * const custom = HostAbi.denyAll().allowFunction('env', 'fetch_score', { params: ['i32'], results: ['i64'] },
 *   async ([id], call) => BigInt(await scores.get(id as number, { signal: call.signal })));
 * ```
 *
 * A `HostAbi` is immutable: every `allow*` returns a new one, so a base ABI can be shared and
 * extended freely. Grants are keyed by `module::name`; a later grant of the same name
 * replaces the earlier one.
 *
 * Host functions run outside the fuel meter (time inside them consumes no fuel) but inside the
 * deadline: a run whose promise is still pending at its deadline ends with `Timeout`. A
 * synchronous host function cannot be interrupted while it runs; the deadline catches the run
 * as soon as it returns.
 *
 * Errors: a host function that throws `HostTrap` (or lets a `GuestMemoryError` escape — a bad
 * guest pointer) makes the run fail with kind `Trap`; one that throws `GuestExit(code)` ends
 * the run at once, which resolves with `exitCode` code; a thrown `SandboxError` ends the run
 * with that error; anything else is a fault of the host and fails the run with kind `Host`.
 */
import { F32, F64, I32, I64, type FuncType, type ValType } from '../interpreter/types.js';
import { WasmValue } from '../interpreter/values.js';
import { SandboxError } from '../sandbox/errors.js';
import type { Limits } from '../sandbox/limits.js';
import { Value, type ValueType } from '../sandbox/value.js';
import { GuestExit, HostTrap } from './host-errors.js';
import { GuestMemory, GuestMemoryError } from './memory.js';
import { SplitMix64 } from './splitmix64.js';
import { wasiGrants, type Wasi, type WasiOptions } from './wasi/index.js';

export { GuestExit, HostTrap };

/** The value types a host function may take and return: the scalars (no v128). */
export type HostValueType = Exclude<ValueType, 'v128'>;

/** A WebAssembly signature in names: `{ params: ['i32', 'i32'], results: [] }`. */
export interface HostFunctionSignature {
  readonly params: readonly HostValueType[];
  readonly results: readonly HostValueType[];
}

/** An argument as a host function receives it: i32/f32/f64 as numbers, i64 as a bigint. */
export type HostArg = number | bigint;

/**
 * What a host function may return: nothing (no results), one value, or an array of them, each
 * a `Value` or a plain number/bigint that is converted to the declared result type (an i64
 * result accepts a bigint or a safe integer).
 */
export type HostResult = void | undefined | HostResultValue | readonly HostResultValue[];
export type HostResultValue = number | bigint | Value;

/** The context of one host call. */
export interface HostCall {
  /** The import's module name. */
  readonly module: string;
  /** The import's field name. */
  readonly name: string;
  /**
   * The calling guest's exported memory `memory` (bounds-checked), or null when it exports
   * none. Valid only while the run lasts: an asynchronous function that settles after the
   * deadline cannot touch the guest's memory any more.
   */
  readonly memory: GuestMemory | null;
  /**
   * Aborted when the run ends — at its deadline, or for any other reason — so an asynchronous
   * host function can stop working for a guest that is gone.
   */
  readonly signal: AbortSignal;
}

export type HostFunctionImpl = (args: HostArg[], call: HostCall) => HostResult | Promise<HostResult>;

/**
 * A host function failed for a reason of its own (it threw, or returned something that does
 * not fit its signature). The sandbox reports it as `SandboxError` kind `Host`.
 */
export class HostFunctionError extends Error {
  constructor(readonly importModule: string, readonly importName: string, message: string, options?: { cause?: unknown }) {
    super(`host function \`${importModule}::${importName}\` failed: ${message}`, options);
    this.name = 'HostFunctionError';
  }
}

/** How much one run may log through `host::log` unless `allowLog` says otherwise. */
export const DEFAULT_LOG_LIMIT_BYTES = 1 << 20;

export interface LogOptions {
  /** The most bytes one run (or one instance) may log. */
  readonly maxBytes?: number;
}

/** The lines a guest logged through `host::log`, in order. Shared by every run of the ABI. */
export class LogSink {
  /** The captured lines (live; the sink appends to it). */
  readonly lines: string[] = [];
  private readonly listeners: Array<(line: string) => void> = [];

  /** Appends a line and tells the listeners. */
  push(line: string): void {
    this.lines.push(line);
    for (const listener of this.listeners) listener(line);
  }

  /** Calls `listener` for every line logged from now on; returns a function that unsubscribes. */
  onLine(listener: (line: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Forgets the captured lines. */
  clear(): void {
    this.lines.length = 0;
  }

  get length(): number {
    return this.lines.length;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.lines[Symbol.iterator]();
  }
}

/** What `allowLog()` hands back: the extended ABI and the sink of captured lines. */
export interface LogGrant {
  readonly host: HostAbi;
  readonly logs: LogSink;
}

/** What `allowWasi()` hands back: the extended ABI and the handle on the runs' WASI state. */
export interface WasiGrant {
  readonly host: HostAbi;
  readonly wasi: Wasi;
}

/** One granted import, as `HostAbi.grants` lists it. */
export interface GrantInfo {
  readonly module: string;
  readonly name: string;
  readonly signature: HostFunctionSignature;
  readonly capability: 'log' | 'random' | 'function' | 'wasi';
}

// ----------------------------------------------------------------------------------------
// Engine-facing part, used by the sandbox layer.

/** The engine's host function shape (docs/engine-api.md, `HostFunction`). */
export type EngineHostFunction = (args: WasmValue[], caller: { readonly instance: unknown }) => WasmValue[] | Promise<WasmValue[]>;

/** Per-run (per-store) services a grant's implementation needs. @internal */
export interface HostBinding {
  /** The exported memory `memory` of the instance making the call, if any. */
  memoryOf(caller: { readonly instance: unknown }): GuestMemory | null;
  /** Aborted when the run ends. */
  readonly signal: AbortSignal;
  /** The limits the run is under. */
  readonly limits: Limits;
  /** Fuel consumed so far by the run or instance, all its calls together (WASI's virtual clock). */
  totalFuelConsumed(): number;
}

/** @internal */
export interface Grant extends GrantInfo {
  /** The engine function type. */
  readonly type: FuncType;
  /** A fresh implementation for one run (one store): per-run state such as an RNG lives here. */
  bind(binding: HostBinding): EngineHostFunction;
}

const LOG_SIGNATURE: HostFunctionSignature = Object.freeze({ params: Object.freeze(['i32', 'i32'] as const), results: Object.freeze([] as const) });
const RANDOM_SIGNATURE: HostFunctionSignature = Object.freeze({ params: Object.freeze([] as const), results: Object.freeze(['i64'] as const) });

export class HostAbi {
  private constructor(private readonly table: ReadonlyMap<string, Grant>) {
    Object.freeze(this);
  }

  /** An ABI that grants nothing: any import fails the run with `DisallowedImport`. */
  static denyAll(): HostAbi {
    return new HostAbi(new Map());
  }

  /**
   * Grants `host::log(ptr: i32, len: i32)`. The guest passes a pointer and length into its
   * exported memory `memory`; the host copies the bytes out (bounds-checked; invalid UTF-8 is
   * replaced with U+FFFD) and appends the line to the sink. A missing memory, or a pointer or
   * length out of range, traps (`SandboxError` kind `Trap`).
   *
   * Returns `{ host, logs }`: the extended ABI and the sink (`logs.lines`). Pass a sink of your
   * own to collect into it instead.
   *
   * A guest could otherwise fill the host's memory through its log, so each run (each
   * instance, for `sandbox.instantiate`) may log at most `maxBytes` bytes (default 1 MiB); the
   * call that would pass the limit traps.
   */
  allowLog(sink: LogSink = new LogSink(), { maxBytes = DEFAULT_LOG_LIMIT_BYTES }: LogOptions = {}): LogGrant {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError('allowLog: maxBytes must be a non-negative integer');
    const grant: Grant = {
      module: 'host',
      name: 'log',
      capability: 'log',
      signature: LOG_SIGNATURE,
      type: toFuncType(LOG_SIGNATURE),
      bind: (binding) => {
        let logged = 0;
        return (args, caller) => {
          const memory = binding.memoryOf(caller);
          if (memory === null) {
            throw new HostTrap('host::log requires the guest to export its linear memory as `memory`');
          }
          const ptr = args[0]!.asI32 >>> 0;
          const len = args[1]!.asI32 >>> 0;
          if (ptr + len > memory.byteLength) throw new HostTrap('host::log pointer or length out of bounds');
          logged += len;
          if (logged > maxBytes) throw new HostTrap(`host::log: the guest logged more than ${maxBytes} bytes`);
          sink.push(memory.readString(ptr, len));
          return [];
        };
      },
    };
    return { host: this.with(grant), logs: sink };
  }

  /**
   * Grants `host::random() -> i64`: each call returns the next output of a splitmix64
   * generator seeded with `seed` (taken modulo 2^64). Every run — and every instance — starts
   * its own generator from the seed, so a run's numbers depend only on the seed and on how many
   * it drew, never on other runs in flight. NOT cryptographic: do not use it for keys, nonces,
   * tokens or anything that must be unpredictable.
   */
  allowRandom(seed: bigint | number): HostAbi {
    const checked = typeof seed === 'bigint' ? seed : BigInt(checkSeed(seed));
    const grant: Grant = {
      module: 'host',
      name: 'random',
      capability: 'random',
      signature: RANDOM_SIGNATURE,
      type: toFuncType(RANDOM_SIGNATURE),
      bind: () => {
        const rng = new SplitMix64(checked);
        return () => {
          const [lo, hi] = rng.nextHalves();
          return [WasmValue.i64Halves(lo, hi)];
        };
      },
    };
    return this.with(grant);
  }

  /**
   * Grants an import `module::name` of your own, with its WebAssembly signature, implemented
   * by `impl`. `impl` receives the arguments (i32, f32, f64 as numbers; i64 as bigints) and a
   * `HostCall` (the caller's memory, an abort signal) and returns its results — directly, or
   * as a promise. A module that imports the name with a different signature is rejected as
   * an invalid module.
   */
  allowFunction(module: string, name: string, signature: HostFunctionSignature, impl: HostFunctionImpl): HostAbi {
    if (typeof module !== 'string' || typeof name !== 'string') throw new TypeError('allowFunction: module and name must be strings');
    if (typeof impl !== 'function') throw new TypeError('allowFunction: impl must be a function');
    const sig: HostFunctionSignature = Object.freeze({
      params: Object.freeze(checkTypes(signature?.params, 'params')),
      results: Object.freeze(checkTypes(signature?.results, 'results')),
    });
    const grant: Grant = {
      module,
      name,
      capability: 'function',
      signature: sig,
      type: toFuncType(sig),
      bind: (binding) => (args, caller) => {
        const signal = binding.signal;
        const call: HostCall = { module, name, memory: binding.memoryOf(caller)?.scoped(signal) ?? null, signal };
        const jsArgs = args.map((a, i) => fromWasm(a, sig.params[i]!));
        let out: HostResult | Promise<HostResult>;
        try {
          out = impl(jsArgs, call);
        } catch (e) {
          throw hostFailure(e, module, name);
        }
        if (isPromiseLike(out)) {
          return Promise.resolve(out).then(
            (r) => toWasmResults(r, sig, module, name),
            (e: unknown) => {
              throw hostFailure(e, module, name);
            },
          );
        }
        return toWasmResults(out, sig, module, name);
      },
    };
    return this.with(grant);
  }

  /**
   * Grants WASI preview 1: every function of `wasi_snapshot_preview1`, so that programs built
   * for `wasm32-wasi` run. Each instance gets its own WASI state, made from `options` when it is
   * created: arguments, environment, stdin, and preopened directories copied into an in-memory
   * filesystem — the guest never sees the host's files, and its writes stay in memory. Time is
   * virtual by default (derived from fuel) and random_get a seeded stream, so a run replays
   * bit for bit. The filesystem counts against `Limits.fsBytes`, `fsFiles` and `fsDescriptors`.
   * `proc_exit(n)` ends the run at once; it resolves with `exitCode` n. docs/wasi.md says more.
   *
   * Returns `{ host, wasi }`: the extended ABI, and the handle on the latest run's captured
   * stdout and stderr (`wasi.stdout`, `wasi.stderr`, bytes) and filesystem (`wasi.fs`). Runs in
   * flight at once each have their own state; the handle shows the one created last.
   */
  allowWasi(options: WasiOptions = {}): WasiGrant {
    const { grants, wasi } = wasiGrants(options);
    let host: HostAbi = this;
    for (const grant of grants) host = host.with(grant);
    return { host, wasi };
  }

  /** Whether `module::name` is granted. */
  isAllowed(module: string, name: string): boolean {
    return this.table.has(key(module, name));
  }

  /** The granted imports, in the order they were granted. */
  get grants(): GrantInfo[] {
    return [...this.table.values()].map(({ module, name, signature, capability }) => ({ module, name, signature, capability }));
  }

  /** The grant for `module::name`, if any. @internal */
  grantFor(module: string, name: string): Grant | undefined {
    return this.table.get(key(module, name));
  }

  private with(grant: Grant): HostAbi {
    const table = new Map(this.table);
    table.delete(key(grant.module, grant.name));
    table.set(key(grant.module, grant.name), grant);
    return new HostAbi(table);
  }
}

function key(module: string, name: string): string {
  return `${module}\u0000${name}`;
}

function checkSeed(seed: number): number {
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) {
    throw new RangeError(`allowRandom: the seed must be an integer or a bigint (got ${String(seed)})`);
  }
  return seed;
}

const TYPE_CODES: Readonly<Record<HostValueType, ValType>> = { i32: I32, i64: I64, f32: F32, f64: F64 };

function checkTypes(types: readonly HostValueType[] | undefined, what: string): HostValueType[] {
  if (!Array.isArray(types)) throw new TypeError(`allowFunction: signature.${what} must be an array of 'i32' | 'i64' | 'f32' | 'f64'`);
  return types.map((t) => {
    if (!Object.prototype.hasOwnProperty.call(TYPE_CODES, t)) {
      throw new TypeError(`allowFunction: unsupported type ${JSON.stringify(t)} in signature.${what}`);
    }
    return t;
  });
}

function toFuncType(sig: HostFunctionSignature): FuncType {
  return Object.freeze({
    params: Object.freeze(sig.params.map((t) => TYPE_CODES[t])),
    results: Object.freeze(sig.results.map((t) => TYPE_CODES[t])),
  });
}

function fromWasm(v: WasmValue, type: HostValueType): HostArg {
  switch (type) {
    case 'i32': return v.asI32;
    case 'i64': return v.asI64;
    case 'f32': return v.asF32;
    default: return v.asF64;
  }
}

function toWasmResults(out: HostResult, sig: HostFunctionSignature, module: string, name: string): WasmValue[] {
  const results = sig.results;
  let list: readonly HostResultValue[];
  if (out === undefined || out === null) list = [];
  else if (Array.isArray(out)) list = out as readonly HostResultValue[];
  else list = [out as HostResultValue];
  if (list.length !== results.length) {
    throw new HostFunctionError(module, name, `returned ${list.length} value(s), but its signature declares ${results.length}`);
  }
  return list.map((v, i) => toWasm(v, results[i]!, module, name, i));
}

function toWasm(v: HostResultValue, type: HostValueType, module: string, name: string, index: number): WasmValue {
  const bad = (): never => {
    throw new HostFunctionError(module, name, `result ${index} (${describe(v)}) is not a valid ${type}`);
  };
  if (v instanceof Value) {
    if (v.type !== type) bad();
    v = v.value as number | bigint; // of `type`, so not a v128
  }
  switch (type) {
    case 'i32':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v > 2 ** 32 - 1) return bad();
      return WasmValue.i32(v);
    case 'i64':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return WasmValue.i64(BigInt(v));
      if (typeof v !== 'bigint' || v < -(2n ** 63n) || v > 2n ** 64n - 1n) return bad();
      return WasmValue.i64(v);
    case 'f32':
      if (typeof v !== 'number') return bad();
      return WasmValue.f32(v as number);
    default:
      if (typeof v !== 'number') return bad();
      return WasmValue.f64(v as number);
  }
}

function describe(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

function isPromiseLike(x: unknown): x is PromiseLike<HostResult> {
  return (typeof x === 'object' || typeof x === 'function') && x !== null && typeof (x as { then?: unknown }).then === 'function';
}

/** Keeps the errors the sandbox classifies itself; wraps anything else as the host's fault. */
function hostFailure(e: unknown, module: string, name: string): unknown {
  if (e instanceof HostTrap || e instanceof GuestExit || e instanceof GuestMemoryError || e instanceof HostFunctionError) return e;
  if (e instanceof SandboxError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new HostFunctionError(module, name, message, { cause: e });
}
