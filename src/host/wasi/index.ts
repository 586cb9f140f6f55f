/**
 * WASI preview 1 (`wasi_snapshot_preview1`) as a capability: `HostAbi.allowWasi(options)`
 * grants its functions, backed by the in-memory filesystem and the deterministic clock and
 * random stream of this directory's modules. Each instance gets its own WASI state, made from
 * the options when it is created; the `Wasi` handle shows the state of the latest one.
 * docs/wasi.md describes the model.
 */
import { WasmValue } from '../../interpreter/values.js';
import type { Grant, HostBinding, HostFunctionSignature } from '../abi.js';
import { I32, I64, type ValType } from '../../interpreter/types.js';
import { fdCalls } from './calls-fd.js';
import { pathCalls } from './calls-path.js';
import { processCalls } from './calls-process.js';
import type { ClockMode } from './clock.js';
import { WasiContext, type WasiConfig } from './context.js';
import { WasiError } from './errno.js';
import { WasiFileSystem } from './fs-view.js';
import { checkVirtualDirectory, type PreopenSource, type VirtualDirectory } from './preopen.js';
import type { StdinSource } from './streams.js';
import type { Syscall } from './syscall.js';

export { WasiFileSystem, type WasiFileStat } from './fs-view.js';
export type { VirtualDirectory, VirtualEntry, PreopenSource } from './preopen.js';
export type { StdinSource } from './streams.js';
export type { ClockMode } from './clock.js';

export const WASI_MODULE = 'wasi_snapshot_preview1';

/** How much of stdout, and of stderr, a run captures unless `maxOutputBytes` says otherwise. */
export const DEFAULT_OUTPUT_LIMIT_BYTES = 1 << 20;

export interface WasiOptions {
  /** argv, the program's name first (default: none). */
  readonly args?: readonly string[];
  /** The environment (default: empty). */
  readonly env?: Readonly<Record<string, string>>;
  /** What stdin reads: bytes, text, or a function called on the first read (default: nothing). */
  readonly stdin?: StdinSource;
  /**
   * Directories the guest may use, by guest path (`/`, `/data`, `.`): the path of a host
   * directory, copied into memory when the instance is created, or a `VirtualDirectory`.
   */
  readonly preopens?: Readonly<Record<string, PreopenSource>>;
  /** `virtual` (the default): time from fuel, deterministic. `host`: the machine's clocks. */
  readonly clock?: ClockMode;
  /** The seed of random_get's stream (splitmix64, NOT cryptographic; default 0). */
  readonly randomSeed?: bigint | number;
  /** The most bytes captured of stdout, and of stderr (default 1 MiB); writes past it fail with ENOSPC. */
  readonly maxOutputBytes?: number;
  /** Receives stdout's bytes as they are written, instead of the capture (and its cap). */
  readonly onStdout?: (bytes: Uint8Array) => void;
  /** Receives stderr's bytes as they are written, instead of the capture (and its cap). */
  readonly onStderr?: (bytes: Uint8Array) => void;
}

/** What a WASI run leaves for the embedder: the latest instance's captured streams and filesystem. */
export class Wasi {
  private latest: WasiContext | null = null;

  /** @internal */
  attach(ctx: WasiContext): void {
    this.latest = ctx;
  }

  /** What the latest run wrote to stdout (empty before any run, or when `onStdout` took it). */
  get stdout(): Uint8Array {
    return this.latest?.stdout.contents() ?? new Uint8Array(0);
  }

  /** What the latest run wrote to stderr. */
  get stderr(): Uint8Array {
    return this.latest?.stderr.contents() ?? new Uint8Array(0);
  }

  /** The latest run's filesystem, or null before any run. */
  get fs(): WasiFileSystem | null {
    return this.latest === null ? null : new WasiFileSystem(this.latest.preopens);
  }
}

const SYSCALLS: Readonly<Record<string, Syscall>> = { ...processCalls, ...fdCalls, ...pathCalls };

const TYPE_CODES: Readonly<Record<'i32' | 'i64', ValType>> = { i32: I32, i64: I64 };

/** The grants of every WASI function, sharing one `WasiContext` per instance, and the handle. */
export function wasiGrants(options: WasiOptions): { grants: Grant[]; wasi: Wasi } {
  const config = checkOptions(options);
  const wasi = new Wasi();
  // Each function is bound once per instance; the first binding makes the instance's state.
  const contexts = new WeakMap<HostBinding, WasiContext>();
  const contextOf = (binding: HostBinding): WasiContext => {
    let ctx = contexts.get(binding);
    if (ctx === undefined) {
      ctx = new WasiContext(config, binding);
      contexts.set(binding, ctx);
      wasi.attach(ctx);
    }
    return ctx;
  };
  const grants = Object.entries(SYSCALLS).map(([name, call]): Grant => {
    const signature: HostFunctionSignature = Object.freeze({ params: Object.freeze([...call.params]), results: Object.freeze([...call.results]) });
    return {
      module: WASI_MODULE,
      name,
      capability: 'wasi',
      signature,
      type: Object.freeze({ params: Object.freeze(call.params.map((t) => TYPE_CODES[t])), results: Object.freeze(call.results.map(() => I32)) }),
      bind: (binding) => {
        const ctx = contextOf(binding);
        return (args, caller) => {
          ctx.enter(binding.memoryOf(caller));
          try {
            const errno = call.run(ctx, args);
            return errno instanceof Promise ? errno.then(result, answerErrno) : result(errno);
          } catch (e) {
            return answerErrno(e);
          }
        };
      },
    };
  });
  return { grants, wasi };
}

function result(errno: number): WasmValue[] {
  return [WasmValue.i32(errno)];
}

/** A WASI error is the call's answer; anything else (a trap, an exit, a fault) goes on up. */
function answerErrno(e: unknown): WasmValue[] {
  if (e instanceof WasiError) return result(e.errno);
  throw e;
}

function checkOptions(options: WasiOptions): WasiConfig {
  if (options === null || typeof options !== 'object') throw new TypeError('allowWasi: expected an options object');
  const args = options.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string' && !a.includes('\0'))) {
    throw new TypeError('allowWasi: args must be an array of strings without NUL');
  }
  const env = Object.entries(options.env ?? {});
  for (const [key, value] of env) {
    if (key === '' || key.includes('=') || key.includes('\0') || typeof value !== 'string' || value.includes('\0')) {
      throw new TypeError(`allowWasi: env entry ${JSON.stringify(key)} must be a name without '=' or NUL and a string value without NUL`);
    }
  }
  const stdin = options.stdin ?? new Uint8Array(0);
  if (typeof stdin !== 'string' && typeof stdin !== 'function' && !(stdin instanceof Uint8Array)) {
    throw new TypeError('allowWasi: stdin must be a Uint8Array, a string or a function returning a Uint8Array');
  }
  const preopens = Object.entries(options.preopens ?? {});
  for (const [guestPath, source] of preopens) {
    if (guestPath === '' || guestPath.includes('\0')) throw new TypeError(`allowWasi: invalid preopen path ${JSON.stringify(guestPath)}`);
    if (typeof source !== 'string') checkVirtualDirectory(source as VirtualDirectory, `preopens[${JSON.stringify(guestPath)}]`);
  }
  const clock = options.clock ?? 'virtual';
  if (clock !== 'virtual' && clock !== 'host') throw new TypeError("allowWasi: clock must be 'virtual' or 'host'");
  const seed = options.randomSeed ?? 0n;
  if (typeof seed !== 'bigint' && !Number.isSafeInteger(seed)) throw new RangeError('allowWasi: randomSeed must be an integer or a bigint');
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  if (!(Number.isSafeInteger(maxOutputBytes) && maxOutputBytes >= 0)) throw new RangeError('allowWasi: maxOutputBytes must be a non-negative integer');
  for (const name of ['onStdout', 'onStderr'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw new TypeError(`allowWasi: ${name} must be a function`);
  }
  return {
    args: [...args],
    env,
    stdin,
    preopens,
    clock,
    randomSeed: BigInt(seed),
    maxOutputBytes,
    onStdout: options.onStdout ?? null,
    onStderr: options.onStderr ?? null,
  };
}
