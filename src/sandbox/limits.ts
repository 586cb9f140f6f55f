/**
 * `Limits`: the resource budget applied to one run (or to each call on an `Instance`).
 *
 * - `fuel` bounds the number of WebAssembly operators executed, under wasmtime's cost model.
 *   It is the deterministic CPU budget.
 * - `timeoutMs` bounds wall-clock time through epoch interruption and a per-run watchdog. It
 *   catches what fuel cannot: time spent in granted host functions, or a descheduled process.
 * - `memoryBytes` caps linear memory, `tableElements` caps tables: growth past either is
 *   refused (`memory.grow` returns -1) and the run, if it then fails, fails with
 *   `MemoryLimitExceeded`.
 * - `instances` caps how many instances a run may create (a module is one instance);
 *   `tables` and `memories` cap how many tables and memories it may hold (wasmtime's
 *   `StoreLimits` defaults, 10,000 each). Like the memory and table caps, these are checked
 *   before anything is allocated, so a refused module costs nothing.
 * - `fsBytes`, `fsFiles` and `fsDescriptors` bound a WASI guest's in-memory filesystem: the
 *   bytes it holds (file contents, link targets, names; the preopened copies included), its
 *   files, directories and links, and its open descriptors. Past them the guest's calls fail
 *   with ENOSPC or EMFILE, as on a full disk (docs/wasi.md).
 */

export interface LimitsOptions {
  /** Fuel budget in units (default 100,000,000). A bigint is accepted; budgets above 2^53 - 1 are clamped to it. */
  fuel?: number | bigint;
  /** Wall-clock deadline in milliseconds (default 1,000). `Infinity` disables it. */
  timeoutMs?: number;
  /** Linear memory cap in bytes (default 16 MiB). */
  memoryBytes?: number;
  /** Table element cap (default 10,000). */
  tableElements?: number;
  /** How many instances a run may create (default 1). */
  instances?: number;
  /** How many tables a run may hold, all instances together (default 10,000). */
  tables?: number;
  /** How many linear memories a run may hold, all instances together (default 10,000). */
  memories?: number;
  /** Bytes a WASI guest's in-memory filesystem may hold (default 16 MiB). */
  fsBytes?: number;
  /** Files, directories and links a WASI guest's filesystem may hold (default 10,000). */
  fsFiles?: number;
  /** Descriptors a WASI guest may have open at once, the standard streams included (default 1,024). */
  fsDescriptors?: number;
}

export const DEFAULT_FUEL = 100_000_000;
export const DEFAULT_TIMEOUT_MS = 1_000;
export const DEFAULT_MEMORY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_TABLE_ELEMENTS = 10_000;
export const DEFAULT_INSTANCES = 1;
export const DEFAULT_TABLES = 10_000;
export const DEFAULT_MEMORIES = 10_000;
export const DEFAULT_FS_BYTES = 16 * 1024 * 1024;
export const DEFAULT_FS_FILES = 10_000;
export const DEFAULT_FS_DESCRIPTORS = 1_024;

export class Limits implements Required<Omit<LimitsOptions, 'fuel'>> {
  readonly fuel: number;
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly tableElements: number;
  readonly instances: number;
  readonly tables: number;
  readonly memories: number;
  readonly fsBytes: number;
  readonly fsFiles: number;
  readonly fsDescriptors: number;

  /** Throws `RangeError`/`TypeError` on a negative, fractional or non-numeric limit. */
  constructor(options: LimitsOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('Limits: expected an options object');
    }
    this.fuel = fuelBudget(options.fuel);
    this.timeoutMs = nonNegative('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, { integer: false, infinite: true });
    this.memoryBytes = nonNegative('memoryBytes', options.memoryBytes, DEFAULT_MEMORY_BYTES, { integer: true, infinite: false });
    this.tableElements = nonNegative('tableElements', options.tableElements, DEFAULT_TABLE_ELEMENTS, { integer: true, infinite: false });
    this.instances = nonNegative('instances', options.instances, DEFAULT_INSTANCES, { integer: true, infinite: false });
    this.tables = nonNegative('tables', options.tables, DEFAULT_TABLES, { integer: true, infinite: false });
    this.memories = nonNegative('memories', options.memories, DEFAULT_MEMORIES, { integer: true, infinite: false });
    this.fsBytes = nonNegative('fsBytes', options.fsBytes, DEFAULT_FS_BYTES, { integer: true, infinite: false });
    this.fsFiles = nonNegative('fsFiles', options.fsFiles, DEFAULT_FS_FILES, { integer: true, infinite: false });
    this.fsDescriptors = nonNegative('fsDescriptors', options.fsDescriptors, DEFAULT_FS_DESCRIPTORS, { integer: true, infinite: false });
    Object.freeze(this);
  }

  /**
   * sandboxd's defaults: fuel 100,000,000, 1,000 ms, 16 MiB, 10,000 table elements, 1 instance;
   * 10,000 tables and memories; for WASI, 16 MiB of files, 10,000 of them, 1,024 descriptors.
   */
  static default(): Limits {
    return new Limits();
  }

  /** A copy with some limits changed. */
  with(changes: LimitsOptions): Limits {
    return new Limits({ ...this.toJSON(), ...changes });
  }

  /** Accepts a `Limits`, a plain options object, or nothing (the defaults). */
  static from(limits?: Limits | LimitsOptions | null): Limits {
    if (limits instanceof Limits) return limits;
    return new Limits(limits ?? {});
  }

  toJSON(): Required<LimitsOptions> & { fuel: number } {
    return {
      fuel: this.fuel,
      timeoutMs: this.timeoutMs,
      memoryBytes: this.memoryBytes,
      tableElements: this.tableElements,
      instances: this.instances,
      tables: this.tables,
      memories: this.memories,
      fsBytes: this.fsBytes,
      fsFiles: this.fsFiles,
      fsDescriptors: this.fsDescriptors,
    };
  }
}

function fuelBudget(fuel: number | bigint | undefined): number {
  if (fuel === undefined) return DEFAULT_FUEL;
  if (typeof fuel === 'bigint') {
    if (fuel < 0n) throw new RangeError(`Limits: fuel must not be negative (got ${fuel})`);
    return fuel > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(fuel);
  }
  if (typeof fuel !== 'number' || Number.isNaN(fuel)) throw new TypeError(`Limits: fuel must be a number or bigint (got ${String(fuel)})`);
  if (fuel < 0) throw new RangeError(`Limits: fuel must not be negative (got ${fuel})`);
  if (fuel >= Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(fuel)) throw new RangeError(`Limits: fuel must be an integer (got ${fuel})`);
  return fuel;
}

function nonNegative(
  name: string,
  value: number | undefined,
  fallback: number,
  opts: { integer: boolean; infinite: boolean },
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`Limits: ${name} must be a number (got ${String(value)})`);
  }
  if (value < 0) throw new RangeError(`Limits: ${name} must not be negative (got ${value})`);
  if (value === Infinity) {
    if (opts.infinite) return value;
    throw new RangeError(`Limits: ${name} must be finite`);
  }
  if (opts.integer && !Number.isInteger(value)) throw new RangeError(`Limits: ${name} must be an integer (got ${value})`);
  return value;
}
