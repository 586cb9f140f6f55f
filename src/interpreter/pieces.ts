/**
 * Long instructions, done in pieces.
 *
 * A bulk operation or a growth costs one unit of fuel (as in wasmtime) but may move hundreds
 * of megabytes; done in one go, it would hold the event loop — and the run's deadline — for
 * seconds. So the work of such an instruction is measured in bytes, apart from fuel:
 *
 * - Each instruction does its bounds check first, so a trap still comes before any write, as
 *   the specification requires.
 * - Work up to PIECE_BYTES is done at once and added to the execution's work count; when that
 *   count reaches WORK_PER_PAUSE, the execution pauses after the instruction, and the driver
 *   measures time and yields as it does between fuel slices.
 * - Larger work becomes a `PieceWork`: the execution pauses in the middle of the instruction
 *   and does one piece per `resume()`, so nothing between two looks at the clock runs longer
 *   than one piece (a few milliseconds at most where the memory is fresh and the operating
 *   system must map each page, tens of microseconds where it is warm).
 */

/**
 * The most bytes one piece of an instruction moves, fills or zeroes, and the bulk work after
 * which an execution pauses: the default of `WorkMeter.pieceBytes`, and what a driver's pieces
 * (WorkMeter.plan) take per millisecond of slice at most. Sized for fresh pages, the slow case:
 * on a VM slow to map them (2026-12-01) a 1 MiB piece of a copy into fresh memory took 7-9 ms
 * here and 12-14 ms on CI's machine, a 256 KiB one 1-2 ms (and 5-9 ms inside a test worker,
 * which plan's measured pace brings down). Warm, pieces this size copy as fast as 1 MiB ones
 * (23-26 GB/s; a piece's pause and resume cost about a microsecond).
 */
export const PIECE_BYTES = 256 * 1024;

/** The smallest piece a driver plans: below it, pauses would cost more than the work. */
const MIN_PIECE_BYTES = 16 * 1024;

/**
 * The pace of bulk work in this process, in bytes per millisecond, as last measured
 * (WorkMeter.measure): how fast the machine maps fresh pages, above all, which is the same for
 * every run. From MIN_PIECE_BYTES (a slice that measured nothing would otherwise leave it at 0
 * for good) to PIECE_BYTES.
 */
let bytesPerMs = PIECE_BYTES;

/** The rest of an instruction's work, done a piece at a time. */
export interface PieceWork {
  /** Does the next piece, of at most `bytes` bytes; returns true when the whole instruction is done. */
  step(bytes: number): boolean;
}

export type Elements = Uint8Array | Int32Array;

/** How many elements of `array` make a piece of `bytes` bytes (at least one). */
function pieceOf(array: Elements, bytes: number): number {
  return Math.max(1, Math.floor(bytes / array.BYTES_PER_ELEMENT));
}

/**
 * Copies `n` elements from `src` at `s` to `dst` at `d`; within one array, overlapping ranges
 * copy as if through a temporary buffer (memory.copy's rule).
 */
export function copyElements(dst: Elements, d: number, src: Elements, s: number, n: number): void {
  if (dst === src) dst.copyWithin(d, s, s + n);
  else (dst as Uint8Array).set((src as Uint8Array).subarray(s, s + n), d);
}

/**
 * copyElements in pieces. Within one array the pieces go from the end backwards when the
 * destination lies above the source, so no source element is overwritten before it is read.
 */
export class CopyInPieces implements PieceWork {
  private done = 0;

  constructor(
    private readonly dst: Elements,
    private readonly d: number,
    private readonly src: Elements,
    private readonly s: number,
    private readonly n: number,
  ) {}

  step(bytes: number): boolean {
    const m = Math.min(pieceOf(this.dst, bytes), this.n - this.done);
    const at = this.dst === this.src && this.d > this.s ? this.n - this.done - m : this.done;
    copyElements(this.dst, this.d + at, this.src, this.s + at, m);
    this.done += m;
    return this.done === this.n;
  }
}

/** Fills `n` elements of `dst` from `d` with `value`, in pieces. */
export class FillInPieces implements PieceWork {
  private done = 0;

  constructor(
    private readonly dst: Elements,
    private readonly d: number,
    private readonly value: number,
    private readonly n: number,
  ) {}

  step(bytes: number): boolean {
    const m = Math.min(pieceOf(this.dst, bytes), this.n - this.done);
    this.dst.fill(this.value, this.d + this.done, this.d + this.done + m);
    this.done += m;
    return this.done === this.n;
  }
}

/** Several pieces of work one after the other, then `onDone`. */
export class InSequence implements PieceWork {
  private next = 0;

  constructor(private readonly works: readonly PieceWork[], private readonly onDone: () => void) {}

  step(bytes: number): boolean {
    if (this.next < this.works.length) {
      if (this.works[this.next]!.step(bytes)) this.next++;
      if (this.next < this.works.length) return false; // one piece per step
    }
    this.onDone();
    return true;
  }
}

/**
 * Where an instruction's work goes: the execution, which does large work in pieces and pauses
 * between them, or `AT_ONCE`, for callers that cannot pause (the engine API).
 */
export interface WorkSink {
  /** copyElements, now or in pieces. */
  copy(dst: Elements, d: number, src: Elements, s: number, n: number): void;
  /** `dst.fill(value, d, d + n)`, now or in pieces. */
  fill(dst: Elements, d: number, value: number, n: number): void;
  /** Does `work`, of about `bytes` bytes, now or in pieces. */
  perform(work: PieceWork, bytes: number): void;
}

export const AT_ONCE: WorkSink = {
  copy: copyElements,
  fill(dst: Elements, d: number, value: number, n: number): void {
    dst.fill(value, d, d + n);
  },
  perform(work: PieceWork): void {
    while (!work.step(Infinity)) {
      // InSequence does one of its works per step
    }
  },
};

/**
 * The work sink of an execution (and of an instantiation): does small work at once and
 * counts it, keeps large work for later, and says when it is time to pause.
 */
export class WorkMeter implements WorkSink {
  /** Work an instruction left unfinished, to be done a piece at a time. */
  private pending: PieceWork | null = null;
  /** Bytes of work done at once since the last pause. */
  private bytes = 0;
  /** Bytes of work done, at once or as pieces, since plan(). */
  private planned = 0;
  /** Whether the work so far calls for a pause now: there is pending work, or enough done. */
  due = false;
  /** The size of a piece, and the work done at once after which the execution pauses. */
  pieceBytes = PIECE_BYTES;

  /**
   * Sizes pieces, and the work done at once before a pause, to take about `ms` each at the
   * pace of bulk work measured so far (a driver, before each slice).
   */
  plan(ms: number): void {
    this.pieceBytes = Math.max(MIN_PIECE_BYTES, Math.round(bytesPerMs * ms));
    this.planned = 0;
  }

  /**
   * After a slice planned by plan() that took `ms`: where the meter's work filled it (a piece's
   * worth or more of bulk work, or of the translations and large frames it counts in bytes too),
   * its pace — counting the guest's own time in the slice, so never too fast — sizes the next
   * pieces: slower at once, faster by at most twice per slice.
   */
  measure(ms: number): void {
    if (this.planned < this.pieceBytes || !(ms > 0)) return;
    const pace = this.planned / ms;
    bytesPerMs = pace < bytesPerMs ? Math.max(pace, MIN_PIECE_BYTES) : Math.min(pace, 2 * bytesPerMs, PIECE_BYTES);
  }

  copy(dst: Elements, d: number, src: Elements, s: number, n: number): void {
    if (this.small(n * dst.BYTES_PER_ELEMENT)) copyElements(dst, d, src, s, n);
    else this.pending = new CopyInPieces(dst, d, src, s, n);
  }

  fill(dst: Elements, d: number, value: number, n: number): void {
    if (this.small(n * dst.BYTES_PER_ELEMENT)) dst.fill(value, d, d + n);
    else this.pending = new FillInPieces(dst, d, value, n);
  }

  perform(work: PieceWork, bytes: number): void {
    if (this.small(bytes)) AT_ONCE.perform(work, bytes);
    else this.pending = work;
  }

  /** Counts `bytes` of work done elsewhere (a large frame zeroed on a call). */
  note(bytes: number): void {
    this.bytes += bytes;
    this.planned += bytes;
    if (this.bytes >= this.pieceBytes) this.due = true;
  }

  /** Counts `bytes` of work if it is to be done at once; otherwise marks the pause due. */
  private small(bytes: number): boolean {
    if (bytes > this.pieceBytes) {
      this.due = true;
      return false;
    }
    this.note(bytes);
    return true;
  }

  /** Starts counting afresh, after a pause. */
  reset(): void {
    this.bytes = 0;
    this.due = this.pending !== null;
  }

  /** Does the next piece of pending work; returns true when none is left. */
  continuePending(): boolean {
    if (this.pending === null) return true;
    this.planned += this.pieceBytes;
    if (!this.pending.step(this.pieceBytes)) return false;
    this.pending = null;
    return true;
  }
}
