import { describe, expect, it } from 'vitest';
import { Engine } from '../src/interpreter/index.js';
import { Watchdog, arm, type WatchdogClock } from '../src/watchdog/index.js';

/** A fake engine: counts epoch increments. */
class FakeEngine {
  epoch = 0;
  increments = 0;
  incrementEpoch(): void {
    this.epoch++;
    this.increments++;
  }
}

/** A manual clock whose timers fire only when the test advances time. */
class ManualClock implements WatchdogClock {
  time = 0;
  private nextId = 1;
  readonly timers = new Map<number, { at: number; callback: () => void; ms: number }>();
  readonly delays: number[] = [];

  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, callback, ms });
    this.delays.push(ms);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Advances time by `ms`, firing due timers in order; `lateBy` makes every timer fire late. */
  advance(ms: number, lateBy = 0): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers) if (next === undefined || entry[1].at < next[1].at) next = entry;
      if (next === undefined || next[1].at + lateBy > end) break;
      this.timers.delete(next[0]);
      this.time = next[1].at + lateBy;
      next[1].callback();
    }
    this.time = end;
  }
}

describe('Watchdog with a fake engine and clock', () => {
  it('increments the epoch exactly once, when the timeout has elapsed', async () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 100, clock);
    clock.advance(99);
    expect(engine.increments).toBe(0);
    expect(wd.fired).toBe(false);
    clock.advance(1);
    expect(engine.increments).toBe(1);
    expect(wd.fired).toBe(true);
    await expect(wd.expired).resolves.toBeUndefined();
    clock.advance(10_000);
    expect(engine.increments).toBe(1);
    expect(clock.timers.size).toBe(0);
    expect(wd.active).toBe(false);
  });

  it('settles `expired` whether it was asked for before or after firing, and never when disarmed first', async () => {
    const clock = new ManualClock();
    const before = Watchdog.arm(new FakeEngine(), 10, clock);
    const early = before.expired;
    const after = Watchdog.arm(new FakeEngine(), 10, clock);
    const disarmed = Watchdog.arm(new FakeEngine(), 10, clock);
    const never = disarmed.expired;
    disarmed.disarm();
    clock.advance(10);
    await expect(early).resolves.toBeUndefined();
    await expect(after.expired).resolves.toBeUndefined();
    const settled = await Promise.race([never.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('pending'), 5))]);
    expect(settled).toBe('pending');
  });

  it('tells its listener in a microtask after firing (at once in one if it has fired), never when disarmed', async () => {
    const clock = new ManualClock();
    const told: string[] = [];
    const listener = (name: string) => ({ deadlinePassed: () => told.push(name) });
    const wd = Watchdog.arm(new FakeEngine(), 10, clock);
    wd.listen(listener('first'));
    wd.listen(listener('second')); // takes the first's place
    const disarmed = Watchdog.arm(new FakeEngine(), 10, clock);
    disarmed.listen(listener('disarmed'));
    disarmed.disarm();
    clock.advance(10);
    expect(told).toEqual([]); // not within the timer's callback: whoever fired goes on first
    await Promise.resolve();
    expect(told).toEqual(['second']);
    wd.listen(listener('late'));
    expect(told).toEqual(['second']);
    await Promise.resolve();
    expect(told).toEqual(['second', 'late']);
  });

  it('sets one timer, for the deadline itself (no ticking: a thousand runs would make 200,000 callbacks a second)', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 12, clock);
    clock.advance(100);
    expect(clock.delays).toEqual([12]);
    expect(wd.ticks).toBe(1);
    expect(engine.increments).toBe(1);
  });

  it('a timer that fires early (timers count whole milliseconds) is set again for the rest', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 12, clock);
    clock.advance(11.5, -0.6); // fires at 11.4 ms, before the deadline: no increment
    expect(engine.increments).toBe(0);
    expect(wd.active).toBe(true);
    clock.advance(20, -0.6);
    expect(engine.increments).toBe(1);
    expect(clock.delays[0]).toBe(12);
    expect(clock.delays.slice(1).every((ms) => ms === 1)).toBe(true);
  });

  it('a late timer fires on its first tick: the time is measured, not counted', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 100, clock);
    // The timer fires 15 ms late (a guest hogging the thread): the epoch moves then, once.
    clock.advance(200, 15);
    expect(engine.increments).toBe(1);
    expect(wd.ticks).toBe(1);
  });

  it('paused, its clock stops: the time paused does not count, and poll() never fires then', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 100, clock);
    clock.advance(60);
    wd.pause();
    expect(clock.timers.size).toBe(0);
    clock.advance(1_000);
    wd.poll();
    expect(engine.increments).toBe(0);
    expect(wd.elapsedMs).toBe(60);
    wd.resume();
    expect(clock.delays.at(-1)).toBe(40);
    clock.advance(39);
    expect(engine.increments).toBe(0);
    expect(wd.elapsedMs).toBe(99);
    clock.advance(1);
    expect(engine.increments).toBe(1);
    // Pausing a watchdog that has fired, or resuming one not paused, changes nothing.
    wd.pause();
    wd.resume();
    clock.advance(1_000);
    expect(engine.increments).toBe(1);
    expect(clock.timers.size).toBe(0);
  });

  it('never fires after disarm and leaves no timer behind', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = arm(engine, 50, clock);
    clock.advance(20);
    expect(clock.timers.size).toBe(1);
    wd.disarm();
    expect(clock.timers.size).toBe(0);
    expect(wd.active).toBe(false);
    clock.advance(1_000);
    expect(engine.increments).toBe(0);
    expect(wd.fired).toBe(false);
    wd.disarm(); // idempotent
    expect(engine.increments).toBe(0);
  });

  it('disarmed right at the deadline, before its tick ran, does not fire', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    const wd = Watchdog.arm(engine, 10, clock);
    clock.time = 10; // the deadline passed, but the timer has not run yet
    wd.disarm();
    clock.advance(100);
    expect(engine.increments).toBe(0);
  });

  it('a zero timeout fires on its first tick (after 1 ms, the shortest timer); an infinite one keeps no timer', () => {
    const engine = new FakeEngine();
    const clock = new ManualClock();
    Watchdog.arm(engine, 0, clock);
    clock.advance(1);
    expect(engine.increments).toBe(1);

    const never = Watchdog.arm(engine, Infinity, clock);
    expect(never.active).toBe(false);
    clock.advance(1e9);
    expect(engine.increments).toBe(1);
  });

  it('each watchdog bumps only its own engine', () => {
    const a = new FakeEngine();
    const b = new FakeEngine();
    const clock = new ManualClock();
    Watchdog.arm(a, 10, clock);
    const wb = Watchdog.arm(b, 30, clock);
    clock.advance(15);
    expect([a.increments, b.increments]).toEqual([1, 0]);
    wb.disarm();
    clock.advance(100);
    expect([a.increments, b.increments]).toEqual([1, 0]);
  });
});

describe('Watchdog on real timers', () => {
  it('fires once, close to the deadline', async () => {
    const engine = new Engine();
    const start = performance.now();
    const wd = Watchdog.arm(engine, 30);
    await wd.expired;
    const elapsed = performance.now() - start;
    expect(engine.epoch).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(29);
    expect(elapsed).toBeLessThan(30 + 250); // generous: shared CI machines deschedule
    await new Promise((r) => setTimeout(r, 30));
    expect(engine.epoch).toBe(1);
    expect(wd.active).toBe(false);
  });

  it('disarmed, it keeps nothing alive and never bumps the epoch', async () => {
    const engine = new Engine();
    const wd = Watchdog.arm(engine, 20);
    await new Promise((r) => setTimeout(r, 5));
    wd.disarm();
    expect(wd.active).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(engine.epoch).toBe(0);
    expect(wd.fired).toBe(false);
  });
});
