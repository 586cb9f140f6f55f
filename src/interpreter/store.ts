/**
 * Runtime objects: the engine's epoch counter, the store that owns every function, memory,
 * table and global that instances create, and those objects themselves.
 *
 * Inside the engine a reference is a number: a funcref is an index into `store.funcs`, an
 * externref an index into `store.externs`, and null is 0 — index 0 of both is a placeholder,
 * so that zeroed memory (fresh locals, tables, globals) reads as null. They convert to API values
 * (`FuncRef`, the host's own object) only when they cross the embedding boundary.
 */
import { LinkError } from './errors.js';
import { EXTERNREF, FUNCREF, type FuncType, type GlobalType, type MemoryType, type TableType, type ValType } from './types.js';
import { FuncRef, WasmValue } from './values.js';
import type { Instance } from './instance.js';

export const NULL_REF = 0;

/** A string equal for structurally equal function types. */
export function signatureKey(type: FuncType): string {
  return `${type.params.join(',')}>${type.results.join(',')}`;
}
export const PAGE_SIZE = 65536;
const MAX_PAGES = 65536;

/** The type of the placeholder at index 0 of `store.funcs`, which no reference names. */
const NULL_FUNC_PLACEHOLDER: FuncType = { params: [], results: [] };

export class Engine {
  epoch = 0;
  incrementEpoch(): void {
    this.epoch++;
  }
}

export interface Caller {
  /** The instance whose code made the call, or null when called from the API. */
  readonly instance: Instance | null;
}

export type HostFunction = (args: WasmValue[], caller: Caller) => WasmValue[] | Promise<WasmValue[]>;

/** A function in the store: WebAssembly code of an instance, or a host function. */
export class FuncInst {
  constructor(
    readonly type: FuncType,
    /** Store-wide signature id, equal for structurally equal types. */
    readonly sig: number,
    readonly instance: Instance | null,
    /** Function index within the instance's module. */
    readonly index: number,
    readonly host: HostFunction | null,
  ) {}
}

export interface StoreOptions {
  maxMemoryBytes?: number;
  maxTableElements?: number;
  onGrowRefused?: (what: 'memory' | 'table', requested: number) => void;
  maxCallDepth?: number;
}

export class Store {
  /** Index 0 is a placeholder: reference 0 is null. */
  readonly funcs: FuncInst[] = [new FuncInst(NULL_FUNC_PLACEHOLDER, -1, null, -1, null)];
  readonly externs: unknown[] = [undefined];
  private readonly externIds = new Map<unknown, number>();
  private readonly sigIds = new Map<string, number>();
  readonly instances: Instance[] = [];
  readonly maxMemoryBytes: number;
  readonly maxTableElements: number;
  readonly maxCallDepth: number;
  readonly onGrowRefused: ((what: 'memory' | 'table', requested: number) => void) | null;
  fuel = Number.MAX_SAFE_INTEGER;
  epochDeadline = Infinity;
  peakMemoryBytes = 0;

  constructor(readonly engine: Engine = new Engine(), options: StoreOptions = {}) {
    this.maxMemoryBytes = options.maxMemoryBytes ?? MAX_PAGES * PAGE_SIZE;
    this.maxTableElements = options.maxTableElements ?? 10_000_000;
    this.maxCallDepth = options.maxCallDepth ?? 20_000;
    this.onGrowRefused = options.onGrowRefused ?? null;
  }

  signatureId(type: FuncType): number {
    return this.signatureIdOfKey(signatureKey(type));
  }

  /** The id for a signature key (see signatureKey), interned in this store. */
  signatureIdOfKey(key: string): number {
    let id = this.sigIds.get(key);
    if (id === undefined) {
      id = this.sigIds.size;
      this.sigIds.set(key, id);
    }
    return id;
  }

  addFunction(f: FuncInst): number {
    this.funcs.push(f);
    return this.funcs.length - 1;
  }

  createHostFunction(type: FuncType, impl: HostFunction): FuncRef {
    return new FuncRef(this.addFunction(new FuncInst(type, this.signatureId(type), null, -1, impl)));
  }

  createMemory(type: MemoryType): MemoryInst {
    return new MemoryInst(this, type);
  }

  createTable(type: TableType, init: WasmValue): TableInst {
    return new TableInst(this, type, this.refToId(init));
  }

  createGlobal(type: GlobalType, value: WasmValue): GlobalInst {
    const g = new GlobalInst(this, type);
    g.setFromValue(value);
    return g;
  }

  /** The engine number of a reference value (NULL_REF for null). */
  refToId(v: WasmValue): number {
    if (v.ref === null) return NULL_REF;
    if (v.type === FUNCREF) {
      if (!(v.ref instanceof FuncRef) || v.ref.id === NULL_REF || this.funcs[v.ref.id] === undefined) throw new TypeError('funcref from another store');
      return v.ref.id;
    }
    let id = this.externIds.get(v.ref);
    if (id === undefined) {
      id = this.externs.length;
      this.externs.push(v.ref);
      this.externIds.set(v.ref, id);
    }
    return id;
  }

  idToRef(type: ValType, id: number): WasmValue {
    if (type === FUNCREF) return WasmValue.funcref(id === NULL_REF ? null : new FuncRef(id));
    return WasmValue.externref(id === NULL_REF ? null : this.externs[id]);
  }

  /** Whether a growth to `bytes` bytes fits the store's memory cap; reports a refusal. */
  admitMemory(bytes: number): boolean {
    if (bytes <= this.maxMemoryBytes) return true;
    this.onGrowRefused?.('memory', bytes);
    return false;
  }

  admitTable(elements: number): boolean {
    if (elements <= this.maxTableElements) return true;
    this.onGrowRefused?.('table', elements);
    return false;
  }
}

export class MemoryInst {
  buffer: ArrayBuffer;
  view: DataView;
  bytes: Uint8Array;
  /** The size in bytes, as a plain field: the interpreter reads it after every return. */
  size: number;
  readonly maxPages: number;

  constructor(readonly store: Store, readonly type: MemoryType) {
    const pages = type.limits.min;
    this.maxPages = Math.min(type.limits.max ?? MAX_PAGES, MAX_PAGES);
    if (!store.admitMemory(pages * PAGE_SIZE)) {
      throw new LinkError(`memory of ${pages} pages exceeds the limit of ${store.maxMemoryBytes} bytes`);
    }
    this.buffer = new ArrayBuffer(pages * PAGE_SIZE);
    this.view = new DataView(this.buffer);
    this.bytes = new Uint8Array(this.buffer);
    this.size = this.buffer.byteLength;
  }

  get byteLength(): number {
    return this.buffer.byteLength;
  }

  get pages(): number {
    return this.buffer.byteLength / PAGE_SIZE;
  }

  /** Grows by `delta` pages; returns the old size in pages, or -1 when refused. */
  grow(delta: number): number {
    const old = this.pages;
    const pages = old + delta;
    if (pages > this.maxPages) return -1;
    if (delta === 0) return old;
    if (!this.store.admitMemory(pages * PAGE_SIZE)) return -1;
    let buffer: ArrayBuffer;
    try {
      buffer = new ArrayBuffer(pages * PAGE_SIZE);
    } catch {
      return -1; // the host could not provide the memory: growth fails, as the spec allows
    }
    new Uint8Array(buffer).set(this.bytes);
    this.buffer = buffer;
    this.view = new DataView(buffer);
    this.bytes = new Uint8Array(buffer);
    this.size = buffer.byteLength;
    if (buffer.byteLength > this.store.peakMemoryBytes) this.store.peakMemoryBytes = buffer.byteLength;
    return old;
  }

  read(offset: number, length: number): Uint8Array {
    this.checkRange(offset, length);
    return this.bytes.slice(offset, offset + length);
  }

  write(offset: number, data: Uint8Array): void {
    this.checkRange(offset, data.length);
    this.bytes.set(data, offset);
  }

  private checkRange(offset: number, length: number): void {
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > this.byteLength) {
      throw new RangeError(`memory range [${offset}, ${offset + length}) is out of bounds (memory size ${this.byteLength})`);
    }
  }
}

export class TableInst {
  elements: Int32Array;
  size: number;
  readonly maxSize: number;

  constructor(readonly store: Store, readonly type: TableType, init: number) {
    const min = type.limits.min;
    this.maxSize = type.limits.max ?? 0xffffffff;
    if (!store.admitTable(min)) throw new LinkError(`table of ${min} elements exceeds the limit of ${store.maxTableElements}`);
    this.elements = new Int32Array(Math.max(min, 4)).fill(init);
    this.size = min;
  }

  get(i: number): WasmValue {
    if (i < 0 || i >= this.size) throw new RangeError(`table index ${i} out of bounds`);
    return this.store.idToRef(this.type.elemType, this.elements[i]!);
  }

  set(i: number, v: WasmValue): void {
    if (i < 0 || i >= this.size) throw new RangeError(`table index ${i} out of bounds`);
    this.elements[i] = this.store.refToId(v);
  }

  /** Grows by `delta` elements filled with `init` (an engine reference); -1 when refused. */
  growRaw(delta: number, init: number): number {
    const old = this.size;
    const size = old + delta;
    if (size > this.maxSize || size > 0xffffffff) return -1;
    if (!this.store.admitTable(size)) return -1;
    if (size > this.elements.length) {
      const bigger = new Int32Array(Math.max(size, this.elements.length * 2));
      bigger.set(this.elements.subarray(0, old));
      this.elements = bigger;
    }
    this.elements.fill(init, old, size);
    this.size = size;
    return old;
  }

  grow(delta: number, init: WasmValue): number {
    return this.growRaw(delta, this.store.refToId(init));
  }
}

export class GlobalInst {
  lo = 0;
  hi = 0;

  constructor(readonly store: Store, readonly type: GlobalType) {}

  get value(): WasmValue {
    const t = this.type.valType;
    if (t === FUNCREF || t === EXTERNREF) return this.store.idToRef(t, this.lo);
    return WasmValue.fromSlot(t, this.lo, this.hi);
  }

  set value(v: WasmValue) {
    if (!this.type.mutable) throw new TypeError('cannot set an immutable global');
    this.setFromValue(v);
  }

  setFromValue(v: WasmValue): void {
    if (v.type !== this.type.valType) throw new TypeError('global value of the wrong type');
    const t = this.type.valType;
    if (t === FUNCREF || t === EXTERNREF) {
      this.lo = this.store.refToId(v);
      this.hi = 0;
    } else {
      this.lo = v.lo;
      this.hi = v.hi;
    }
  }
}

export type ExternVal = FuncRef | MemoryInst | TableInst | GlobalInst;
