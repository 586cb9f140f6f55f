/**
 * The per-run watchdog: sandboxd's `Watchdog`, with a timer in place of a thread.
 *
 * Epoch interruption is cooperative. The engine keeps an epoch counter; a store whose
 * deadline is `engine.epoch + 1` traps with `Interrupt` at its next check once the counter
 * advances. Nothing advances it on its own: the watchdog does, exactly once, when the run's
 * timeout has elapsed.
 *
 * `arm(engine, timeoutMs)` sets one timer for the deadline. When it fires, the watchdog
 * measures the time elapsed since arming on a monotonic clock (`performance.now()`): timers
 * count whole milliseconds and may fire a fraction early, and then it is set again for the
 * rest. `disarm()` sets the done flag and clears the timer, so nothing is left running
 * between runs: per-run, never a global ticker.
 *
 * sandboxd's thread sleeps in slices of at most 5 ms only so that it notices the done flag
 * soon after a run ends; a cleared timer is gone at once, so slices would buy nothing here and
 * cost much: with a thousand runs in flight their ticks were 200,000 timer callbacks a second
 * (500–900 in every 8 ms gap of the event loop), and the worst run of the 1,000-run soak ended
 * 10–17 ms after its deadline with them against 8–14 ms without (docs/fences.md).
 *
 * Because JavaScript is single-threaded the timer can only fire while the guest's driver
 * yields to the event loop; the driver does so every few milliseconds and also polls the
 * watchdog between slices.
 */

/** What the watchdog needs of an engine. */
export interface EpochClock {
  incrementEpoch(): void;
}

/** What Watchdog.listen tells of the deadline. */
export interface ExpiryListener {
  deadlinePassed(): void;
}

/** Injectable time source and timers (for tests); the defaults are Node's. */
export interface WatchdogClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: WatchdogClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class Watchdog {
  private done = false;
  private hasFired = false;
  private timer: unknown = null;
  /** When it was armed, moved on by the time spent paused: the run's time is `now - startedAt`. */
  private startedAt: number;
  /** When pause() was called, or null while running. */
  private pausedAt: number | null = null;
  /** `expired`, made when first asked for: most runs end without anyone waiting on it. */
  private expiredPromise: Promise<void> | null = null;
  private resolveExpired: (() => void) | null = null;
  private listener: ExpiryListener | null = null;
  /** How many times the timer fired (for tests and diagnostics). */
  ticks = 0;

  private constructor(
    private readonly engine: EpochClock,
    readonly timeoutMs: number,
    private readonly clock: WatchdogClock,
  ) {
    this.startedAt = clock.now();
    if (Number.isFinite(timeoutMs)) this.schedule(timeoutMs);
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

  /**
   * Settles when the watchdog fires (after it has incremented the epoch); never settles when
   * it is disarmed first. A driver waiting for its turn or on an asynchronous host call races
   * against it.
   */
  get expired(): Promise<void> {
    if (this.expiredPromise === null) {
      if (this.hasFired) this.expiredPromise = Promise.resolve();
      else {
        this.expiredPromise = new Promise<void>((resolve) => {
          this.resolveExpired = resolve;
        });
      }
    }
    return this.expiredPromise;
  }

  /**
   * Has `listener` told, in a microtask after the watchdog fires (at once if it has), that the
   * deadline has passed: `expired` without a promise and its reaction made for every run. One
   * listener at a time; a later one takes its place.
   */
  listen(listener: ExpiryListener): void {
    this.listener = listener;
    if (this.hasFired) queueMicrotask(() => listener.deadlinePassed());
  }

  /** Whether a timer is still pending (false once fired or disarmed). */
  get active(): boolean {
    return this.timer !== null;
  }

  /** Milliseconds since arming, on the watchdog's clock, less the time spent paused. */
  get elapsedMs(): number {
    return (this.pausedAt ?? this.clock.now()) - this.startedAt;
  }

  /**
   * Stops the clock: time from now until resume() does not count towards the deadline (a
   * debugger's pause, when the guest does not run). Idempotent.
   */
  pause(): void {
    if (this.done || this.pausedAt !== null) return;
    this.pausedAt = this.clock.now();
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /**
   * Fires now, whatever the time left or whether paused: the run is to end at its next check
   * (an embedder's abort). Does nothing once fired or disarmed.
   */
  expireNow(): void {
    if (this.done) return;
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pausedAt !== null) {
      this.startedAt += this.clock.now() - this.pausedAt;
      this.pausedAt = null;
    }
    this.fire();
  }

  /** Starts the clock again after pause(), with the time that was left. */
  resume(): void {
    if (this.pausedAt === null) return;
    this.startedAt += this.clock.now() - this.pausedAt;
    this.pausedAt = null;
    if (!this.done && Number.isFinite(this.timeoutMs)) this.schedule(this.timeoutMs - this.elapsedMs);
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
    if (!this.done && this.pausedAt === null && now - this.startedAt >= this.timeoutMs) this.fire();
  }

  private fire(): void {
    this.done = true;
    this.hasFired = true;
    this.engine.incrementEpoch();
    this.resolveExpired?.();
    const listener = this.listener;
    if (listener !== null) queueMicrotask(() => listener.deadlinePassed());
  }

  private schedule(ms: number): void {
    // Timers count whole milliseconds, at least one.
    this.timer = this.clock.setTimeout(this.onTick, Math.max(1, Math.ceil(ms)));
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
    this.schedule(this.timeoutMs - elapsed);
  }
}

/** `Watchdog.arm`, as a function. */
export function arm(engine: EpochClock, timeoutMs: number, clock?: WatchdogClock): Watchdog {
  return Watchdog.arm(engine, timeoutMs, clock);
}
