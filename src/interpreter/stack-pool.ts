/**
 * Value stacks of finished executions, kept for the next ones. A short run would otherwise
 * pay for a fresh ArrayBuffer, whose backing store lives outside the JavaScript heap and
 * makes V8 collect garbage far more often: at tens of thousands of runs per second that
 * cost more than the runs. A returned stack is zeroed, so nothing of one run reaches another.
 */
export const POOLED_STACK_WORDS = 4096;
const POOL_LIMIT = 32;
const pool: ArrayBuffer[] = [];

/** A buffer of at least `words` 32-bit words. */
export function takeStack(words: number): ArrayBuffer {
  if (words <= POOLED_STACK_WORDS) return pool.pop() ?? new ArrayBuffer(POOLED_STACK_WORDS * 4);
  return new ArrayBuffer(words * 4);
}

/** Hands a buffer back; `view` spans it. Only the pooled size is kept. */
export function returnStack(view: Int32Array): void {
  if (view.buffer.byteLength !== POOLED_STACK_WORDS * 4 || pool.length >= POOL_LIMIT) return;
  view.fill(0);
  pool.push(view.buffer as ArrayBuffer);
}
