/**
 * A growable array of words for emitting translated code.
 *
 * The words are kept in chunks of CHUNK_WORDS, never moved once written: growing a single
 * array by doubling copied the whole code at once, a pause of tens of milliseconds for a large
 * module. `finishInSteps` joins the chunks into one Int32Array a chunk per step, so the
 * caller can give the event loop its turn in between (steps.ts).
 *
 * A function translated on its first call (compiler.ts, lazy translation) is emitted into a
 * buffer restarted at the end of the code so far (`restartAt`: positions go on from there)
 * and appended to the code (`WordArray`).
 */
import type { Steps } from './steps.js';

const CHUNK_SHIFT = 16;
/** Words per chunk (256 KiB): copying one into fresh memory takes well under a millisecond. */
const CHUNK_WORDS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_WORDS - 1;

export class CodeBuffer {
  private readonly chunks: Int32Array[] = [];
  /** The chunk being written, and where in it the next word goes. */
  private chunk: Int32Array;
  private at = 0;
  /** The position of the first word held: what `length`, `get`, `set` and `truncate` count from. */
  private origin = 0;
  length = 0;
  /**
   * The positions, in increasing order, of the `Copy` instructions that move an i32, over every
   * restart (operand-stack.ts, emitCopy): the JavaScript tier moves their low word alone. Kept
   * beside the code rather than as an instruction of its own: a case more in the interpreter's
   * dispatch loop, even one never run, made V8 compile it 3–5% slower (lz77, 2026-12-01).
   */
  readonly i32Copies: number[] = [];

  /** `expected`: a guess at the final length, to size the first chunk. */
  constructor(expected = 1024) {
    this.chunk = new Int32Array(Math.min(Math.max(expected, 64), CHUNK_WORDS));
    this.chunks.push(this.chunk);
  }

  push(a: number): void {
    if (this.at === this.chunk.length) this.nextChunk();
    this.chunk[this.at++] = a;
    this.length++;
  }
  push2(a: number, b: number): void {
    if (this.at + 2 > this.chunk.length) {
      this.push(a);
      this.push(b);
      return;
    }
    const w = this.chunk;
    w[this.at] = a;
    w[this.at + 1] = b;
    this.at += 2;
    this.length += 2;
  }
  push3(a: number, b: number, c: number): void {
    if (this.at + 3 > this.chunk.length) {
      this.push(a);
      this.push2(b, c);
      return;
    }
    const w = this.chunk;
    w[this.at] = a;
    w[this.at + 1] = b;
    w[this.at + 2] = c;
    this.at += 3;
    this.length += 3;
  }
  push4(a: number, b: number, c: number, d: number): void {
    if (this.at + 4 > this.chunk.length) {
      this.push2(a, b);
      this.push2(c, d);
      return;
    }
    const w = this.chunk;
    w[this.at] = a;
    w[this.at + 1] = b;
    w[this.at + 2] = c;
    w[this.at + 3] = d;
    this.at += 4;
    this.length += 4;
  }
  push5(a: number, b: number, c: number, d: number, e: number): void {
    this.push4(a, b, c, d);
    this.push(e);
  }

  /** Starts a new chunk: the first grows from the guess by doubling up to a full chunk. */
  private nextChunk(): void {
    const first = this.chunks.length === 1 && this.chunk.length < CHUNK_WORDS;
    if (first) {
      const bigger = new Int32Array(Math.min(this.chunk.length * 2, CHUNK_WORDS));
      bigger.set(this.chunk);
      this.chunk = bigger;
      this.chunks[0] = bigger;
      return;
    }
    this.chunk = new Int32Array(CHUNK_WORDS);
    this.chunks.push(this.chunk);
    this.at = 0;
  }

  get(at: number): number {
    at -= this.origin;
    return this.chunks[at >>> CHUNK_SHIFT]![at & CHUNK_MASK]!;
  }

  set(at: number, value: number): void {
    at -= this.origin;
    this.chunks[at >>> CHUNK_SHIFT]![at & CHUNK_MASK] = value;
  }

  /** Notes that the instruction pushed next is a Copy of an i32 (i32Copies). */
  noteI32Copy(): void {
    this.i32Copies.push(this.length);
  }

  /** Drops everything from `at` on (to take back the last instruction). */
  truncate(at: number): void {
    const copies = this.i32Copies;
    while (copies.length > 0 && copies[copies.length - 1]! >= at) copies.pop();
    this.length = at;
    at -= this.origin;
    let index = at >>> CHUNK_SHIFT;
    let offset = at & CHUNK_MASK;
    if (index === this.chunks.length) {
      // Exactly at the end of a full last chunk.
      index--;
      offset = CHUNK_WORDS;
    }
    this.chunks.length = index + 1;
    this.chunk = this.chunks[index]!;
    this.at = offset;
  }

  /**
   * The emitted code (from position 0) as one array, joined a chunk per step, in an array of
   * `capacity` words (at least the length) to append to.
   */
  *finishInSteps(capacity = this.length): Steps<Int32Array> {
    if (this.chunks.length === 1 && capacity === this.length) return this.chunk.slice(0, this.length);
    const code = new Int32Array(Math.max(capacity, this.length));
    for (let i = 0; i < this.chunks.length; i++) {
      const start = i * CHUNK_WORDS;
      code.set(this.chunks[i]!.subarray(0, Math.min(CHUNK_WORDS, this.length - start)), start);
      if (this.chunks.length > 1) yield;
    }
    return code;
  }

  /** Drops every word held; the next one pushed is at position `position`. */
  restartAt(position: number): void {
    this.chunk = this.chunks[0]!;
    this.chunks.length = 1;
    this.at = 0;
    this.origin = position;
    this.length = position;
  }

  /** Appends the words held (from the last restartAt on) to `to`. */
  appendTo(to: WordArray): void {
    const held = this.length - this.origin;
    for (let i = 0; i < this.chunks.length; i++) {
      to.append(this.chunks[i]!.subarray(0, Math.min(CHUNK_WORDS, held - i * CHUNK_WORDS)));
    }
  }
}

/**
 * Words appended to an array kept larger than they need (doubled when full), for what lazy
 * translation extends after the compile: the code, its offsets, the constant slots.
 * `words` is a view of exactly the words appended.
 */
export class WordArray {
  words: Int32Array;
  private store: Int32Array;

  /** Starts with the first `length` words of `initial`, the rest of it room to append to. */
  constructor(initial: Int32Array, length = initial.length) {
    this.store = initial;
    this.words = length === initial.length ? initial : initial.subarray(0, length);
  }

  append(more: Int32Array): void {
    const length = this.words.length;
    if (length + more.length > this.store.length) {
      const bigger = new Int32Array(Math.max(this.store.length * 2, length + more.length, 1024));
      bigger.set(this.words);
      this.store = bigger;
    }
    this.store.set(more, length);
    this.words = this.store.subarray(0, length + more.length);
  }
}
