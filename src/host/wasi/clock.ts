/**
 * The clocks of a WASI run.
 *
 * `virtual` (the default) makes time a pure function of the run: a nanosecond per unit of fuel
 * the instance has consumed, plus the time it has slept in poll_oneoff, which passes at once.
 *
 *     monotonic = fuel consumed × 1 ns + time slept
 *     realtime  = 2000-01-01T00:00:00Z + monotonic
 *
 * so the same program, input and fuel read the same times on every run and machine.
 * `host` reads the machine's clocks, and poll_oneoff really waits (the run's deadline still
 * holds). The CPU-time clocks are the fuel's nanoseconds under either.
 */
import { CLOCK } from './abi.js';
import { Errno, fail } from './errno.js';

/** Virtual time per unit of fuel: a machine running one WebAssembly instruction per nanosecond. */
export const NS_PER_FUEL = 1n;
/** Where the virtual realtime clock starts: 2000-01-01T00:00:00Z, in ns since the Unix epoch. */
export const VIRTUAL_EPOCH_NS = 946_684_800n * 1_000_000_000n;

export type ClockMode = 'virtual' | 'host';

/** The longest single timer Node accepts (ms); longer waits are made of several. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WasiClock {
  /** Virtual time slept so far (virtual mode). */
  private slept = 0n;

  constructor(
    readonly mode: ClockMode,
    /** Fuel the instance has consumed, all its calls together. */
    private readonly fuelConsumed: () => number,
  ) {}

  /** The time of clock `id`, in ns; EINVAL for an unknown clock. */
  now(id: number): bigint {
    const cpu = BigInt(this.fuelConsumed()) * NS_PER_FUEL;
    switch (id) {
      case CLOCK.REALTIME:
        return this.mode === 'virtual' ? VIRTUAL_EPOCH_NS + cpu + this.slept : hostRealtime();
      case CLOCK.MONOTONIC:
        return this.mode === 'virtual' ? cpu + this.slept : hostMonotonic();
      case CLOCK.PROCESS_CPUTIME:
      case CLOCK.THREAD_CPUTIME:
        return cpu;
      default:
        return fail(Errno.INVAL);
    }
  }

  /** The resolution of clock `id`, in ns. */
  resolution(id: number): bigint {
    this.now(id);
    return this.mode === 'host' && id === CLOCK.REALTIME ? 1_000n : 1n;
  }

  /**
   * Waits `ns` nanoseconds: in virtual time at once; in host time for real, until `signal`
   * aborts (the run ended).
   */
  sleep(ns: bigint, signal: AbortSignal): void | Promise<void> {
    if (ns <= 0n) return;
    if (this.mode === 'virtual') {
      this.slept += ns;
      return;
    }
    return hostSleep(ns, signal);
  }
}

/** A monotonic clock in ns (performance.now(), which browsers have too, in µs steps at best). */
function hostMonotonic(): bigint {
  return BigInt(Math.round(performance.now() * 1_000)) * 1_000n;
}

function hostRealtime(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000)) * 1_000n;
}

function hostSleep(ns: bigint, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let left = ns;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const next = (): void => {
      if (left <= 0n) return done();
      const ms = left > BigInt(MAX_TIMER_MS) * 1_000_000n ? MAX_TIMER_MS : Number((left + 999_999n) / 1_000_000n);
      left -= BigInt(ms) * 1_000_000n;
      timer = setTimeout(next, ms);
    };
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', done);
    next();
  });
}
