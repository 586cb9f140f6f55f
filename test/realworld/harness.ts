/**
 * One workload, two engines: a real-world module runs in Node's own WebAssembly and in ours
 * (compileModule, Store, instantiate, invokeSync: the Instance API of src/interpreter), behind
 * one small interface, `Guest`, so that each test writes its workload and its host imports
 * once and compares what the two runs produce.
 *
 * Host imports are written against `Guest` too: an import that reads or writes the guest's
 * memory, or calls back into the guest (Emscripten's runtime does both), behaves the same on
 * both sides. Values cross as JavaScript numbers (i32 signed, f32/f64 as numbers) and bigints
 * (i64).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  compileModule, Engine, F32, F64, FuncRef, GlobalInst, I32, I64, instantiate, invokeSync, MemoryInst, Store,
  WasmValue, type CompiledModule, type ExternVal, type FuncType, type ValType,
} from '../../src/interpreter/index.js';

export const REALWORLD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'realworld');

export function fixture(name: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(readFileSync(join(REALWORLD_DIR, name)));
}

export type Num = number | bigint;

export interface Guest {
  readonly engine: 'node' | 'sandboxd';
  /** Calls an exported function; i32 results come back as signed numbers, i64 as bigints. */
  call(name: string, ...args: Num[]): Num | undefined;
  /** A copy of `len` bytes of linear memory at `ptr`. */
  read(ptr: number, len: number): Uint8Array;
  write(ptr: number, bytes: Uint8Array): void;
  /** The value of an exported global. */
  global(name: string): Num;
  memoryBytes(): number;
  /** Grows the memory by `pages`; the old size in pages, or -1. */
  grow(pages: number): number;
  /** SHA-256 of the whole linear memory: two runs of one workload must leave it identical. */
  memoryDigest(): string;
}

/** A host function: `guest` is the instance that called it. */
export type HostFn = (guest: Guest, ...args: Num[]) => Num | void;
export type HostImports = Record<string, Record<string, HostFn>>;

export interface GuestOptions {
  /**
   * A memory the module imports, created by the harness: Node's side is given these limits
   * (its API cannot tell the declared type); our side creates exactly the type the module
   * declares, shared or not. The memory must then be the guest's only one.
   */
  importedMemory?: { module: string; name: string; initial: number; maximum: number; shared: boolean };
  /** Which export is the memory (when it is not imported). Default: the only memory export. */
  memoryExport?: string;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------
// Node's WebAssembly

interface NodeMemory { buffer: ArrayBuffer | SharedArrayBuffer; grow(delta: number): number }

export function nodeGuest(bytes: Uint8Array<ArrayBuffer>, imports: HostImports, options: GuestOptions = {}): Guest {
  const module = new WebAssembly.Module(bytes);
  let memory: NodeMemory | undefined;
  let exports: Record<string, unknown> = {};
  const importObject: Record<string, Record<string, unknown>> = {};
  const guest: Guest = {
    engine: 'node',
    call(name, ...args) {
      const f = exports[name];
      if (typeof f !== 'function') throw new Error(`no exported function ${name}`);
      return (f as (...a: Num[]) => Num | undefined)(...args);
    },
    read: (ptr, len) => new Uint8Array(mem().buffer, ptr, len).slice(),
    write: (ptr, data) => new Uint8Array(mem().buffer).set(data, ptr),
    global(name) {
      const g = exports[name];
      if (!(g instanceof WebAssembly.Global)) throw new Error(`no exported global ${name}`);
      return g.value as Num;
    },
    memoryBytes: () => mem().buffer.byteLength,
    grow(pages) {
      try {
        return mem().grow(pages);
      } catch {
        return -1;
      }
    },
    memoryDigest: () => sha256(new Uint8Array(mem().buffer)),
  };
  const mem = (): NodeMemory => {
    if (!memory) throw new Error('the guest has no memory');
    return memory;
  };
  for (const imp of WebAssembly.Module.imports(module)) {
    const ns = (importObject[imp.module] ??= {});
    if (imp.kind === 'memory') {
      const m = options.importedMemory;
      if (!m || m.module !== imp.module || m.name !== imp.name) throw new Error(`no memory for ${imp.module}.${imp.name}`);
      memory = new WebAssembly.Memory({ initial: m.initial, maximum: m.maximum, shared: m.shared });
      ns[imp.name] = memory;
    } else if (imp.kind === 'function') {
      const fn = imports[imp.module]?.[imp.name];
      if (!fn) throw new Error(`no host function for ${imp.module}.${imp.name}`);
      ns[imp.name] = (...args: Num[]) => fn(guest, ...args);
    } else {
      throw new Error(`unsupported import kind ${imp.kind} (${imp.module}.${imp.name})`);
    }
  }
  const instance = new WebAssembly.Instance(module, importObject as WebAssembly.Imports);
  exports = instance.exports as Record<string, unknown>;
  if (!memory) {
    const name = options.memoryExport ?? WebAssembly.Module.exports(module).find((e) => e.kind === 'memory')?.name;
    if (name !== undefined) memory = exports[name] as NodeMemory;
  }
  return guest;
}

// ---------------------------------------------------------------------------------------------
// Our engine, through the Instance API

function toValue(t: ValType, x: Num | void | undefined): WasmValue {
  switch (t) {
    case I32: return WasmValue.i32(Number(x ?? 0));
    case I64: return WasmValue.i64(BigInt(x ?? 0));
    case F32: return WasmValue.f32(Number(x ?? 0));
    case F64: return WasmValue.f64(Number(x ?? 0));
    default: throw new Error(`unsupported value type ${t} at the boundary`);
  }
}

function fromValue(v: WasmValue): Num {
  switch (v.type) {
    case I32: return v.asI32;
    case I64: return v.asI64;
    case F32: return v.asF32;
    case F64: return v.asF64;
    default: throw new Error(`unsupported value type ${v.type} at the boundary`);
  }
}

export interface EngineGuest extends Guest {
  readonly store: Store;
  readonly module: CompiledModule;
}

export function engineGuest(bytes: Uint8Array, imports: HostImports, options: GuestOptions = {}): EngineGuest {
  const module = compileModule(bytes);
  const store = new Store(new Engine());
  let memory: MemoryInst | undefined;
  let exports: ReadonlyMap<string, ExternVal> = new Map();
  const exportType = (name: string): FuncType => {
    const e = module.ir.exports.find((x) => x.name === name && x.kind === 'func');
    if (!e) throw new Error(`no exported function ${name}`);
    return module.funcTypes[e.index]!;
  };
  const guest: EngineGuest = {
    engine: 'sandboxd',
    store,
    module,
    call(name, ...args) {
      const f = exports.get(name);
      if (!(f instanceof FuncRef)) throw new Error(`no exported function ${name}`);
      const type = exportType(name);
      const results = invokeSync(store, f, type.params.map((t, i) => toValue(t, args[i])));
      return results.length ? fromValue(results[0]!) : undefined;
    },
    read: (ptr, len) => mem().read(ptr, len).slice(),
    write: (ptr, data) => mem().write(ptr, data),
    global(name) {
      const g = exports.get(name);
      if (!(g instanceof GlobalInst)) throw new Error(`no exported global ${name}`);
      return fromValue(g.value);
    },
    memoryBytes: () => mem().byteLength,
    grow: (pages) => mem().grow(pages),
    memoryDigest: () => sha256(mem().read(0, mem().byteLength)),
  };
  const mem = (): MemoryInst => {
    if (!memory) throw new Error('the guest has no memory');
    return memory;
  };
  const instance = instantiate(store, module, (imp) => {
    const d = imp.desc;
    if (d.kind === 'memory') {
      const m = options.importedMemory;
      if (!m || m.module !== imp.module || m.name !== imp.name) return undefined;
      // The type the module declares: shared (with its maximum) when the module says so.
      memory = store.createMemory(d.type);
      return memory;
    }
    if (d.kind !== 'func') return undefined;
    const fn = imports[imp.module]?.[imp.name];
    if (!fn) return undefined;
    const type = module.ir.types[d.typeIndex]!;
    return store.createHostFunction(type, (args) => {
      const r = fn(guest, ...args.map(fromValue));
      return type.results.map((t) => toValue(t, r));
    });
  });
  exports = instance.exports;
  if (!memory) {
    const name = options.memoryExport ?? module.ir.exports.find((e) => e.kind === 'memory')?.name;
    const m = name === undefined ? undefined : exports.get(name);
    if (m instanceof MemoryInst) memory = m;
  }
  if (instance.startFunction) invokeSync(store, instance.startFunction, []);
  return guest;
}

/** Both engines, Node's first. */
export function bothGuests(bytes: Uint8Array<ArrayBuffer>, imports: HostImports, options: GuestOptions = {}): [Guest, Guest] {
  return [nodeGuest(bytes, imports, options), engineGuest(bytes, imports, options)];
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A deterministic byte pattern (xorshift32), the same on every run. */
export function pattern(len: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(len);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < len; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = s & 0xff;
  }
  return out;
}
