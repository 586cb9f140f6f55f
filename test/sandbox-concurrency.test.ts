/**
 * Isolation between runs, runs in flight at once, and the embedding application's event loop
 * while a guest spins.
 */
import { describe, expect, it } from 'vitest';
import { Sandbox, SandboxError, Value } from '../src/index.js';
import { fixture } from './helpers/sandbox.js';

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T; at: number } | { ok: false; error: SandboxError; at: number }> {
  try {
    const value = await p;
    return { ok: true, value, at: performance.now() };
  } catch (e) {
    expect(e).toBeInstanceOf(SandboxError);
    return { ok: false, error: e as SandboxError, at: performance.now() };
  }
}

const BUMP = `(module (memory (export "memory") 1) (global $g (mut i32) (i32.const 0))
  (func (export "bump") (result i32)
    (global.set $g (i32.add (global.get $g) (i32.const 1)))
    (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (global.get $g)))
    (i32.load (i32.const 0))))`;

describe('isolation between runs', () => {
  it('every run starts from a fresh store: globals and memory do not carry over', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(BUMP);
    for (let i = 0; i < 3; i++) {
      expect((await sandbox.run(module, 'bump', [])).values[0]!.value).toBe(1);
    }
  });

  it('a failed run leaves nothing behind for the next', async () => {
    const sandbox = Sandbox.denyAll();
    await expect(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 1e15, timeoutMs: 20 })).rejects.toMatchObject({ kind: 'Timeout' });
    await expect(sandbox.run(fixture('memory_bomb'), 'run', [], { memoryBytes: 1 << 20 })).rejects.toMatchObject({ kind: 'MemoryLimitExceeded' });
    const out = await sandbox.run(fixture('well_behaved'), 'fib', [Value.i32(30)], { timeoutMs: 1_000 });
    expect([out.values[0]!.value, out.fuelConsumed, out.peakMemoryBytes]).toEqual([832040, 522, 0]);
  });

  it('instances of one module are independent', async () => {
    const sandbox = Sandbox.denyAll();
    const a = await sandbox.instantiate(BUMP);
    const b = await sandbox.instantiate(BUMP);
    await a.call('bump');
    await a.call('bump');
    expect((await b.call('bump')).values[0]!.value).toBe(1);
    expect(a.memory!.read(0, 1)[0]).toBe(3);
    expect(b.memory!.read(0, 1)[0]).toBe(1);
  });
});

describe('concurrent runs on one sandbox', () => {
  it('a short deadline in one run leaves the other unaffected', async () => {
    const sandbox = Sandbox.denyAll();
    const loop = await sandbox.compile(fixture('infinite_loop'));
    const counter = await sandbox.compile(fixture('counter'));
    const n = 400_000;
    const start = performance.now();
    const [short, long] = await Promise.all([
      settle(sandbox.run(loop, 'run', [], { fuel: 1e15, timeoutMs: 40 })),
      settle(sandbox.run(counter, 'spin', [Value.i32(n)], { fuel: 1e15, timeoutMs: 20_000 })),
    ]);
    expect(short.ok).toBe(false);
    if (!short.ok) expect(short.error.kind).toBe('Timeout');
    expect(long.ok).toBe(true);
    if (long.ok) expect(long.value.fuelConsumed).toBe(1 + 8 * n + 3);
    expect(short.at - start).toBeLessThan(1_000);
  });

  it('one run’s deadline never interrupts another run in flight', async () => {
    const sandbox = Sandbox.denyAll();
    const loop = await sandbox.compile(fixture('infinite_loop'));
    const startB = performance.now() + 10;
    const a = settle(sandbox.run(loop, 'run', [], { fuel: 1e15, timeoutMs: 20 }));
    await new Promise((r) => setTimeout(r, 10));
    const b = settle(sandbox.run(loop, 'run', [], { fuel: 1e15, timeoutMs: 150 }));
    const [ra, rb] = await Promise.all([a, b]);
    expect(!ra.ok && ra.error.kind).toBe('Timeout');
    expect(!rb.ok && rb.error.kind).toBe('Timeout');
    // B ran its full 150 ms even though A's watchdog fired while it was running.
    expect(rb.at - startB).toBeGreaterThanOrEqual(145);
    expect(rb.at).toBeGreaterThan(ra.at);
  });

  it('many runs in flight share nothing and agree on fuel', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(fixture('well_behaved'));
    const outs = await Promise.all(Array.from({ length: 16 }, (_, i) => sandbox.run(module, 'fib', [Value.i32(i)])));
    outs.forEach((out, n) => expect(out.fuelConsumed).toBe(12 + 17 * n));
    const bumps = await Promise.all(Array.from({ length: 8 }, () => sandbox.run(BUMP, 'bump', [])));
    expect(bumps.map((o) => o.values[0]!.value)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('fuel exhaustion in one run does not disturb another', async () => {
    const sandbox = Sandbox.denyAll();
    const [a, b] = await Promise.all([
      settle(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 200_000 })),
      settle(sandbox.run(fixture('well_behaved'), 'fib', [Value.i32(30)], { fuel: 522 })),
    ]);
    expect(!a.ok && a.error.fuelConsumed).toBe(200_000);
    expect(b.ok && b.value.fuelConsumed).toBe(522);
  });
});

describe('the event loop while a guest spins', () => {
  it('stays responsive: the driver yields every ~1 ms', async () => {
    const sandbox = Sandbox.denyAll();
    const loop = await sandbox.compile(fixture('infinite_loop'));
    const gaps: number[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 1);
    try {
      const e = await settle(sandbox.run(loop, 'run', [], { fuel: 1e15, timeoutMs: 300 }));
      expect(!e.ok && e.error.kind).toBe('Timeout');
    } finally {
      clearInterval(ticker);
    }
    gaps.sort((x, y) => x - y);
    const median = gaps[Math.floor(gaps.length / 2)]!;
    const p90 = gaps[Math.floor(gaps.length * 0.9)]!;
    const within10 = gaps.filter((g) => g <= 10).length / gaps.length;
    const stats = `${gaps.length} ticks, median ${median.toFixed(2)} ms, p90 ${p90.toFixed(2)} ms, ${(within10 * 100).toFixed(0)}% ≤ 10 ms, max ${gaps.at(-1)!.toFixed(2)} ms`;
    // A 1 ms interval over 300 ms: typical gaps of a millisecond or two (the target is
    // ≤ 10 ms). The bounds leave room for what the driver does not control — GC pauses and
    // preemption on a busy shared machine (measured: p90 15-17 ms with two CPU hogs on two cores).
    expect(gaps.length, stats).toBeGreaterThan(30);
    expect(median, stats).toBeLessThan(5);
    expect(within10, stats).toBeGreaterThanOrEqual(0.75);
    expect(p90, stats).toBeLessThan(30);
  });

  it('other timers and I/O callbacks run while a guest spins', async () => {
    const sandbox = Sandbox.denyAll();
    let fired = 0;
    const timers = [5, 20, 50].map((ms) => setTimeout(() => fired++, ms));
    const e = await settle(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 1e15, timeoutMs: 120 }));
    expect(!e.ok && e.error.kind).toBe('Timeout');
    expect(fired).toBe(3);
    timers.forEach(clearTimeout);
  });
});
