/**
 * How a WASI system call is defined: its WebAssembly parameters and its implementation, which
 * returns an errno (or a promise of one, for a call that waits). Also the argument readers and
 * the structure writers the calls share.
 */
import type { WasmValue } from '../../interpreter/values.js';
import { ALL_FSTFLAGS, FSTFLAGS, LAYOUT } from './abi.js';
import type { WasiContext } from './context.js';
import { Errno, fail } from './errno.js';
import type { Node } from './fs.js';
import type { WasiMemory } from './guest-memory.js';

export interface Syscall {
  readonly params: readonly ('i32' | 'i64')[];
  /** The errno, except for proc_exit, which does not return. */
  readonly results: readonly 'i32'[];
  readonly run: (ctx: WasiContext, args: readonly WasmValue[]) => Errno | Promise<Errno>;
}

/** A call returning an errno. */
export function syscall(params: Syscall['params'], run: Syscall['run']): Syscall {
  return { params, results: ['i32'], run };
}

/** An i32 argument as unsigned: pointers, lengths, descriptors, flags. */
export function u32(v: WasmValue): number {
  return v.lo >>> 0;
}

/** An i64 argument as unsigned: rights, timestamps. */
export function u64(v: WasmValue): bigint {
  return (BigInt(v.hi >>> 0) << 32n) | BigInt(v.lo >>> 0);
}

/** An i64 argument as a signed offset (fd_seek's delta). */
export function i64(v: WasmValue): bigint {
  return BigInt.asIntN(64, u64(v));
}

/** An i64 file offset or length as a number; EINVAL past what a file here can reach. */
export function fileOffset(v: WasmValue): number {
  const n = u64(v);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) fail(Errno.INVAL);
  return Number(n);
}

/** The device number every inode reports: there is one filesystem. */
const DEVICE = 1n;

/** Writes the `filestat` of `node` at `ptr`. */
export function writeFilestat(memory: WasiMemory, ptr: number, node: Node): void {
  const size = node.kind === 'directory' ? 0 : node.size;
  memory.write(
    ptr,
    memory
      .struct(LAYOUT.FILESTAT)
      .u64(0, DEVICE)
      .u64(8, node.ino)
      .u8(16, node.fileType)
      .u64(24, node.nlink)
      .u64(32, size)
      .u64(40, node.atim)
      .u64(48, node.mtim)
      .u64(56, node.ctim).bytes,
  );
}

/** fd_filestat_set_times and path_filestat_set_times: sets the times `fstflags` names. */
export function setTimes(node: Node, atim: bigint, mtim: bigint, fstflags: number, now: bigint): void {
  if ((fstflags & ~ALL_FSTFLAGS) !== 0) fail(Errno.INVAL);
  if ((fstflags & FSTFLAGS.ATIM) !== 0 && (fstflags & FSTFLAGS.ATIM_NOW) !== 0) fail(Errno.INVAL);
  if ((fstflags & FSTFLAGS.MTIM) !== 0 && (fstflags & FSTFLAGS.MTIM_NOW) !== 0) fail(Errno.INVAL);
  if ((fstflags & FSTFLAGS.ATIM) !== 0) node.atim = atim;
  if ((fstflags & FSTFLAGS.ATIM_NOW) !== 0) node.atim = now;
  if ((fstflags & FSTFLAGS.MTIM) !== 0) node.mtim = mtim;
  if ((fstflags & FSTFLAGS.MTIM_NOW) !== 0) node.mtim = now;
  if (fstflags !== 0) node.ctim = now;
}
