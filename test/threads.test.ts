/**
 * Shared memory and atomics, for one agent (the threads proposal): atomic instructions are
 * ordinary ones plus alignment checks; memory.atomic.wait never blocks the host — a wait
 * nobody can wake ends by its timeout with the event loop free meanwhile, or, with none, as
 * Timeout at the deadline; notify wakes no one.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from './helpers/engine-oracle.js';
import { Sandbox, SandboxError, Value } from '../src/index.js';
import { compileModule, DecodeError, Feature, WASMTIME_FEATURES } from '../src/interpreter/index.js';


const SRC = `(module
  (memory 1 1 shared)
  (func (export "rmw") (result i32)
    (i32.atomic.store (i32.const 8) (i32.const 40))
    (drop (i32.atomic.rmw.add (i32.const 8) (i32.const 2)))
    (drop (i32.atomic.rmw.cmpxchg (i32.const 8) (i32.const 42) (i32.const 43)))
    (i32.add (i32.atomic.load (i32.const 8)) (memory.atomic.notify (i32.const 8) (i32.const 1))))
  (func (export "unaligned") (result i32) (i32.atomic.load (i32.const 2)))
  (func (export "notEqual") (result i32) (memory.atomic.wait32 (i32.const 0) (i32.const 1) (i64.const -1)))
  (func (export "wait") (param i64) (result i32) (memory.atomic.wait32 (i32.const 0) (i32.const 0) (local.get 0))))`;

describe('shared memory and atomics (one agent)', () => {
  it('runs atomic read-modify-write, cmpxchg, notify; traps on an unaligned address', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(await assemble(SRC, false));
    expect(String((await sandbox.run(module, 'rmw')).values)).toBe('I32(43)');
    await expect(sandbox.run(module, 'unaligned')).rejects.toThrow(/unaligned atomic/);
    expect(String((await sandbox.run(module, 'notEqual')).values)).toBe('I32(1)');
  });

  it('a wait nobody can wake ends by its timeout, with the event loop free meanwhile', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(await assemble(SRC, false));
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 2);
    const started = performance.now();
    const out = await sandbox.run(module, 'wait', [Value.i64(60_000_000n)]); // 60 ms
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(String(out.values)).toBe('I32(2)');
    expect(elapsed).toBeGreaterThanOrEqual(55);
    expect(ticks).toBeGreaterThan(5);
  });

  it('a wait with no timeout ends as Timeout at the deadline, never a hang', { retry: 2 }, async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(await assemble(SRC, false));
    const started = performance.now();
    let err: unknown;
    try {
      await sandbox.run(module, 'wait', [Value.i64(-1n)], { timeoutMs: 50 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as SandboxError).kind).toBe('Timeout');
    expect(performance.now() - started).toBeLessThan(50 + 100);
  });

  it("is refused by name in wasmtime's feature set (its build has no threads)", async () => {
    let err: unknown;
    try {
      compileModule(await assemble(SRC, false), WASMTIME_FEATURES);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DecodeError);
    expect((err as DecodeError).feature).toBe(Feature.SharedMemory);
  });
});
