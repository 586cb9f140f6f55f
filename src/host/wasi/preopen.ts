/**
 * Filling a preopened directory of the in-memory filesystem: a copy of a host directory, made
 * when the instance is created, or a directory built in code. The copy is the guest's own;
 * nothing it does reaches the host's files.
 *
 * A host directory is read in name order (inode numbers are then the same on every run),
 * regular files and directories copied, symbolic links copied as links (their targets resolve
 * inside the in-memory tree, like any link the guest makes), anything else left out; hard links
 * become separate files. Under the virtual clock copied entries get the run's start time; under
 * the host clock, their host timestamps. The copy counts against the filesystem budget: a
 * directory too large for it fails the run before any guest code runs.
 */
import type { BigIntStats } from 'node:fs';
import { SandboxError } from '../../sandbox/errors.js';
import { WasiError, Errno } from './errno.js';
import type { DirectoryNode, FileNode, MemoryFileSystem, Node } from './fs.js';

/** A directory built in code: entry names to file contents (bytes, or text as UTF-8) or subdirectories. */
export interface VirtualDirectory {
  readonly [name: string]: VirtualEntry;
}
export type VirtualEntry = Uint8Array | string | VirtualDirectory;

/** What a preopen holds: the path of a host directory to copy, or a virtual directory. */
export type PreopenSource = string | VirtualDirectory;

/** Checks a virtual directory's shape when it is granted, so that a mistake shows then. */
export function checkVirtualDirectory(dir: unknown, where: string): void {
  if (dir === null || typeof dir !== 'object' || Array.isArray(dir) || dir instanceof Uint8Array) {
    throw new TypeError(`allowWasi: ${where} must be a host path, or an object of files (strings, Uint8Arrays) and directories`);
  }
  for (const [name, entry] of Object.entries(dir)) {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      throw new TypeError(`allowWasi: ${where} has an invalid entry name ${JSON.stringify(name)}`);
    }
    if (typeof entry !== 'string' && !(entry instanceof Uint8Array)) checkVirtualDirectory(entry, `${where}/${name}`);
  }
}

/** Fills `root` from `source`. Throws `SandboxError`: the budget is exceeded, or the host directory cannot be read. */
export function populate(fs: MemoryFileSystem, root: DirectoryNode, source: PreopenSource, hostTimes: boolean): void {
  try {
    if (typeof source === 'string') copyHostDirectory(fs, root, source, hostTimes);
    else buildVirtualDirectory(fs, root, source);
  } catch (e) {
    throw preopenFailure(e, fs, source);
  }
}

/**
 * Node's file system, for copying host directories: looked up when one is asked for, not
 * imported, so that the library loads in a browser (where only a VirtualDirectory can be
 * preopened).
 */
function hostFileSystem(): typeof import('node:fs') {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (fs === undefined) throw new Error('host directories can be preopened only under Node; preopen a VirtualDirectory instead');
  return fs;
}

function copyHostDirectory(fs: MemoryFileSystem, dir: DirectoryNode, hostPath: string, hostTimes: boolean): void {
  const { lstatSync, readdirSync, readFileSync, readlinkSync } = hostFileSystem();
  if (hostTimes) setTimes(dir, lstatSync(hostPath, { bigint: true }));
  for (const name of readdirSync(hostPath).sort()) {
    const path = `${hostPath}/${name}`;
    const stat = lstatSync(path, { bigint: true });
    let node: Node;
    if (stat.isDirectory()) {
      node = fs.createDirectory(dir, name);
      copyHostDirectory(fs, node, path, hostTimes);
    } else if (stat.isFile()) {
      // Refused before reading, so that a huge host file is never loaded.
      if (fs.usedBytes + Number(stat.size) > fs.limits.bytes) throw new WasiError(Errno.NOSPC);
      node = fs.createFile(dir, name);
      writeWhole(fs, node, readFileSync(path));
    } else if (stat.isSymbolicLink()) {
      node = fs.createSymlink(dir, name, readlinkSync(path));
    } else {
      continue;
    }
    if (hostTimes) setTimes(node, stat);
  }
  // Copying changed the directory's times; the host's are the ones to keep.
  if (hostTimes) setTimes(dir, lstatSync(hostPath, { bigint: true }));
}

function buildVirtualDirectory(fs: MemoryFileSystem, dir: DirectoryNode, tree: VirtualDirectory): void {
  for (const name of Object.keys(tree).sort()) {
    const entry = tree[name]!;
    if (typeof entry === 'string' || entry instanceof Uint8Array) {
      writeWhole(fs, fs.createFile(dir, name), typeof entry === 'string' ? new TextEncoder().encode(entry) : entry);
    } else {
      buildVirtualDirectory(fs, fs.createDirectory(dir, name), entry);
    }
  }
}

function writeWhole(fs: MemoryFileSystem, file: FileNode, bytes: Uint8Array): void {
  if (fs.write(file, 0, bytes) !== bytes.length) throw new WasiError(Errno.NOSPC);
}

function setTimes(node: Node, stat: BigIntStats): void {
  node.atim = stat.atimeNs;
  node.mtim = stat.mtimeNs;
  node.ctim = stat.ctimeNs;
}

function preopenFailure(e: unknown, fs: MemoryFileSystem, source: PreopenSource): SandboxError {
  const what = typeof source === 'string' ? `the host directory ${source}` : 'a virtual directory';
  if (e instanceof WasiError) {
    if (e.errno === Errno.NOSPC) {
      return fs.fileCount >= fs.limits.files
        ? SandboxError.limitExceeded('fsFiles', fs.limits.files)
        : SandboxError.limitExceeded('fsBytes', fs.limits.bytes);
    }
    return SandboxError.host(`cannot preopen ${what}: a name is too long or the tree too deep (WASI errno ${e.errno})`, 0, e);
  }
  const message = e instanceof Error ? e.message : String(e);
  return SandboxError.host(`cannot preopen ${what}: ${message}`, 0, e);
}
