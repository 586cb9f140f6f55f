/**
 * When the JavaScript tier is used (tier.ts has the policy in full). Apart from tier.ts so
 * that the store can read it without importing the translator.
 */

/**
 * Heat at which a function is translated (tier.ts, the policy). 300 rather than the 1,000 it was
 * until 2026-12-01: with translations no longer spread one step per 4 ms, sooner paid on the
 * first runs of the bench's kernels (indirect 256 → 201 ms, lz77 193 → 165; docs/performance.md).
 */
export const HOT_THRESHOLD = 300;
/** Heat a loop header adds: a loop reached from outside (or after a pause) has done more than a call. */
export const LOOP_HEAT = 100;

let supported: boolean | undefined;

/** Whether this runtime lets the engine make functions from source (a CSP may forbid it). */
export function jitSupported(): boolean {
  if (supported === undefined) {
    try {
      supported = new Function('return 1')() === 1;
    } catch {
      supported = false;
    }
  }
  return supported;
}

