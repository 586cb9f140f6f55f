/**
 * The standard streams of a WASI run: stdin read from bytes the embedder gave, stdout and
 * stderr captured (up to a cap) or handed to a function of the embedder as they are written.
 */
import { Errno, fail } from './errno.js';

/** What stdin reads: bytes, text (UTF-8), or a function called on the first read for all of it. */
export type StdinSource = Uint8Array | string | (() => Uint8Array);

export class InputStream {
  private data: Uint8Array | null;
  private position = 0;

  constructor(private readonly source: StdinSource) {
    this.data = typeof source === 'function' ? null : typeof source === 'string' ? new TextEncoder().encode(source) : source;
  }

  /** Up to `length` bytes (fewer at the end; none at end of input). */
  read(length: number): Uint8Array {
    const data = this.contents();
    const chunk = data.subarray(this.position, Math.min(data.length, this.position + length));
    this.position += chunk.length;
    return chunk;
  }

  /** Bytes left to read. */
  get remaining(): number {
    return this.contents().length - this.position;
  }

  private contents(): Uint8Array {
    return (this.data ??= (this.source as () => Uint8Array)());
  }
}

export class OutputStream {
  private chunks: Uint8Array[] = [];
  private captured = 0;

  constructor(
    /** The most bytes captured; a write past it writes what fits, then fails with ENOSPC. */
    private readonly maxBytes: number,
    /** Receives every write instead of the capture, when given (no cap then). */
    private readonly sink: ((bytes: Uint8Array) => void) | null,
  ) {}

  /** Writes `bytes`; returns how many were written. */
  write(bytes: Uint8Array): number {
    if (bytes.length === 0) return 0;
    if (this.sink !== null) {
      this.sink(bytes.slice());
      return bytes.length;
    }
    const room = this.maxBytes - this.captured;
    if (room <= 0) fail(Errno.NOSPC);
    const taken = bytes.length <= room ? bytes.slice() : bytes.slice(0, room);
    this.chunks.push(taken);
    this.captured += taken.length;
    return taken.length;
  }

  /** Everything captured so far, in one array. */
  contents(): Uint8Array {
    if (this.chunks.length !== 1) {
      const all = new Uint8Array(this.captured);
      let at = 0;
      for (const chunk of this.chunks) {
        all.set(chunk, at);
        at += chunk.length;
      }
      this.chunks = [all];
    }
    return this.chunks[0]!;
  }
}
