/**
 * The in-memory filesystem a WASI guest sees: files, directories and symbolic links in a tree
 * per preopened directory, never the host's. Every inode has a number assigned in order of
 * creation and timestamps from the run's clock, so a run's filesystem is as deterministic as
 * its clock.
 *
 * Everything the guest stores counts against the run's budget: file sizes (a sparse file
 * counts its whole size), symbolic-link targets and entry names, against `Limits.fsBytes`
 * (ENOSPC when full); live inodes against `Limits.fsFiles` (ENOSPC too, as a filesystem out of
 * inodes answers). An inode lives while a directory entry or an open descriptor refers to it,
 * so a file unlinked while open stays readable until it is closed, and counts until then.
 */
import { Errno, fail } from './errno.js';
import { FileType } from './abi.js';

/** The longest name of one directory entry, in UTF-8 bytes (NAME_MAX). */
export const MAX_NAME_BYTES = 255;
/** The deepest a directory may sit below its preopened root. */
export const MAX_DIRECTORY_DEPTH = 1024;

export type Node = FileNode | DirectoryNode | SymlinkNode;

abstract class Inode {
  /** Directory entries that name this inode (hard links). */
  nlink = 0;
  /** Open descriptors on this inode. */
  openCount = 0;
  atim: bigint;
  mtim: bigint;
  ctim: bigint;

  constructor(readonly ino: number, now: bigint) {
    this.atim = this.mtim = this.ctim = now;
  }

  /** Records a change of content (mtime and ctime). */
  modified(now: bigint): void {
    this.mtim = this.ctim = now;
  }
}

export class FileNode extends Inode {
  readonly kind = 'file';
  readonly fileType = FileType.REGULAR_FILE;
  /** Storage: at least `size` bytes, grown geometrically; what lies past `size` is zero. */
  data = new Uint8Array(0);
  size = 0;

  /** The bytes `[offset, offset + length)`, cut at the end of the file (a view, not a copy). */
  bytes(offset: number, length: number): Uint8Array {
    const start = Math.min(offset, this.size);
    return this.data.subarray(start, Math.min(this.size, start + length));
  }
}

export class DirectoryNode extends Inode {
  readonly kind = 'directory';
  readonly fileType = FileType.DIRECTORY;
  readonly entries = new Map<string, Node>();
  /** The directory this one sits in; null for a preopened root and for a removed directory. */
  parent: DirectoryNode | null = null;
  /** Levels below its preopened root. */
  depth = 0;
  /** Removed from its parent: nothing can be created in it any more (ENOENT, as in POSIX). */
  removed = false;
  private sorted: string[] | null = null;

  /** The entries' names in order: listings are deterministic. Cached until the next change. */
  names(): readonly string[] {
    return (this.sorted ??= [...this.entries.keys()].sort());
  }

  /** Forgets the cached order (the entries changed). */
  changed(): void {
    this.sorted = null;
  }
}

export class SymlinkNode extends Inode {
  readonly kind = 'symlink';
  readonly fileType = FileType.SYMBOLIC_LINK;

  constructor(ino: number, now: bigint, readonly target: string) {
    super(ino, now);
  }

  get size(): number {
    return utf8Length(this.target);
  }
}

export interface FileSystemLimits {
  /** The most bytes the filesystem may hold (Limits.fsBytes). */
  readonly bytes: number;
  /** The most inodes it may hold (Limits.fsFiles). */
  readonly files: number;
}

export class MemoryFileSystem {
  /** Bytes held: file sizes, link targets, entry names. */
  usedBytes = 0;
  /** Live inodes. */
  fileCount = 0;
  private nextIno = 1;

  constructor(
    readonly limits: FileSystemLimits,
    /** The current time for timestamps (the run's realtime clock). */
    readonly now: () => bigint,
  ) {}

  /** A new root directory, for a preopen. */
  createRoot(): DirectoryNode {
    const root = new DirectoryNode(this.allocateInode(), this.now());
    root.nlink = 1; // held by the preopen
    return root;
  }

  createFile(dir: DirectoryNode, name: string): FileNode {
    const file = new FileNode(this.allocateInode(), this.now());
    this.link(dir, name, file);
    return file;
  }

  createDirectory(dir: DirectoryNode, name: string): DirectoryNode {
    if (dir.depth + 1 > MAX_DIRECTORY_DEPTH) fail(Errno.NAMETOOLONG);
    const sub = new DirectoryNode(this.allocateInode(), this.now());
    this.link(dir, name, sub);
    return sub;
  }

  createSymlink(dir: DirectoryNode, name: string, target: string): SymlinkNode {
    const link = new SymlinkNode(this.allocateInode(), this.now(), target);
    try {
      this.reserve(link.size);
    } catch (e) {
      this.fileCount--;
      throw e;
    }
    this.link(dir, name, link);
    return link;
  }

  /**
   * Adds the entry `name` → `node` to `dir` (which must not hold `name`). A new inode that
   * cannot be linked is released at once.
   */
  link(dir: DirectoryNode, name: string, node: Node): void {
    try {
      if (dir.removed) fail(Errno.NOENT);
      const nameBytes = utf8Length(name);
      if (nameBytes > MAX_NAME_BYTES) fail(Errno.NAMETOOLONG);
      this.reserve(nameBytes);
    } catch (e) {
      this.releaseIfUnused(node);
      throw e;
    }
    dir.entries.set(name, node);
    dir.changed();
    dir.modified(this.now());
    node.nlink++;
    node.ctim = this.now();
    if (node.kind === 'directory') {
      node.parent = dir;
      setDepth(node, dir.depth + 1);
    }
  }

  /**
   * Moves the entry `fromName` of `from` to `toName` in `to`, replacing what `to` held there
   * (the caller has checked that it may). The inode keeps its number and links.
   */
  rename(from: DirectoryNode, fromName: string, to: DirectoryNode, toName: string): void {
    const node = from.entries.get(fromName);
    if (node === undefined) fail(Errno.NOENT);
    if (to.removed) fail(Errno.NOENT);
    const nameBytes = utf8Length(toName);
    if (nameBytes > MAX_NAME_BYTES) fail(Errno.NAMETOOLONG);
    if (node.kind === 'directory' && to.depth + 1 + subtreeHeight(node) > MAX_DIRECTORY_DEPTH) fail(Errno.NAMETOOLONG);
    // A replaced entry gives back the bytes of its name, which the moved one takes over; a new
    // name is paid for before anything changes.
    if (to.entries.has(toName)) this.unlink(to, toName);
    this.reserve(nameBytes);
    from.entries.delete(fromName);
    from.changed();
    this.usedBytes -= utf8Length(fromName);
    to.entries.set(toName, node);
    to.changed();
    const now = this.now();
    from.modified(now);
    to.modified(now);
    node.ctim = now;
    if (node.kind === 'directory') {
      node.parent = to;
      setDepth(node, to.depth + 1);
    }
  }

  /** Removes the entry `name` from `dir`; the inode goes when nothing refers to it any more. */
  unlink(dir: DirectoryNode, name: string): void {
    const node = dir.entries.get(name);
    if (node === undefined) fail(Errno.NOENT);
    dir.entries.delete(name);
    dir.changed();
    dir.modified(this.now());
    this.usedBytes -= utf8Length(name);
    node.nlink--;
    node.ctim = this.now();
    if (node.kind === 'directory') {
      node.parent = null;
      if (node.nlink === 0) node.removed = true;
    }
    this.releaseIfUnused(node);
  }

  /** An open descriptor now refers to `node`. */
  retain(node: Node): void {
    node.openCount++;
  }

  /** An open descriptor on `node` was closed. */
  release(node: Node): void {
    node.openCount--;
    this.releaseIfUnused(node);
  }

  /** Sets a file's size: cut, or extended with zeros. ENOSPC when the budget cannot hold it. */
  resize(file: FileNode, size: number): void {
    if (!Number.isSafeInteger(size) || size < 0) fail(Errno.FBIG);
    if (size > file.size) {
      this.reserve(size - file.size);
      this.ensureCapacity(file, size);
    } else {
      this.usedBytes -= file.size - size;
      if (file.data.length > size * 2 + 64) {
        // Give the storage back, or truncating and refilling files could hold far more than the budget.
        file.data = file.data.slice(0, size);
      } else {
        file.data.fill(0, size, file.size);
      }
    }
    file.size = size;
    file.modified(this.now());
  }

  /**
   * Writes `bytes` at `offset`, extending the file (the gap, if any, reads as zeros). When the
   * budget cannot hold all of it, writes what fits, as a full disk does; ENOSPC when nothing fits.
   * Returns the bytes written.
   */
  write(file: FileNode, offset: number, bytes: Uint8Array): number {
    let length = bytes.length;
    if (length === 0) return 0;
    const end = offset + length;
    if (!Number.isSafeInteger(end)) fail(Errno.FBIG);
    if (end > file.size) {
      const room = this.limits.bytes - this.usedBytes;
      const growth = Math.min(end - file.size, Math.max(0, room));
      if (file.size + growth <= offset) fail(Errno.NOSPC);
      length = Math.min(length, file.size + growth - offset);
      this.usedBytes += growth;
      this.ensureCapacity(file, file.size + growth);
      file.size += growth;
    }
    file.data.set(length === bytes.length ? bytes : bytes.subarray(0, length), offset);
    file.modified(this.now());
    return length;
  }

  private ensureCapacity(file: FileNode, size: number): void {
    if (size <= file.data.length) return;
    // Geometric growth, so that appending is linear; never past the budget's own size.
    const capacity = Math.min(Math.max(size, file.data.length * 2, 64), Math.max(size, this.limits.bytes));
    const data = new Uint8Array(capacity);
    data.set(file.data.subarray(0, file.size));
    file.data = data;
  }

  private reserve(bytes: number): void {
    if (this.usedBytes + bytes > this.limits.bytes) fail(Errno.NOSPC);
    this.usedBytes += bytes;
  }

  private allocateInode(): number {
    if (this.fileCount >= this.limits.files) fail(Errno.NOSPC);
    this.fileCount++;
    return this.nextIno++;
  }

  private releaseIfUnused(node: Node): void {
    if (node.nlink > 0 || node.openCount > 0) return;
    this.fileCount--;
    if (node.kind === 'file') {
      this.usedBytes -= node.size;
      node.data = new Uint8Array(0);
      node.size = 0;
    } else if (node.kind === 'symlink') {
      this.usedBytes -= node.size;
    }
  }
}

/** Sets the depth of `dir` and of everything below it (a directory moved by rename). */
function setDepth(dir: DirectoryNode, depth: number): void {
  const delta = depth - dir.depth;
  if (delta === 0) return;
  const pending: DirectoryNode[] = [dir];
  for (let d = pending.pop(); d !== undefined; d = pending.pop()) {
    d.depth += delta;
    for (const child of d.entries.values()) if (child.kind === 'directory') pending.push(child);
  }
}

/** How far below `dir` its deepest directory sits (0 for an empty one). */
export function subtreeHeight(dir: DirectoryNode): number {
  let height = 0;
  const pending: DirectoryNode[] = [dir];
  for (let d = pending.pop(); d !== undefined; d = pending.pop()) {
    height = Math.max(height, d.depth - dir.depth);
    for (const child of d.entries.values()) if (child.kind === 'directory') pending.push(child);
  }
  return height;
}

/** Whether `dir` is `ancestor` or lies below it. */
export function isWithin(dir: DirectoryNode, ancestor: DirectoryNode): boolean {
  for (let d: DirectoryNode | null = dir; d !== null; d = d.parent) if (d === ancestor) return true;
  return false;
}

let encoder: InstanceType<typeof TextEncoder> | null = null;

export function utf8Length(text: string): number {
  // ASCII, the common case, without encoding.
  if (/^[\x00-\x7f]*$/.test(text)) return text.length;
  return (encoder ??= new TextEncoder()).encode(text).length;
}
