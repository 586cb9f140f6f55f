/**
 * The engine side of the determinism suite (test/determinism.test.ts): runs a list of programs
 * under one configuration and records everything observable, bit for bit, as plain JSON — so
 * that outcomes from this process, from a warmed-up process and from child processes under
 * other V8 flags (test/helpers/determinism-child.ts) can be compared with `toEqual`.
 *
 * It imports nothing but the engine: a child under `node --jitless` has no WebAssembly, so
 * modules arrive already assembled.
 */
import { createHash } from 'node:crypto';
import {
  compileModule, type ExternVal, FuncRef, type Instance, instantiate, invoke, Store, Trap, WasmValue,
} from '../../src/interpreter/index.js';
import { EXTERNREF, F32, F64, FUNCREF, I32, I64, type Import, type ValType } from '../../src/interpreter/types.js';

/** One call: an export and its arguments as `type:bits` strings (see `encodeValue`). */
export interface CallSpec {
  readonly export: string;
  readonly args: readonly string[];
}

/** A module (base64 of its binary) and the calls to make on one instance of it, in order. */
export interface ProgramSpec {
  readonly name: string;
  readonly wasm: string;
  readonly calls: readonly CallSpec[];
  /** Fuel each call may spend (default 10,000,000). */
  readonly fuel?: number;
}

/**
 * How to run. Every configuration must give the same outcomes; a second execution tier would
 * be one more configuration (and one more field here, passed on to the engine).
 */
export interface RunConfig {
  readonly name: string;
  /**
   * Fuel per `resume()`: 0 runs each call in one slice; otherwise slices cycle through these
   * sizes, so the execution pauses (and resumes) at many different points.
   */
  readonly slices?: readonly number[];
}

/** What one call did. */
export interface CallOutcome {
  readonly call: string;
  /** `ok` with the results, or the trap's message, or the non-trap error's name and message. */
  readonly outcome: string;
  readonly fuel: number;
  /** Host calls made during this call (imports of fuzzer modules), with their arguments. */
  readonly host: readonly string[];
}

/** What one program did: each call, then the instance's globals, tables and memory. */
export interface ProgramOutcome {
  readonly name: string;
  readonly calls: readonly CallOutcome[];
  readonly globals: readonly string[];
  /** Per table: its size and a hash of its elements. */
  readonly tables: readonly string[];
  /** Its size and a hash of its bytes. */
  readonly memory: string;
  /** When the module could not be instantiated (a trap in a segment, say). */
  readonly error?: string;
}

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** `i32:0000002a`, `f64:7ff80000_00000001` (high word first): types and exact bits. */
export function encodeValue(v: WasmValue): string {
  switch (v.type) {
    case I32: return `i32:${hex(v.lo)}`;
    case F32: return `f32:${hex(v.lo)}`;
    case I64: return `i64:${hex(v.hi)}_${hex(v.lo)}`;
    case F64: return `f64:${hex(v.hi)}_${hex(v.lo)}`;
    case FUNCREF: return `funcref:${v.ref === null ? 'null' : 'func'}`;
    default: return `externref:${v.ref === null ? 'null' : String(v.ref)}`;
  }
}

export function decodeValue(s: string): WasmValue {
  const [type, bits] = s.split(':') as [string, string];
  const [a, b] = bits.split('_');
  const word = (x: string | undefined): number => Number.parseInt(x ?? '0', 16) | 0;
  switch (type) {
    case 'i32': return WasmValue.i32(word(a));
    case 'f32': return WasmValue.f32Bits(word(a));
    case 'i64': return WasmValue.i64Halves(word(b), word(a));
    case 'f64': return WasmValue.f64Halves(word(b), word(a));
    case 'funcref': return WasmValue.funcref(null);
    case 'externref': return WasmValue.externref(null);
    default: throw new Error(`decodeValue: ${s}`);
  }
}

/** A zero of `t`, for host results and imported globals. */
function zero(t: ValType): WasmValue {
  return WasmValue.zero(t);
}

/**
 * Imports a fuzzer's module may have: functions log their arguments and return zeros;
 * memories, tables and globals are fresh and empty.
 */
function resolver(store: Store, moduleTypes: (i: number) => { params: readonly ValType[]; results: readonly ValType[] },
  log: string[]): (imp: Import) => ExternVal | undefined {
  return (imp) => {
    const d = imp.desc;
    switch (d.kind) {
      case 'func': {
        const type = moduleTypes(d.typeIndex);
        return store.createHostFunction(type, (args) => {
          log.push(`${imp.module}.${imp.name}(${args.map(encodeValue).join(',')})`);
          return type.results.map(zero);
        });
      }
      case 'memory': return store.createMemory(d.type);
      case 'table': return store.createTable(d.type, zero(d.type.elemType));
      case 'global': return store.createGlobal(d.type, zero(d.type.valType));
      default: return undefined;
    }
  };
}

function describeError(e: unknown): string {
  if (e instanceof Trap) return `trap: ${e.message}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `thrown: ${String(e)}`;
}

function globalsOf(inst: Instance): string[] {
  return inst.globals.map((g) => {
    const t = g.type.valType;
    return t === FUNCREF || t === EXTERNREF ? `ref:${g.lo}` : encodeValue(WasmValue.fromSlot(t, g.lo, g.hi));
  });
}

function tablesOf(inst: Instance): string[] {
  return inst.tables.map((t) => {
    const hash = createHash('sha256');
    for (let i = 0; i < t.size; i++) {
      const ref = t.get(i).ref;
      hash.update(ref === null ? 'null,' : ref instanceof FuncRef ? `f${ref.id},` : `x${String(ref)},`);
    }
    return `${t.size}:${hash.digest('hex')}`;
  });
}

function memoryOf(inst: Instance): string {
  const mem = inst.memory;
  if (mem === null) return 'none';
  const bytes = mem.read(0, mem.byteLength);
  return `${mem.byteLength}:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Runs one call to the end under `config`'s slicing; returns the outcome string. */
function runCall(store: Store, f: FuncRef, args: readonly WasmValue[], config: RunConfig, slice: { i: number }): string {
  const ex = invoke(store, f, args);
  const slices = config.slices ?? [];
  for (;;) {
    if (slices.length > 0) ex.sliceFuel = slices[slice.i++ % slices.length]!;
    const status = ex.resume();
    if (status === 'done') return `ok ${ex.results.map(encodeValue).join(' ')}`;
    if (status === 'pending') throw new Error('no host function here is asynchronous');
  }
}

/** Runs every program under `config` and records what happened. */
export function runPrograms(programs: readonly ProgramSpec[], config: RunConfig): ProgramOutcome[] {
  const slice = { i: 0 };
  return programs.map((p) => {
    const module = compileModule(new Uint8Array(Buffer.from(p.wasm, 'base64')));
    const store = new Store(undefined, { maxMemoryBytes: 1 << 24, maxCallDepth: 2000 });
    const log: string[] = [];
    let inst: Instance;
    try {
      inst = instantiate(store, module, resolver(store, (i) => module.ir.types[i]!, log));
    } catch (e) {
      return { name: p.name, calls: [], globals: [], tables: [], memory: 'none', error: describeError(e) };
    }
    const calls: CallOutcome[] = [];
    const call = (label: string, f: FuncRef, args: readonly WasmValue[]): void => {
      log.length = 0;
      const fuel = p.fuel ?? 10_000_000;
      store.fuel = fuel;
      let outcome: string;
      try {
        outcome = runCall(store, f, args, config, slice);
      } catch (e) {
        outcome = describeError(e);
      }
      calls.push({ call: label, outcome, fuel: fuel - store.fuel, host: [...log] });
    };
    if (inst.startFunction !== null) call('(start)', inst.startFunction, []);
    for (const c of p.calls) call(`${c.export}(${c.args.join(', ')})`, inst.exports.get(c.export) as FuncRef, c.args.map(decodeValue));
    return { name: p.name, calls, globals: globalsOf(inst), tables: tablesOf(inst), memory: memoryOf(inst) };
  });
}
