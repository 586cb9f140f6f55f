/**
 * Bounds-checked access to a guest's linear memory, for embedders (`instance.memory`) and for
 * host functions (`call.memory`). Every access is checked against the memory's current size,
 * so a bad pointer from the guest can never reach past its own memory.
 */

/** What the engine's memory instance offers (docs/engine-api.md, `MemoryInst`). */
export interface EngineMemory {
  readonly byteLength: number;
  readonly pages: number;
  read(offset: number, length: number): Uint8Array;
  write(offset: number, bytes: Uint8Array): void;
}

/**
 * An access outside the guest's memory. Thrown by `GuestMemory`; when it escapes a host
 * function, the run fails with `SandboxError` kind `Trap` (a bad pointer is the guest's fault).
 */
export class GuestMemoryError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'GuestMemoryError';
  }
}

export class GuestMemory {
  /** @internal */
  constructor(
    private readonly inner: EngineMemory,
    /** When given, every access fails once it is aborted (a host call's view, after the run ended). */
    private readonly scope: AbortSignal | null = null,
  ) {}

  /** The same memory, usable only until `signal` aborts. @internal */
  scoped(signal: AbortSignal): GuestMemory {
    return new GuestMemory(this.inner, signal);
  }

  /** The current size in bytes (it changes when the guest grows its memory). */
  get byteLength(): number {
    return this.inner.byteLength;
  }

  /** The current size in 64 KiB pages. */
  get pages(): number {
    return this.inner.pages;
  }

  /** A copy of `length` bytes from `offset`. Throws `GuestMemoryError` when out of bounds. */
  read(offset: number, length: number): Uint8Array {
    this.check(offset, length, 'read');
    return new Uint8Array(this.inner.read(offset, length));
  }

  /** Copies `bytes` in at `offset`. Throws `GuestMemoryError` when out of bounds. */
  write(offset: number, bytes: Uint8Array | ArrayLike<number>): void {
    const data = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
    this.check(offset, data.length, 'write');
    this.inner.write(offset, data);
  }

  /** UTF-8 text from `offset`, `length` bytes long; invalid sequences become U+FFFD. */
  readString(offset: number, length: number): string {
    return decodeUtf8Lossy(this.read(offset, length));
  }

  private check(offset: number, length: number, what: string): void {
    if (this.scope?.aborted) {
      throw new GuestMemoryError(`memory ${what} after the run ended: a host call's memory is valid only during the run`);
    }
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
      throw new GuestMemoryError(`memory ${what} at offset ${offset} with length ${length}: not a valid range`);
    }
    const size = this.inner.byteLength;
    if (offset > size || length > size - offset) {
      throw new GuestMemoryError(
        `memory ${what} of ${length} bytes at offset ${offset} is out of bounds (memory is ${size} bytes)`,
      );
    }
  }
}

/** Made on first use, off the CLI's cold-start path. */
let decoder: InstanceType<typeof TextDecoder> | null = null;

/** Decodes guest bytes as UTF-8 the way Rust's `String::from_utf8_lossy` does. */
export function decodeUtf8Lossy(bytes: Uint8Array): string {
  decoder ??= new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  return decoder.decode(bytes);
}
