/**
 * Value stacks of finished executions, kept for the next ones. A short run would otherwise
 * pay for a fresh ArrayBuffer, whose backing store lives outside the JavaScript heap and
 * makes V8 collect garbage far more often: at tens of thousands of runs per second that
 * cost more than the runs. A stack is kept with its three views, which a run would otherwise
 * make anew (three typed arrays, about 0.4 KB of garbage a run). A returned stack is zeroed,
 * so nothing of one run reaches another.
 */
export const POOLED_STACK_WORDS = 4096;
const POOL_LIMIT = 32;

/** A value stack: one buffer, seen as 32-bit integers and as 32- and 64-bit floats. */
export interface StackViews {
  readonly s32: Int32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
}

const pool: StackViews[] = [];

/** The views of a stack in `buffer`. */
export function stackViews(buffer: ArrayBuffer): StackViews {
  return { s32: new Int32Array(buffer), f32: new Float32Array(buffer), f64: new Float64Array(buffer) };
}

/** A stack of at least `words` 32-bit words. */
export function takeStack(words: number): StackViews {
  if (words <= POOLED_STACK_WORDS) return pool.pop() ?? stackViews(new ArrayBuffer(POOLED_STACK_WORDS * 4));
  return stackViews(new ArrayBuffer(words * 4));
}

/** Hands a stack back. Only the pooled size is kept. */
export function returnStack(stack: StackViews): void {
  if (stack.s32.length !== POOLED_STACK_WORDS || pool.length >= POOL_LIMIT) return;
  stack.s32.fill(0);
  pool.push(stack);
}
