/**
 * The driver loop: runs a paused engine execution to completion in slices of fuel, yielding
 * to the event loop between them.
 *
 * JavaScript has one thread, so the watchdog's timer can only fire — and the embedding
 * application can only stay responsive — while the guest is not running. The driver gives
 * the guest a slice of fuel (`execution.sliceFuel`), sized adaptively from measured time so
 * that a slice lasts about `TARGET_SLICE_MS`, and yields (`setImmediate`) once at least that
 * much time has passed since the last yield. When the watchdog has fired, the engine traps
 * with `Interrupt` on the next `resume()`.
 *
 * An asynchronous host call leaves the execution `pending`; the driver races its promise
 * against the watchdog, so a host call still pending at the deadline ends the run at once.
 */
import { Trap, TrapKind } from '../interpreter/errors.js';
import type { Steps } from '../interpreter/steps.js';
import type { WasmValue } from '../interpreter/values.js';
import type { Watchdog } from '../watchdog/watchdog.js';

/** What the driver needs of an engine execution (docs/engine-api.md, `Execution`). */
export interface DrivableExecution {
  sliceFuel: number;
  /** The size of a piece of a long instruction (pieces.ts). */
  readonly meter: { pieceBytes: number };
  resume(): 'done' | 'paused' | 'pending';
  readonly results: WasmValue[] | readonly WasmValue[];
  readonly pending: Promise<unknown> | PromiseLike<unknown> | null | undefined;
}

/** What the driver needs of a store. */
export interface FuelGauge {
  readonly fuel: number;
}

/** Aim for slices of about this long (ms), so the event loop never waits much longer. */
export const TARGET_SLICE_MS = 1;
/**
 * With many runs in flight, each yields through `setImmediate` and the event loop runs all of
 * them before it looks at its timers again: a round of every run's slice. Slices shrink so
 * that a round stays within this (ms), down to MIN_SLICE_MS: the watchdogs' timers get their
 * turn, and every run sees its deadline, with a thousand runs as with one.
 */
export const ROUND_MS = 5;
export const MIN_SLICE_MS = 0.005;

/** Runs being driven now, in this process. */
let activeRuns = 0;

/** How long a slice should last now: TARGET_SLICE_MS, shorter when many runs share the loop. */
export function sliceMs(): number {
  return Math.max(MIN_SLICE_MS, Math.min(TARGET_SLICE_MS, ROUND_MS / Math.max(1, activeRuns)));
}

/** Pieces shrink with the slice: 1 MiB takes about a millisecond where pages are fresh. */
const PIECE_BYTES_PER_MS = 1 << 20;
const MIN_PIECE_BYTES = 16 * 1024;

function pieceBytes(): number {
  return Math.max(MIN_PIECE_BYTES, Math.round(PIECE_BYTES_PER_MS * sliceMs()));
}
export const INITIAL_SLICE_FUEL = 10_000;
export const MIN_SLICE_FUEL = 1_000;
export const MAX_SLICE_FUEL = 100_000_000;

/**
 * Slice sizing and yield bookkeeping, shared by the executions of one run (a start function
 * and the export call) and by the calls on one instance, so the measured rate carries over.
 */
export class Pacer {
  sliceFuel = INITIAL_SLICE_FUEL;
  lastYield = performance.now();
  /** How many times the driver yielded to the event loop (diagnostics). */
  yields = 0;
  /** The longest stretch (ms) the driver ran without yielding (diagnostics). */
  longestStretchMs = 0;

  /** Adjusts the slice after a `resume()` that spent `spent` fuel in `elapsedMs`. */
  adapt(spent: number, elapsedMs: number, exhausted: boolean): void {
    if (!exhausted) return; // ended early (host call, completion): says little about the rate
    const target = sliceMs();
    let next: number;
    if (elapsedMs <= target / 8) next = this.sliceFuel * 4;
    else next = (spent / elapsedMs) * target;
    next = Math.min(next, this.sliceFuel * 4);
    next = Math.max(next, this.sliceFuel / 4);
    this.sliceFuel = Math.round(Math.min(MAX_SLICE_FUEL, Math.max(MIN_SLICE_FUEL, next)));
  }

  /** Yields to the event loop when a slice's time has passed; `wake` may end the wait early. */
  async yieldIfDue(now: number, wake?: Promise<void>): Promise<void> {
    const stretch = now - this.lastYield;
    if (stretch < sliceMs()) return;
    if (stretch > this.longestStretchMs) this.longestStretchMs = stretch;
    await (wake === undefined ? yieldToEventLoop() : Promise.race([yieldToEventLoop(), wake]));
    this.yields++;
    this.lastYield = performance.now();
  }
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `steps` (compiling, instantiating: steps.ts) to the end, giving the event loop its turn
 * whenever a slice's worth of time has passed; `check` runs before every step after the first
 * (the sandbox checks its deadline there).
 */
export async function driveSteps<T>(steps: Steps<T>, pacer: Pacer, check: () => void = () => undefined): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    await pacer.yieldIfDue(performance.now());
    check();
  }
}

const DEADLINE = Symbol('deadline');

/**
 * Drives `execution` to completion and returns its results. Throws what the engine throws
 * (a `Trap`, a host function's exception), and `Trap(Interrupt)` when the watchdog fires
 * while an asynchronous host call is pending.
 */
export async function drive(
  execution: DrivableExecution,
  store: FuelGauge,
  watchdog: Watchdog,
  pacer: Pacer,
): Promise<WasmValue[]> {
  activeRuns++;
  try {
    return await driveToEnd(execution, store, watchdog, pacer);
  } finally {
    activeRuns--;
  }
}

async function driveToEnd(execution: DrivableExecution, store: FuelGauge, watchdog: Watchdog, pacer: Pacer): Promise<WasmValue[]> {
  for (;;) {
    const slice = pacer.sliceFuel;
    execution.sliceFuel = slice;
    execution.meter.pieceBytes = pieceBytes();
    const fuelBefore = store.fuel;
    const t0 = performance.now();
    const state = execution.resume();
    const t1 = performance.now();
    // The deadline, seen here too: the watchdog's timer may be waiting behind other runs.
    watchdog.poll();
    const spent = fuelBefore - store.fuel;
    pacer.adapt(spent, t1 - t0, state === 'paused' && spent >= slice);

    if (state === 'done') return [...execution.results];

    if (state === 'pending') {
      const pending = execution.pending;
      if (pending) {
        const settled = Promise.resolve(pending).then(
          () => undefined,
          () => undefined, // resume() rethrows the rejection
        );
        const winner = await Promise.race([settled, watchdog.expired.then(() => DEADLINE)]);
        if (winner === DEADLINE) throw new Trap(TrapKind.Interrupt);
      } else {
        await yieldToEventLoop(); // never spin synchronously on a pending state
      }
      pacer.lastYield = performance.now();
      continue;
    }

    // A watchdog that fires while this run waits its turn wakes it at once.
    await pacer.yieldIfDue(t1, watchdog.expired);
  }
}
