/**
 * Differential-testing helpers for the engine tests (test/engine-*.test.ts): assemble .wat
 * with wabt, instantiate it both in our engine and in Node's own WebAssembly (the oracle), run
 * the same export with the same arguments in both and compare the outcomes.
 *
 * Values cross as `WasmValue`. Results are compared bit for bit, except that any NaN matches
 * any NaN (WebAssembly leaves the payload of a produced NaN nondeterministic). To check NaN
 * payloads, return the bits as an integer from inside the module.
 */
import wabt from 'wabt';
import { expect } from 'vitest';
import {
  compileModule, Engine, type ExternVal, FuncRef, type Instance, instantiate, invokeSync, Store,
  Trap, TrapKind, WasmValue, type StoreOptions,
} from '../../src/interpreter/index.js';
import { F32, F64, I32, I64, type Import, type ValType, valTypeName } from '../../src/interpreter/types.js';

export { F32, F64, I32, I64 };

type Wabt = Awaited<ReturnType<typeof wabt>>;
let wabtPromise: Promise<Wabt> | null = null;

const FEATURES = {
  multi_value: true,
  bulk_memory: true,
  reference_types: true,
  sign_extension: true,
  sat_float_to_int: true,
  mutable_globals: true,
  simd: true,
  relaxed_simd: true,
  tail_call: true,
  threads: true,
  exceptions: true,
  multi_memory: true,
  memory64: true,
  extended_const: true,
};

/**
 * Assembles a .wat text into a binary module, with every feature wabt has that the engine
 * runs; validated by wabt too unless `validate` is false: for modules meant to be invalid, and
 * for multi-memory, threads and extended constants, which wabt's validator refuses whatever
 * features it parsed with.
 */
export async function assemble(src: string, validate = true): Promise<Uint8Array<ArrayBuffer>> {
  wabtPromise ??= wabt();
  const w = await wabtPromise;
  const mod = w.parseWat('t.wat', src, FEATURES);
  try {
    mod.resolveNames();
    if (validate) mod.validate();
    return new Uint8Array(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

// ---- value conversions ----------------------------------------------------------------------

const sf32 = new Float32Array(1);
const si32 = new Int32Array(sf32.buffer);

export function f32BitsOf(x: number): number {
  sf32[0] = x;
  return si32[0]! >>> 0;
}

export const i32 = (n: number): WasmValue => WasmValue.i32(n);
export const i64 = (n: bigint | number): WasmValue => WasmValue.i64(BigInt(n));
export const f32 = (x: number): WasmValue => WasmValue.f32(x);
export const f64 = (x: number): WasmValue => WasmValue.f64(x);

/** A WasmValue as the argument Node's WebAssembly expects. */
export function toNative(v: WasmValue): number | bigint {
  switch (v.type) {
    case I32: return v.asI32;
    case I64: return v.asI64;
    case F32: return v.asF32;
    case F64: return v.asF64;
    default: throw new Error(`toNative: unsupported type ${valTypeName(v.type)}`);
  }
}

/** A value returned by Node's WebAssembly as a WasmValue of the given type. */
export function fromNative(type: ValType, x: unknown): WasmValue {
  switch (type) {
    case I32: return WasmValue.i32(x as number);
    case I64: return WasmValue.i64(x as bigint);
    case F32: return WasmValue.f32(x as number);
    case F64: return WasmValue.f64(x as number);
    default: throw new Error(`fromNative: unsupported type ${valTypeName(type)}`);
  }
}

function isNaNValue(v: WasmValue): boolean {
  if (v.type === F32) return Number.isNaN(v.asF32);
  if (v.type === F64) return Number.isNaN(v.asF64);
  return false;
}

/** Whether two values are equal: same type, same bits, or both NaN. */
export function sameValue(a: WasmValue, b: WasmValue): boolean {
  if (a.type !== b.type) return false;
  if (isNaNValue(a) && isNaNValue(b)) return true;
  if (a.type === I32 || a.type === F32) return a.lo === b.lo;
  return a.lo === b.lo && a.hi === b.hi;
}

export function show(v: WasmValue): string {
  switch (v.type) {
    case I32: return `i32:${v.asI32}`;
    case I64: return `i64:${v.asI64}`;
    case F32: return `f32:${v.asF32}(0x${v.bits32.toString(16)})`;
    case F64: return `f64:${v.asF64}(0x${v.bits64.toString(16)})`;
    default: return v.toString();
  }
}

// ---- outcomes ---------------------------------------------------------------------------------

export type Outcome =
  | { readonly ok: true; readonly values: readonly WasmValue[] }
  | { readonly ok: false; readonly trap: string; readonly kinds: readonly string[] };

/** The TrapKinds each of V8's trap messages may correspond to. */
const V8_TRAPS: ReadonlyArray<[RegExp, string[]]> = [
  [/^unreachable/, [TrapKind.Unreachable]],
  [/divide by zero|remainder by zero/, [TrapKind.IntegerDivideByZero]],
  [/divide result unrepresentable/, [TrapKind.IntegerOverflow]],
  [/float unrepresentable/, [TrapKind.IntegerOverflow, TrapKind.BadConversionToInteger]],
  [/memory access out of bounds|data segment/, [TrapKind.MemoryOutOfBounds]],
  [/table index is out of bounds|element segment|table/, [TrapKind.TableOutOfBounds]],
  [/null function or function signature mismatch/, [TrapKind.UninitializedElement, TrapKind.IndirectCallTypeMismatch]],
  [/dereferencing a null pointer|null/, [TrapKind.NullReference]],
];

export function nativeOutcome(fn: () => unknown, types: readonly ValType[]): Outcome {
  let out: unknown;
  try {
    out = fn();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      const entry = V8_TRAPS.find(([re]) => re.test(e.message));
      return { ok: false, trap: e.message, kinds: entry ? entry[1] : [] };
    }
    if (e instanceof RangeError) return { ok: false, trap: e.message, kinds: [TrapKind.StackOverflow] };
    throw e;
  }
  const raw = types.length === 0 ? [] : types.length === 1 ? [out] : (out as unknown[]);
  return { ok: true, values: types.map((t, i) => fromNative(t, raw[i])) };
}

export function ourOutcome(fn: () => WasmValue[]): Outcome {
  try {
    return { ok: true, values: fn() };
  } catch (e) {
    if (e instanceof Trap) return { ok: false, trap: e.kind, kinds: [e.kind] };
    throw e;
  }
}

export function showOutcome(o: Outcome): string {
  return o.ok ? `[${o.values.map(show).join(', ')}]` : `trap(${o.trap})`;
}

/** Null when the outcomes agree, else a description of the difference. */
export function compareOutcomes(ours: Outcome, native: Outcome): string | null {
  if (ours.ok && native.ok) {
    if (ours.values.length === native.values.length && ours.values.every((v, i) => sameValue(v, native.values[i]!))) return null;
  } else if (!ours.ok && !native.ok) {
    // Both trapped; when V8's message identifies the kind, ours must be one of those.
    if (native.kinds.length === 0 || native.kinds.includes(ours.trap)) return null;
  }
  return `ours ${showOutcome(ours)} vs native ${showOutcome(native)}`;
}

// ---- a module in both engines -----------------------------------------------------------------

export interface PairOptions {
  /** Imports for our engine, by "module.name"; created in the pair's store by the callback. */
  readonly ours?: (store: Store) => Record<string, ExternVal>;
  /** Imports for the native instance. */
  readonly native?: WebAssembly.Imports;
  readonly store?: StoreOptions;
}

export class Pair {
  readonly engine = new Engine();
  readonly store: Store;
  readonly instance: Instance;
  readonly native: WebAssembly.Instance;

  constructor(readonly bytes: Uint8Array<ArrayBuffer>, options: PairOptions = {}) {
    this.store = new Store(this.engine, options.store);
    const imports = options.ours?.(this.store) ?? {};
    const module = compileModule(bytes);
    this.instance = instantiate(this.store, module, (imp: Import) => imports[`${imp.module}.${imp.name}`]);
    this.native = new WebAssembly.Instance(new WebAssembly.Module(bytes), options.native ?? {});
  }

  func(name: string): FuncRef {
    const f = this.instance.exports.get(name);
    if (!(f instanceof FuncRef)) throw new Error(`no exported function ${name}`);
    return f;
  }

  resultTypes(name: string): readonly ValType[] {
    return this.store.funcs[this.func(name).id]!.type.results;
  }

  ours(name: string, args: readonly WasmValue[]): Outcome {
    const f = this.func(name);
    return ourOutcome(() => invokeSync(this.store, f, args));
  }

  nativeRun(name: string, args: readonly WasmValue[]): Outcome {
    const fn = this.native.exports[name] as (...a: unknown[]) => unknown;
    return nativeOutcome(() => fn(...args.map(toNative)), this.resultTypes(name));
  }

  /** Runs `name(args)` in both engines; null when they agree, else a description. */
  diff(name: string, args: readonly WasmValue[]): string | null {
    const d = compareOutcomes(this.ours(name, args), this.nativeRun(name, args));
    return d === null ? null : `${name}(${args.map(show).join(', ')}): ${d}`;
  }

  /** Asserts that `name(args)` behaves the same in both engines and returns our outcome. */
  check(name: string, args: readonly WasmValue[] = []): Outcome {
    const ours = this.ours(name, args);
    const native = this.nativeRun(name, args);
    const d = compareOutcomes(ours, native);
    expect(d === null ? null : `${name}(${args.map(show).join(', ')}): ${d}`).toBeNull();
    return ours;
  }

  /** Runs every argument tuple; collects the disagreements (up to `limit`). */
  checkAll(name: string, tuples: ReadonlyArray<readonly WasmValue[]>, limit = 20): void {
    const failures: string[] = [];
    for (const args of tuples) {
      const d = this.diff(name, args);
      if (d !== null && failures.length < limit) failures.push(d);
    }
    expect(failures).toEqual([]);
  }
}

export async function pair(src: string, options?: PairOptions): Promise<Pair> {
  return new Pair(await assemble(src), options);
}

// ---- our engine alone ---------------------------------------------------------------------

export interface Loaded {
  readonly engine: Engine;
  readonly store: Store;
  readonly instance: Instance;
  func(name: string): FuncRef;
  call(name: string, args?: readonly WasmValue[]): WasmValue[];
}

/** Instantiates a module in our engine only. */
export async function load(
  src: string,
  imports: (store: Store) => Record<string, ExternVal> = () => ({}),
  storeOptions?: StoreOptions,
): Promise<Loaded> {
  const bytes = await assemble(src);
  const engine = new Engine();
  const store = new Store(engine, storeOptions);
  const table = imports(store);
  const instance = instantiate(store, compileModule(bytes), (imp) => table[`${imp.module}.${imp.name}`]);
  const func = (name: string): FuncRef => {
    const f = instance.exports.get(name);
    if (!(f instanceof FuncRef)) throw new Error(`no exported function ${name}`);
    return f;
  };
  return { engine, store, instance, func, call: (name, args = []) => invokeSync(store, func(name), args) };
}

/** Runs `fn` and returns the Trap it throws (failing the test if it throws anything else or nothing). */
export function trapOf(fn: () => unknown): Trap {
  try {
    fn();
  } catch (e) {
    if (e instanceof Trap) return e;
    throw new Error(`expected a Trap, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error('expected a Trap, but the call returned');
}

// ---- seeded randomness -------------------------------------------------------------------------

/** A small seeded PRNG (mulberry32). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  int(n: number): number {
    return this.next() % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() / 4294967296 < p;
  }
  i32(): number {
    return this.next() | 0;
  }
  i64(): bigint {
    return BigInt.asIntN(64, (BigInt(this.next()) << 32n) | BigInt(this.next()));
  }
}

// ---- interesting values -------------------------------------------------------------------------

export const I32_EDGES = [0, 1, -1, 2, -2, 3, 7, 31, 32, 33, 63, 64, 65, 0x7fffffff, -0x80000000, 0x7ffffffe, -0x7fffffff,
  0x12345678, -0x12345678, 0x55555555, -0x55555556, 0xff, 0x100, 0xffff, 0x10000, 1000, -1000];

export const I64_EDGES: bigint[] = [0n, 1n, -1n, 2n, -2n, 3n, 7n, 31n, 32n, 33n, 63n, 64n, 65n, 127n,
  0x7fffffffn, 0x80000000n, 0xffffffffn, 0x100000000n, -0x80000000n, -0x100000000n, 0x1fffffffffffffn, 0x20000000000000n,
  -0x20000000000000n, 0x7fffffffffffffffn, -0x8000000000000000n, 0x7ffffffffffffffen, -0x7fffffffffffffffn,
  0x123456789abcdef0n, -0x123456789abcdef0n, 0x5555555555555555n, 1000000007n, -1000000007n, 0xfedcba9876543210n - (1n << 64n)];

export const F64_EDGES = [0, -0, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, Math.PI, -Math.E, 1e300, -1e300,
  Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, Infinity, -Infinity, NaN,
  2147483647, 2147483648, -2147483648, -2147483649, 2147483647.5, -2147483648.5, 4294967295, 4294967296, 4294967295.5, -0.99,
  9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854777856, 18446744073709551615, 18446744073709551616,
  4503599627370496.5, 4503599627370497, 9007199254740993, 1.401298464324817e-45, 3.4028234663852886e38, 3.4028235677973366e38,
  2.2250738585072014e-308, 1e-310];

export const F32_EDGES = [0, -0, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.4028234663852886e38, -3.4028234663852886e38,
  1.401298464324817e-45, -1.401298464324817e-45, 1.1754943508222875e-38, Infinity, -Infinity, NaN, 2147483520, 2147483648,
  -2147483648, -2147483904, 4294967040, 4294967296, 9223371487098961920, 9223372036854775808, -9223372036854775808,
  18446742974197923840, 18446744073709551616, 8388607.5, 8388609, 16777217, Math.fround(Math.PI), -0.99, 0.1].map(Math.fround);
