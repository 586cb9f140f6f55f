/** Small timing and statistics helpers for the benchmark harness. */

export const now = (): number => performance.now();

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function geomean(xs: readonly number[]): number {
  const ok = xs.filter((x) => Number.isFinite(x) && x > 0);
  if (ok.length === 0) return NaN;
  return Math.exp(ok.reduce((a, x) => a + Math.log(x), 0) / ok.length);
}

export function max(xs: readonly number[]): number {
  return xs.length ? Math.max(...xs) : NaN;
}

export interface RepeatOptions {
  /** Unmeasured runs first (JIT tier-up, caches). */
  warmup: number;
  /** Stop after this many measured runs... */
  maxRuns: number;
  /** ...or once measured runs have taken this long, whichever comes first. */
  budgetMs: number;
  /** At least this many measured runs, whatever the budget (default 1). */
  minRuns?: number;
}

export interface Samples<R> {
  times: number[];
  /** Result of every measured run (for determinism checks). */
  results: R[];
  /** True when the warm-up run was so slow that it was kept as the only sample. */
  warmupUsed: boolean;
}

/**
 * Times `fn` repeatedly, capped by count and by wall time. If a single warm-up run already
 * uses more than half the budget, that run is kept as the sample instead of running again,
 * so a very slow engine cannot blow the whole benchmark's time.
 */
export async function repeat<R>(fn: () => Promise<R> | R, o: RepeatOptions): Promise<Samples<R>> {
  const times: number[] = [];
  const results: R[] = [];
  for (let i = 0; i < o.warmup; i++) {
    const t0 = now();
    const r = await fn();
    const dt = now() - t0;
    if (dt > o.budgetMs / 2) return { times: [dt], results: [r], warmupUsed: true };
  }
  const minRuns = o.minRuns ?? 1;
  const start = now();
  while (times.length < o.maxRuns && (times.length < minRuns || now() - start < o.budgetMs)) {
    const t0 = now();
    const r = await fn();
    times.push(now() - t0);
    results.push(r);
  }
  return { times, results, warmupUsed: false };
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}
