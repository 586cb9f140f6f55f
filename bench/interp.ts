/**
 * The interpreter side, kept behind one small adapter so the rest of the harness does not
 * depend on the sandbox's exact types. It talks only to the sandbox's public API
 * (`src/index.ts`): `new Sandbox()`, `sandbox.compile(bytes)`, `sandbox.run(module, name,
 * params, limits)`, `Limits`, `Value`.
 *
 * The module is imported dynamically through a non-literal specifier, so this file
 * typechecks and the benchmark runs (native side only) before `src/index.ts` exists.
 * Set BENCH_SANDBOX_MODULE to benchmark another build (a path or file URL).
 */
import { pathToFileURL } from 'node:url';
import type { ProgramEngine } from './programs.js';
import { typeName, type ResultType } from './values.js';

export interface LimitsSpec {
  fuel: number;
  timeoutMs: number;
  memoryBytes?: number;
  tableElements?: number;
  instances?: number;
}

export type Arg = { type: 'i32'; value: number } | { type: 'i64'; value: bigint };

export interface RawValue {
  type: ResultType;
  value: unknown;
}

export interface RunResult {
  values: RawValue[];
  /** Fuel the run consumed, when the output reports it. */
  fuelConsumed?: number;
}

export interface Interpreter {
  /** Where the sandbox was loaded from. */
  readonly source: string;
  compile(bytes: Uint8Array): Promise<unknown>;
  /** One run; resolves to the results, rejects with the sandbox's error. */
  run(module: unknown, exportName: string, args: readonly Arg[], limits: LimitsSpec | 'off'): Promise<RunResult>;
  /** How the "metering off" configuration is expressed, for the report. */
  readonly offNote: string;
}

/** Fences on, but far out of reach: what the kernels run under. */
export const ON_LIMITS: LimitsSpec = {
  fuel: 1e15,
  timeoutMs: 60_000,
  memoryBytes: 256 * 1024 * 1024,
  tableElements: 100_000,
  instances: 16,
};

/** Fuel and deadline effectively off, when the API has no real off switch. */
export const OFF_LIMITS: LimitsSpec = {
  ...ON_LIMITS,
  fuel: Number.MAX_SAFE_INTEGER,
  timeoutMs: 1e9,
};

// The minimal structural view of the sandbox API this adapter relies on.
interface SandboxLike {
  compile(bytes: Uint8Array): Promise<unknown>;
  run(module: unknown, exportName: string, params: unknown[], limits?: unknown): Promise<unknown>;
}
type Ctor<T> = new (...args: any[]) => T;
interface ValueStatics {
  i32(n: number): unknown;
  i64(n: bigint): unknown;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/**
 * The sandbox, with `tier` as its SandboxOptions.tier when given ('interpreter' runs guests in
 * the interpreter only; the default lets hot functions move to the JavaScript tier), and
 * `translation` as its SandboxOptions.translation ('eager': every body translated at compile
 * time; the default translates on first call).
 */
export async function loadInterpreter(tier?: string, translation?: string): Promise<{ interp: Interpreter } | { error: string }> {
  const override = process.env['BENCH_SANDBOX_MODULE'];
  const specifier = override
    ? override.startsWith('file:') ? override : pathToFileURL(override).href
    : '../src/index.js';
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (e) {
    return { error: errorText(e).split('\n')[0]! };
  }
  const SandboxCls = mod['Sandbox'] as Ctor<SandboxLike> | undefined;
  const ValueCls = mod['Value'] as ValueStatics | undefined;
  const LimitsCls = mod['Limits'] as unknown;
  if (typeof SandboxCls !== 'function') return { error: `${specifier} has no export Sandbox` };
  if (!ValueCls || typeof ValueCls.i32 !== 'function') return { error: `${specifier} has no export Value` };

  let sandbox: SandboxLike;
  try {
    sandbox = tier === undefined && translation === undefined ? new SandboxCls() : new SandboxCls(undefined, { tier, translation });
  } catch (e) {
    return { error: `new Sandbox() failed: ${errorText(e)}` };
  }

  const makeLimits = (spec: LimitsSpec): unknown => {
    if (typeof LimitsCls !== 'function') return { ...spec };
    try {
      return new (LimitsCls as Ctor<unknown>)({ ...spec });
    } catch {
      return (LimitsCls as (o: LimitsSpec) => unknown)({ ...spec });
    }
  };

  // "Off": the deadline really off where the API takes `timeoutMs: Infinity` (src/sandbox/
  // limits.ts documents that); otherwise a deadline far away. Fuel has no off switch: the
  // largest budget (Number.MAX_SAFE_INTEGER) is still counted down.
  let offLimits: unknown;
  let offNote: string;
  try {
    offLimits = makeLimits({ ...OFF_LIMITS, timeoutMs: Infinity });
    offNote = 'fuel Number.MAX_SAFE_INTEGER (no off switch for fuel: still counted) and timeoutMs Infinity (deadline off)';
  } catch {
    offLimits = makeLimits(OFF_LIMITS);
    offNote = 'fuel Number.MAX_SAFE_INTEGER and timeoutMs 1e9 (no off switch in the API: both still armed)';
  }

  const toParam = (a: Arg): unknown => (a.type === 'i32' ? ValueCls.i32(a.value) : ValueCls.i64(a.value));

  const interp: Interpreter = {
    source: specifier,
    offNote,
    compile: (bytes) => sandbox.compile(bytes),
    async run(module, exportName, args, limits) {
      const out = (await sandbox.run(module, exportName, args.map(toParam),
        limits === 'off' ? offLimits : makeLimits(limits))) as { values?: unknown[]; fuelConsumed?: unknown } | null;
      const values = out?.values;
      if (!Array.isArray(values)) {
        // Not the documented shape: surface whatever the output says went wrong.
        throw new Error(`unexpected RunOutput: ${JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
      }
      const fuel = out?.fuelConsumed;
      return {
        values: values.map((v) => {
          const o = v as { type?: unknown; value?: unknown };
          const type = typeName(o.type);
          if (!type) throw new Error(`unexpected result value ${String(v)}`);
          return { type, value: o.value };
        }),
        ...(typeof fuel === 'number' || typeof fuel === 'bigint' ? { fuelConsumed: Number(fuel) } : {}),
      };
    },
  };
  return { interp };
}

/**
 * The sandbox as an engine for bench/programs.ts: `instantiate`, then calls on the instance
 * and its memory; granting `__wbindgen_placeholder__::__wbindgen_string_new` (wasm-bindgen's
 * error path), which answers 0. `tier` as in loadInterpreter.
 */
export async function loadProgramEngine(tier?: string): Promise<ProgramEngine> {
  const mod = (await import('../src/index.js')) as typeof import('../src/index.js');
  const host = mod.HostAbi.denyAll().allowFunction('__wbindgen_placeholder__', '__wbindgen_string_new', { params: ['i32', 'i32'], results: ['i32'] }, () => [0]);
  const sandbox = new mod.Sandbox(host, tier === undefined ? {} : { tier: tier as 'auto' });
  const limits = new mod.Limits({ ...ON_LIMITS });
  const compiled = new Map<Uint8Array, Promise<unknown>>();
  return async (bytes) => {
    // Compiled once per module, as an embedder would: its translations are kept with it.
    if (!compiled.has(bytes)) compiled.set(bytes, sandbox.compile(bytes));
    const instance = await sandbox.instantiate((await compiled.get(bytes)) as Parameters<typeof sandbox.instantiate>[0], limits);
    const memory = instance.memory!;
    return {
      async call(name, args) {
        const out = await instance.call(name, args.map((a) => mod.Value.i32(a)));
        const v = out.values[0];
        return v === undefined ? 0 : Number(v.value);
      },
      read: (ptr, length) => memory.read(ptr, length),
      write: (ptr, data) => memory.write(ptr, data),
    };
  };
}
