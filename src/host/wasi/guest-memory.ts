/**
 * The guest's linear memory as the WASI calls see it: little-endian integers, byte ranges and
 * strings at guest pointers. Every access is bounds-checked (GuestMemory); one out of bounds
 * fails the call with EFAULT, as a bad pointer does in a native kernel, rather than trapping.
 */
import { GuestMemory, GuestMemoryError } from '../memory.js';
import { Errno, fail } from './errno.js';
import { LAYOUT } from './abi.js';

/** The most iovecs one read or write may pass (Linux's IOV_MAX). */
export const MAX_IOVECS = 1024;

/** One `iovec`: a guest buffer. */
export interface IoVec {
  readonly ptr: number;
  readonly len: number;
}

export class WasiMemory {
  constructor(private readonly memory: GuestMemory) {}

  read(ptr: number, len: number): Uint8Array {
    try {
      return this.memory.read(ptr, len);
    } catch (e) {
      return fault(e);
    }
  }

  write(ptr: number, bytes: Uint8Array): void {
    try {
      this.memory.write(ptr, bytes);
    } catch (e) {
      fault(e);
    }
  }

  /** EFAULT unless `[ptr, ptr + len)` lies within the memory. */
  checkRange(ptr: number, len: number): void {
    if (ptr + len > this.memory.byteLength) fail(Errno.FAULT);
  }

  setU32(ptr: number, value: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value >>> 0, true);
    this.write(ptr, b);
  }

  setU64(ptr: number, value: bigint): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
    this.write(ptr, b);
  }

  /** A guest string (a path, a symlink target): exactly `len` bytes, which must be UTF-8 without NUL. */
  string(ptr: number, len: number, maxBytes: number): string {
    if (len > maxBytes) fail(Errno.NAMETOOLONG);
    const bytes = this.read(ptr, len);
    if (bytes.includes(0)) fail(Errno.INVAL);
    try {
      return strictDecoder().decode(bytes);
    } catch {
      return fail(Errno.ILSEQ);
    }
  }

  /** The `count` iovecs at `ptr`, each checked against the memory's bounds. */
  iovecs(ptr: number, count: number): IoVec[] {
    if (count > MAX_IOVECS) fail(Errno.INVAL);
    const table = this.read(ptr, count * LAYOUT.IOVEC);
    const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
    const vecs: IoVec[] = [];
    for (let i = 0; i < count; i++) {
      const vec = { ptr: view.getUint32(i * LAYOUT.IOVEC, true), len: view.getUint32(i * LAYOUT.IOVEC + 4, true) };
      this.checkRange(vec.ptr, vec.len);
      vecs.push(vec);
    }
    return vecs;
  }

  /** A structure built in a scratch buffer and then copied in at once. */
  struct(size: number): StructWriter {
    return new StructWriter(size);
  }
}

/** Builds one structure (little-endian fields at offsets) before it goes to the guest. */
export class StructWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u8(offset: number, value: number): this {
    this.view.setUint8(offset, value);
    return this;
  }

  u16(offset: number, value: number): this {
    this.view.setUint16(offset, value, true);
    return this;
  }

  u32(offset: number, value: number): this {
    this.view.setUint32(offset, value >>> 0, true);
    return this;
  }

  u64(offset: number, value: bigint | number): this {
    this.view.setBigUint64(offset, BigInt.asUintN(64, BigInt(value)), true);
    return this;
  }
}

function fault(e: unknown): never {
  if (e instanceof GuestMemoryError) fail(Errno.FAULT);
  throw e;
}

let decoder: InstanceType<typeof TextDecoder> | null = null;

function strictDecoder(): InstanceType<typeof TextDecoder> {
  return (decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }));
}
