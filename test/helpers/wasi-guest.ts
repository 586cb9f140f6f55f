/**
 * A guest for testing WASI calls one by one: a module that imports WASI functions and exports
 * them again under their own names, with a memory, so that a test calls `path_open` (say)
 * directly with the arguments it wants — hostile ones included — and reads the results from
 * the guest's memory.
 */
import { HostAbi, Limits, Sandbox, Value, type Instance, type LimitsOptions, type Wasi, type WasiOptions } from '../../src/index.js';

/** The parameters of the WASI functions the tests call (all return an i32 errno). */
export const SIGNATURES: Readonly<Record<string, readonly ('i32' | 'i64')[]>> = {
  args_sizes_get: ['i32', 'i32'],
  clock_res_get: ['i32', 'i32'],
  clock_time_get: ['i32', 'i64', 'i32'],
  fd_close: ['i32'],
  fd_fdstat_get: ['i32', 'i32'],
  fd_filestat_get: ['i32', 'i32'],
  fd_filestat_set_size: ['i32', 'i64'],
  fd_pread: ['i32', 'i32', 'i32', 'i64', 'i32'],
  fd_read: ['i32', 'i32', 'i32', 'i32'],
  fd_readdir: ['i32', 'i32', 'i32', 'i64', 'i32'],
  fd_seek: ['i32', 'i64', 'i32', 'i32'],
  fd_write: ['i32', 'i32', 'i32', 'i32'],
  path_create_directory: ['i32', 'i32', 'i32'],
  path_open: ['i32', 'i32', 'i32', 'i32', 'i32', 'i64', 'i64', 'i32', 'i32'],
  path_readlink: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
  path_symlink: ['i32', 'i32', 'i32', 'i32', 'i32'],
  path_unlink_file: ['i32', 'i32', 'i32'],
  poll_oneoff: ['i32', 'i32', 'i32', 'i32'],
  random_get: ['i32', 'i32'],
  sched_yield: [],
};

/** The guest: every function of SIGNATURES re-exported, and `memory` (`pages` pages). */
export function passthroughModule(pages = 2): string {
  const lines = Object.entries(SIGNATURES).map(([name, params]) =>
    `(import "wasi_snapshot_preview1" "${name}" (func $${name} (param ${params.join(' ')}) (result i32)))\n(export "${name}" (func $${name}))`);
  return `(module\n${lines.join('\n')}\n(memory (export "memory") ${pages}))`;
}

export const ERRNO = {
  SUCCESS: 0, BADF: 8, EXIST: 20, FAULT: 21, INVAL: 28, ILSEQ: 25, ISDIR: 31, LOOP: 32, MFILE: 33, NAMETOOLONG: 37,
  NOENT: 44, NOSPC: 51, NOTDIR: 54, NOTSOCK: 57, PERM: 63, SPIPE: 70, NOTCAPABLE: 76,
} as const;

export const OFLAGS = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 } as const;
/** Every right: what the tests ask for (a descriptor gets what applies and its directory passes on). */
export const ALL_RIGHTS = (1n << 30n) - 1n;
/** FD_WRITE, which a directory cannot be opened with (EISDIR). */
const FD_WRITE = 1n << 6n;

/** Where the helpers put what they pass: results, iovecs, strings, data. */
const RESULT = 0;
const IOVEC = 64;
const STRINGS = 1024;
const DATA = 16 * 1024;

export class WasiGuest {
  /** The fuel the last call consumed. */
  fuel = 0;

  private constructor(readonly instance: Instance, readonly wasi: Wasi) {}

  /** Instantiates the passthrough guest with WASI granted with `options`, under `limits`. */
  static async start(options: WasiOptions = {}, limits: LimitsOptions = {}, pages = 2): Promise<WasiGuest> {
    const { host, wasi } = HostAbi.denyAll().allowWasi(options);
    const instance = await new Sandbox(host).instantiate(passthroughModule(pages), new Limits({ timeoutMs: 10_000, ...limits }));
    return new WasiGuest(instance, wasi);
  }

  get memory() {
    return this.instance.memory!;
  }

  /** Calls the WASI function `name`; returns its errno. */
  async call(name: string, ...args: (number | bigint)[]): Promise<number> {
    const params = SIGNATURES[name]!;
    const values = params.map((type, i) => (type === 'i64' ? Value.i64(BigInt(args[i]!)) : Value.i32(Number(args[i]!) | 0)));
    const out = await this.instance.call(name, values);
    this.fuel = out.fuelConsumed;
    return out.values[0]!.value as number;
  }

  u32(ptr: number): number {
    return new DataView(this.memory.read(ptr, 4).buffer).getUint32(0, true);
  }

  u64(ptr: number): bigint {
    return new DataView(this.memory.read(ptr, 8).buffer).getBigUint64(0, true);
  }

  /** Puts `text` (or bytes) where the helpers keep strings; returns [pointer, length]. */
  string(text: string | Uint8Array, at = STRINGS): [number, number] {
    const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
    this.memory.write(at, bytes);
    return [at, bytes.length];
  }

  /** path_open from `dirfd` (3: the first preopen); returns the errno and the new descriptor. */
  async open(path: string, options: { oflags?: number; rights?: bigint; fdflags?: number; dirfd?: number; follow?: boolean } = {}): Promise<{ errno: number; fd: number }> {
    const { oflags = 0, fdflags = 0, dirfd = 3, follow = true } = options;
    const rights = options.rights ?? ((oflags & OFLAGS.DIRECTORY) !== 0 ? ALL_RIGHTS & ~FD_WRITE : ALL_RIGHTS);
    const [ptr, len] = this.string(path);
    const errno = await this.call('path_open', dirfd, follow ? 1 : 0, ptr, len, oflags, rights, ALL_RIGHTS, fdflags, RESULT);
    return { errno, fd: errno === 0 ? this.u32(RESULT) : -1 };
  }

  /** fd_write of `data` in one iovec; returns the errno and the bytes written. */
  async write(fd: number, data: string | Uint8Array): Promise<{ errno: number; n: number }> {
    const [ptr, len] = this.string(data, DATA);
    this.memory.write(IOVEC, iovec(ptr, len));
    const errno = await this.call('fd_write', fd, IOVEC, 1, RESULT);
    return { errno, n: errno === 0 ? this.u32(RESULT) : 0 };
  }

  /** fd_read of at most `max` bytes; returns the errno and the bytes. */
  async read(fd: number, max: number): Promise<{ errno: number; bytes: Uint8Array }> {
    this.memory.write(IOVEC, iovec(DATA, max));
    const errno = await this.call('fd_read', fd, IOVEC, 1, RESULT);
    return { errno, bytes: errno === 0 ? this.memory.read(DATA, this.u32(RESULT)) : new Uint8Array(0) };
  }

  /** A call taking (dirfd, path_ptr, path_len): path_create_directory, path_unlink_file. */
  async pathCall(name: string, path: string, dirfd = 3): Promise<number> {
    const [ptr, len] = this.string(path);
    return this.call(name, dirfd, ptr, len);
  }

  async symlink(target: string, path: string, dirfd = 3): Promise<number> {
    const [targetPtr, targetLen] = this.string(target);
    const [pathPtr, pathLen] = this.string(path, STRINGS + 4096 + 64);
    return this.call('path_symlink', targetPtr, targetLen, dirfd, pathPtr, pathLen);
  }

  /** clock_time_get of clock `id` (0 realtime, 1 monotonic). */
  async now(id: number): Promise<bigint> {
    const errno = await this.call('clock_time_get', id, 0, RESULT);
    if (errno !== 0) throw new Error(`clock_time_get: errno ${errno}`);
    return this.u64(RESULT);
  }
}

/** An iovec: pointer and length, little-endian. */
export function iovec(ptr: number, len: number): Uint8Array {
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, ptr, true);
  view.setUint32(4, len, true);
  return bytes;
}
