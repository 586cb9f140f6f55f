/**
 * Runtime objects: the engine's epoch counter, the store that owns every function, memory,
 * table and global that instances create, and those objects themselves.
 *
 * Inside the engine a reference is a number: a funcref is an index into `store.funcs`, an
 * externref an index into `store.externs`, and null is 0 — index 0 of both is a placeholder,
 * so that zeroed memory (fresh locals, tables, globals) reads as null. They convert to API values
 * (`FuncRef`, the host's own object) only when they cross the embedding boundary.
 */
import { LinkError, Trap, TrapKind } from './errors.js';
import { EXNREF, FUNCREF, type FuncType, type GlobalType, isRefType, type MemoryType, type TableType, V128, type ValType } from './types.js';
import { FuncRef, WasmValue } from './values.js';
import type { Instance } from './instance.js';
import type { InstructionMonitor } from './execution.js';
import { HOT_THRESHOLD, jitSupported } from '../jit/policy.js';
import { AT_ONCE, CopyInPieces, FillInPieces, InSequence, type PieceWork, type WorkSink } from './pieces.js';
import { FRESH_PAGES_ABOVE, type HostBuffer, hostBuffer } from './host-buffers.js';

export const NULL_REF = 0;

/**
 * The most exceptions one store registers for exception references (exceptionId), by default:
 * each costs the host about 300 bytes (measured: 1,000,000 took 312 MB), so this bounds it
 * near 3 MB, within the order of the default memory cap.
 */
export const MAX_EXCEPTION_REFS = 10_000;

/** A string equal for structurally equal function types. */
export function signatureKey(type: FuncType): string {
  return `${type.params.join(',')}>${type.results.join(',')}`;
}
export const PAGE_SIZE = 65536;
const MAX_PAGES = 65536;

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

/** The placeholder at index 0 of every store's `funcs`, which no reference names. */
const NULL_FUNC = new FuncInst({ params: [], results: [] }, -1, null, -1, null);

/** What a cap refused: see StoreOptions. */
export type Resource = 'memory' | 'table' | 'memories' | 'tables';

export interface StoreOptions {
  /** Cap on the bytes of all linear memories of the store together. */
  maxMemoryBytes?: number;
  /** Cap on the elements of all tables of the store together. */
  maxTableElements?: number;
  /** Cap on how many memories the store may hold. */
  maxMemories?: number;
  /** Cap on how many tables the store may hold. */
  maxTables?: number;
  /**
   * Called whenever one of the caps refuses something, with what it refused and the total the
   * store would have reached: memory bytes, table elements, memories or tables.
   */
  onGrowRefused?: (what: Resource, requested: number) => void;
  maxCallDepth?: number;
  /** The most exceptions caught by reference (or by a legacy catch) per store; MAX_EXCEPTION_REFS by default. */
  maxExceptionRefs?: number;
  /**
   * When functions move to the JavaScript tier (src/jit/tier.ts): at this heat; 0 on their
   * first call; Infinity never. HOT_THRESHOLD by default, Infinity where `new Function` is refused.
   */
  jitThreshold?: number;
}

export class Store {
  /** Index 0 is a placeholder: reference 0 is null. */
  readonly funcs: FuncInst[] = [NULL_FUNC];
  readonly externs: unknown[] = [undefined];
  /** Each extern's index in `externs`; made on the first (most runs have none). */
  private externIds: Map<unknown, number> | null = null;
  private readonly sigIds = new Map<string, number>();
  readonly instances: Instance[] = [];
  readonly maxMemoryBytes: number;
  readonly maxTableElements: number;
  readonly maxMemories: number;
  readonly maxTables: number;
  readonly maxCallDepth: number;
  readonly maxExceptionRefs: number;
  readonly onGrowRefused: ((what: Resource, requested: number) => void) | null;
  fuel = Number.MAX_SAFE_INTEGER;
  epochDeadline = Infinity;
  /** StoreOptions.jitThreshold, settled. */
  readonly jitThreshold: number;
  /**
   * What the executions made from now on report their instructions to (Execution.monitor):
   * set by the inspection tools (src/inspect) for a module compiled with probes.
   */
  monitor: InstructionMonitor | null = null;
  /** The largest total of linear memory bytes a memory.grow reached (0 when none grew). */
  peakMemoryBytes = 0;
  /** What the store holds now, against the caps above. */
  memoryBytes = 0;
  tableElements = 0;
  memoryCount = 0;
  tableCount = 0;
  /** Bytes of memory buffers allocated: sizes plus the room kept for growth (MemoryInst). */
  memoryReserved = 0;

  constructor(readonly engine: Engine = new Engine(), options: StoreOptions = {}) {
    this.maxMemoryBytes = options.maxMemoryBytes ?? MAX_PAGES * PAGE_SIZE;
    this.maxTableElements = options.maxTableElements ?? 10_000_000;
    this.maxMemories = options.maxMemories ?? 10_000;
    this.maxTables = options.maxTables ?? 10_000;
    this.maxCallDepth = options.maxCallDepth ?? 20_000;
    this.maxExceptionRefs = options.maxExceptionRefs ?? MAX_EXCEPTION_REFS;
    this.onGrowRefused = options.onGrowRefused ?? null;
    this.jitThreshold = jitSupported() ? (options.jitThreshold ?? HOT_THRESHOLD) : Infinity;
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

  /**
   * The engine number of exception `exn` for an exnref (or a legacy catch's slot), registered
   * on first use. A store registers at most maxExceptionRefs, so that a guest catching in a
   * loop cannot grow the host's memory without bound; past that, it traps.
   */
  exceptionId(exn: ExceptionInst): number {
    const id = this.externIds?.get(exn);
    if (id !== undefined) return id;
    if (++this.exceptionRefs > this.maxExceptionRefs) throw new Trap(TrapKind.ExceptionRefsExhausted);
    return this.addExtern(exn);
  }

  /** Registers `value` among the store's externs; its engine number. */
  private addExtern(value: unknown): number {
    const id = this.externs.length;
    this.externs.push(value);
    (this.externIds ??= new Map()).set(value, id);
    return id;
  }

  /** How many exceptions exceptionId registered. */
  private exceptionRefs = 0;

  /** The engine number of a reference value (NULL_REF for null). */
  refToId(v: WasmValue): number {
    if (v.ref === null) return NULL_REF;
    if (v.type === FUNCREF) {
      if (!(v.ref instanceof FuncRef) || v.ref.id === NULL_REF || this.funcs[v.ref.id] === undefined) throw new TypeError('funcref from another store');
      return v.ref.id;
    }
    if (v.type === EXNREF) {
      if (!(v.ref instanceof ExceptionInst)) throw new TypeError('an exnref must refer to an exception');
      return this.exceptionId(v.ref);
    }
    return this.externIds?.get(v.ref) ?? this.addExtern(v.ref);
  }

  idToRef(type: ValType, id: number): WasmValue {
    if (type === FUNCREF) return WasmValue.funcref(id === NULL_REF ? null : new FuncRef(id));
    if (type === EXNREF) return WasmValue.exnref(id === NULL_REF ? null : this.externs[id] as ExceptionInst);
    return WasmValue.externref(id === NULL_REF ? null : this.externs[id]);
  }

  /**
   * Whether `more` of `what` fits its cap beside what the store already holds (`held`);
   * reports a refusal. Every allocation a guest can cause asks here first.
   */
  private admit(what: Resource, held: number, more: number, cap: number): boolean {
    if (more <= cap - held) return true;
    this.onGrowRefused?.(what, held + more);
    return false;
  }

  admitMemoryBytes(more: number): boolean {
    return this.admit('memory', this.memoryBytes, more, this.maxMemoryBytes);
  }

  admitTableElements(more: number): boolean {
    return this.admit('table', this.tableElements, more, this.maxTableElements);
  }
}

/**
 * Past this size a memory's growth takes all the room it may reach (MemoryInst.allocate), where
 * that room is over FRESH_PAGES_ABOVE (host-buffers.ts); below it, growth doubles. Kept small
 * because every buffer a growth leaves behind has pages its copy touched, and freeing those (on
 * V8's threads) holds the process's memory-map lock that the main thread's own faults and
 * mappings wait for: with doubling to 32 MiB, a growth storm at a 512 MiB cap left 64 MiB of
 * them and the event loop waited up to 31 ms outside any collector pause; from 4 MiB, 13.6 ms at
 * most and mostly under 10 (docs/fences.md). Not smaller, because V8 counts a buffer's whole
 * length as external memory and collects more often for it: a program of a few MiB under a large
 * cap should not cost a collection per run.
 */
const WHOLE_ROOM_ABOVE = 4 * 1024 * 1024;

/**
 * The most room a growth takes at once. V8 collects all garbage there and then when a buffer
 * takes its external memory more than half its heap limit past the last collection (1-2 GiB on
 * 64-bit Node): a growth of the engine API's default 4 GiB room took 13 ms in a vitest worker,
 * and a 4 GiB buffer 55-111 ms beside a heap of two million objects (a review's measurement).
 * Past this, growth doubles again.
 */
const WHOLE_ROOM_AT_MOST = 1024 * 1024 * 1024;

/**
 * A linear memory. Its buffer may be larger than the memory: growth doubles it, and past
 * WHOLE_ROOM_ABOVE a store's only memory takes all the room it may reach (up to
 * WHOLE_ROOM_AT_MOST) where that is over FRESH_PAGES_ABOVE (`buffer.byteLength`, never past the
 * type's maximum or the store's cap less the other memories' sizes; see `allocate`), so growing
 * page by page copies each byte a constant number of times, not once per page. Bytes past
 * `size` are zero and unreachable: every access is checked against `size`.
 */
export class MemoryInst {
  buffer: ArrayBuffer;
  view: DataView;
  bytes: Uint8Array;
  /** The size in bytes, as a plain field: the interpreter reads it after every return. */
  size = 0;
  readonly maxPages: number;

  constructor(readonly store: Store, readonly type: MemoryType) {
    const pages = type.limits.min;
    this.maxPages = Math.min(type.limits.max ?? MAX_PAGES, MAX_PAGES);
    const bytes = pages * PAGE_SIZE;
    if (store.memoryCount >= store.maxMemories) {
      store.onGrowRefused?.('memories', store.memoryCount + 1);
      throw new LinkError(`a memory beyond the limit of ${store.maxMemories} memories`);
    }
    if (!store.admitMemoryBytes(bytes)) {
      throw new LinkError(`memory of ${pages} pages exceeds the limit of ${store.maxMemoryBytes} bytes`);
    }
    store.memoryCount++;
    // Zeroed by the host, not hostBuffer's way: a memory's first buffer is often fresh from the
    // OS, its pages free until touched, and zeroing them here made instantiating a 16 MiB memory
    // take 1-9 ms against 0.3-0.5. A growth's buffer comes from hostBuffer (a growth to 16 MiB,
    // 60 runs: slowest 8-9 ms against 8-10, the event loop's longest wait 7.3-7.9 ms against
    // 9.4-15.3).
    this.buffer = new ArrayBuffer(bytes);
    store.memoryReserved += bytes;
    this.view = new DataView(this.buffer);
    this.bytes = new Uint8Array(this.buffer);
    this.size = bytes;
    store.memoryBytes += bytes;
  }

  get byteLength(): number {
    return this.size;
  }

  get pages(): number {
    return this.size / PAGE_SIZE;
  }

  /**
   * Grows by `delta` pages; returns the old size in pages, or -1 when refused. When the buffer
   * has no room, a larger one is allocated and the old contents copied through `sink`, which
   * may do it in pieces: the memory takes its new size when the copy is done.
   */
  grow(delta: number, sink: WorkSink = AT_ONCE): number {
    const old = this.pages;
    if (delta > this.maxPages - old) return -1;
    if (delta === 0) return old;
    const bytes = (old + delta) * PAGE_SIZE;
    if (!this.store.admitMemoryBytes(bytes - this.size)) return -1;
    if (bytes <= this.buffer.byteLength) {
      this.resize(bytes);
      return old;
    }
    const allocated = this.allocate(bytes);
    if (allocated === null) return -1; // the host could not provide the memory: growth fails, as the spec allows
    const { buffer, dirty } = allocated;
    const target = new Uint8Array(buffer);
    const works: PieceWork[] = [new CopyInPieces(target, 0, this.bytes, 0, this.size)];
    if (dirty) works.push(new FillInPieces(target, this.size, 0, buffer.byteLength - this.size));
    sink.perform(new InSequence(works, () => {
      this.store.memoryReserved += buffer.byteLength - this.buffer.byteLength;
      this.buffer = buffer;
      this.view = new DataView(buffer);
      this.bytes = target;
      this.resize(bytes);
    }), dirty ? buffer.byteLength : this.size);
    return old;
  }

  /**
   * A buffer for `bytes` (hostBuffer's: zeroed, or to be zeroed). Up to WHOLE_ROOM_ABOVE, twice
   * the current one (where the type's maximum and the store's cap, less what the other memories
   * hold, allow), so growing page by page copies each byte a constant number of times; past it,
   * for a store's only memory, all the room the memory may reach (up to WHOLE_ROOM_AT_MOST),
   * where that is over FRESH_PAGES_ABOVE. So large a buffer costs the host address space, not
   * memory, until the guest touches its pages (the OS maps zero pages on first use, as for
   * wasmtime's reservations), and a memory grown page by page to hundreds of MiB is copied once past the
   * threshold, not at every doubling — nor does the host free, while the guest runs, buffers
   * whose pages a copy touched (unmapping them holds the process's memory-map lock for
   * milliseconds, stalling the main thread's own faults and mappings). Where the host refuses a
   * buffer that large, twice the current one, then just `bytes`; null when even that is refused.
   *
   * The room is the cap less the other memories' sizes, not their buffers: a memory's room
   * untouched costs nothing, and counted against the others it left them no room to double
   * into, each growth of theirs a copy of the whole memory (a review's finding: 600 growths of
   * one page copied 11 GiB). The whole room goes to a store's only memory for the same reason.
   */
  private allocate(bytes: number): HostBuffer | null {
    const store = this.store;
    const room = Math.min(
      this.maxPages * PAGE_SIZE,
      Math.floor((store.maxMemoryBytes - (store.memoryBytes - this.size)) / PAGE_SIZE) * PAGE_SIZE,
    );
    const doubled = Math.min(2 * this.buffer.byteLength, room);
    const whole = bytes > WHOLE_ROOM_ABOVE && room > FRESH_PAGES_ABOVE && store.memoryCount === 1;
    const wholeRoom = Math.max(Math.min(room, WHOLE_ROOM_AT_MOST), doubled);
    for (const capacity of whole ? [wholeRoom, doubled] : [doubled]) {
      if (capacity < bytes) continue;
      try {
        return hostBuffer(capacity);
      } catch {
        // refused: try a smaller one
      }
    }
    try {
      return hostBuffer(bytes);
    } catch {
      return null;
    }
  }

  /** Sets the size after a growth, keeping the store's total and its peak. */
  private resize(bytes: number): void {
    const store = this.store;
    store.memoryBytes += bytes - this.size;
    this.size = bytes;
    if (store.memoryBytes > store.peakMemoryBytes) store.peakMemoryBytes = store.memoryBytes;
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
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > this.size) {
      throw new RangeError(`memory range [${offset}, ${offset + length}) is out of bounds (memory size ${this.size})`);
    }
  }
}

/**
 * A table of references. Like a memory, its array keeps room to grow into (doubling, never
 * past the type's maximum or the store's cap); `size` is the table's size.
 */
export class TableInst {
  elements: Int32Array;
  size = 0;
  readonly maxSize: number;

  constructor(readonly store: Store, readonly type: TableType, init: number) {
    const min = type.limits.min;
    this.maxSize = type.limits.max ?? 0xffffffff;
    if (store.tableCount >= store.maxTables) {
      store.onGrowRefused?.('tables', store.tableCount + 1);
      throw new LinkError(`a table beyond the limit of ${store.maxTables} tables`);
    }
    if (!store.admitTableElements(min)) {
      throw new LinkError(`table of ${min} elements exceeds the limit of ${store.maxTableElements} elements of all tables together`);
    }
    store.tableCount++;
    this.elements = new Int32Array(min);
    if (init !== 0) this.elements.fill(init);
    this.resize(min);
  }

  get(i: number): WasmValue {
    if (i < 0 || i >= this.size) throw new RangeError(`table index ${i} out of bounds`);
    return this.store.idToRef(this.type.elemType, this.elements[i]!);
  }

  set(i: number, v: WasmValue): void {
    if (i < 0 || i >= this.size) throw new RangeError(`table index ${i} out of bounds`);
    this.elements[i] = this.store.refToId(v);
  }

  /**
   * Grows by `delta` elements filled with `init` (an engine reference); -1 when refused. The
   * copy into a larger array and the fill go through `sink`, which may do them in pieces.
   */
  growRaw(delta: number, init: number, sink: WorkSink = AT_ONCE): number {
    const old = this.size;
    const size = old + delta;
    if (size > this.maxSize || size > 0xffffffff) return -1;
    if (!this.store.admitTableElements(delta)) return -1;
    const works: PieceWork[] = [];
    let elements = this.elements;
    if (size > elements.length) {
      const room = Math.min(2 * elements.length, this.maxSize, this.store.maxTableElements - (this.store.tableElements - old));
      try {
        elements = new Int32Array(Math.max(size, room));
      } catch {
        return -1;
      }
      works.push(new CopyInPieces(elements, 0, this.elements, 0, old));
    }
    // A new array is zeroed, and zero is null; past `size`, an old one is never written.
    if (init !== 0) works.push(new FillInPieces(elements, old, init, delta));
    sink.perform(new InSequence(works, () => {
      this.elements = elements;
      this.resize(size);
    }), ((elements !== this.elements ? old : 0) + (init !== 0 ? delta : 0)) * 4);
    return old;
  }

  grow(delta: number, init: WasmValue): number {
    return this.growRaw(delta, this.store.refToId(init));
  }

  private resize(size: number): void {
    this.store.tableElements += size - this.size;
    this.size = size;
  }
}

export class GlobalInst {
  lo = 0;
  hi = 0;
  /** The upper words of a v128 global (0 otherwise). */
  w2 = 0;
  w3 = 0;

  constructor(readonly store: Store, readonly type: GlobalType) {}

  get value(): WasmValue {
    const t = this.type.valType;
    if (isRefType(t)) return this.store.idToRef(t, this.lo);
    if (t === V128) return WasmValue.v128Words(this.lo, this.hi, this.w2, this.w3);
    return WasmValue.fromSlot(t, this.lo, this.hi);
  }

  set value(v: WasmValue) {
    if (!this.type.mutable) throw new TypeError('cannot set an immutable global');
    this.setFromValue(v);
  }

  setFromValue(v: WasmValue): void {
    if (v.type !== this.type.valType) throw new TypeError('global value of the wrong type');
    const t = this.type.valType;
    if (isRefType(t)) {
      this.lo = this.store.refToId(v);
      this.hi = 0;
    } else {
      this.lo = v.lo;
      this.hi = v.hi;
      this.w2 = v.w2;
      this.w3 = v.w3;
    }
  }
}

/** An exception tag (exception handling): an identity, and the type of its payload. */
export class TagInst {
  constructor(readonly type: FuncType) {}
}

/**
 * A thrown exception: its tag and its payload, as frame words laid out by type (types.ts,
 * valueWords), references as the store's numbers. An `exnref` names one through `externs`,
 * like an externref's host value.
 */
export class ExceptionInst {
  constructor(readonly tag: TagInst, readonly payload: Int32Array) {}
}

export type ExternVal = FuncRef | MemoryInst | TableInst | GlobalInst | TagInst;
