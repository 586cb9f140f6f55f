/**
 * WASI preview 1 error numbers (`errno`, the witx `$errno` enum) and the exception the
 * implementation throws to answer one. A system call that fails returns its errno to the guest;
 * it never traps for a reason the guest could handle.
 */

export enum Errno {
  SUCCESS = 0,
  BADF = 8,
  EXIST = 20,
  FAULT = 21,
  FBIG = 22,
  ILSEQ = 25,
  INVAL = 28,
  ISDIR = 31,
  LOOP = 32,
  MFILE = 33,
  NAMETOOLONG = 37,
  NOENT = 44,
  NOSPC = 51,
  NOSYS = 52,
  NOTDIR = 54,
  NOTEMPTY = 55,
  NOTSOCK = 57,
  PERM = 63,
  SPIPE = 70,
  NOTCAPABLE = 76,
}

/** A system call's failure: caught where the call returns, and handed to the guest as its errno. */
export class WasiError extends Error {
  constructor(readonly errno: Errno) {
    super(`WASI errno ${errno}`);
    this.name = 'WasiError';
  }
}

/** Fails the current system call with `errno`. */
export function fail(errno: Errno): never {
  throw new WasiError(errno);
}
