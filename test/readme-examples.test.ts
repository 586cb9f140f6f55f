/**
 * The embedding examples of README.md, run as written (with `expect` where the README shows a
 * result in a comment), so the README cannot drift from the API.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox, SandboxError, Value } from '../src/index.js';

describe('README embedding examples', () => {
  it('runs a function under the default limits', async () => {
    const sandbox = Sandbox.denyAll();
    const wat = `(module (func (export "add") (param i32 i32) (result i32)
      local.get 0 local.get 1 i32.add))`;
    const out = await sandbox.run(wat, 'add', [Value.i32(2), Value.i32(40)]);
    expect(String(out.values[0])).toBe('I32(42)');
    expect(out.fuelConsumed).toBe(4);
  });

  it('compiles once, runs often, and reports why a run stopped', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile('(module (func (export "spin") (loop (br 0))))');
    try {
      await sandbox.run(module, 'spin', [], new Limits({ fuel: 1_000_000, timeoutMs: 5_000 }));
      expect.unreachable();
    } catch (e) {
      if (!(e instanceof SandboxError)) throw e;
      expect(e.kind).toBe('FuelExhausted');
      expect(e.exitCode).toBe(2);
      expect(e.message).toBe('fuel exhausted: the module exceeded its instruction budget of 1000000 units');
      expect(e.fuelConsumed).toBe(1_000_000);
    }
  });

  it('grants capabilities one by one', async () => {
    const { host, logs } = HostAbi.denyAll()
      .allowRandom(42n)
      .allowFunction('env', 'double', { params: ['i32'], results: ['i32'] }, async ([x]) => (x as number) * 2)
      .allowLog();
    const sandbox = new Sandbox(host);
    const wat = `(module
      (import "host" "log" (func $log (param i32 i32)))
      (import "env" "double" (func $double (param i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 0) "hi")
      (func (export "run") (param i32) (result i32)
        (call $log (i32.const 0) (i32.const 2))
        (call $double (local.get 0))))`;
    const out = await sandbox.run(wat, 'run', [Value.i32(21)]);
    expect(out.values[0]!.value).toBe(42);
    expect(logs.lines).toEqual(['hi']);
  });

  it('keeps an instance for repeated calls', async () => {
    const sandbox = Sandbox.denyAll();
    const counter = await sandbox.instantiate(readFileSync('fixtures/counter.wat'), new Limits({ fuel: 10_000_000 }));
    expect(String((await counter.call('next', [])).values[0])).toBe('I32(1)');
    expect(String((await counter.call('next', [])).values[0])).toBe('I32(2)');
    counter.memory!.write(0, new TextEncoder().encode('abc'));
    expect(String((await counter.call('sum', [Value.i32(0), Value.i32(3)])).values[0])).toBe('I32(294)');
  });
  it('inspects a run: profile, coverage, trace and the debugger', async () => {
    const sandbox = Sandbox.denyAll();
    const fib = readFileSync('fixtures/well_behaved.wat', 'utf8');
    const out = await sandbox.run(fib, 'fib', [Value.i32(10)], undefined, { profile: true, coverage: true, trace: { limit: 12 } });
    expect(out.profile!.functions[0]!.selfFuel).toBe(182);
    expect(out.fuelConsumed).toBe(182);
    expect(out.coverage![1]!.covered.length).toBe(27);
    expect(out.coverage![1]!.instructions).toBe(29);
    expect(out.trace![10]).toMatchObject({ offset: 77, instruction: 'i32.ge_s', stack: ['i32:0', 'i32:10'] });
    expect(out.profile!.toFolded()).toContain('182');

    const dbg = await sandbox.debug(fib, 'fib', [Value.i32(3)]);
    dbg.breakAt({ func: 1, offset: 77 });
    let event = await dbg.continue();
    expect(event.kind).toBe('paused');
    if (event.kind !== 'paused') return;
    expect(event.frames[0]!.instruction).toBe('i32.ge_s');
    expect(event.frames[0]!.stack.map(String)).toEqual(['I32(0)', 'I32(3)']);
    dbg.clearBreakpoints();
    event = await dbg.continue();
    expect(event.kind).toBe('finished');
    if (event.kind !== 'finished') return;
    expect(String(event.output.values[0])).toBe('I32(2)');
    expect(event.output.fuelConsumed).toBe(63);
  });
});
