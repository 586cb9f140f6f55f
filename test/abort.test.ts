/**
 * RunOptions.signal: an embedder's Stop. An aborted run ends as its own outcome — a SandboxError
 * of kind Aborted, not a Timeout — wherever it is: spinning, waiting on an asynchronous host
 * call, paused in the debugger, or not started yet; the fuel it consumed is counted; other runs
 * are not touched; and a signal that fires after the run has ended changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox, SandboxError, Value } from '../src/index.js';
import { failure } from './helpers/sandbox.js';
import { giantModule } from './helpers/hostile.js';

const SPIN = '(module (func (export "spin") (loop (br 0))))';
const unbounded = new Limits({ fuel: 1e15, timeoutMs: 1e9 });

describe('RunOptions.signal', () => {
  it('stops a spinning guest soon after the abort, as kind Aborted', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(SPIN);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const t0 = performance.now();
    const error = await failure(sandbox.run(module, 'spin', [], unbounded, { signal: controller.signal }));
    const elapsed = performance.now() - t0;
    expect(error.kind).toBe('Aborted');
    expect(error.message).toBe('aborted: the run was stopped by its abort signal');
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('an abort right after run() returns, in the same tick, ends the run before its export runs; no host function runs within run()', async () => {
    let calls = 0;
    const host = HostAbi.denyAll().allowFunction('env', 'tick', { params: [], results: [] }, () => {
      calls++;
    });
    const sandbox = new Sandbox(host);
    // A compiled module without a start function: nothing awaits before the run is set up.
    const module = await sandbox.compile('(module (import "env" "tick" (func $t)) (func (export "run") (call $t)))');
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      const pending = sandbox.run(module, 'run', [], unbounded, { signal: controller.signal });
      expect(calls).toBe(0);
      controller.abort();
      const error = await failure(pending);
      expect(error.kind).toBe('Aborted');
      expect(calls).toBe(0);
    }
  });

  it('an abort from inside the run (a host function) ends it at the next check point, with the fuel it consumed', async () => {
    const controller = new AbortController();
    let calls = 0;
    const host = HostAbi.denyAll().allowFunction('env', 'tick', { params: [], results: [] }, () => {
      if (++calls === 1000) controller.abort();
    });
    // Each pass: call (1) + br (1), and the loop's own instructions.
    const wat = '(module (import "env" "tick" (func $tick)) (func (export "run") (loop (call $tick) (br 0))))';
    const error = await failure(new Sandbox(host).run(wat, 'run', [], unbounded, { signal: controller.signal }));
    expect(error.kind).toBe('Aborted');
    expect(calls).toBe(1000);
    // The entry, then 1,000 calls and a branch after each: a host call is no check point, so the
    // run ends at the loop header its last `br` reaches, as an epoch would end it in wasmtime.
    expect(error.fuelConsumed).toBe(1 + 1000 + 1000);
  });

  it('a signal aborted before the run starts ends it before any guest code runs', async () => {
    const error = await failure(Sandbox.denyAll().run(SPIN, 'spin', [], unbounded, { signal: AbortSignal.abort() }));
    expect(error.kind).toBe('Aborted');
    expect(error.fuelConsumed).toBe(0);
  });

  it('ends a run waiting on an asynchronous host call, at once', async () => {
    const host = HostAbi.denyAll().allowFunction('env', 'wait', { params: [], results: [] }, () => new Promise<void>(() => {}));
    const sandbox = new Sandbox(host);
    const wat = '(module (import "env" "wait" (func $wait)) (func (export "run") (call $wait)))';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await failure(sandbox.run(wat, 'run', [], unbounded, { signal: controller.signal }));
    expect(error.kind).toBe('Aborted');
  });

  it('ends a debugged run while it is paused', async () => {
    const sandbox = Sandbox.denyAll();
    const controller = new AbortController();
    const debug = await sandbox.debug(SPIN, 'spin', [], unbounded, { signal: controller.signal });
    expect((await debug.step()).kind).toBe('paused');
    controller.abort();
    const event = await debug.step();
    expect(event.kind).toBe('failed');
    if (event.kind === 'failed') expect(event.error.kind).toBe('Aborted');
  });

  it('ends a run still waiting for its module to be compiled with probes (coverage on a big module)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(giantModule(4_000, 1_500));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const t0 = performance.now();
    const error = await failure(sandbox.run(module, 'f0', [Value.i32(1)], unbounded, { coverage: true, signal: controller.signal }));
    expect(error.kind).toBe('Aborted');
    // The probed compile of 6 MB takes far longer than this (about as long as the plain one).
    expect(performance.now() - t0).toBeLessThan(300);
  });

  it('touches no other run, and an abort after the end changes nothing', async () => {
    const sandbox = Sandbox.denyAll();
    const controller = new AbortController();
    const add = '(module (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))';
    const done = await sandbox.run(add, 'add', [Value.i32(2), Value.i32(3)], undefined, { signal: controller.signal });
    controller.abort();
    expect(String(done.values[0])).toBe('I32(5)');
    const other = sandbox.run('(module (func (export "f") (result i32) (local i32) (loop (br_if 0 (i32.lt_u (local.tee 0 (i32.add (local.get 0) (i32.const 1))) (i32.const 100000)))) (local.get 0)))', 'f');
    const stopped = new AbortController();
    // Its rejection handled at once: it may come before `other` resolves.
    const spinning = sandbox.run(SPIN, 'spin', [], unbounded, { signal: stopped.signal }).then(() => null, (e: unknown) => e);
    setTimeout(() => stopped.abort(), 20);
    expect(String((await other).values[0])).toBe('I32(100000)');
    const error = await spinning;
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).kind).toBe('Aborted');
  });
});
