/**
 * The fence tests' bound on the event loop (docs/fences.md): the engine's own work never holds
 * it for BLOCKED_MS; V8's collector pauses, measured apart by `measured`, may add COLLECTOR_MS.
 * (Apart from hostile.ts, which the soak's own process imports without vitest.)
 */
import { expect } from 'vitest';
import { COLLECTOR_MS } from './collector.js';
import type { Measured } from './hostile.js';

/** The most the engine may hold the event loop (ms), its collector's pauses apart. */
export const BLOCKED_MS = 10;
/** The interval timer that measures the event loop ticks every millisecond. */
const TICK_MS = 1;

/**
 * The engine never held the event loop for `blockedMs` (and a tick of the timer), nor, with
 * the collector's pauses inside the gap, for COLLECTOR_MS more.
 */
export function expectResponsive(out: Measured<unknown>, blockedMs = BLOCKED_MS): void {
  expect(out.longestGapLessCollectorMs).toBeLessThan(blockedMs + TICK_MS);
  expect(out.longestGapMs).toBeLessThan(blockedMs + TICK_MS + COLLECTOR_MS);
}
