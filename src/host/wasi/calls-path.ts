/**
 * The `path_*` calls: opening, creating, linking, renaming and removing by path, relative to
 * a directory descriptor and confined to it (paths.ts). A call checks that the descriptor is
 * a directory (ENOTDIR) holding the rights it needs (ENOTCAPABLE) before it resolves the path.
 */
import type { WasmValue } from '../../interpreter/values.js';
import { ALL_FDFLAGS, ALL_OFLAGS, DIRECTORY_RIGHTS, FILE_RIGHTS, LOOKUP_SYMLINK_FOLLOW, OFLAGS, RIGHTS } from './abi.js';
import type { WasiContext } from './context.js';
import { Descriptor, type DirectoryDescriptor } from './descriptors.js';
import { Errno, fail } from './errno.js';
import { isWithin, type Node } from './fs.js';
import { MAX_PATH_BYTES, resolve, type Resolved } from './paths.js';
import { setTimes, syscall, u32, u64, writeFilestat, type Syscall } from './syscall.js';

export const pathCalls: Readonly<Record<string, Syscall>> = {
  path_create_directory: syscall(['i32', 'i32', 'i32'], (ctx, [fd, path, len]) => {
    const at = lookup(ctx, fd!, RIGHTS.PATH_CREATE_DIRECTORY, path!, len!, false);
    if (at.node !== null) fail(Errno.EXIST);
    ctx.fs.createDirectory(at.parent, at.name!);
    return Errno.SUCCESS;
  }),

  path_filestat_get: syscall(['i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [fd, flags, path, len, ptr]) => {
    const node = existing(lookup(ctx, fd!, RIGHTS.PATH_FILESTAT_GET, path!, len!, follows(flags!)));
    writeFilestat(ctx.memory, u32(ptr!), node);
    return Errno.SUCCESS;
  }),

  path_filestat_set_times: syscall(['i32', 'i32', 'i32', 'i32', 'i64', 'i64', 'i32'], (ctx, [fd, flags, path, len, atim, mtim, fstflags]) => {
    const node = existing(lookup(ctx, fd!, RIGHTS.PATH_FILESTAT_SET_TIMES, path!, len!, follows(flags!)));
    setTimes(node, u64(atim!), u64(mtim!), u32(fstflags!), ctx.fs.now());
    return Errno.SUCCESS;
  }),

  path_link: syscall(['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [oldFd, oldFlags, oldPath, oldLen, newFd, newPath, newLen]) => {
    const source = existing(lookup(ctx, oldFd!, RIGHTS.PATH_LINK_SOURCE, oldPath!, oldLen!, follows(oldFlags!)));
    if (source.kind === 'directory') fail(Errno.PERM);
    const at = lookup(ctx, newFd!, RIGHTS.PATH_LINK_TARGET, newPath!, newLen!, false);
    if (at.node !== null) fail(Errno.EXIST);
    if (at.mustBeDirectory) fail(Errno.NOENT);
    ctx.fs.link(at.parent, at.name!, source);
    return Errno.SUCCESS;
  }),

  path_open: syscall(['i32', 'i32', 'i32', 'i32', 'i32', 'i64', 'i64', 'i32', 'i32'], (ctx, [fd, dirflags, path, len, oflagsArg, base, inheriting, fdflagsArg, fdPtr]) => {
    const dir = directory(ctx, fd!, RIGHTS.PATH_OPEN);
    const oflags = u32(oflagsArg!);
    const fdflags = u32(fdflagsArg!);
    const rightsBase = u64(base!);
    if ((oflags & ~ALL_OFLAGS) !== 0 || (fdflags & ~ALL_FDFLAGS) !== 0) fail(Errno.INVAL);
    if ((oflags & OFLAGS.CREAT) !== 0) {
      dir.require(RIGHTS.PATH_CREATE_FILE);
      if ((oflags & OFLAGS.DIRECTORY) !== 0) fail(Errno.INVAL);
    }
    if ((oflags & OFLAGS.TRUNC) !== 0) dir.require(RIGHTS.PATH_FILESTAT_SET_SIZE);
    const at = resolve(dir.target.node, guestPath(ctx, path!, len!), follows(dirflags!));
    let node = at.node;
    if (node === null) {
      if ((oflags & OFLAGS.CREAT) === 0) fail(Errno.NOENT);
      if (at.mustBeDirectory) fail(Errno.ISDIR);
      node = ctx.fs.createFile(at.parent, at.name!);
    } else {
      if ((oflags & (OFLAGS.CREAT | OFLAGS.EXCL)) === (OFLAGS.CREAT | OFLAGS.EXCL)) fail(Errno.EXIST);
      // The last component is a link and was not followed: O_NOFOLLOW's answer.
      if (node.kind === 'symlink') fail(Errno.LOOP);
      if (node.kind === 'directory') {
        if ((rightsBase & RIGHTS.FD_WRITE) !== 0n || (oflags & (OFLAGS.CREAT | OFLAGS.TRUNC)) !== 0) fail(Errno.ISDIR);
      } else {
        if ((oflags & OFLAGS.DIRECTORY) !== 0) fail(Errno.NOTDIR);
        if ((oflags & OFLAGS.TRUNC) !== 0) ctx.fs.resize(node, 0);
      }
    }
    // A new descriptor has at most the rights its directory passes on, and only those that mean
    // something for what it refers to.
    const applicable = node.kind === 'directory' ? DIRECTORY_RIGHTS : FILE_RIGHTS;
    const target = node.kind === 'directory' ? ({ kind: 'directory', node } as const) : ({ kind: 'file', node } as const);
    const opened = ctx.fds.add(
      new Descriptor(target, rightsBase & dir.rightsInheriting & applicable, u64(inheriting!) & dir.rightsInheriting, fdflags),
    );
    ctx.memory.setU32(u32(fdPtr!), opened);
    return Errno.SUCCESS;
  }),

  path_readlink: syscall(['i32', 'i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [fd, path, len, buf, bufLen, bufusedPtr]) => {
    const node = existing(lookup(ctx, fd!, RIGHTS.PATH_READLINK, path!, len!, false));
    if (node.kind !== 'symlink') fail(Errno.INVAL);
    const memory = ctx.memory;
    memory.checkRange(u32(buf!), u32(bufLen!));
    // As readlink(2): as much of the target as fits, without a NUL.
    const target = new TextEncoder().encode(node.target).subarray(0, u32(bufLen!));
    memory.write(u32(buf!), target);
    memory.setU32(u32(bufusedPtr!), target.length);
    return Errno.SUCCESS;
  }),

  path_remove_directory: syscall(['i32', 'i32', 'i32'], (ctx, [fd, path, len]) => {
    const at = lookup(ctx, fd!, RIGHTS.PATH_REMOVE_DIRECTORY, path!, len!, false);
    if (at.name === null) fail(Errno.INVAL);
    const node = existing(at);
    if (node.kind !== 'directory') fail(Errno.NOTDIR);
    if (node.entries.size > 0) fail(Errno.NOTEMPTY);
    ctx.fs.unlink(at.parent, at.name);
    return Errno.SUCCESS;
  }),

  path_rename: syscall(['i32', 'i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [oldFd, oldPath, oldLen, newFd, newPath, newLen]) => {
    const from = lookup(ctx, oldFd!, RIGHTS.PATH_RENAME_SOURCE, oldPath!, oldLen!, false);
    const to = lookup(ctx, newFd!, RIGHTS.PATH_RENAME_TARGET, newPath!, newLen!, false);
    if (from.name === null || to.name === null) fail(Errno.INVAL);
    const node = existing(from);
    const replaced = to.node;
    if (node.kind === 'directory') {
      if (isWithin(to.parent, node)) fail(Errno.INVAL);
      if (replaced !== null && replaced.kind !== 'directory') fail(Errno.NOTDIR);
      if (replaced !== null && replaced !== node && replaced.entries.size > 0) fail(Errno.NOTEMPTY);
    } else {
      if (to.mustBeDirectory) fail(Errno.NOTDIR);
      if (replaced !== null && replaced.kind === 'directory') fail(Errno.ISDIR);
    }
    // Renaming a file onto another name of itself does nothing (POSIX).
    if (replaced === node) return Errno.SUCCESS;
    ctx.fs.rename(from.parent, from.name, to.parent, to.name);
    return Errno.SUCCESS;
  }),

  path_symlink: syscall(['i32', 'i32', 'i32', 'i32', 'i32'], (ctx, [targetPtr, targetLen, fd, path, len]) => {
    const target = guestPath(ctx, targetPtr!, targetLen!);
    // A link to an absolute path could only ever point outside the sandbox's tree.
    if (target.startsWith('/')) fail(Errno.PERM);
    const at = lookup(ctx, fd!, RIGHTS.PATH_SYMLINK, path!, len!, false);
    if (at.node !== null) fail(Errno.EXIST);
    if (at.mustBeDirectory) fail(Errno.NOENT);
    ctx.fs.createSymlink(at.parent, at.name!, target);
    return Errno.SUCCESS;
  }),

  path_unlink_file: syscall(['i32', 'i32', 'i32'], (ctx, [fd, path, len]) => {
    const at = lookup(ctx, fd!, RIGHTS.PATH_UNLINK_FILE, path!, len!, false);
    const node = existing(at);
    if (node.kind === 'directory' || at.name === null) fail(Errno.ISDIR);
    ctx.fs.unlink(at.parent, at.name);
    return Errno.SUCCESS;
  }),
};

/** The directory descriptor `fd` holding `right`. */
function directory(ctx: WasiContext, fd: WasmValue, right: bigint): DirectoryDescriptor {
  const d = ctx.fds.get(u32(fd));
  if (d.target.kind !== 'directory') fail(Errno.NOTDIR);
  d.require(right);
  return d as DirectoryDescriptor;
}

/** Resolves the guest's path `ptr`/`len` from directory descriptor `fd`, which must hold `right`. */
function lookup(ctx: WasiContext, fd: WasmValue, right: bigint, ptr: WasmValue, len: WasmValue, followLast: boolean): Resolved {
  const dir = directory(ctx, fd, right);
  return resolve(dir.target.node, guestPath(ctx, ptr, len), followLast);
}

function guestPath(ctx: WasiContext, ptr: WasmValue, len: WasmValue): string {
  return ctx.memory.string(u32(ptr), u32(len), MAX_PATH_BYTES);
}

function follows(lookupflags: WasmValue): boolean {
  return (u32(lookupflags) & LOOKUP_SYMLINK_FOLLOW) !== 0;
}

/** What the path names; ENOENT when nothing. */
function existing(at: Resolved): Node {
  if (at.node === null) fail(Errno.NOENT);
  return at.node;
}
