/**
 * Differential execution of one module in our engine and in Node's own WebAssembly (V8).
 *
 * Both instances get the same host functions — the imports of Binaryen's fuzzer, with the
 * meaning its `scripts/fuzz_shell.js` gives them — and every exported function is called in
 * export order, first with zero arguments, then with arguments drawn from a fixed pool. After
 * instantiation (which runs the start function) and after every call the runner compares:
 *
 * - the outcome: the results, or that it trapped (and the kind of trap, as far as V8's message
 *   tells it), or that a host function threw;
 * - the host calls the call made (logged values, call-export and so on), in order;
 * - the values of exported globals, the contents of exported tables and exported memory.
 *
 * Every value is seen bit for bit on both sides: Node's floats and v128s cross to JavaScript
 * through small bridge modules that carry them in integers (js-bridge.ts), so an f32 NaN is
 * not quieted on its way out, a global's NaN not canonicalised, and v128 values (results,
 * arguments, `log-v128`, globals) are compared too. Float arguments are given as bits, NaNs
 * with payloads among them.
 *
 * NaNs: by default any NaN matches any NaN (a v128 matches when it differs only in NaN lanes,
 * read as f32x4 or as f64x2), and a difference in integers or memory that disappears when the
 * module is rerun with Binaryen's `--denan` instrumentation (every NaN replaced by 0) is
 * NaN-derived, not a divergence (a NaN payload that reached an integer through `reinterpret`
 * or memory). With `compareNanBits`, NaN bits must agree exactly, everywhere, and every
 * difference is reported in `nanDifferences` (a failure, apart from the other divergences):
 * Node's engine then runs `nanRuleVariant` of the module (binaryen-gen.ts), in which the few
 * scalar instructions whose NaN bits V8 chooses differently from docs/determinism.md's rule
 * (min/max with a NaN; in optimised code, add/sub/mul/div with two NaNs, f64 div folded from
 * known zeros, f64.floor of a constant signalling NaN) are calls to functions that compute the
 * rule's bits; everything else runs as V8 runs it, where V8 and wasmtime agree (and this
 * engine must agree with both).
 *
 * Our engine runs each step first, under a fuel budget; running out of fuel ends the module
 * as inconclusive, and V8 only runs a step that our engine finished, so a module that loops
 * forever never reaches V8. Exhausting the call stack ends the module too: on both sides it
 * counts as agreement, on one side only as a difference of limits (inconclusive), not a bug.
 * The first divergence ends the module: after it, the two states differ anyway.
 *
 * Our engine runs a function either straight through (invokeSync) or the way the sandbox
 * drives it, in slices of a few units of fuel with bulk work in pieces of a few bytes (the
 * 'sliced' driver), which puts pausing and resuming under the same comparison.
 */
import { uleb } from '../helpers/hostile.js';
import {
  compileModule, type CompiledModule, Engine, FuncRef, type FuncType, type Instance, instantiate, invoke, invokeSync, LinkError,
  MemoryInst, Store, TableInst, GlobalInst, Trap, TrapKind, WasmValue,
} from '../../src/interpreter/index.js';
import { EXTERNREF, F32, F64, FUNCREF, I32, I64, type Import, V128, type ValType, valTypeName } from '../../src/interpreter/types.js';
import { denanModule, FUZZ_ENGINE_FEATURES, nanRuleVariant } from './binaryen-gen.js';
import { JitTable, type TranslationSizes } from '../../src/jit/tier.js';
import { PIECE_BYTES } from '../../src/interpreter/pieces.js';
import { bitsFromCarriers, bitsToLanes, callBridge, carried, carriersOfBits, globalBridge, importBridge, lanesToBits, needsCarrying } from './js-bridge.js';

// ---- options and results ----------------------------------------------------------------------

export interface DifferentialOptions {
  /** Fuel for instantiation and for each top-level call in our engine (default 2,000,000). */
  fuel?: number;
  /**
   * Compare NaN bits exactly (Node's engine running the module's `nanRuleVariant`); their
   * differences are reported as `nanDifferences`, apart from the divergences.
   */
  compareNanBits?: boolean;
  /**
   * With compareNanBits, let Node's engine run the module itself, not its `nanRuleVariant`:
   * every NaN that V8 chooses differently from the rule is then reported (a measurement of
   * how often that happens, not a test).
   */
  nodeOwnNaNs?: boolean;
  /** Rounds of calls to every export: the first with zeros, later ones from a pool (default 2). */
  rounds?: number;
  /** Rerun a diverging module with `--denan` to find NaN-derived differences (default true). */
  triageNan?: boolean;
  /** Export the module's memory (see `withMemoryExport`) to compare it (default true). */
  exportMemory?: boolean;
  /** How our engine runs functions (default 'sync'); see OurSide.run. */
  driver?: Driver;
  /** Seeds the slice and piece sizes of the sliced driver (default 1). */
  driverSeed?: number;
  /**
   * For testing the harness itself: run this module in our engine instead (same imports and
   * exports, different behaviour), so that a test can check that differences are caught.
   */
  ourModuleForTesting?: Uint8Array;
  /** Our store's StoreOptions.jitThreshold: 0 runs every function in the JavaScript tier, Infinity none (the default policy otherwise). */
  jitThreshold?: number;
  /** The JavaScript tier outlines the loops of translations longer than this (tier.ts, JitTable; less outlines more). */
  outlineAbove?: number;
  /** The JavaScript tier's longest translation and piece (tier.ts, TranslationSizes; less cuts more functions into pieces). */
  sizes?: TranslationSizes;
}

export type TrapClass =
  | 'unreachable' | 'divide-by-zero' | 'integer-overflow' | 'invalid-conversion' | 'memory-oob'
  | 'table-oob' | 'indirect-call' | 'null-reference' | 'unaligned-atomic' | 'unknown'
  /** V8's one message for a float-to-int truncation of a NaN or of an out-of-range value. */
  | 'float-to-int';

/** What one step (instantiation, or one call) ended with, as seen from outside. */
export type Outcome =
  | { kind: 'ok'; values: Obs[] }
  | { kind: 'trap'; trap: TrapClass; message: string }
  /** A host function threw (an invalid export index, a table index out of range, ...). */
  | { kind: 'host-exception'; message: string }
  | { kind: 'stack-exhausted'; message: string }
  /** Our engine only: the fuel budget ran out. */
  | { kind: 'out-of-fuel' }
  /** Anything else thrown: in our engine, always a bug. */
  | { kind: 'error'; message: string }
  /** An engine refused the imports (LinkError). */
  | { kind: 'link-error'; message: string };

/**
 * An observed value: numbers as raw bits (a v128 as one unsigned 128-bit number, byte 0 the
 * lowest), references as labels (`null`, `func:3`, `extern:...`).
 */
export type Obs =
  | { t: 'i32' | 'i64' | 'f32' | 'f64' | 'v128'; bits: bigint }
  | { t: 'funcref' | 'externref'; ref: string };

export interface HostEvent {
  op: string;
  values: Obs[];
}

export interface Divergence {
  /** The step: `instantiate`, or `call NAME(args)`; `compile` when the engines disagree on validity. */
  step: string;
  /** What differs: outcome, results, host-calls, global NAME, table NAME, memory NAME, compile. */
  what: string;
  ours: string;
  node: string;
}

export interface ModuleResult {
  /** 'compared': ran in both engines (maybe ending early, see `ended`); 'skipped': not run. */
  status: 'compared' | 'skipped';
  skipReason?: string;
  /** Steps compared in both engines: instantiation (with the start function) and calls. */
  steps: number;
  /** Top-level export calls compared. */
  calls: number;
  /** Host calls (logging and the rest) compared, nested calls included. */
  hostCalls: number;
  /** Of those calls, how many returned, trapped or ended in a host exception (in both). */
  callOutcomes: { ok: number; trap: number; hostException: number };
  /** Why the module ended before its last call, if it did. */
  ended?: 'out-of-fuel' | 'stack-both' | 'stack-one-side' | 'divergence';
  divergences: Divergence[];
  /**
   * With compareNanBits: NaN bit differences, seen as floats or (gone under `--denan`)
   * through integers and memory. Failures, as the divergences are.
   */
  nanDifferences: Divergence[];
  /** Without compareNanBits: divergences that went away under `--denan` (not failures). */
  nanDerived: Divergence[];
  /**
   * Values compared: float NaNs (results, host-call arguments, globals after each step, as
   * our engine saw them) and v128s (the same places).
   */
  seen: { nans: number; v128s: number };
  /** Fuel our engine consumed in each step (instantiation, then each call), whatever the step ended with. */
  ourFuel: number[];
  /** How many of the module's functions our engine ran in the JavaScript tier, and how many loops it outlined. */
  ourTranslated: number;
  ourOutlined: number;
  /** How many pieces the tier cut functions into. */
  ourPieces: number;
}

// ---- values ----------------------------------------------------------------------------------

const scratch = new DataView(new ArrayBuffer(8));

function f32BitsOfNumber(x: number): bigint {
  scratch.setFloat32(0, x, true);
  return BigInt(scratch.getUint32(0, true));
}
function f64BitsOfNumber(x: number): bigint {
  scratch.setFloat64(0, x, true);
  return scratch.getBigUint64(0, true);
}

const isNaN32 = (bits: bigint): boolean => (bits & 0x7f800000n) === 0x7f800000n && (bits & 0x7fffffn) !== 0n;
const isNaN64 = (bits: bigint): boolean =>
  (bits & 0x7ff0000000000000n) === 0x7ff0000000000000n && (bits & 0xfffffffffffffn) !== 0n;

export function showObs(v: Obs): string {
  if ('ref' in v) return `${v.t}:${v.ref}`;
  switch (v.t) {
    case 'i32': return `i32:${BigInt.asIntN(32, v.bits)}`;
    case 'i64': return `i64:${BigInt.asIntN(64, v.bits)}`;
    case 'f32': {
      scratch.setUint32(0, Number(v.bits), true);
      const x = scratch.getFloat32(0, true);
      return isNaN32(v.bits) ? `f32:nan(0x${v.bits.toString(16)})` : `f32:${Object.is(x, -0) ? '-0' : x}`;
    }
    case 'f64': {
      scratch.setBigUint64(0, v.bits, true);
      const x = scratch.getFloat64(0, true);
      return isNaN64(v.bits) ? `f64:nan(0x${v.bits.toString(16)})` : `f64:${Object.is(x, -0) ? '-0' : x}`;
    }
    case 'v128': return `v128:0x${v.bits.toString(16).padStart(32, '0')}`;
  }
}

/**
 * Whether two different v128s differ only in NaN lanes, read as four f32s or as two f64s (a
 * v128 does not say what its lanes are).
 */
function v128NanOnly(a: bigint, b: bigint): boolean {
  const lanesDifferOnlyInNaNs = (width: 32 | 64, nan: (bits: bigint) => boolean): boolean => {
    for (let i = 0; i < 128 / width; i++) {
      const x = BigInt.asUintN(width, a >> BigInt(width * i));
      const y = BigInt.asUintN(width, b >> BigInt(width * i));
      if (x !== y && !(nan(x) && nan(y))) return false;
    }
    return true;
  };
  return lanesDifferOnlyInNaNs(32, isNaN32) || lanesDifferOnlyInNaNs(64, isNaN64);
}

type Verdict = 'same' | 'nan-payload' | 'different';

/**
 * Compares two observed values. Every value is seen bit for bit on both sides (Node's through
 * the bridges of js-bridge.ts), so two floats agree when their bits do; two NaNs (or two
 * v128s that differ only in NaN lanes) with different bits are a 'nan-payload' difference
 * when NaN bits are compared, and agree otherwise.
 */
function compareObs(ours: Obs, node: Obs, nanBits: boolean): Verdict {
  if (ours.t !== node.t) return 'different';
  if ('ref' in ours) return ours.ref === (node as { ref: string }).ref ? 'same' : 'different';
  const a = ours.bits;
  const b = (node as { bits: bigint }).bits;
  if (a === b) return 'same';
  const nanOnly = ours.t === 'f32' ? isNaN32(a) && isNaN32(b)
    : ours.t === 'f64' ? isNaN64(a) && isNaN64(b)
      : ours.t === 'v128' && v128NanOnly(a, b);
  if (nanOnly) return nanBits ? 'nan-payload' : 'same';
  return 'different';
}

function compareLists(ours: readonly Obs[], node: readonly Obs[], nanBits: boolean): Verdict {
  if (ours.length !== node.length) return 'different';
  let verdict: Verdict = 'same';
  for (let i = 0; i < ours.length; i++) {
    const v = compareObs(ours[i]!, node[i]!, nanBits);
    if (v === 'different') return v;
    if (v === 'nan-payload') verdict = v;
  }
  return verdict;
}

type TypeName = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';

function typeName(t: ValType): TypeName {
  const n = valTypeName(t);
  if (n === 'i32' || n === 'i64' || n === 'f32' || n === 'f64' || n === 'v128' || n === 'funcref' || n === 'externref') return n;
  throw new Error(`unsupported value type ${n}`);
}

/** Labels of host objects passed as externref (the imported externref globals). */
const externLabels = new WeakMap<object, string>();

function externLabel(x: unknown): string {
  if (x === null || x === undefined) return 'null';
  if (typeof x === 'object' && externLabels.has(x)) return externLabels.get(x)!;
  return `unknown(${typeof x})`;
}

/**
 * Function arguments, from deterministic pools (index 0 of each pool is zero). Floats and
 * v128s are given as bits (a v128 as an unsigned 128-bit number, byte 0 lowest), so that NaNs
 * with payloads, signalling ones included, reach both engines intact.
 */
const POOLS: Record<'i32' | 'i64' | 'f32' | 'f64' | 'v128', readonly (number | bigint)[]> = {
  i32: [0, 1, -1, 2, 7, 42, 255, 256, 65535, 65536, -100, 0x7fffffff, -0x80000000, 1 << 30],
  i64: [0n, 1n, -1n, 2n, 42n, 0xffffffffn, 0x100000000n, -0x80000000n, 0x7fffffffffffffffn, -0x8000000000000000n],
  f32: [
    ...[0, -0, 1, -1, 0.5, 1.5, -2.5, 2 ** 31, -(2 ** 31), 2 ** 63, 3.4028234663852886e38, 1.401298464324817e-45, Infinity, -Infinity].map(f32BitsOfNumber),
    0x7fc00000n, 0xffc00000n, 0x7fa00001n, 0xffb00002n, 0x7fc12345n,
  ],
  f64: [
    ...[0, -0, 1, -1, 0.5, -1.5, 2 ** 31, 2 ** 32, -(2 ** 63), 2 ** 64, 1.7976931348623157e308, 5e-324, Infinity, -Infinity].map(f64BitsOfNumber),
    0x7ff8000000000000n, 0xfff8000000000000n, 0x7ff4000000000001n, 0xfff0000000000abcn, 0x7ff8000012345678n,
  ],
  // Integer patterns, f32x4 and f64x2 lanes: ones, infinities, quiet and signalling NaNs
  // with payloads, of both signs.
  v128: [
    0n,
    (1n << 128n) - 1n,
    0x0000000100000001_0000000100000001n,
    0x80000000_7fffffff_ffff0000_00017f80n,
    0x0f0e0d0c0b0a0908_0706050403020100n,
    0x3f800000_bf800000_7f800000_ff800000n,
    0x7fc00000_ffc00000_7fa00001_ffb00002n,
    0x3f800000_7fc00001_00000000_80000000n,
    0x7ff8000000000000_fff0000000000001n,
    0x7ff4000000000001_3ff0000000000000n,
    0x8000000000000000_7fefffffffffffffn,
  ],
};

/** An argument: an i32 as a number, an i64 as a BigInt, a float or v128 as its bits (a BigInt), a reference as null. */
type Arg = number | bigint | null;

function pickArgs(params: readonly ValType[], round: number, salt: number): Arg[] {
  let x = (Math.imul(round + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0;
  return params.map((t) => {
    const name = typeName(t);
    if (name === 'funcref' || name === 'externref') return null;
    const pool = POOLS[name];
    if (round === 0) return pool[0]!;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return pool[(x >>> 0) % pool.length]!;
  });
}

/** Zero arguments as JavaScript passes them to an exported function (call-export, call-ref). */
function zeroArgs(params: readonly ValType[]): Array<number | bigint | null> {
  return params.map((t) => (t === I64 ? 0n : t === FUNCREF || t === EXTERNREF ? null : 0));
}

/**
 * Whether V8 refuses a function of this type at the JavaScript boundary (a v128 parameter or
 * result): a call from JavaScript throws a TypeError before the function starts. Host
 * functions that call exports (call-export, call-ref) do, on both sides, as fuzz_shell.js does.
 */
function refusedAtJsBoundary(type: FuncType): boolean {
  return type.params.includes(V128) || type.results.includes(V128);
}

const JS_BOUNDARY_MESSAGE = 'type incompatibility when transforming from/to JS (a v128 parameter or result)';

function toWasmValue(t: ValType, a: Arg): WasmValue {
  switch (t) {
    case I32: return WasmValue.i32(a as number);
    case I64: return WasmValue.i64(a as bigint);
    case F32: return WasmValue.f32Bits(Number(a as bigint));
    case F64: return WasmValue.f64Bits(a as bigint);
    case V128: {
      const [w0, w1, w2, w3] = bitsToLanes(a as bigint);
      return WasmValue.v128Words(w0!, w1!, w2!, w3!);
    }
    case FUNCREF: return WasmValue.funcref(null);
    default: return WasmValue.externref(null);
  }
}

function showArg(a: Arg, t: ValType): string {
  if (a === null) return 'null';
  if (t === F32 || t === F64 || t === V128) return showObs({ t: typeName(t) as 'f32' | 'f64' | 'v128', bits: a as bigint });
  if (typeof a === 'bigint') return `${a}n`;
  return Object.is(a, -0) ? '-0' : String(a);
}

// ---- the fuzzer's host functions -----------------------------------------------------------------

/** An exception thrown by a host function, as fuzz_shell.js's JavaScript would throw one. */
export class FuzzHostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuzzHostError';
  }
}

interface Signature {
  params: TypeName[];
  results: TypeName[];
}

/**
 * The imports provided, with the types they may have. After Binaryen's legalize-js-interface
 * pass (which `--fuzz-passes` may run) `log-i64` takes two i32 halves and the high half of an
 * i64 result travels through `env.getTempRet0`/`setTempRet0`, as fuzz_shell.js provides.
 */
const SIGNATURES: Record<string, readonly Signature[]> = {
  'fuzzing-support::log-i32': [{ params: ['i32'], results: [] }],
  'fuzzing-support::log-i64': [{ params: ['i64'], results: [] }, { params: ['i32', 'i32'], results: [] }],
  'fuzzing-support::log-f32': [{ params: ['f32'], results: [] }],
  'fuzzing-support::log-f64': [{ params: ['f64'], results: [] }],
  'fuzzing-support::log-v128': [{ params: ['v128'], results: [] }],
  'fuzzing-support::call-export': [{ params: ['i32', 'i32'], results: [] }],
  'fuzzing-support::call-export-catch': [{ params: ['i32'], results: ['i32'] }],
  'fuzzing-support::call-ref': [{ params: ['funcref', 'i32'], results: [] }],
  'fuzzing-support::call-ref-catch': [{ params: ['funcref'], results: ['i32'] }],
  'fuzzing-support::table-get': [{ params: ['i32'], results: ['funcref'] }],
  'fuzzing-support::table-set': [{ params: ['i32', 'funcref'], results: [] }],
  'fuzzing-support::sleep': [{ params: ['i32', 'i32'], results: ['i32'] }],
  'env::setTempRet0': [{ params: ['i32'], results: [] }],
  'env::getTempRet0': [{ params: [], results: ['i32'] }],
};

/** Why a module's imports cannot be provided to both engines alike, or null when they can. */
function unsupportedImport(module: CompiledModule): string | null {
  for (const imp of module.ir.imports) {
    const where = `${imp.module}::${imp.name}`;
    if (imp.module === '__fuzz_import' && imp.desc.kind === 'global') {
      if (imp.desc.type.valType !== EXTERNREF || imp.desc.type.mutable) return `import ${where}: ${valTypeName(imp.desc.type.valType)} global`;
      continue;
    }
    const accepted = SIGNATURES[where];
    if (accepted === undefined || imp.desc.kind !== 'func') return `import ${where} (${imp.desc.kind})`;
    const type = module.ir.types[imp.desc.typeIndex]!;
    const matches = (sig: Signature): boolean => type.params.map(valTypeName).join() === sig.params.join()
      && type.results.map(valTypeName).join() === sig.results.join();
    if (!accepted.some(matches)) return `import ${where} with an unexpected type`;
  }
  return null;
}

/**
 * What both sides' host functions need from their engine, so that the host functions
 * themselves (below) are one piece of code for both.
 */
interface EngineSide<Ref> {
  /** Exports are visible to host functions only after instantiation, as in fuzz_shell.js. */
  ready: boolean;
  /** Calls export number `index` (any kind, in export order) with zero arguments. */
  callExport(index: number): void;
  /** Calls a function reference with zero arguments. */
  callRef(ref: Ref | null): void;
  tableSize(): number | null;
  tableGet(index: number): Ref | null;
  tableSet(index: number, ref: Ref | null): void;
  refLabel(ref: Ref | null): string;
  isTrap(e: unknown): boolean;
}

function isJsStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * The behaviour of each fuzzer import, given decoded arguments: i32s as numbers, references
 * as the side's own reference values. Host calls are recorded in `events`.
 */
class FuzzHost<Ref> {
  readonly events: HostEvent[] = [];
  constructor(private readonly side: EngineSide<Ref>) {}

  log(op: string, value: Obs): void {
    this.events.push({ op, values: [value] });
  }

  /** A legalized i64, as two i32 halves. */
  logPair(op: string, lo: number, hi: number): void {
    this.events.push({ op, values: [i32Obs(lo), i32Obs(hi)] });
  }

  /** fuzz_shell.js's tryCall: 1 for a caught exception; traps and host limits go on up. */
  private tryCall(run: () => void): number {
    try {
      run();
      return 0;
    } catch (e) {
      if (this.side.isTrap(e) || isJsStackOverflow(e)) throw e;
      return 1;
    }
  }

  private tableIndex(index: number): number {
    const size = this.side.ready ? this.side.tableSize() : null;
    if (size === null) throw new FuzzHostError('table-get/set: no exported table');
    const i = index >>> 0;
    if (i >= size) throw new FuzzHostError(`table index ${i} out of bounds (size ${size})`);
    return i;
  }

  callExport(index: number, flags: number): void {
    this.events.push({ op: 'call-export', values: [i32Obs(index), i32Obs(flags)] });
    this.side.callExport(index);
  }

  callExportCatch(index: number): number {
    this.events.push({ op: 'call-export-catch', values: [i32Obs(index)] });
    const caught = this.tryCall(() => this.side.callExport(index));
    this.events.push({ op: 'caught', values: [i32Obs(caught)] });
    return caught;
  }

  callRef(ref: Ref | null, flags: number): void {
    this.events.push({ op: 'call-ref', values: [{ t: 'funcref', ref: this.side.refLabel(ref) }, i32Obs(flags)] });
    this.side.callRef(ref);
  }

  callRefCatch(ref: Ref | null): number {
    this.events.push({ op: 'call-ref-catch', values: [{ t: 'funcref', ref: this.side.refLabel(ref) }] });
    const caught = this.tryCall(() => this.side.callRef(ref));
    this.events.push({ op: 'caught', values: [i32Obs(caught)] });
    return caught;
  }

  tableGet(index: number): Ref | null {
    const ref = this.side.tableGet(this.tableIndex(index));
    this.events.push({ op: 'table-get', values: [i32Obs(index), { t: 'funcref', ref: this.side.refLabel(ref) }] });
    return ref;
  }

  tableSet(index: number, ref: Ref | null): void {
    this.events.push({ op: 'table-set', values: [i32Obs(index), { t: 'funcref', ref: this.side.refLabel(ref) }] });
    this.side.tableSet(this.tableIndex(index), ref);
  }

  sleep(ms: number, id: number): number {
    this.events.push({ op: 'sleep', values: [i32Obs(ms), i32Obs(id)] });
    return id;
  }

  private tempRet0 = 0;

  setTempRet0(x: number): void {
    this.events.push({ op: 'setTempRet0', values: [i32Obs(x)] });
    this.tempRet0 = x;
  }

  getTempRet0(): number {
    this.events.push({ op: 'getTempRet0', values: [i32Obs(this.tempRet0)] });
    return this.tempRet0;
  }
}

const i32Obs = (n: number): Obs => ({ t: 'i32', bits: BigInt(n >>> 0) });

/** The host objects that imported externref globals hold; one per import name. */
function externFor(imp: Import): object {
  const value = { payload: `${imp.module}::${imp.name}` };
  externLabels.set(value, `extern(${imp.module}::${imp.name})`);
  return value;
}

// ---- trap classification ------------------------------------------------------------------------

function ourTrapClass(kind: TrapKind): TrapClass {
  switch (kind) {
    case TrapKind.Unreachable: return 'unreachable';
    case TrapKind.IntegerDivideByZero: return 'divide-by-zero';
    case TrapKind.IntegerOverflow: return 'integer-overflow';
    case TrapKind.BadConversionToInteger: return 'invalid-conversion';
    case TrapKind.MemoryOutOfBounds: return 'memory-oob';
    case TrapKind.TableOutOfBounds: return 'table-oob';
    // V8 reports a null entry and a signature mismatch of call_indirect with one message.
    case TrapKind.UninitializedElement:
    case TrapKind.IndirectCallTypeMismatch: return 'indirect-call';
    case TrapKind.NullReference: return 'null-reference';
    case TrapKind.UnalignedAtomic: return 'unaligned-atomic';
    default: return 'unknown';
  }
}

/** V8's messages for wasm traps (Node 20), by the class they belong to. */
const V8_TRAPS: ReadonlyArray<[RegExp, TrapClass]> = [
  [/^unreachable/, 'unreachable'],
  [/(divide|remainder) by zero/, 'divide-by-zero'],
  [/divide result unrepresentable/, 'integer-overflow'],
  [/float unrepresentable in integer range/, 'float-to-int'],
  [/memory access out of bounds|data segment.*out of bounds/, 'memory-oob'],
  [/table index is out of bounds|table access out of bounds|element segment.*out of bounds/, 'table-oob'],
  [/null function or function signature mismatch|function signature mismatch|invalid index into function table/, 'indirect-call'],
  [/dereferencing a null pointer|null reference/, 'null-reference'],
  [/operation does not support unaligned accesses/, 'unaligned-atomic'],
];

function v8TrapClass(message: string): TrapClass {
  for (const [re, cls] of V8_TRAPS) if (re.test(message)) return cls;
  return 'unknown';
}

/**
 * Whether two trap classes agree. V8 says "float unrepresentable in integer range" both for
 * a NaN (invalid conversion) and for an out-of-range value, which the specification (and our
 * engine, with wasmtime's wording) calls an integer overflow.
 */
function sameTrap(ours: TrapClass, node: TrapClass): boolean {
  if (ours === node || ours === 'unknown' || node === 'unknown') return true;
  // An atomic access both unaligned and out of bounds: wasmtime (and so our engine) checks the
  // alignment first, V8 the bounds (docs/atomics.md).
  if (ours === 'unaligned-atomic' && node === 'memory-oob') return true;
  return node === 'float-to-int' && (ours === 'invalid-conversion' || ours === 'integer-overflow');
}

function ourOutcomeOfError(e: unknown): Outcome {
  if (e instanceof Trap) {
    if (e.kind === TrapKind.OutOfFuel) return { kind: 'out-of-fuel' };
    if (e.kind === TrapKind.StackOverflow) return { kind: 'stack-exhausted', message: e.message };
    return { kind: 'trap', trap: ourTrapClass(e.kind), message: e.message };
  }
  if (e instanceof FuzzHostError) return { kind: 'host-exception', message: e.message };
  if (isJsStackOverflow(e)) return { kind: 'stack-exhausted', message: (e as Error).message };
  if (e instanceof LinkError) return { kind: 'link-error', message: e.message };
  return { kind: 'error', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

function nodeOutcomeOfError(e: unknown): Outcome {
  if (e instanceof WebAssembly.RuntimeError) return { kind: 'trap', trap: v8TrapClass(e.message), message: e.message };
  if (e instanceof FuzzHostError) return { kind: 'host-exception', message: e.message };
  if (isJsStackOverflow(e)) return { kind: 'stack-exhausted', message: (e as Error).message };
  if (e instanceof WebAssembly.LinkError) return { kind: 'link-error', message: e.message };
  return { kind: 'error', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

function showOutcome(o: Outcome): string {
  switch (o.kind) {
    case 'ok': return `returned [${o.values.map(showObs).join(', ')}]`;
    case 'trap': return `trap ${o.trap} (${o.message})`;
    case 'out-of-fuel': return 'out of fuel';
    default: return `${o.kind}: ${o.message}`;
  }
}

// ---- our engine ----------------------------------------------------------------------------------

interface Snapshot {
  globals: Map<string, Obs>;
  tables: Map<string, string[]>;
  memories: Map<string, Uint8Array>;
}

/** How our engine runs a function: see OurSide.run. */
export type Driver = 'sync' | 'sliced';

/** Piece sizes (bytes) for bulk work (and a growing stack's copy) in the sliced driver; PIECE_BYTES is the engine's default. */
const PIECE_SIZES = [1, 3, 4, 8, 13, 64, 1000, 4096, PIECE_BYTES];

class OurSide implements EngineSide<FuncRef> {
  ready = false;
  readonly store: Store;
  readonly host: FuzzHost<FuncRef> = new FuzzHost(this);
  /** Fuel consumed by each step, as ModuleResult.ourFuel. */
  readonly fuelUsed: number[] = [];
  instance: Instance | null = null;
  /** Store function id → function index in this instance. */
  private readonly indexOfId = new Map<number, number>();

  /** State of the xorshift generator that picks slice sizes in the sliced driver. */
  private sliceState: number;

  constructor(readonly module: CompiledModule, private readonly fuel: number, private readonly driver: Driver, seed: number, jitThreshold?: number) {
    this.store = new Store(new Engine(), jitThreshold === undefined ? {} : { jitThreshold });
    this.sliceState = (seed ^ 0x5bd1e995) | 1;
  }

  private nextRandom(): number {
    let x = this.sliceState;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.sliceState = x;
    return x >>> 0;
  }

  /**
   * Runs a function to its end: with invokeSync, or — the sliced driver — as the sandbox's
   * drivers do, resuming an execution that pauses after a few units of fuel (or at a slice
   * deadline) and does bulk work in pieces of a few bytes, slice and piece sizes changing at
   * every resume.
   */
  private run(ref: FuncRef, args: WasmValue[]): WasmValue[] {
    if (this.driver === 'sync') return invokeSync(this.store, ref, args);
    const ex = invoke(this.store, ref, args);
    for (;;) {
      const r = this.nextRandom();
      ex.sliceFuel = 1 + (r % 40);
      // A slice deadline up to 0.3 ms away, or passed already: translation steps cut short, so
      // that a run waits for a translation over several slices (or, past the deadline, takes no
      // step and interprets), and the clock's pauses too.
      ex.sliceDeadline = performance.now() + ((r >>> 6) % 4) * 0.1;
      ex.meter.pieceBytes = PIECE_SIZES[this.nextRandom() % PIECE_SIZES.length]!;
      const status = ex.resume();
      if (status === 'done') return ex.results;
      if (status === 'pending') throw new Error('a host function returned a promise');
    }
  }

  /** Instantiates and runs the start function. */
  instantiate(): Outcome {
    this.store.fuel = this.fuel;
    try {
      const inst = instantiate(this.store, this.module, (imp) => this.resolve(imp));
      this.instance = inst;
      inst.funcIds.forEach((id, index) => {
        if (!this.indexOfId.has(id)) this.indexOfId.set(id, index);
      });
      if (inst.startFunction !== null) this.run(inst.startFunction, []);
      this.ready = true;
      return { kind: 'ok', values: [] };
    } catch (e) {
      return ourOutcomeOfError(e);
    } finally {
      this.fuelUsed.push(this.fuel - this.store.fuel);
    }
  }

  private resolve(imp: Import): FuncRef | GlobalInst | undefined {
    if (imp.module === '__fuzz_import' && imp.desc.kind === 'global') {
      return this.store.createGlobal(imp.desc.type, WasmValue.externref(externFor(imp)));
    }
    if (imp.desc.kind !== 'func') return undefined;
    const type = this.module.ir.types[imp.desc.typeIndex]!;
    const h = this.host;
    const impl = ((): ((a: WasmValue[]) => WasmValue[]) => {
      switch (imp.name) {
        case 'log-i32': return ([v]) => { h.log('log-i32', this.obs(v!)); return []; };
        case 'log-i64':
          if (type.params.length === 2) return ([lo, hi]) => { h.logPair('log-i64', lo!.asI32, hi!.asI32); return []; };
          return ([v]) => { h.log('log-i64', this.obs(v!)); return []; };
        case 'log-f32': return ([v]) => { h.log('log-f32', this.obs(v!)); return []; };
        case 'log-f64': return ([v]) => { h.log('log-f64', this.obs(v!)); return []; };
        case 'log-v128': return ([v]) => { h.log('log-v128', this.obs(v!)); return []; };
        case 'call-export': return ([i, f]) => { h.callExport(i!.asI32, f!.asI32); return []; };
        case 'call-export-catch': return ([i]) => [WasmValue.i32(h.callExportCatch(i!.asI32))];
        case 'call-ref': return ([r, f]) => { h.callRef(r!.ref as FuncRef | null, f!.asI32); return []; };
        case 'call-ref-catch': return ([r]) => [WasmValue.i32(h.callRefCatch(r!.ref as FuncRef | null))];
        case 'table-get': return ([i]) => [WasmValue.funcref(h.tableGet(i!.asI32))];
        case 'table-set': return ([i, r]) => { h.tableSet(i!.asI32, r!.ref as FuncRef | null); return []; };
        case 'sleep': return ([ms, id]) => [WasmValue.i32(h.sleep(ms!.asI32, id!.asI32))];
        case 'setTempRet0': return ([x]) => { h.setTempRet0(x!.asI32); return []; };
        case 'getTempRet0': return () => [WasmValue.i32(h.getTempRet0())];
        default: throw new Error(`no host function ${imp.name}`);
      }
    })();
    return this.store.createHostFunction(type, (args) => impl(args));
  }

  obs(v: WasmValue): Obs {
    switch (v.type) {
      case I32: return { t: 'i32', bits: BigInt(v.bits32) };
      case I64: return { t: 'i64', bits: v.bits64 };
      case F32: return { t: 'f32', bits: BigInt(v.bits32) };
      case F64: return { t: 'f64', bits: v.bits64 };
      case V128: return { t: 'v128', bits: lanesToBits(v.v128Words) };
      case FUNCREF: return { t: 'funcref', ref: this.refLabel(v.ref as FuncRef | null) };
      default: return { t: 'externref', ref: externLabel(v.ref) };
    }
  }

  refLabel(ref: FuncRef | null): string {
    if (ref === null) return 'null';
    const index = this.indexOfId.get(ref.id);
    return index === undefined ? `func:?${ref.id}` : `func:${index}`;
  }

  isTrap(e: unknown): boolean {
    return e instanceof Trap;
  }

  private exportFunc(index: number): FuncRef {
    const exp = this.ready ? this.module.ir.exports[index] : undefined;
    if (exp === undefined) throw new FuzzHostError(`call-export: no export ${index}`);
    if (exp.kind !== 'func') throw new FuzzHostError(`call-export: export ${index} is not a function`);
    return this.instance!.exports.get(exp.name) as FuncRef;
  }

  callExport(index: number): void {
    this.callRef(this.exportFunc(index));
  }

  callRef(ref: FuncRef | null): void {
    if (ref === null) throw new FuzzHostError('call-ref: null function');
    const type = this.store.funcs[ref.id]!.type;
    if (refusedAtJsBoundary(type)) throw new FuzzHostError(JS_BOUNDARY_MESSAGE);
    this.run(ref, type.params.map((t) => WasmValue.zero(t)));
  }

  private table(): TableInst | null {
    const t = this.instance?.exports.get('table');
    return t instanceof TableInst ? t : null;
  }

  tableSize(): number | null {
    return this.table()?.size ?? null;
  }

  tableGet(index: number): FuncRef | null {
    return this.table()!.get(index).ref as FuncRef | null;
  }

  tableSet(index: number, ref: FuncRef | null): void {
    this.table()!.set(index, WasmValue.funcref(ref));
  }

  call(name: string, args: readonly Arg[]): Outcome {
    const ref = this.instance!.exports.get(name) as FuncRef;
    const type = this.store.funcs[ref.id]!.type;
    this.store.fuel = this.fuel;
    try {
      const results = this.run(ref, type.params.map((t, i) => toWasmValue(t, args[i]!)));
      return { kind: 'ok', values: results.map((v) => this.obs(v)) };
    } catch (e) {
      return ourOutcomeOfError(e);
    } finally {
      this.fuelUsed.push(this.fuel - this.store.fuel);
    }
  }

  snapshot(): Snapshot {
    const snap: Snapshot = { globals: new Map(), tables: new Map(), memories: new Map() };
    for (const [name, x] of this.instance!.exports) {
      if (x instanceof GlobalInst) snap.globals.set(name, this.obs(x.value));
      else if (x instanceof TableInst) {
        const refs: string[] = [];
        for (let i = 0; i < x.size; i++) {
          const v = x.get(i);
          refs.push(v.type === FUNCREF ? this.refLabel(v.ref as FuncRef | null) : externLabel(v.ref));
        }
        snap.tables.set(name, refs);
      } else if (x instanceof MemoryInst) snap.memories.set(name, x.bytes);
    }
    return snap;
  }
}

// ---- Node's engine --------------------------------------------------------------------------------

type NodeFunc = (...args: unknown[]) => unknown;

/** Bridge modules, compiled once each (they depend on a type only). */
const bridgeModules = new Map<string, WebAssembly.Module>();

function bridgeInstance(bytes: Uint8Array, imports: Record<string, WebAssembly.ImportValue>): WebAssembly.Instance {
  const key = Buffer.from(bytes).toString('base64');
  let module = bridgeModules.get(key);
  if (module === undefined) {
    module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
    bridgeModules.set(key, module);
  }
  return new WebAssembly.Instance(module, { bridge: imports });
}

class NodeSide implements EngineSide<NodeFunc> {
  ready = false;
  readonly host: FuzzHost<NodeFunc> = new FuzzHost(this);
  instance: WebAssembly.Instance | null = null;
  private readonly exportList: WebAssembly.ModuleExportDescriptor[];

  constructor(private readonly nodeModule: WebAssembly.Module, private readonly ours: CompiledModule) {
    this.exportList = WebAssembly.Module.exports(nodeModule);
  }

  instantiate(): Outcome {
    try {
      this.instance = new WebAssembly.Instance(this.nodeModule, this.imports());
      this.ready = true;
      return { kind: 'ok', values: [] };
    } catch (e) {
      return nodeOutcomeOfError(e);
    }
  }

  private imports(): WebAssembly.Imports {
    const h = this.host;
    const legalLogI64 = this.ours.ir.imports.some((imp) => imp.module === 'fuzzing-support' && imp.name === 'log-i64'
      && imp.desc.kind === 'func' && this.ours.ir.types[imp.desc.typeIndex]!.params.length === 2);
    const support: Record<string, NodeFunc> = {
      'log-i32': (x) => h.log('log-i32', { t: 'i32', bits: BigInt((x as number) >>> 0) }),
      'log-i64': legalLogI64
        ? (lo, hi) => h.logPair('log-i64', lo as number, hi as number)
        : (x) => h.log('log-i64', { t: 'i64', bits: BigInt.asUintN(64, x as bigint) }),
      'call-export': (i, f) => h.callExport(i as number, f as number),
      'call-export-catch': (i) => h.callExportCatch(i as number),
      'call-ref': (r, f) => h.callRef(r as NodeFunc | null, f as number),
      'call-ref-catch': (r) => h.callRefCatch(r as NodeFunc | null),
      'table-get': (i) => h.tableGet(i as number),
      'table-set': (i, r) => h.tableSet(i as number, r as NodeFunc | null),
      sleep: (ms, id) => h.sleep(ms as number, id as number),
    };
    // The float and v128 loggers are WebAssembly functions that hand over the bits (js-bridge.ts).
    for (const [op, t] of [['log-f32', F32], ['log-f64', F64], ['log-v128', V128]] as const) {
      if (!this.ours.ir.imports.some((imp) => imp.module === 'fuzzing-support' && imp.name === op)) continue;
      const name = typeName(t) as 'f32' | 'f64' | 'v128';
      support[op] = bridgeInstance(importBridge([t]), {
        f: (...carriers: unknown[]) => h.log(op, { t: name, bits: bitsFromCarriers(t, carriers, 0)[0] }),
      }).exports.f as NodeFunc;
    }
    const env: Record<string, NodeFunc> = {
      setTempRet0: (x) => h.setTempRet0(x as number),
      getTempRet0: () => h.getTempRet0(),
    };
    const imports: Record<string, Record<string, WebAssembly.ImportValue>> = { 'fuzzing-support': support, env };
    for (const imp of this.ours.ir.imports) {
      if (imp.module === '__fuzz_import') {
        imports[imp.module] ??= {};
        imports[imp.module]![imp.name] = new WebAssembly.Global({ value: 'externref', mutable: false }, externFor(imp));
      }
    }
    let index = 0;
    for (const imp of this.ours.ir.imports) {
      if (imp.desc.kind === 'func') this.importedFuncs.set(imports[imp.module]?.[imp.name], index++);
    }
    return imports;
  }

  private get exports(): WebAssembly.Exports {
    return this.instance!.exports;
  }

  /**
   * The functions given as imports, by function index: `ref.func` of an imported function
   * gives back the very object that was imported (a JavaScript function, or a bridge's
   * exported function), whose name is not the index.
   */
  private readonly importedFuncs = new Map<unknown, number>();

  refLabel(ref: NodeFunc | null): string {
    if (ref === null) return 'null';
    const imported = this.importedFuncs.get(ref);
    return `func:${imported ?? ref.name}`;
  }

  isTrap(e: unknown): boolean {
    return e instanceof WebAssembly.RuntimeError;
  }

  /** The type of a function reference: V8 names an exported function by its function index. */
  private typeOf(ref: NodeFunc): FuncType {
    const type = this.ours.funcTypes[this.importedFuncs.get(ref) ?? Number(ref.name)];
    if (type === undefined) throw new Error(`cannot tell the type of function ${ref.name}`);
    return type;
  }

  callExport(index: number): void {
    const exp = this.ready ? this.exportList[index] : undefined;
    if (exp === undefined) throw new FuzzHostError(`call-export: no export ${index}`);
    if (exp.kind !== 'function') throw new FuzzHostError(`call-export: export ${index} is not a function`);
    this.callRef(this.exports[exp.name] as NodeFunc);
  }

  callRef(ref: NodeFunc | null): void {
    if (ref === null) throw new FuzzHostError('call-ref: null function');
    const type = this.typeOf(ref);
    // V8 would throw a TypeError here; the same error as our side's, so that both agree.
    if (refusedAtJsBoundary(type)) throw new FuzzHostError(JS_BOUNDARY_MESSAGE);
    ref(...zeroArgs(type.params));
  }

  private table(): WebAssembly.Table | null {
    const t = this.exports.table;
    return t instanceof WebAssembly.Table ? t : null;
  }

  tableSize(): number | null {
    return this.table()?.length ?? null;
  }

  tableGet(index: number): NodeFunc | null {
    return this.table()!.get(index) as NodeFunc | null;
  }

  tableSet(index: number, ref: NodeFunc | null): void {
    this.table()!.set(index, ref);
  }

  private obs(t: ValType, x: unknown): Obs {
    switch (t) {
      case I32: return { t: 'i32', bits: BigInt((x as number) >>> 0) };
      case I64: return { t: 'i64', bits: BigInt.asUintN(64, x as bigint) };
      case F32: return { t: 'f32', bits: f32BitsOfNumber(x as number) };
      case F64: return { t: 'f64', bits: f64BitsOfNumber(x as number) };
      case FUNCREF: return { t: 'funcref', ref: this.refLabel(x as NodeFunc | null) };
      default: return { t: 'externref', ref: externLabel(x) };
    }
  }

  /** The functions that call each export with its floats and v128s carried (js-bridge.ts). */
  private readonly bridged = new Map<string, NodeFunc>();

  call(name: string, type: FuncType, args: readonly Arg[]): Outcome {
    const f = this.exports[name] as NodeFunc;
    const viaBridge = type.params.some(needsCarrying) || type.results.some(needsCarrying);
    let callee = f;
    if (viaBridge) {
      callee = this.bridged.get(name)!;
      if (callee === undefined) {
        callee = bridgeInstance(callBridge(type.params, type.results), { f }).exports.f as NodeFunc;
        this.bridged.set(name, callee);
      }
    }
    const jsArgs = type.params.flatMap((t, i) => (needsCarrying(t) ? carriersOfBits(t, args[i] as bigint) : [args[i]]));
    const jsResults = carried(type.results);
    try {
      const result = callee(...jsArgs);
      const values = jsResults.length === 0 ? []
        : jsResults.length === 1 ? [result]
          : [...(result as Iterable<unknown>)];
      const obs: Obs[] = [];
      let j = 0;
      for (const t of type.results) {
        if (needsCarrying(t)) {
          const [bits, next] = bitsFromCarriers(t, values, j);
          obs.push({ t: typeName(t) as 'f32' | 'f64' | 'v128', bits });
          j = next;
        } else obs.push(this.obs(t, values[j++]));
      }
      return { kind: 'ok', values: obs };
    } catch (e) {
      return nodeOutcomeOfError(e);
    }
  }

  /** Readers of the exported float and v128 globals, by export name (see js-bridge.ts). */
  private carriedGlobals: Map<string, () => Obs> | null = null;

  private globalReaders(): Map<string, () => Obs> {
    if (this.carriedGlobals !== null) return this.carriedGlobals;
    const names: string[] = [];
    const globals: Array<{ type: ValType; mutable: boolean }> = [];
    for (const exp of this.ours.ir.exports) {
      const type = exp.kind === 'global' ? this.ours.globalTypes[exp.index]! : undefined;
      if (type !== undefined && needsCarrying(type.valType)) {
        names.push(exp.name);
        globals.push({ type: type.valType, mutable: type.mutable });
      }
    }
    const imports = Object.fromEntries(names.map((n, k) => [`g${k}`, this.exports[n] as WebAssembly.Global]));
    const bridge = names.length === 0 ? null : bridgeInstance(globalBridge(globals), imports);
    this.carriedGlobals = new Map(names.map((n, k) => {
      const read = bridge!.exports[`g${k}`] as () => unknown;
      const t = globals[k]!.type;
      return [n, (): Obs => {
        const value = read();
        const bits = bitsFromCarriers(t, t === V128 ? value as unknown[] : [value], 0)[0];
        return { t: typeName(t) as 'f32' | 'f64' | 'v128', bits };
      }];
    }));
    return this.carriedGlobals;
  }

  snapshot(): Snapshot {
    const snap: Snapshot = { globals: new Map(), tables: new Map(), memories: new Map() };
    for (const exp of this.exportList) {
      const x = this.exports[exp.name];
      if (x instanceof WebAssembly.Global) {
        const carriedGlobal = this.globalReaders().get(exp.name);
        snap.globals.set(exp.name, carriedGlobal !== undefined ? carriedGlobal() : this.globalObs(exp.name, x));
      } else if (x instanceof WebAssembly.Table) {
        const refs: string[] = [];
        for (let i = 0; i < x.length; i++) {
          const v = x.get(i) as unknown;
          refs.push(typeof v === 'function' ? this.refLabel(v as NodeFunc) : v === null ? 'null' : externLabel(v));
        }
        snap.tables.set(exp.name, refs);
      } else if (x instanceof WebAssembly.Memory) {
        snap.memories.set(exp.name, new Uint8Array(x.buffer));
      }
    }
    return snap;
  }

  private globalObs(name: string, g: WebAssembly.Global): Obs {
    const exp = this.ours.ir.exports.find((e) => e.name === name)!;
    return this.obs(this.ours.globalTypes[exp.index]!.valType, g.value);
  }
}

// ---- comparing ------------------------------------------------------------------------------------

function showEvents(events: readonly HostEvent[], from: number): string {
  const shown = events.slice(from, from + 12).map((e) => `${e.op}(${e.values.map(showObs).join(', ')})`);
  return shown.join(' ') + (events.length > from + 12 ? ` ... (${events.length} in all)` : '');
}

class Comparison {
  readonly divergences: Divergence[] = [];
  readonly nanDifferences: Divergence[] = [];
  /** Observations compared: float NaNs (as our engine saw them) and v128 values. */
  readonly seen = { nans: 0, v128s: 0 };

  constructor(private readonly nanBits: boolean) {}

  private count(values: readonly Obs[]): void {
    for (const v of values) {
      if (v.t === 'v128') this.seen.v128s++;
      else if ((v.t === 'f32' && isNaN32(v.bits)) || (v.t === 'f64' && isNaN64(v.bits))) this.seen.nans++;
    }
  }

  private note(verdict: Verdict, d: Divergence): void {
    if (verdict === 'different') this.divergences.push(d);
    else if (verdict === 'nan-payload') this.nanDifferences.push(d);
  }

  outcome(step: string, ours: Outcome, node: Outcome): void {
    let verdict: Verdict = 'same';
    if (ours.kind !== node.kind) verdict = 'different';
    else if (ours.kind === 'ok' && node.kind === 'ok') {
      verdict = compareLists(ours.values, node.values, this.nanBits);
      this.count(ours.values);
    }
    else if (ours.kind === 'trap' && node.kind === 'trap') {
      verdict = sameTrap(ours.trap, node.trap) ? 'same' : 'different';
    } else if (ours.kind === 'error' || ours.kind === 'link-error') verdict = 'different';
    this.note(verdict, { step, what: 'outcome', ours: showOutcome(ours), node: showOutcome(node) });
  }

  events(step: string, ours: readonly HostEvent[], node: readonly HostEvent[], from: { ours: number; node: number }): void {
    const a = ours.slice(from.ours);
    const b = node.slice(from.node);
    let verdict: Verdict = a.length === b.length ? 'same' : 'different';
    let at = 0;
    for (; verdict !== 'different' && at < a.length; at++) {
      if (a[at]!.op !== b[at]!.op) {
        verdict = 'different';
        break;
      }
      const v = compareLists(a[at]!.values, b[at]!.values, this.nanBits);
      if (v === 'different') {
        verdict = v;
        break;
      }
      this.count(a[at]!.values);
      if (v === 'nan-payload') verdict = v;
    }
    if (verdict === 'same') return;
    // Show from the first event that differs (in its payload only, for a NaN difference).
    const agrees: Verdict = verdict === 'different' ? 'nan-payload' : 'same';
    at = 0;
    while (at < a.length && at < b.length && a[at]!.op === b[at]!.op) {
      const v = compareLists(a[at]!.values, b[at]!.values, this.nanBits);
      if (v !== 'same' && v !== agrees) break;
      at++;
    }
    this.note(verdict, {
      step,
      what: `host-calls (from call #${at + 1} of this step)`,
      ours: showEvents(a, at),
      node: showEvents(b, at),
    });
  }

  snapshots(step: string, ours: Snapshot, node: Snapshot): void {
    for (const [name, value] of ours.globals) {
      const other = node.globals.get(name);
      const verdict = other === undefined ? 'different' : compareObs(value, other, this.nanBits);
      this.count([value]);
      this.note(verdict, { step, what: `global ${name}`, ours: showObs(value), node: other ? showObs(other) : 'missing' });
    }
    for (const [name, refs] of ours.tables) {
      const other = node.tables.get(name) ?? [];
      if (refs.length !== other.length || refs.some((r, i) => r !== other[i])) {
        const i = refs.findIndex((r, j) => r !== other[j]);
        this.divergences.push({
          step, what: `table ${name}`,
          ours: `size ${refs.length}, [${i}] = ${refs[i] ?? '-'}`,
          node: `size ${other.length}, [${i}] = ${other[i] ?? '-'}`,
        });
      }
    }
    for (const [name, bytes] of ours.memories) {
      const other = node.memories.get(name) ?? new Uint8Array(0);
      if (bytes.length !== other.length) {
        this.divergences.push({ step, what: `memory ${name}`, ours: `${bytes.length} bytes`, node: `${other.length} bytes` });
      } else if (Buffer.compare(bytes, other) !== 0) {
        let i = 0;
        while (bytes[i] === other[i]) i++;
        const hex = (b: Uint8Array): string => Buffer.from(b.subarray(i, i + 8)).toString('hex');
        this.divergences.push({ step, what: `memory ${name} at byte ${i}`, ours: hex(bytes), node: hex(other) });
      }
    }
  }
}

// ---- exporting the memory -------------------------------------------------------------------------

/** The name under which `withMemoryExport` exports a module's memory. */
export const MEMORY_EXPORT = '__fuzz_memory';

function readLeb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++]!;
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [value, at];
  }
}

/**
 * The module with its own (not imported) memory exported as `__fuzz_memory`, so that memory
 * contents can be compared after every call; Binaryen's fuzzer does not export it. The new
 * export comes last, so the indexes that `call-export` uses stay as they were. Returns the
 * bytes unchanged when there is no such memory or it is exported already.
 */
export function withMemoryExport(bytes: Uint8Array): Uint8Array {
  const sections: Array<{ id: number; start: number; end: number; payload: number }> = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at]!;
    const [size, payload] = readLeb(bytes, at + 1);
    sections.push({ id, start: at, end: payload + size, payload });
    at = payload + size;
  }
  const hasOwnMemory = sections.some((s) => s.id === 5);
  if (!hasOwnMemory) return bytes;
  const entry = [...uleb(MEMORY_EXPORT.length), ...Buffer.from(MEMORY_EXPORT, 'latin1'), 0x02, 0];
  const exportSection = sections.find((s) => s.id === 7);
  let replaceStart: number;
  let replaceEnd: number;
  let payload: number[];
  if (exportSection !== undefined) {
    const [count, first] = readLeb(bytes, exportSection.payload);
    let p = first;
    for (let i = 0; i < count; i++) {
      const [len, q] = readLeb(bytes, p);
      if (bytes[q + len] === 0x02) return bytes; // the memory is exported already
      p = readLeb(bytes, q + len + 1)[1];
    }
    payload = [...uleb(count + 1), ...bytes.subarray(first, exportSection.end), ...entry];
    replaceStart = exportSection.start;
    replaceEnd = exportSection.end;
  } else {
    // A new export section goes before the first section that must follow it.
    const after = sections.find((s) => [8, 9, 10, 11, 12].includes(s.id));
    replaceStart = replaceEnd = after?.start ?? bytes.length;
    payload = [...uleb(1), ...entry];
  }
  const section = [7, ...uleb(payload.length), ...payload];
  const out = new Uint8Array(bytes.length - (replaceEnd - replaceStart) + section.length);
  out.set(bytes.subarray(0, replaceStart), 0);
  out.set(section, replaceStart);
  out.set(bytes.subarray(replaceEnd), replaceStart + section.length);
  return out;
}

function emptyResult(status: ModuleResult['status'], skipReason?: string): ModuleResult {
  return {
    status, skipReason, steps: 0, calls: 0, hostCalls: 0, callOutcomes: { ok: 0, trap: 0, hostException: 0 },
    divergences: [], nanDifferences: [], nanDerived: [], seen: { nans: 0, v128s: 0 }, ourFuel: [], ourTranslated: 0, ourOutlined: 0, ourPieces: 0,
  };
}

/**
 * Runs `bytes` in both engines and compares them step by step; see the top of this file.
 * Never throws for anything the module does.
 */
export function runDifferential(original: Uint8Array, options: DifferentialOptions = {}): ModuleResult {
  const exportMemory = options.exportMemory ?? true;
  const bytes = exportMemory ? withMemoryExport(original) : original;
  if (options.ourModuleForTesting !== undefined && exportMemory) {
    options = { ...options, ourModuleForTesting: withMemoryExport(options.ourModuleForTesting) };
  }
  let nodeBytes = bytes;
  if (options.compareNanBits === true && options.nodeOwnNaNs !== true) {
    try {
      nodeBytes = nanRuleVariant(bytes);
    } catch (e) {
      // Binaryen cannot read the module back (one it made and neither engine takes, say).
      return emptyResult('skipped', `no NaN-rule variant: ${String(e).slice(0, 60)}`);
    }
  }
  const result = runOnce(bytes, options, nodeBytes);
  // A difference seen only through integers or memory may be a NaN payload that got there
  // by reinterpretation; if the module with every NaN replaced by 0 agrees, it was.
  if (result.divergences.length > 0 && (options.triageNan ?? true) && isTriageable(result.divergences[0]!)) {
    let denanned: Uint8Array | null = null;
    try {
      denanned = denanModule(bytes);
    } catch {
      denanned = null;
    }
    if (denanned !== null) {
      const again = runOnce(denanned, { ...options, compareNanBits: false }, denanned);
      if (again.status === 'compared' && again.divergences.length === 0) {
        if (options.compareNanBits === true) result.nanDifferences.push(...result.divergences);
        else result.nanDerived = result.divergences;
        result.divergences = [];
        if (result.ended === 'divergence') result.ended = undefined;
      }
    }
  }
  return result;
}

/** Whether a divergence could come from NaN payloads seen through integers or memory. */
function isTriageable(d: Divergence): boolean {
  if (d.what === 'compile') return false;
  if (/^(error|link-error)/.test(d.ours)) return false;
  // A float that is a NaN on one side and a number on the other is not a payload difference.
  const nanVsNumber = (a: string, b: string): boolean => /f(32|64):nan/.test(a) !== /f(32|64):nan/.test(b)
    && /f(32|64):/.test(a) && /f(32|64):/.test(b) && d.what === 'outcome';
  return !nanVsNumber(d.ours, d.node);
}

/** What `compile` threw, as text, or null where it did not. */
function refusal(compile: () => unknown): string | null {
  try {
    compile();
    return null;
  } catch (e) {
    return String(e);
  }
}

/**
 * Runs `bytes` in our engine (or `ourModuleForTesting`) and `nodeBytes` in Node's (where our
 * engine refuses `bytes`, Node is asked about them too: below).
 */
function runOnce(bytes: Uint8Array, options: DifferentialOptions, nodeBytes: Uint8Array): ModuleResult {
  const fuel = options.fuel ?? 2_000_000;
  const nanBits = options.compareNanBits ?? false;
  const rounds = options.rounds ?? 2;

  let module: CompiledModule;
  let nodeModule: WebAssembly.Module;
  let ourError: string | null = null;
  let nodeError: string | null = null;
  try {
    module = compileModule(options.ourModuleForTesting ?? bytes, FUZZ_ENGINE_FEATURES);
  } catch (e) {
    ourError = String(e);
  }
  try {
    nodeModule = new WebAssembly.Module(nodeBytes as Uint8Array<ArrayBuffer>);
  } catch (e) {
    nodeError = String(e);
  }
  // The NaN-rule variant is Binaryen's rewrite of the module, which may drop code neither engine
  // takes (seed 995691: a `ref.as_non_null`, function references, in code after a `return`). Where
  // our engine refused the module, Node refuses it too and our engine takes the variant, the
  // refusal was of what the rewrite dropped: the module is one neither engine takes.
  if (ourError !== null && nodeError === null && nodeBytes !== bytes) {
    const nodeOnModule = refusal(() => new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
    if (nodeOnModule !== null && refusal(() => compileModule(nodeBytes, FUZZ_ENGINE_FEATURES)) === null) nodeError = nodeOnModule;
  }
  if (ourError !== null || nodeError !== null) {
    if (ourError !== null && nodeError !== null) {
      return emptyResult('skipped', `invalid in both engines (ours: ${ourError.replace(/ \(at byte offset \d+\)/, '')})`);
    }
    const r = emptyResult('compared');
    r.divergences.push({ step: 'compile', what: 'compile', ours: ourError ?? 'compiled', node: nodeError ?? 'compiled' });
    r.ended = 'divergence';
    return r;
  }
  module = module!;
  nodeModule = nodeModule!;
  const unsupported = unsupportedImport(module);
  if (unsupported !== null) return emptyResult('skipped', unsupported);

  const result = emptyResult('compared');
  const cmp = new Comparison(nanBits);
  if (options.outlineAbove !== undefined || options.sizes !== undefined) module.jit = new JitTable(module.functions, options.outlineAbove, options.sizes);
  const ours = new OurSide(module, fuel, options.driver ?? 'sync', options.driverSeed ?? 1, options.jitThreshold);
  const node = new NodeSide(nodeModule, module);

  const finish = (): ModuleResult => {
    result.ourFuel = ours.fuelUsed;
    result.ourTranslated = module.jit?.translated ?? 0;
    result.ourOutlined = module.jit?.loopsOutlined ?? 0;
    result.ourPieces = module.jit?.pieces ?? 0;
    result.divergences = cmp.divergences;
    result.nanDifferences = cmp.nanDifferences;
    result.seen = cmp.seen;
    result.hostCalls = Math.min(ours.host.events.length, node.host.events.length);
    if (result.divergences.length > 0) result.ended = 'divergence';
    return result;
  };

  /** Compares one step whose outcomes are known; false when the module ends here. */
  const compareStep = (step: string, a: Outcome, b: Outcome, from: { ours: number; node: number }): boolean => {
    if (a.kind === 'stack-exhausted' || b.kind === 'stack-exhausted') {
      result.ended = a.kind === b.kind ? 'stack-both' : 'stack-one-side';
      return false;
    }
    result.steps++;
    cmp.outcome(step, a, b);
    cmp.events(step, ours.host.events, node.host.events, from);
    if (a.kind !== 'error' && a.kind !== 'link-error' && b.kind !== 'link-error' && ours.instance !== null && node.instance !== null) {
      cmp.snapshots(step, ours.snapshot(), node.snapshot());
    }
    return cmp.divergences.length === 0;
  };

  // Instantiation, with the start function.
  const start = ours.instantiate();
  if (start.kind === 'out-of-fuel') {
    result.ended = 'out-of-fuel';
    return finish();
  }
  const nodeStart = node.instantiate();
  if (!compareStep('instantiate', start, nodeStart, { ours: 0, node: 0 }) || start.kind !== 'ok' || nodeStart.kind !== 'ok') {
    return finish();
  }

  const funcExports = module.ir.exports.filter((e) => e.kind === 'func');
  for (let round = 0; round < rounds; round++) {
    for (const [k, exp] of funcExports.entries()) {
      const type = module.funcTypes[exp.index]!;
      const args = pickArgs(type.params, round, k);
      const step = `call ${exp.name}(${args.map((a, i) => showArg(a, type.params[i]!)).join(', ')})`;
      const from = { ours: ours.host.events.length, node: node.host.events.length };
      const a = ours.call(exp.name, args);
      if (a.kind === 'out-of-fuel') {
        result.ended = 'out-of-fuel';
        return finish();
      }
      const b = node.call(exp.name, type, args);
      if (!compareStep(step, a, b, from)) return finish();
      result.calls++;
      if (a.kind === 'ok') result.callOutcomes.ok++;
      else if (a.kind === 'trap') result.callOutcomes.trap++;
      else if (a.kind === 'host-exception') result.callOutcomes.hostException++;
    }
  }
  return finish();
}
