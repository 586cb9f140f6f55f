/**
 * Large zero-filled buffers without a long pause, for memory growth (store.ts). `new
 * ArrayBuffer(n)` asks the C library for zeroed memory (calloc). Past its largest heap allocation
 * the memory comes fresh from the OS, whose zero pages cost nothing until touched; below it, once
 * the heap has held and freed a chunk that large, calloc hands the chunk out again and zeroes it
 * there and then, in one go: 16 MiB took up to 16 ms while earlier runs' buffers were being freed
 * (docs/fences.md). Where the host can allocate without zeroing (Node's `Buffer.allocUnsafeSlow`),
 * such a buffer comes `dirty`, and its taker zeroes what it does not overwrite, in pieces, before
 * anything reads it.
 *
 * Not a cure for every large allocation's pause: V8 counts the buffer as external memory and may
 * start a collection there and then. Joining a 5 MB function's translated code (13 MB) took
 * 5-13 ms in one allocation in 4 of 8 compiles, unzeroed or not; it stays `new Int32Array`.
 */

/**
 * glibc's largest heap allocation on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX): a buffer larger than
 * this is always mapped fresh from the OS, zero pages that cost nothing until touched.
 */
export const FRESH_PAGES_ABOVE = 32 * 1024 * 1024;

/** A buffer, and whether its taker must zero it before anything reads it. */
export interface HostBuffer {
  readonly buffer: ArrayBuffer;
  readonly dirty: boolean;
}

/** The host's allocation that leaves bytes as they were, where it has one (Node's `Buffer`). */
interface UnzeroedAllocator {
  allocUnsafeSlow(size: number): Uint8Array;
}

/**
 * A buffer of `bytes`; throws RangeError where the host refuses it. Up to FRESH_PAGES_ABOVE,
 * unzeroed (`dirty`) where the host can give it so (looked up at each call: tests replace it);
 * otherwise zeroed by the host.
 */
export function hostBuffer(bytes: number): HostBuffer {
  const unzeroed = (globalThis as { Buffer?: UnzeroedAllocator }).Buffer;
  if (bytes === 0 || bytes > FRESH_PAGES_ABOVE || typeof unzeroed?.allocUnsafeSlow !== 'function') {
    return { buffer: new ArrayBuffer(bytes), dirty: false };
  }
  const view = unzeroed.allocUnsafeSlow(bytes);
  // A buffer of its own, as Node's allocUnsafeSlow gives (never a slice of a pool).
  if (view.byteOffset !== 0 || view.buffer.byteLength !== bytes) return { buffer: new ArrayBuffer(bytes), dirty: false };
  return { buffer: view.buffer as ArrayBuffer, dirty: true };
}
