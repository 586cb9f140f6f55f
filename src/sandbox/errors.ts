/**
 * `SandboxError`: the one exception `compile`, `run`, `instantiate` and `call` ever throw.
 *
 * Every way a run can stop is a distinct `kind`, so embedders branch on why a module was
 * stopped rather than scraping messages. The message text and the CLI exit code of each kind
 * are sandboxd's.
 */

import { type BacktraceFrame, frameName } from '../interpreter/errors.js';
import type { Profile } from '../inspect/profile.js';
import type { FunctionCoverage, TraceEntry } from '../inspect/monitors.js';

export type { BacktraceFrame };

export type SandboxErrorKind =
  | 'FuelExhausted'
  | 'Timeout'
  | 'MemoryLimitExceeded'
  | 'DisallowedImport'
  | 'InvalidModule'
  | 'Export'
  | 'Trap'
  | 'Host'
  | 'Aborted';

/** The `sandboxd` CLI's exit code for each kind. */
export const EXIT_CODES: Readonly<Record<SandboxErrorKind, number>> = Object.freeze({
  FuelExhausted: 2,
  Timeout: 3,
  MemoryLimitExceeded: 4,
  DisallowedImport: 5,
  InvalidModule: 6,
  Export: 7,
  Trap: 8,
  Host: 1,
  // Not sandboxd's: the embedder stopped the run (RunOptions.signal); the CLI never does.
  Aborted: 1,
});

/** The `Limits` field whose cap a `MemoryLimitExceeded` run reached. */
export type LimitedResource = 'memoryBytes' | 'tableElements' | 'tables' | 'memories' | 'fsBytes' | 'fsFiles' | 'fsDescriptors';

type ErrorInit =
  | { kind: 'FuelExhausted'; budget: number }
  | { kind: 'Timeout'; millis: number }
  | { kind: 'Aborted' }
  | { kind: 'MemoryLimitExceeded'; limit: number; resource: LimitedResource }
  | { kind: 'DisallowedImport'; module: string; name: string }
  | { kind: 'InvalidModule' | 'Export' | 'Trap' | 'Host'; detail: string };

const RESOURCE_UNITS: Readonly<Record<LimitedResource, string>> = {
  memoryBytes: 'bytes of linear memory',
  tableElements: 'table elements',
  tables: 'tables',
  memories: 'memories',
  fsBytes: 'bytes of WASI filesystem storage',
  fsFiles: 'WASI files',
  fsDescriptors: 'WASI descriptors',
};

/**
 * A backtrace as wasmtime prints it: `wasm backtrace:`, then a line per frame — its index
 * right-aligned in three columns, the offset as `{:#8x}`, and `module!function` (`<unknown>`
 * for a module without a name, `<wasm function N>` for a function without one), then
 * ` at file:line:column` where DWARF gives the source position.
 */
export function formatBacktrace(frames: readonly BacktraceFrame[]): string {
  const lines = frames.slice(0, MAX_PRINTED_FRAMES).map((f, i) => {
    const offset = `0x${f.offset.toString(16)}`.padStart(8);
    const at = f.source === undefined ? '' : ` at ${f.source.file}:${f.source.line}:${f.source.column}`;
    return `  ${String(i).padStart(3)}: ${offset} - ${frameName(f)}${at}`;
  });
  // A call stack exhausted is 20,000 frames deep: the message keeps the innermost ones.
  if (frames.length > MAX_PRINTED_FRAMES) lines.push(`  ... ${frames.length - MAX_PRINTED_FRAMES} more frames`);
  return ['wasm backtrace:', ...lines].join('\n');
}

/** The most frames a message prints (`SandboxError.backtrace` has them all). */
export const MAX_PRINTED_FRAMES = 100;

export class SandboxError extends Error {
  /** Why the run stopped. */
  readonly kind: SandboxErrorKind;
  /** The `sandboxd` CLI exit code for this kind (1-8). */
  readonly exitCode: number;
  /**
   * Fuel consumed up to the stop, so a failed run can still be billed (0 when no guest code
   * ran; the whole budget for `FuelExhausted`).
   */
  fuelConsumed: number;
  /** FuelExhausted: the configured budget. */
  readonly budget?: number;
  /** Timeout: the configured deadline in milliseconds. */
  readonly millis?: number;
  /** MemoryLimitExceeded: the cap that was reached (in bytes for `memoryBytes`). */
  readonly limit?: number;
  /** MemoryLimitExceeded: which cap — the `Limits` field. */
  readonly resource?: LimitedResource;
  /** DisallowedImport: the import's module name, e.g. `env`. */
  readonly module?: string;
  /**
   * For `DisallowedImport` only, the import's field name, e.g. `exec` (shadowing
   * `Error.prototype.name`, as the contract names it); `'SandboxError'` for every other kind.
   */
  declare name: string;
  /** InvalidModule, Export, Trap, Host: the text after the kind's prefix. */
  readonly detail?: string;
  /**
   * Trap, FuelExhausted, Timeout: where the guest was, innermost frame first — each frame's
   * function index, its names from the module's `name` section, and the byte offset in the
   * module of the instruction (a caller's: its call), as wasmtime reports them. Empty otherwise.
   */
  backtrace: readonly BacktraceFrame[] = [];
  /** The run's fuel profile up to its failure, when it asked for one (RunOptions.profile). */
  profile?: Profile;
  /** Which instructions ran before the failure, when the run asked (RunOptions.coverage). */
  coverage?: readonly FunctionCoverage[];
  /** The first instructions run, when the run asked (RunOptions.trace). */
  trace?: readonly TraceEntry[];

  private constructor(init: ErrorInit, message: string, fuelConsumed: number, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = init.kind;
    this.exitCode = EXIT_CODES[init.kind];
    this.fuelConsumed = fuelConsumed;
    switch (init.kind) {
      case 'FuelExhausted': this.budget = init.budget; break;
      case 'Timeout': this.millis = init.millis; break;
      case 'Aborted': break;
      case 'MemoryLimitExceeded':
        this.limit = init.limit;
        this.resource = init.resource;
        break;
      case 'DisallowedImport':
        this.module = init.module;
        Object.defineProperty(this, 'name', { value: init.name, enumerable: true, writable: false, configurable: true });
        break;
      default: this.detail = init.detail;
    }
  }

  static fuelExhausted(budget: number, fuelConsumed = budget): SandboxError {
    return new SandboxError(
      { kind: 'FuelExhausted', budget },
      `fuel exhausted: the module exceeded its instruction budget of ${budget} units`,
      fuelConsumed,
    );
  }

  static timeout(millis: number, fuelConsumed = 0): SandboxError {
    return new SandboxError(
      { kind: 'Timeout', millis },
      `wall-clock timeout: the module ran longer than ${millis} ms`,
      fuelConsumed,
    );
  }

  /** The embedder stopped the run (RunOptions.signal), wherever it was. */
  static aborted(fuelConsumed = 0): SandboxError {
    return new SandboxError({ kind: 'Aborted' }, 'aborted: the run was stopped by its abort signal', fuelConsumed);
  }

  static memoryLimitExceeded(limit: number, fuelConsumed = 0): SandboxError {
    return SandboxError.limitExceeded('memoryBytes', limit, fuelConsumed);
  }

  /**
   * A cap of `Limits` reached: linear memory bytes (sandboxd's message), table elements, or
   * the number of tables or memories. All are kind `MemoryLimitExceeded`; `resource` says which.
   */
  static limitExceeded(resource: LimitedResource, limit: number, fuelConsumed = 0): SandboxError {
    return new SandboxError(
      { kind: 'MemoryLimitExceeded', limit, resource },
      `memory limit exceeded: the module requested more than ${limit} ${RESOURCE_UNITS[resource]}`,
      fuelConsumed,
    );
  }

  static disallowedImport(module: string, name: string, fuelConsumed = 0): SandboxError {
    return new SandboxError(
      { kind: 'DisallowedImport', module, name },
      `disallowed import: the module imports \`${module}::${name}\` which is not on the allow-list`,
      fuelConsumed,
    );
  }

  static invalidModule(detail: string, fuelConsumed = 0, cause?: unknown): SandboxError {
    return new SandboxError({ kind: 'InvalidModule', detail }, `invalid module: ${detail}`, fuelConsumed, { cause });
  }

  static export(detail: string, fuelConsumed = 0, cause?: unknown): SandboxError {
    return new SandboxError({ kind: 'Export', detail }, `export error: ${detail}`, fuelConsumed, { cause });
  }

  /** A trap; with a backtrace, the message goes on with it in wasmtime's words (formatBacktrace). */
  static trap(detail: string, fuelConsumed = 0, cause?: unknown, backtrace: readonly BacktraceFrame[] = []): SandboxError {
    const lines = backtrace.length > 0 ? `\n${formatBacktrace(backtrace)}` : '';
    const error = new SandboxError({ kind: 'Trap', detail }, `guest trap: ${detail}${lines}`, fuelConsumed, { cause });
    error.backtrace = backtrace;
    return error;
  }

  static host(detail: string, fuelConsumed = 0, cause?: unknown): SandboxError {
    return new SandboxError({ kind: 'Host', detail }, `host error: ${detail}`, fuelConsumed, { cause });
  }

  /** `SandboxError: <message>` (whatever `name` holds). */
  override toString(): string {
    return `SandboxError: ${this.message}`;
  }
}

Object.defineProperty(SandboxError.prototype, 'name', {
  value: 'SandboxError',
  enumerable: false,
  writable: true,
  configurable: true,
});

export function isSandboxError(e: unknown): e is SandboxError {
  return e instanceof SandboxError;
}
