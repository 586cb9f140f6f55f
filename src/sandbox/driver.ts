/**
 * The driver: runs paused engine executions to completion in slices of fuel, sharing the
 * event loop with the embedding application and with each other.
 *
 * JavaScript has one thread, so the watchdog's timer can only fire — and the application can
 * only stay responsive — while no guest is running. One scheduler per process runs *rounds*:
 * in a `setImmediate` callback it gives the runs that are ready one slice each, in turn, until
 * ROUND_MS have passed, then leaves the event loop to everything else (timers, I/O) and
 * continues in the next round. A slice is fuel (`execution.sliceFuel`) sized from the run's
 * measured rate to last `sliceMs()`: TARGET_SLICE_MS for a run alone, less when many share the
 * loop, so that every run gets a turn every few milliseconds. When a run's watchdog has fired,
 * the engine traps with `Interrupt` on its next slice.
 *
 * One callback for all runs, rather than a promise and a `setImmediate` per run and slice,
 * matters with many runs in flight: Node runs every queued immediate before it looks at its
 * timers again, so a thousand runs each yielding on its own made one turn of the event loop
 * as long as a thousand slices and their promises.
 *
 * An asynchronous host call leaves the execution `pending` and out of the rounds; the driver
 * races its promise against the watchdog, so a host call still pending at the deadline ends
 * the run at once.
 */
import { nextMacrotask } from './macrotask.js';
import { type BacktraceFrame, Trap, TrapKind } from '../interpreter/errors.js';
import type { Steps } from '../interpreter/steps.js';
import type { WasmValue } from '../interpreter/values.js';
import type { ExpiryListener, Watchdog } from '../watchdog/watchdog.js';

/** What the driver needs of an engine execution (docs/engine-api.md, `Execution`). */
export interface DrivableExecution {
  sliceFuel: number;
  /** How long instructions are cut into pieces, paced by the clock (pieces.ts, WorkMeter). */
  readonly meter: { plan(ms: number): void; measure(ms: number): void };
  /** It paused to enter freshly translated code, or to translate it (Execution.freshCode): its pace will change. */
  freshCode: boolean;
  /** When the slice should end at the latest, fuel or not (Execution.sliceDeadline). */
  sliceDeadline: number;
  /** The slice's planned length (Execution.sliceMs). */
  sliceMs: number;
  /** Whether a Timeout may end it between slices where it stands (Execution.deadlineEndsHere). */
  readonly deadlineEndsHere: boolean;
  /** Where the execution stands (Execution.backtrace), for a Timeout that ends it between slices. */
  backtrace?(): BacktraceFrame[];
  resume(): 'done' | 'paused' | 'pending';
  readonly results: WasmValue[] | readonly WasmValue[];
  readonly pending: Promise<unknown> | PromiseLike<unknown> | null | undefined;
}

/** What the driver needs of a store. */
export interface FuelGauge {
  readonly fuel: number;
}

/** A run alone gets slices of about this long (ms). */
export const TARGET_SLICE_MS = 1;
/** The most a round runs guests before the event loop gets its turn (ms). */
export const ROUND_MS = 2;
/**
 * How far past its planned length a slice may run before translated code pauses it at a loop
 * header (Execution.sliceDeadline): fuel sizes slices, and the clock catches a pace that fell.
 */
export const SLICE_OVERRUN_MS = 2;
/** The shortest slice, however many runs share the loop (ms). */
export const MIN_SLICE_MS = 0.005;

/**
 * A run's first slice, before its rate is measured: 10,000 fuel, about what slow (not yet
 * optimised) code runs in TARGET_SLICE_MS; less in proportion when the slice is shorter.
 */
export const INITIAL_SLICE_FUEL = 10_000;
export const MIN_SLICE_FUEL = 100;
export const MAX_SLICE_FUEL = 100_000_000;

/** An execution being driven: one slice per turn. */
class Task implements ExpiryListener {
  /** Settled: by the engine, or by the deadline while the run waited for its turn. */
  private settled = false;

  constructor(
    private readonly execution: DrivableExecution,
    private readonly store: FuelGauge,
    private readonly watchdog: Watchdog,
    private readonly pacer: Pacer,
    private readonly resolve: (results: WasmValue[]) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** Runs one slice; returns true when the run wants another. */
  runSlice(): boolean {
    if (this.settled) return false;
    const { execution, store, pacer } = this;
    const slice = pacer.sliceFuel;
    const ms = sliceMs();
    execution.sliceFuel = slice;
    execution.sliceMs = ms;
    execution.meter.plan(ms);
    const fuelBefore = store.fuel;
    const t0 = performance.now();
    execution.sliceDeadline = t0 + SLICE_OVERRUN_MS + ms;
    let state: 'done' | 'paused' | 'pending';
    try {
      state = execution.resume();
    } catch (error) {
      this.fail(error);
      return false;
    }
    const spent = fuelBefore - store.fuel;
    const elapsed = performance.now() - t0;
    execution.meter.measure(elapsed);
    if (execution.freshCode) {
      // It paused for the JavaScript tier, which changes its pace: measured anew.
      execution.freshCode = false;
      pacer.restart();
    } else {
      // A slice ended by its deadline rather than its fuel measured the pace too (a slow one).
      pacer.adapt(spent, elapsed, state === 'paused' && (spent >= slice || elapsed >= sliceMs()));
    }
    // The deadline, seen here too: the watchdog's timer may be waiting behind this round.
    this.watchdog.poll();
    if (state === 'done') {
      this.settled = true;
      this.resolve([...execution.results]);
      return false;
    }
    if (state === 'pending') {
      this.awaitHost();
      return false;
    }
    return true;
  }

  /** Out of the rounds until the host call settles, or the deadline ends the run. */
  private awaitHost(): void {
    const pending = this.execution.pending;
    const settled = Promise.resolve(pending).then(
      () => true,
      () => true, // resume() rethrows the rejection
    );
    void Promise.race([settled, this.watchdog.expired.then(() => false)]).then((inTime) => {
      // The deadline first: the run ends here while the call is in flight, but goes on to its
      // next check point if the call has settled meanwhile (Execution.deadlineEndsHere). Its
      // listener, told once, may have let it go on to this wait: nothing else would end it.
      if (inTime || !this.execution.deadlineEndsHere) scheduler.add(this);
      else this.deadlinePassed();
    });
  }

  /**
   * The deadline has passed: the run ends now, wherever it waits — in the rounds, or on a
   * host call. Waiting, it is at a check point, where its next slice would trap anyway; but
   * right after a host call it is at none, and its next slice takes it to one (wasmtime's
   * point), where it traps.
   */
  deadlinePassed(): void {
    if (!this.execution.deadlineEndsHere) return;
    const trap = new Trap(TrapKind.Interrupt);
    trap.backtrace = this.execution.backtrace?.();
    this.fail(trap);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/** The rounds: one per process, for every run. */
class Scheduler {
  private ready: Task[] = [];
  private head = 0;
  /** Work outside the rounds waiting for a turn, first come first served. */
  private waiters: Array<() => void> = [];
  private waitersHead = 0;
  /** Whether the admission chain (admitNext) is under way. */
  private admitting = false;
  private scheduled = false;
  /**
   * When the current burst of work began: the end of the last round, or the last turn given.
   * Work outside the rounds (setting runs up, compiling and instantiating in steps) goes on in
   * the microtasks that follow, and waits for a turn once a burst has lasted ROUND_MS.
   */
  private burstStart = -Infinity;

  /** How many runs are waiting for a slice. */
  get readyCount(): number {
    return this.ready.length - this.head;
  }

  add(task: Task): void {
    this.ready.push(task);
    this.wake();
  }

  /**
   * Resolves when the caller may go on with a share of work outside the rounds: after the
   * next round, in the order the callers asked. Being let in is the permission; the caller
   * does not look at the clock again before its work.
   */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.wake();
    });
  }

  /** Whether work outside the rounds has had its share of the event loop for now. */
  get burstSpent(): boolean {
    return performance.now() - this.burstStart >= ROUND_MS;
  }

  private wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    nextMacrotask(this.round);
  }

  private readonly round = (): void => {
    this.scheduled = false;
    const start = performance.now();
    while (this.head < this.ready.length) {
      const task = this.ready[this.head++]!;
      if (task.runSlice()) this.ready.push(task);
      if (performance.now() - start >= ROUND_MS) break;
    }
    // Drop what the queue has passed, so that finished runs can be collected.
    if (this.head === this.ready.length) {
      this.ready.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.head);
      this.head = 0;
    }
    // What waited for a turn goes on in the microtasks after this round, with a burst of its own.
    this.burstStart = performance.now();
    if (this.waitersHead < this.waiters.length && !this.admitting) {
      this.admitting = true;
      queueMicrotask(this.admitNext);
    }
    if (this.readyCount > 0) this.wake();
  };

  /**
   * Lets the waiters in one at a time, each in a microtask of its own, until the burst is
   * spent. A waiter let in goes on at once, in the microtasks queued before the next
   * admission, so the clock read here has seen the work of those let in before it. (Letting
   * them all in at once, each to look at the clock first, let a thousand runs in on one
   * burst: each saw the clock before any of them had done its work.)
   */
  private readonly admitNext = (): void => {
    if (this.waitersHead === this.waiters.length) {
      this.waiters.length = 0;
      this.waitersHead = 0;
      this.admitting = false;
      return;
    }
    if (this.burstSpent) {
      this.admitting = false;
      this.wake();
      return;
    }
    const resolve = this.waiters[this.waitersHead++]!;
    resolve();
    queueMicrotask(this.admitNext);
  };
}

const scheduler = new Scheduler();

/** How long a slice should last now: TARGET_SLICE_MS, shorter when many runs share the loop. */
export function sliceMs(): number {
  return Math.max(MIN_SLICE_MS, Math.min(TARGET_SLICE_MS, ROUND_MS / Math.max(1, scheduler.readyCount)));
}

/** What ends a wait for a turn: a run's watchdog. */
export interface Deadline {
  readonly expired: Promise<void>;
  readonly fired: boolean;
}

/**
 * When the current burst is spent, a wait for a turn, or until `deadline` expires; else
 * nothing to wait for (no promise made). A thousand runs started at once set up a burst's
 * worth at a time.
 */
export function enterRun(deadline: Deadline): Promise<void> | null {
  return scheduler.burstSpent ? Promise.race([scheduler.turn(), deadline.expired]) : null;
}

/**
 * Slice sizing, shared by the executions of one run (a start function and the export call)
 * and by the calls on one instance, so the measured rate carries over.
 */
export class Pacer {
  sliceFuel = INITIAL_SLICE_FUEL;

  /**
   * Back to a first slice's size: the run's pace is about to change (it enters freshly
   * translated code, which V8 runs slowly until it has optimised it), and is measured anew.
   */
  restart(): void {
    this.sliceFuel = Math.min(this.sliceFuel, INITIAL_SLICE_FUEL);
  }

  /** Adjusts the slice after a `resume()` that spent `spent` fuel in `elapsedMs`. */
  adapt(spent: number, elapsedMs: number, exhausted: boolean): void {
    if (!exhausted) return; // ended early (host call, completion): says little about the rate
    const target = sliceMs();
    let next: number;
    if (elapsedMs <= target / 8) next = this.sliceFuel * 4;
    else next = (spent / elapsedMs) * target;
    // Grow carefully (a fast slice may be noise), shrink at once (a slow one holds the loop).
    next = Math.min(next, this.sliceFuel * 4);
    next = Math.max(next, this.sliceFuel / 16);
    this.sliceFuel = Math.round(Math.min(MAX_SLICE_FUEL, Math.max(MIN_SLICE_FUEL, next)));
  }

}

/**
 * Runs `steps` (compiling, instantiating: steps.ts) to the end, waiting for a turn whenever
 * the current burst is spent. With a `deadline`, its expiry ends a wait at once, and the
 * steps end with an `Interrupt` trap. Steps that end within the burst (a small module's
 * instantiation) end here, their value returned as it is: no promise made.
 */
export function driveSteps<T>(steps: Steps<T>, deadline?: Deadline): T | Promise<T> {
  const value = stepWithinBurst(steps);
  return value === BURST_SPENT ? driveStepsAfterWaits(steps, deadline) : value;
}

const BURST_SPENT: unique symbol = Symbol('burst spent');

/** Runs steps until they end (their value) or the burst is spent. */
function stepWithinBurst<T>(steps: Steps<T>): T | typeof BURST_SPENT {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (scheduler.burstSpent) return BURST_SPENT;
  }
}

/** driveSteps from its first wait for a turn on. */
async function driveStepsAfterWaits<T>(steps: Steps<T>, deadline: Deadline | undefined): Promise<T> {
  for (;;) {
    await (deadline === undefined ? scheduler.turn() : Promise.race([scheduler.turn(), deadline.expired]));
    if (deadline?.fired === true) throw new Trap(TrapKind.Interrupt);
    const value = stepWithinBurst(steps);
    if (value !== BURST_SPENT) return value;
  }
}

/**
 * Drives `execution` to completion and returns its results. Throws what the engine throws
 * (a `Trap`, a host function's exception), and `Trap(Interrupt)` when the watchdog fires
 * while an asynchronous host call is pending.
 */
export function drive(execution: DrivableExecution, store: FuelGauge, watchdog: Watchdog, pacer: Pacer): Promise<WasmValue[]> {
  // A share of the loop for this run's first slices, until its rate is measured.
  const share = Math.round((INITIAL_SLICE_FUEL * sliceMs()) / TARGET_SLICE_MS);
  pacer.sliceFuel = Math.min(pacer.sliceFuel, Math.max(MIN_SLICE_FUEL, share));
  return new Promise((resolve, reject) => {
    const task = new Task(execution, store, watchdog, pacer, resolve, reject);
    watchdog.listen(task);
    // The first slice at once while the burst lasts: a short guest then finishes without
    // waiting for a round (Sandbox.run of a tiny function costs microseconds).
    if (scheduler.burstSpent || task.runSlice()) scheduler.add(task);
  });
}
