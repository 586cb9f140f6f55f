/**
 * The numbers and layouts of WASI preview 1 (`wasi_snapshot_preview1`, its witx definitions):
 * file types, flags, rights, clock ids, and the byte layout of the structures the guest and the
 * host exchange through linear memory (wasm32: pointers and sizes are 32-bit, little-endian).
 */

export enum FileType {
  UNKNOWN = 0,
  BLOCK_DEVICE = 1,
  CHARACTER_DEVICE = 2,
  DIRECTORY = 3,
  REGULAR_FILE = 4,
  SOCKET_DGRAM = 5,
  SOCKET_STREAM = 6,
  SYMBOLIC_LINK = 7,
}

/** `oflags` of path_open. */
export const OFLAGS = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 } as const;
export const ALL_OFLAGS = OFLAGS.CREAT | OFLAGS.DIRECTORY | OFLAGS.EXCL | OFLAGS.TRUNC;
/** `fdflags`: a descriptor's flags (kept, and reported; in memory, the sync ones change nothing). */
export const FDFLAGS = { APPEND: 1, DSYNC: 2, NONBLOCK: 4, RSYNC: 8, SYNC: 16 } as const;
export const ALL_FDFLAGS = FDFLAGS.APPEND | FDFLAGS.DSYNC | FDFLAGS.NONBLOCK | FDFLAGS.RSYNC | FDFLAGS.SYNC;
/** `lookupflags`: follow a symbolic link in the last component. */
export const LOOKUP_SYMLINK_FOLLOW = 1;
/** `fstflags` of the set_times calls. */
export const FSTFLAGS = { ATIM: 1, ATIM_NOW: 2, MTIM: 4, MTIM_NOW: 8 } as const;
export const ALL_FSTFLAGS = FSTFLAGS.ATIM | FSTFLAGS.ATIM_NOW | FSTFLAGS.MTIM | FSTFLAGS.MTIM_NOW;
export const WHENCE = { SET: 0, CUR: 1, END: 2 } as const;
export const CLOCK = { REALTIME: 0, MONOTONIC: 1, PROCESS_CPUTIME: 2, THREAD_CPUTIME: 3 } as const;
export const EVENTTYPE = { CLOCK: 0, FD_READ: 1, FD_WRITE: 2 } as const;
/** `subclockflags`: the timeout is an absolute time. */
export const SUBSCRIPTION_CLOCK_ABSTIME = 1;
export const PREOPENTYPE_DIR = 0;
/** The largest `advice` value (NORMAL 0 … NOREUSE 5). */
export const MAX_ADVICE = 5;

/** `rights`: what a descriptor may be used for, one bit each (bigints: the set is 64-bit). */
export const RIGHTS = {
  FD_DATASYNC: 1n << 0n,
  FD_READ: 1n << 1n,
  FD_SEEK: 1n << 2n,
  FD_FDSTAT_SET_FLAGS: 1n << 3n,
  FD_SYNC: 1n << 4n,
  FD_TELL: 1n << 5n,
  FD_WRITE: 1n << 6n,
  FD_ADVISE: 1n << 7n,
  FD_ALLOCATE: 1n << 8n,
  PATH_CREATE_DIRECTORY: 1n << 9n,
  PATH_CREATE_FILE: 1n << 10n,
  PATH_LINK_SOURCE: 1n << 11n,
  PATH_LINK_TARGET: 1n << 12n,
  PATH_OPEN: 1n << 13n,
  FD_READDIR: 1n << 14n,
  PATH_READLINK: 1n << 15n,
  PATH_RENAME_SOURCE: 1n << 16n,
  PATH_RENAME_TARGET: 1n << 17n,
  PATH_FILESTAT_GET: 1n << 18n,
  PATH_FILESTAT_SET_SIZE: 1n << 19n,
  PATH_FILESTAT_SET_TIMES: 1n << 20n,
  FD_FILESTAT_GET: 1n << 21n,
  FD_FILESTAT_SET_SIZE: 1n << 22n,
  FD_FILESTAT_SET_TIMES: 1n << 23n,
  PATH_SYMLINK: 1n << 24n,
  PATH_REMOVE_DIRECTORY: 1n << 25n,
  PATH_UNLINK_FILE: 1n << 26n,
  POLL_FD_READWRITE: 1n << 27n,
  SOCK_SHUTDOWN: 1n << 28n,
  SOCK_ACCEPT: 1n << 29n,
} as const;

/** The rights that mean something on a regular file. */
export const FILE_RIGHTS =
  RIGHTS.FD_DATASYNC | RIGHTS.FD_READ | RIGHTS.FD_SEEK | RIGHTS.FD_FDSTAT_SET_FLAGS | RIGHTS.FD_SYNC |
  RIGHTS.FD_TELL | RIGHTS.FD_WRITE | RIGHTS.FD_ADVISE | RIGHTS.FD_ALLOCATE | RIGHTS.FD_FILESTAT_GET |
  RIGHTS.FD_FILESTAT_SET_SIZE | RIGHTS.FD_FILESTAT_SET_TIMES | RIGHTS.POLL_FD_READWRITE;

/**
 * The rights that mean something on a directory: every path operation, listing, and its own
 * metadata. Not reading, writing, seeking or resizing, which a directory does not do.
 */
export const DIRECTORY_RIGHTS =
  RIGHTS.FD_DATASYNC | RIGHTS.FD_FDSTAT_SET_FLAGS | RIGHTS.FD_SYNC |
  RIGHTS.PATH_CREATE_DIRECTORY | RIGHTS.PATH_CREATE_FILE | RIGHTS.PATH_LINK_SOURCE | RIGHTS.PATH_LINK_TARGET |
  RIGHTS.PATH_OPEN | RIGHTS.FD_READDIR | RIGHTS.PATH_READLINK | RIGHTS.PATH_RENAME_SOURCE |
  RIGHTS.PATH_RENAME_TARGET | RIGHTS.PATH_FILESTAT_GET | RIGHTS.PATH_FILESTAT_SET_SIZE |
  RIGHTS.PATH_FILESTAT_SET_TIMES | RIGHTS.FD_FILESTAT_GET | RIGHTS.FD_FILESTAT_SET_TIMES |
  RIGHTS.PATH_SYMLINK | RIGHTS.PATH_REMOVE_DIRECTORY | RIGHTS.PATH_UNLINK_FILE;

/** stdin: read it, poll it, look at it. */
export const STDIN_RIGHTS = RIGHTS.FD_READ | RIGHTS.FD_FDSTAT_SET_FLAGS | RIGHTS.FD_FILESTAT_GET | RIGHTS.POLL_FD_READWRITE;
/** stdout and stderr: write them, poll them, look at them. */
export const STDOUT_RIGHTS = RIGHTS.FD_WRITE | RIGHTS.FD_FDSTAT_SET_FLAGS | RIGHTS.FD_FILESTAT_GET | RIGHTS.POLL_FD_READWRITE;

/** Byte sizes and field offsets of the structures in linear memory. */
export const LAYOUT = {
  /** `iovec` / `ciovec`: buf u32 @0, buf_len u32 @4. */
  IOVEC: 8,
  /** `fdstat`: fs_filetype u8 @0, fs_flags u16 @2, fs_rights_base u64 @8, fs_rights_inheriting u64 @16. */
  FDSTAT: 24,
  /** `filestat`: dev @0, ino @8, filetype u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56 (u64 but filetype). */
  FILESTAT: 64,
  /** `prestat`: tag u8 @0, pr_name_len u32 @4. */
  PRESTAT: 8,
  /** `dirent`: d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20; the name follows. */
  DIRENT: 24,
  /** `subscription`: userdata u64 @0, tag u8 @8; clock: id u32 @16, timeout u64 @24, precision u64 @32, flags u16 @40; fd: fd u32 @16. */
  SUBSCRIPTION: 48,
  /** `event`: userdata u64 @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24. */
  EVENT: 32,
} as const;
