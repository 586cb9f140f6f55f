/**
 * A host that refuses large buffers, as V8 does when an allocation fails: for the growth paths
 * that must fall back to a smaller buffer or return -1 (store.ts, MemoryInst.allocate).
 */

/**
 * Runs `body` with `new ArrayBuffer` and Node's `Buffer.allocUnsafeSlow` (the unzeroed buffers
 * of growth, host-buffers.ts; whatever stands in for it now is kept under the check) throwing
 * RangeError for more than `bytes`; both are put back after.
 */
export function withHostRefusingAbove<T>(bytes: number, body: () => T): T {
  const HostArrayBuffer = globalThis.ArrayBuffer;
  const allocUnsafeSlow = Buffer.allocUnsafeSlow;
  const refuse = (asked: number): void => {
    if (asked > bytes) throw new RangeError('Array buffer allocation failed');
  };
  globalThis.ArrayBuffer = class extends HostArrayBuffer {
    constructor(asked: number) {
      refuse(asked);
      super(asked);
    }
  } as ArrayBufferConstructor;
  Buffer.allocUnsafeSlow = (asked: number) => {
    refuse(asked);
    return allocUnsafeSlow(asked);
  };
  try {
    return body();
  } finally {
    globalThis.ArrayBuffer = HostArrayBuffer;
    Buffer.allocUnsafeSlow = allocUnsafeSlow;
  }
}
