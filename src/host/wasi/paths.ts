/**
 * Path resolution, confined to a directory. Every path a guest passes is resolved from the
 * directory of a descriptor, and can never name anything outside it: an absolute path, a `..`
 * that would climb above that directory, or a symbolic link whose target does either, fails
 * with ENOTCAPABLE. Symbolic links in the middle of a path are followed (at most
 * MAX_SYMLINK_FOLLOWS of them, else ELOOP); the last component's only when asked.
 *
 * Resolution keeps the chain of directories it walked through, so `..` goes back to where the
 * walk came from — the physical parent, since directories cannot be hard-linked — and a link
 * target is resolved from the directory that holds the link.
 */
import { Errno, fail } from './errno.js';
import type { DirectoryNode, Node } from './fs.js';

/** The longest path a guest may pass, in UTF-8 bytes (PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** How many symbolic links one resolution may follow (Linux's limit). */
export const MAX_SYMLINK_FOLLOWS = 40;

export interface Resolved {
  /** The directory that holds, or would hold, the last component. */
  readonly parent: DirectoryNode;
  /**
   * The last component's name in `parent`; null when the path ends in `.` or `..`, naming a
   * directory itself rather than an entry.
   */
  readonly name: string | null;
  /** What the path names, or null when nothing does (yet). */
  readonly node: Node | null;
  /** The path ended with `/`: it must name a directory. */
  readonly mustBeDirectory: boolean;
}

/**
 * Resolves `path` from `start`. `followLast`: follow a symbolic link in the last component (a
 * trailing slash follows it too, as in POSIX). Throws ENOENT for a missing directory on the
 * way, ENOTDIR for a file used as one, ENOTDIR when a path with a trailing slash names a file.
 */
export function resolve(start: DirectoryNode, path: string, followLast: boolean): Resolved {
  if (path === '') fail(Errno.NOENT);
  let mustBeDirectory = path.endsWith('/');
  // Components still to walk, the next one last.
  const pending = components(path);
  const walked: DirectoryNode[] = [start];
  let follows = 0;
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const isLast = pending.length === 0;
    const here = walked[walked.length - 1]!;
    if (name === '.' || name === '..') {
      if (name === '..') {
        if (walked.length === 1) fail(Errno.NOTCAPABLE);
        walked.pop();
      }
      if (isLast) return { parent: walked[walked.length - 1]!, name: null, node: walked[walked.length - 1]!, mustBeDirectory };
      continue;
    }
    const node = here.entries.get(name) ?? null;
    if (node !== null && node.kind === 'symlink' && (!isLast || followLast || mustBeDirectory)) {
      if (++follows > MAX_SYMLINK_FOLLOWS) fail(Errno.LOOP);
      pending.push(...components(node.target));
      if (isLast && node.target.endsWith('/')) mustBeDirectory = true;
      continue;
    }
    if (isLast) {
      if (node !== null && mustBeDirectory && node.kind !== 'directory') fail(Errno.NOTDIR);
      return { parent: here, name, node, mustBeDirectory };
    }
    if (node === null) fail(Errno.NOENT);
    if (node.kind !== 'directory') fail(Errno.NOTDIR);
    walked.push(node);
  }
  // Only a link whose target has no components gets here (every path has one).
  return fail(Errno.NOENT);
}

/** The components of a relative path, last first; an absolute path is refused. */
function components(path: string): string[] {
  if (path.startsWith('/')) fail(Errno.NOTCAPABLE);
  return path.split('/').filter((c) => c !== '').reverse();
}
