/** A growable Int32Array for emitting translated code. */
export class CodeBuffer {
  private words: Int32Array;
  length = 0;

  /** `expected`: a guess at the final length, to save regrowing. */
  constructor(expected = 1024) {
    this.words = new Int32Array(Math.max(expected, 64));
  }

  private reserve(n: number): void {
    if (this.length + n <= this.words.length) return;
    const bigger = new Int32Array(Math.max(this.words.length * 2, this.length + n));
    bigger.set(this.words.subarray(0, this.length));
    this.words = bigger;
  }

  push(a: number): void {
    this.reserve(1);
    this.words[this.length++] = a;
  }
  push2(a: number, b: number): void {
    this.reserve(2);
    const w = this.words;
    w[this.length] = a;
    w[this.length + 1] = b;
    this.length += 2;
  }
  push3(a: number, b: number, c: number): void {
    this.reserve(3);
    const w = this.words;
    w[this.length] = a;
    w[this.length + 1] = b;
    w[this.length + 2] = c;
    this.length += 3;
  }
  push4(a: number, b: number, c: number, d: number): void {
    this.reserve(4);
    const w = this.words;
    w[this.length] = a;
    w[this.length + 1] = b;
    w[this.length + 2] = c;
    w[this.length + 3] = d;
    this.length += 4;
  }

  get(at: number): number {
    return this.words[at]!;
  }

  /** Drops everything from `at` on (to take back the last instruction). */
  truncate(at: number): void {
    this.length = at;
  }

  push5(a: number, b: number, c: number, d: number, e: number): void {
    this.push4(a, b, c, d);
    this.push(e);
  }

  set(at: number, value: number): void {
    this.words[at] = value;
  }

  /** The emitted code, trimmed to size. */
  finish(): Int32Array {
    return this.words.slice(0, this.length);
  }
}
