/**
 * WASI calls that wait (timing-sensitive: run last, one file at a time — vitest.config.ts):
 * poll_oneoff on the host clock really waits, within the run's deadline; sched_yield gives
 * the event loop its turn; time spent waiting consumes no fuel.
 */
import { describe, expect, it } from 'vitest';
import { failure } from './helpers/sandbox.js';
import { WasiGuest } from './helpers/wasi-guest.js';
import { HostAbi, Sandbox } from '../src/index.js';

/** Puts a relative monotonic-clock subscription of `ns` at 2048 and polls it; returns the errno. */
async function sleep(guest: WasiGuest, ns: bigint): Promise<number> {
  const sub = new Uint8Array(48);
  const view = new DataView(sub.buffer);
  view.setUint32(16, 1, true);
  view.setBigUint64(24, ns, true);
  guest.memory.write(2048, sub);
  return guest.call('poll_oneoff', 2048, 4096, 1, 0);
}

describe('waiting in WASI', () => {
  it('with the host clock, poll_oneoff really waits, and the wait consumes no fuel', async () => {
    const guest = await WasiGuest.start({ clock: 'host' });
    const started = performance.now();
    const before = await guest.now(1);
    expect(await sleep(guest, 50_000_000n)).toBe(0);
    const after = await guest.now(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(after - before).toBeGreaterThanOrEqual(45_000_000n);
    // The same call passing virtual time at once costs the same fuel: the wait costs none.
    const fuelWaiting = guest.fuel;
    const virtual = await WasiGuest.start();
    expect(await sleep(virtual, 50_000_000n)).toBe(0);
    expect(fuelWaiting).toBe(virtual.fuel);
    expect(fuelWaiting).toBeLessThan(10);
  });

  it('with the host clock, a wait past the deadline ends the run with Timeout, at the deadline', async () => {
    const guest = await WasiGuest.start({ clock: 'host' }, { timeoutMs: 100 });
    const started = performance.now();
    const e = await failure(sleep(guest, 10_000_000_000n));
    const took = performance.now() - started;
    expect(e.kind).toBe('Timeout');
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(300);
  });

  it('a 16 MiB random_get leaves the event loop its turns, and ends at the deadline', async () => {
    const guest = await WasiGuest.start({}, { memoryBytes: 32 << 20, timeoutMs: 50 }, 256);
    let worst = 0;
    let last = performance.now();
    let on = true;
    const tick = (): void => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      if (on) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const e = await failure(guest.call('random_get', 0, 16 << 20));
    on = false;
    expect(e.kind).toBe('Timeout');
    expect(performance.now() - started).toBeLessThan(100);
    expect(worst).toBeLessThan(30);
  });

  it('sched_yield gives the event loop a turn', async () => {
    const yields = `(module (import "wasi_snapshot_preview1" "sched_yield" (func $y (result i32)))
      (memory (export "memory") 1)
      (func (export "_start") (local $i i32)
        (loop $l (drop (call $y)) (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_u (local.get $i) (i32.const 20))))))`;
    let turns = 0;
    let done = false;
    const tick = (): void => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const run = new Sandbox(HostAbi.denyAll().allowWasi().host).run(yields, '_start');
    await run;
    done = true;
    expect(turns).toBeGreaterThanOrEqual(10);
  });
});
