/**
 * The pauses of V8's garbage collector while something is measured (perf_hooks' `gc` entries).
 * The collector stops the whole process when V8 decides, for garbage of the host's as much as
 * the guest's; the fence tests bound the engine's own share of a wait apart from them
 * (docs/fences.md). Free of vitest: the soak's own process uses it too.
 */
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * What V8's collector may add to a bound on time: its pauses are the process's, not the
 * engine's (a 512 MiB buffer starts a collection, as a wasm memory's would), measured 1-6 ms
 * beside a single hostile run, up to 13.5 ms among a thousand runs in flight.
 */
export const COLLECTOR_MS = 10;

export class CollectorPauses {
  private readonly pauses: Array<[number, number]> = [];
  private merged: Array<[number, number]> | null = null;
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.pauses.push([entry.startTime, entry.startTime + entry.duration]);
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** Stops recording, once every pause up to now has been reported. */
  async stop(): Promise<void> {
    // The collector's entries reach observers in an immediate after the pause.
    await new Promise((resolve) => setImmediate(resolve));
    for (const entry of this.observer.takeRecords()) this.pauses.push([entry.startTime, entry.startTime + entry.duration]);
    this.observer.disconnect();
    // Merged where they overlap, so that none is counted twice.
    this.pauses.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const [from, to] of this.pauses) {
      const last = merged.at(-1);
      if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    this.merged = merged;
  }

  /** How long the collector paused between `from` and `to` (performance.now() times), after stop(). */
  within(from: number, to: number): number {
    if (this.merged === null) throw new Error('CollectorPauses.within before stop()');
    let paused = 0;
    for (const [p, q] of this.merged) paused += Math.max(0, Math.min(to, q) - Math.max(from, p));
    return paused;
  }
}
