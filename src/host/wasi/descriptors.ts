/**
 * The descriptor table: what each fd of the guest refers to, with its rights and flags.
 * Descriptors 0, 1 and 2 are stdin, stdout and stderr; the preopened directories follow from 3
 * in the order the embedder listed them; a new descriptor takes the lowest free number, as in
 * POSIX, so numbering is deterministic. At most `Limits.fsDescriptors` are open at once
 * (EMFILE past it).
 */
import { Errno, fail } from './errno.js';
import { FileType } from './abi.js';
import type { DirectoryNode, FileNode, MemoryFileSystem } from './fs.js';
import type { InputStream, OutputStream } from './streams.js';

export type Target =
  | { readonly kind: 'file'; readonly node: FileNode }
  | { readonly kind: 'directory'; readonly node: DirectoryNode }
  | { readonly kind: 'stdin'; readonly stream: InputStream }
  | { readonly kind: 'output'; readonly stream: OutputStream };

export class Descriptor {
  /** The file position (files only). */
  offset = 0;

  constructor(
    readonly target: Target,
    public rightsBase: bigint,
    public rightsInheriting: bigint,
    /** fdflags */
    public flags: number,
    /** The guest path a preopened directory was given under; null for any other descriptor. */
    readonly preopenName: string | null = null,
  ) {}

  get fileType(): FileType {
    switch (this.target.kind) {
      case 'file':
      case 'directory':
        return this.target.node.fileType;
      default:
        // The standard streams are neither a terminal nor a file: programs then neither
        // colour their output nor seek in it.
        return FileType.UNKNOWN;
    }
  }

  /** Fails with ENOTCAPABLE unless the descriptor holds every right in `rights`. */
  require(rights: bigint): void {
    if ((this.rightsBase & rights) !== rights) fail(Errno.NOTCAPABLE);
  }
}

export class DescriptorTable {
  private readonly open = new Map<number, Descriptor>();

  constructor(
    private readonly fs: MemoryFileSystem,
    private readonly maxOpen: number,
  ) {}

  /** The descriptor `fd`; EBADF when it is not open. */
  get(fd: number): Descriptor {
    const d = this.open.get(fd);
    if (d === undefined) fail(Errno.BADF);
    return d;
  }

  /** Opens `descriptor` under the lowest free number. */
  add(descriptor: Descriptor): number {
    if (this.open.size >= this.maxOpen) fail(Errno.MFILE);
    let fd = 0;
    while (this.open.has(fd)) fd++;
    this.open.set(fd, descriptor);
    if (descriptor.target.kind === 'file' || descriptor.target.kind === 'directory') this.fs.retain(descriptor.target.node);
    return fd;
  }

  close(fd: number): void {
    const d = this.get(fd);
    this.open.delete(fd);
    if (d.target.kind === 'file' || d.target.kind === 'directory') this.fs.release(d.target.node);
  }

  /** Moves `from` to `to`, closing what `to` was; both must be open. */
  renumber(from: number, to: number): void {
    const d = this.get(from);
    this.get(to);
    if (from === to) return;
    this.close(to);
    this.open.delete(from);
    this.open.set(to, d);
  }
}

/** A descriptor known to refer to a regular file. */
export type FileDescriptor = Descriptor & { readonly target: { readonly kind: 'file'; readonly node: FileNode } };

/** A descriptor known to refer to a directory. */
export type DirectoryDescriptor = Descriptor & { readonly target: { readonly kind: 'directory'; readonly node: DirectoryNode } };
