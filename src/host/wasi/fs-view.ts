/**
 * The embedder's view of a run's in-memory filesystem, after (or during) the run: read what
 * the guest wrote. Paths are the guest's, under a preopen: `/out/result.txt` when `/out` was
 * preopened (or `/` was). Symbolic links are followed within their preopen, as the guest's own
 * lookups are.
 */
import { WasiError } from './errno.js';
import type { DirectoryNode, Node } from './fs.js';
import { resolve } from './paths.js';

export interface WasiFileStat {
  readonly type: 'file' | 'directory' | 'symlink';
  /** Bytes (a file's length, a link's target length; 0 for a directory). */
  readonly size: number;
  readonly ino: number;
  readonly nlink: number;
  /** Times in ns since the Unix epoch (under the virtual clock, from 2000-01-01). */
  readonly atim: bigint;
  readonly mtim: bigint;
  readonly ctim: bigint;
}

export class WasiFileSystem {
  /** @internal */
  constructor(private readonly preopens: ReadonlyMap<string, DirectoryNode>) {}

  /** A copy of the file's contents, or null when `path` names no file. */
  readFile(path: string): Uint8Array | null {
    const node = this.lookup(path);
    return node?.kind === 'file' ? node.bytes(0, node.size).slice() : null;
  }

  /** The names in a directory, in order, or null when `path` names no directory. */
  list(path: string): string[] | null {
    const node = this.lookup(path);
    return node?.kind === 'directory' ? [...node.names()] : null;
  }

  /** What `path` names, or null when nothing (a symbolic link in the last component is not followed). */
  stat(path: string): WasiFileStat | null {
    const node = this.lookup(path, false);
    if (node === null) return null;
    return {
      type: node.kind,
      size: node.kind === 'directory' ? 0 : node.size,
      ino: node.ino,
      nlink: node.nlink,
      atim: node.atim,
      mtim: node.mtim,
      ctim: node.ctim,
    };
  }

  private lookup(path: string, followLast = true): Node | null {
    for (const [name, root] of [...this.preopens].sort(([a], [b]) => b.length - a.length)) {
      const rest = relativeTo(path, name);
      if (rest === null) continue;
      try {
        return rest === '' ? root : resolve(root, rest, followLast).node;
      } catch (e) {
        if (e instanceof WasiError) return null;
        throw e;
      }
    }
    return null;
  }
}

/** `path` relative to the preopen `name` ('' for the preopen itself), or null when outside it. */
function relativeTo(path: string, name: string): string | null {
  const base = name.replace(/\/+$/, '');
  if (base === '' || base === '.') return path.replace(/^\/+/, '').replace(/^\.\/?/, '');
  if (path === base) return '';
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : null;
}
