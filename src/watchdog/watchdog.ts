/**
 * The per-run watchdog: sandboxd's `Watchdog`, with a timer in place of a thread.
 *
 * Epoch interruption is cooperative. The engine keeps an epoch counter; a store whose
 * deadline is `engine.epoch + 1` traps with `Interrupt` at its next check once the counter
 * advances. Nothing advances it on its own: the watchdog does, exactly once, when the run's
 * timeout has elapsed.
 *
 * `arm(engine, timeoutMs)` starts a timer that ticks in slices of `min(5 ms, max(timeout, 1 ms))`.
 * Each tick checks the done flag, then measures the time elapsed since arming on a monotonic
 * clock (`performance.now()`; timers fire late while a guest runs, so summing slices would
 * drift), and when it has reached the timeout increments the epoch. The last slice is
 * shortened to end at the deadline itself. `disarm()` sets the flag and clears the timer, so
 * nothing is left running between runs: per-run, never a global ticker.
 *
 * Because JavaScript is single-threaded the timer can only fire while the guest's driver
 * yields to the event loop; the driver does so every ~1 ms of guest execution.
 */

/** What the watchdog needs of an engine. */
export interface EpochClock {
  incrementEpoch(): void;
}

/** Injectable time source and timers (for tests); the defaults are Node's. */
export interface WatchdogClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /**
   * Starts a fired timer `handle` again with its duration, if the platform can (Node's
   * `Timeout.refresh`); returns false where it cannot. Saves a timer object per tick: with a
   * thousand runs in flight, their watchdogs made 200,000 a second for the collector.
   */
  restartTimeout?(handle: unknown): boolean;
}

const systemClock: WatchdogClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  restartTimeout: (handle) => {
    const refresh = (handle as { refresh?: unknown }).refresh;
    if (typeof refresh !== 'function') return false;
    refresh.call(handle);
    return true;
  },
};

/** The longest slice between two checks of the done flag, as in sandboxd. */
export const MAX_SLICE_MS = 5;

/** sandboxd's slice: `min(5 ms, max(timeout, 1 ms))`. */
export function sliceFor(timeoutMs: number): number {
  return Math.min(MAX_SLICE_MS, Math.max(timeoutMs, 1));
}

export class Watchdog {
  private done = false;
  private hasFired = false;
  private timer: unknown = null;
  /** The last timer made, and its duration, to start again for the next tick. */
  private lastTimer: unknown = null;
  private lastTimerMs = 0;
  private readonly startedAt: number;
  private readonly slice: number;
  private resolveExpired!: () => void;
  /** How many ticks ran (for tests and diagnostics). */
  ticks = 0;
  /**
   * Settles when the watchdog fires (after it has incremented the epoch); never settles when
   * it is disarmed first. A driver waiting on an asynchronous host call races against it.
   */
  readonly expired: Promise<void>;

  private constructor(
    private readonly engine: EpochClock,
    readonly timeoutMs: number,
    private readonly clock: WatchdogClock,
  ) {
    this.expired = new Promise<void>((resolve) => {
      this.resolveExpired = resolve;
    });
    this.startedAt = clock.now();
    this.slice = sliceFor(timeoutMs);
    if (Number.isFinite(timeoutMs)) this.schedule(this.slice);
  }

  /**
   * Arms a watchdog that increments `engine`'s epoch once `timeoutMs` have elapsed, unless
   * it is disarmed first. A non-finite timeout never fires and keeps no timer.
   */
  static arm(engine: EpochClock, timeoutMs: number, clock: WatchdogClock = systemClock): Watchdog {
    return new Watchdog(engine, timeoutMs, clock);
  }

  /** Whether the deadline has passed and the epoch was incremented. */
  get fired(): boolean {
    return this.hasFired;
  }

  /** Whether a timer is still pending (false once fired or disarmed). */
  get active(): boolean {
    return this.timer !== null;
  }

  /** Milliseconds since arming, on the watchdog's clock. */
  get elapsedMs(): number {
    return this.clock.now() - this.startedAt;
  }

  /** Stops the watchdog: it will never increment the epoch after this returns. Idempotent. */
  disarm(): void {
    this.done = true;
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /**
   * Fires now if the deadline has passed at `now` (on the watchdog's clock): for a driver
   * between two slices, whose event loop may not have run the timer yet.
   */
  poll(now: number = this.clock.now()): void {
    if (!this.done && now - this.startedAt >= this.timeoutMs) this.fire();
  }

  private fire(): void {
    this.done = true;
    this.hasFired = true;
    this.engine.incrementEpoch();
    this.resolveExpired();
  }

  private schedule(ms: number): void {
    if (this.lastTimer !== null && ms === this.lastTimerMs && this.clock.restartTimeout?.(this.lastTimer) === true) {
      this.timer = this.lastTimer;
      return;
    }
    this.timer = this.clock.setTimeout(this.onTick, ms);
    this.lastTimer = this.timer;
    this.lastTimerMs = ms;
  }

  private readonly onTick = (): void => this.tick();

  private tick(): void {
    this.timer = null;
    this.ticks++;
    if (this.done) return;
    const elapsed = this.clock.now() - this.startedAt;
    if (elapsed >= this.timeoutMs) {
      this.fire();
      return;
    }
    // The last slice ends at the deadline itself (timers have millisecond granularity).
    this.schedule(Math.min(this.slice, Math.max(this.timeoutMs - elapsed, 1)));
  }
}

/** `Watchdog.arm`, as a function. */
export function arm(engine: EpochClock, timeoutMs: number, clock?: WatchdogClock): Watchdog {
  return Watchdog.arm(engine, timeoutMs, clock);
}
