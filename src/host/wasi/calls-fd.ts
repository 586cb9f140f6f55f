/**
 * The `fd_*` calls: reading, writing, seeking, listing and describing what a descriptor
 * refers to. A call checks, in order: that the descriptor is open (EBADF), that it holds the
 * rights the call needs (ENOTCAPABLE), and that the call makes sense for what it refers to
 * (EISDIR, ESPIPE, ...).
 */
import type { WasmValue } from '../../interpreter/values.js';
import { ALL_FDFLAGS, FDFLAGS, FileType, LAYOUT, MAX_ADVICE, PREOPENTYPE_DIR, RIGHTS, WHENCE } from './abi.js';
import type { WasiContext } from './context.js';
import type { Descriptor, FileDescriptor } from './descriptors.js';
import { Errno, fail, WasiError } from './errno.js';
import { utf8Length, type DirectoryNode, type FileNode } from './fs.js';
import type { IoVec, WasiMemory } from './guest-memory.js';
import { fileOffset, i64, setTimes, syscall, u32, u64, writeFilestat, type Syscall } from './syscall.js';

export const fdCalls: Readonly<Record<string, Syscall>> = {
  fd_advise: syscall(['i32', 'i64', 'i64', 'i32'], (ctx, [fd, , , advice]) => {
    fileDescriptor(ctx, fd!, RIGHTS.FD_ADVISE);
    if (u32(advice!) > MAX_ADVICE) fail(Errno.INVAL);
    return Errno.SUCCESS;
  }),

  fd_allocate: syscall(['i32', 'i64', 'i64'], (ctx, [fd, offset, len]) => {
    const file = fileDescriptor(ctx, fd!, RIGHTS.FD_ALLOCATE).target.node;
    const end = fileOffset(offset!) + fileOffset(len!);
    if (end > file.size) ctx.fs.resize(file, end);
    return Errno.SUCCESS;
  }),

  fd_close: syscall(['i32'], (ctx, [fd]) => {
    ctx.fds.close(u32(fd!));
    return Errno.SUCCESS;
  }),

  fd_datasync: syscall(['i32'], (ctx, [fd]) => sync(ctx, fd!, RIGHTS.FD_DATASYNC)),
  fd_sync: syscall(['i32'], (ctx, [fd]) => sync(ctx, fd!, RIGHTS.FD_SYNC)),

  fd_fdstat_get: syscall(['i32', 'i32'], (ctx, [fd, ptr]) => {
    const d = ctx.fds.get(u32(fd!));
    const memory = ctx.memory;
    memory.write(
      u32(ptr!),
      memory.struct(LAYOUT.FDSTAT).u8(0, d.fileType).u16(2, d.flags).u64(8, d.rightsBase).u64(16, d.rightsInheriting).bytes,
    );
    return Errno.SUCCESS;
  }),

  fd_fdstat_set_flags: syscall(['i32', 'i32'], (ctx, [fd, flags]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_FDSTAT_SET_FLAGS);
    const value = u32(flags!);
    if ((value & ~ALL_FDFLAGS) !== 0) fail(Errno.INVAL);
    d.flags = value;
    return Errno.SUCCESS;
  }),

  fd_fdstat_set_rights: syscall(['i32', 'i64', 'i64'], (ctx, [fd, base, inheriting]) => {
    const d = ctx.fds.get(u32(fd!));
    const newBase = u64(base!);
    const newInheriting = u64(inheriting!);
    // Rights can only be given up, never regained.
    if ((newBase & ~d.rightsBase) !== 0n || (newInheriting & ~d.rightsInheriting) !== 0n) fail(Errno.NOTCAPABLE);
    d.rightsBase = newBase;
    d.rightsInheriting = newInheriting;
    return Errno.SUCCESS;
  }),

  fd_filestat_get: syscall(['i32', 'i32'], (ctx, [fd, ptr]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_FILESTAT_GET);
    const memory = ctx.memory;
    if (d.target.kind === 'file' || d.target.kind === 'directory') {
      writeFilestat(memory, u32(ptr!), d.target.node);
    } else {
      // A standard stream: no inode, no size, no times.
      memory.write(u32(ptr!), memory.struct(LAYOUT.FILESTAT).u8(16, FileType.UNKNOWN).u64(24, 1).bytes);
    }
    return Errno.SUCCESS;
  }),

  fd_filestat_set_size: syscall(['i32', 'i64'], (ctx, [fd, size]) => {
    const file = fileDescriptor(ctx, fd!, RIGHTS.FD_FILESTAT_SET_SIZE).target.node;
    ctx.fs.resize(file, fileOffset(size!));
    return Errno.SUCCESS;
  }),

  fd_filestat_set_times: syscall(['i32', 'i64', 'i64', 'i32'], (ctx, [fd, atim, mtim, flags]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_FILESTAT_SET_TIMES);
    if (d.target.kind !== 'file' && d.target.kind !== 'directory') fail(Errno.BADF);
    setTimes(d.target.node, u64(atim!), u64(mtim!), u32(flags!), ctx.fs.now());
    return Errno.SUCCESS;
  }),

  fd_pread: syscall(['i32', 'i32', 'i32', 'i64', 'i32'], (ctx, [fd, iovs, count, offset, nreadPtr]) => {
    const d = positioned(ctx, fd!, RIGHTS.FD_READ | RIGHTS.FD_SEEK);
    const memory = ctx.memory;
    const n = readFile(memory, memory.iovecs(u32(iovs!), u32(count!)), d.target.node, fileOffset(offset!));
    memory.setU32(u32(nreadPtr!), n);
    return Errno.SUCCESS;
  }),

  fd_pwrite: syscall(['i32', 'i32', 'i32', 'i64', 'i32'], (ctx, [fd, iovs, count, offset, nwrittenPtr]) => {
    const d = positioned(ctx, fd!, RIGHTS.FD_WRITE | RIGHTS.FD_SEEK);
    const memory = ctx.memory;
    // At the offset given, even in append mode (POSIX; Linux would append).
    const n = gather(memory, memory.iovecs(u32(iovs!), u32(count!)), (bytes, done) => ctx.fs.write(d.target.node, fileOffset(offset!) + done, bytes));
    memory.setU32(u32(nwrittenPtr!), n);
    return Errno.SUCCESS;
  }),

  fd_prestat_get: syscall(['i32', 'i32'], (ctx, [fd, ptr]) => {
    const name = preopenName(ctx, fd!);
    const memory = ctx.memory;
    memory.write(u32(ptr!), memory.struct(LAYOUT.PRESTAT).u8(0, PREOPENTYPE_DIR).u32(4, utf8Length(name)).bytes);
    return Errno.SUCCESS;
  }),

  fd_prestat_dir_name: syscall(['i32', 'i32', 'i32'], (ctx, [fd, ptr, len]) => {
    const name = new TextEncoder().encode(preopenName(ctx, fd!));
    const memory = ctx.memory;
    memory.checkRange(u32(ptr!), u32(len!));
    if (u32(len!) < name.length) fail(Errno.NAMETOOLONG);
    memory.write(u32(ptr!), name);
    return Errno.SUCCESS;
  }),

  fd_read: syscall(['i32', 'i32', 'i32', 'i32'], (ctx, [fd, iovs, count, nreadPtr]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_READ);
    const memory = ctx.memory;
    const vecs = memory.iovecs(u32(iovs!), u32(count!));
    let n: number;
    switch (d.target.kind) {
      case 'file':
        n = readFile(memory, vecs, d.target.node, d.offset);
        d.offset += n;
        break;
      case 'stdin': {
        const stdin = d.target.stream;
        n = scatter(memory, vecs, (len) => stdin.read(len));
        break;
      }
      case 'directory':
        return fail(Errno.ISDIR);
      default:
        return fail(Errno.BADF);
    }
    memory.setU32(u32(nreadPtr!), n);
    return Errno.SUCCESS;
  }),

  fd_readdir: syscall(['i32', 'i32', 'i32', 'i64', 'i32'], (ctx, [fd, buf, bufLen, cookie, bufusedPtr]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_READDIR);
    if (d.target.kind !== 'directory') fail(Errno.NOTDIR);
    const memory = ctx.memory;
    memory.checkRange(u32(buf!), u32(bufLen!));
    const listing = directoryListing(d.target.node, u64(cookie!), u32(bufLen!));
    memory.write(u32(buf!), listing);
    memory.setU32(u32(bufusedPtr!), listing.length);
    return Errno.SUCCESS;
  }),

  fd_renumber: syscall(['i32', 'i32'], (ctx, [from, to]) => {
    ctx.fds.renumber(u32(from!), u32(to!));
    return Errno.SUCCESS;
  }),

  fd_seek: syscall(['i32', 'i64', 'i32', 'i32'], (ctx, [fd, delta, whence, ptr]) => {
    const d = ctx.fds.get(u32(fd!));
    const offset = i64(delta!);
    const from = u32(whence!);
    if (d.target.kind === 'stdin' || d.target.kind === 'output') fail(Errno.SPIPE);
    // Asking where one is (0 from the current position) is fd_tell, which FD_TELL allows.
    if (offset === 0n && from === WHENCE.CUR) requireTell(d);
    else d.require(RIGHTS.FD_SEEK);
    if (d.target.kind !== 'file') fail(Errno.ISDIR);
    let base: number;
    switch (from) {
      case WHENCE.SET: base = 0; break;
      case WHENCE.CUR: base = d.offset; break;
      case WHENCE.END: base = d.target.node.size; break;
      default: return fail(Errno.INVAL);
    }
    const position = BigInt(base) + offset;
    if (position < 0n || position > BigInt(Number.MAX_SAFE_INTEGER)) fail(Errno.INVAL);
    d.offset = Number(position);
    ctx.memory.setU64(u32(ptr!), position);
    return Errno.SUCCESS;
  }),

  fd_tell: syscall(['i32', 'i32'], (ctx, [fd, ptr]) => {
    const d = ctx.fds.get(u32(fd!));
    if (d.target.kind === 'stdin' || d.target.kind === 'output') fail(Errno.SPIPE);
    requireTell(d);
    if (d.target.kind !== 'file') fail(Errno.ISDIR);
    ctx.memory.setU64(u32(ptr!), BigInt(d.offset));
    return Errno.SUCCESS;
  }),

  fd_write: syscall(['i32', 'i32', 'i32', 'i32'], (ctx, [fd, iovs, count, nwrittenPtr]) => {
    const d = ctx.fds.get(u32(fd!));
    d.require(RIGHTS.FD_WRITE);
    const memory = ctx.memory;
    const vecs = memory.iovecs(u32(iovs!), u32(count!));
    let n: number;
    switch (d.target.kind) {
      case 'file': {
        const file = d.target.node;
        if ((d.flags & FDFLAGS.APPEND) !== 0) d.offset = file.size;
        n = gather(memory, vecs, (bytes) => ctx.fs.write(file, d.offset, bytes));
        d.offset += n;
        break;
      }
      case 'output': {
        const stream = d.target.stream;
        n = gather(memory, vecs, (bytes) => stream.write(bytes));
        break;
      }
      case 'directory':
        return fail(Errno.ISDIR);
      default:
        return fail(Errno.BADF);
    }
    memory.setU32(u32(nwrittenPtr!), n);
    return Errno.SUCCESS;
  }),
};

/** The descriptor `fd`, which must be a file and hold `rights`. */
function fileDescriptor(ctx: WasiContext, fd: WasmValue, rights: bigint): FileDescriptor {
  const d = ctx.fds.get(u32(fd));
  d.require(rights);
  if (d.target.kind === 'directory') fail(Errno.ISDIR);
  if (d.target.kind !== 'file') fail(Errno.SPIPE);
  return d as FileDescriptor;
}

/** For pread and pwrite: a file; a stream cannot be read or written at an offset (ESPIPE). */
function positioned(ctx: WasiContext, fd: WasmValue, rights: bigint): FileDescriptor {
  const d = ctx.fds.get(u32(fd));
  if (d.target.kind === 'stdin' || d.target.kind === 'output') fail(Errno.SPIPE);
  return fileDescriptor(ctx, fd, rights);
}

function requireTell(d: Descriptor): void {
  if ((d.rightsBase & (RIGHTS.FD_TELL | RIGHTS.FD_SEEK)) === 0n) fail(Errno.NOTCAPABLE);
}

function sync(ctx: WasiContext, fd: WasmValue, right: bigint): Errno {
  const d = ctx.fds.get(u32(fd));
  d.require(right);
  // Nothing to flush: the filesystem is memory. A stream cannot be synced (EINVAL, as a pipe).
  if (d.target.kind === 'stdin' || d.target.kind === 'output') fail(Errno.INVAL);
  return Errno.SUCCESS;
}

function preopenName(ctx: WasiContext, fd: WasmValue): string {
  const name = ctx.fds.get(u32(fd)).preopenName;
  if (name === null) fail(Errno.BADF);
  return name;
}

/** Reads `file` from `offset` into the iovecs; returns the bytes read. */
function readFile(memory: WasiMemory, vecs: readonly IoVec[], file: FileNode, offset: number): number {
  return scatter(memory, vecs, (len, done) => file.bytes(offset + done, len));
}

/**
 * Fills the iovecs in order from `source(len, doneSoFar)`, stopping at the first short chunk
 * (the end of the data). Returns the bytes copied.
 */
function scatter(memory: WasiMemory, vecs: readonly IoVec[], source: (len: number, done: number) => Uint8Array): number {
  let done = 0;
  for (const vec of vecs) {
    const chunk = source(vec.len, done);
    memory.write(vec.ptr, chunk);
    done += chunk.length;
    if (chunk.length < vec.len) break;
  }
  return done;
}

/**
 * Hands the iovecs' bytes in order to `sink(bytes, doneSoFar)`, which returns how many it took,
 * stopping at the first short write. A failure after some bytes went is a short write; a
 * failure before any is the call's error. Returns the bytes written.
 */
function gather(memory: WasiMemory, vecs: readonly IoVec[], sink: (bytes: Uint8Array, done: number) => number): number {
  let done = 0;
  for (const vec of vecs) {
    if (vec.len === 0) continue;
    let taken: number;
    try {
      taken = sink(memory.read(vec.ptr, vec.len), done);
    } catch (e) {
      if (done > 0 && e instanceof WasiError) break;
      throw e;
    }
    done += taken;
    if (taken < vec.len) break;
  }
  return done;
}

/**
 * The `dirent`s of `dir` from position `cookie` (`.` and `..` first, then the entries in name
 * order), as many as fit in `bufLen` bytes; the last one cut short when it does not fit, which
 * tells the guest to call again with a larger buffer.
 */
function directoryListing(dir: DirectoryNode, cookie: bigint, bufLen: number): Uint8Array {
  const names = dir.names();
  const encoder = new TextEncoder();
  const entries: Uint8Array[] = [];
  let used = 0;
  for (let i = cookie; i < BigInt(names.length + 2) && used < bufLen; i++) {
    const index = Number(i);
    const [name, node] = index === 0 ? ['.', dir] : index === 1 ? ['..', dir.parent ?? dir] : [names[index - 2]!, dir.entries.get(names[index - 2]!)!];
    const nameBytes = encoder.encode(name);
    const entry = new Uint8Array(LAYOUT.DIRENT + nameBytes.length);
    const view = new DataView(entry.buffer);
    view.setBigUint64(0, i + 1n, true);
    view.setBigUint64(8, BigInt(node.ino), true);
    view.setUint32(16, nameBytes.length, true);
    view.setUint8(20, node.fileType);
    entry.set(nameBytes, LAYOUT.DIRENT);
    entries.push(entry);
    used += entry.length;
  }
  const out = new Uint8Array(Math.min(used, bufLen));
  let at = 0;
  for (const entry of entries) {
    out.set(entry.subarray(0, out.length - at), at);
    at += entry.length;
  }
  return out;
}
