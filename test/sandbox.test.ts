/**
 * The attack table: every fixture stopped by the right fence, with the right error and exit
 * code — plus the fuel cost model's determinism, the deadline and the memory cap.
 */
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox, Value, type SandboxErrorKind } from '../src/index.js';
import { failure, fixture } from './helpers/sandbox.js';

const MiB = 1024 * 1024;


describe('the attack table', () => {
  const rows: Array<{
    attack: string;
    fixture: string;
    invoke?: string;
    params?: Value[];
    limits?: Limits;
    host?: HostAbi;
    kind: SandboxErrorKind;
    exitCode: number;
    message: string;
  }> = [
    {
      attack: 'an infinite loop, bounded by fuel',
      fixture: 'infinite_loop',
      limits: new Limits({ fuel: 1_000_000, timeoutMs: 60_000, memoryBytes: MiB }),
      kind: 'FuelExhausted',
      exitCode: 2,
      message: 'fuel exhausted: the module exceeded its instruction budget of 1000000 units',
    },
    {
      attack: 'an infinite loop with unlimited fuel, bounded by the deadline',
      fixture: 'infinite_loop',
      limits: new Limits({ fuel: 2n ** 64n - 1n, timeoutMs: 100, memoryBytes: MiB }),
      kind: 'Timeout',
      exitCode: 3,
      message: 'wall-clock timeout: the module ran longer than 100 ms',
    },
    {
      attack: 'a memory bomb',
      fixture: 'memory_bomb',
      limits: new Limits({ fuel: 1_000_000_000, timeoutMs: 60_000, memoryBytes: 4 * MiB }),
      kind: 'MemoryLimitExceeded',
      exitCode: 4,
      message: 'memory limit exceeded: the module requested more than 4194304 bytes of linear memory',
    },
    {
      attack: 'a table bomb',
      fixture: 'table_bomb',
      kind: 'MemoryLimitExceeded',
      exitCode: 4,
      message: 'memory limit exceeded: the module requested more than 10000 table elements',
    },
    {
      attack: 'a memory larger than the cap from the start',
      fixture: 'huge_memory',
      kind: 'MemoryLimitExceeded',
      exitCode: 4,
      message: 'memory limit exceeded: the module requested more than 16777216 bytes of linear memory',
    },
    {
      attack: 'an import nobody granted',
      fixture: 'disallowed_import',
      kind: 'DisallowedImport',
      exitCode: 5,
      message: 'disallowed import: the module imports `env::secret` which is not on the allow-list',
    },
    {
      attack: 'host::log without the grant',
      fixture: 'logger',
      kind: 'DisallowedImport',
      exitCode: 5,
      message: 'disallowed import: the module imports `host::log` which is not on the allow-list',
    },
    {
      attack: 'host::random without the grant',
      fixture: 'random',
      invoke: 'roll',
      kind: 'DisallowedImport',
      exitCode: 5,
      message: 'disallowed import: the module imports `host::random` which is not on the allow-list',
    },
    {
      attack: 'a start function that spins, bounded by fuel',
      fixture: 'start_loop',
      limits: new Limits({ fuel: 10_000 }),
      kind: 'FuelExhausted',
      exitCode: 2,
      message: 'fuel exhausted: the module exceeded its instruction budget of 10000 units',
    },
    {
      attack: 'a start function that spins, bounded by the deadline',
      fixture: 'start_loop',
      limits: new Limits({ fuel: 1e15, timeoutMs: 50 }),
      kind: 'Timeout',
      exitCode: 3,
      message: 'wall-clock timeout: the module ran longer than 50 ms',
    },
    {
      attack: 'runaway recursion',
      fixture: 'traps',
      invoke: 'recurse',
      params: [Value.i32(0)],
      kind: 'Trap',
      exitCode: 8,
      message: 'guest trap: wasm trap: call stack exhausted',
    },
    {
      attack: 'an integer division by zero',
      fixture: 'traps',
      invoke: 'div',
      params: [Value.i32(1), Value.i32(0)],
      kind: 'Trap',
      exitCode: 8,
      message: 'guest trap: wasm trap: integer divide by zero',
    },
    {
      attack: 'an out-of-bounds load with no refused growth',
      fixture: 'traps',
      invoke: 'oob',
      kind: 'Trap',
      exitCode: 8,
      message: 'guest trap: wasm trap: out of bounds memory access',
    },
    {
      attack: 'unreachable',
      fixture: 'traps',
      invoke: 'unreachable',
      kind: 'Trap',
      exitCode: 8,
      message: 'guest trap: wasm trap: wasm `unreachable` instruction executed',
    },
    {
      attack: 'a bulk-memory storm: memory.fill of 16 MiB in a loop',
      fixture: 'bulk_storm',
      invoke: 'fill',
      params: [Value.i32(16 * MiB)],
      limits: new Limits({ fuel: 1e15, timeoutMs: 100 }),
      kind: 'Timeout',
      exitCode: 3,
      message: 'wall-clock timeout: the module ran longer than 100 ms',
    },
    {
      attack: 'a bulk-memory storm: memory.copy of 8 MiB in a loop',
      fixture: 'bulk_storm',
      invoke: 'copy',
      params: [Value.i32(8 * MiB)],
      limits: new Limits({ fuel: 1e15, timeoutMs: 100 }),
      kind: 'Timeout',
      exitCode: 3,
      message: 'wall-clock timeout: the module ran longer than 100 ms',
    },
    {
      attack: 'tables each within the cap, over it together',
      fixture: 'table_sum_bomb',
      kind: 'MemoryLimitExceeded',
      exitCode: 4,
      message: 'memory limit exceeded: the module requested more than 10000 table elements',
    },
    {
      attack: 'a text bomb: 300 nested blocks',
      fixture: 'nesting_bomb',
      kind: 'InvalidModule',
      exitCode: 6,
      message: 'invalid module: module.wat:7:691: error: the WebAssembly text is nested too deeply (more than 100 levels of parentheses and blocks)',
    },
    {
      attack: 'a missing export',
      fixture: 'well_behaved',
      invoke: 'does_not_exist',
      kind: 'Export',
      exitCode: 7,
      message: 'export error: no exported function named `does_not_exist`',
    },
  ];

  it.each(rows)('$attack → $kind (exit $exitCode)', async (row) => {
    const sandbox = new Sandbox(row.host ?? HostAbi.denyAll());
    const start = performance.now();
    const e = await failure(sandbox.run(fixture(row.fixture), row.invoke ?? 'run', row.params ?? [], row.limits));
    expect(performance.now() - start).toBeLessThan(5_000);
    expect(e.kind).toBe(row.kind);
    expect(e.exitCode).toBe(row.exitCode);
    // A trap's message goes on with its backtrace (test/backtrace.test.ts); the first line is the kind's.
    expect(e.kind === 'Trap' ? e.message.split('\n')[0] : e.message).toBe(row.message);
  });

  it('invalid bytes are an invalid module (exit 6)', async () => {
    const e = await failure(Sandbox.denyAll().run(new TextEncoder().encode('this is not wasm'), 'run', []));
    expect(e.kind).toBe('InvalidModule');
    expect(e.exitCode).toBe(6);
    expect(e.message).toMatch(/^invalid module: /);
  });

  it('a failed run carries the fence’s parameters', async () => {
    const sandbox = Sandbox.denyAll();
    const fuel = await failure(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 5_000 }));
    expect(fuel.budget).toBe(5_000);
    expect(fuel.fuelConsumed).toBe(5_000);
    const time = await failure(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 1e15, timeoutMs: 30 }));
    expect(time.millis).toBe(30);
    expect(time.fuelConsumed).toBeGreaterThan(0);
    const mem = await failure(sandbox.run(fixture('memory_bomb'), 'run', [], { memoryBytes: 2 * MiB }));
    expect(mem.limit).toBe(2 * MiB);
    expect(mem.fuelConsumed).toBeGreaterThan(0);
    const imp = await failure(sandbox.run(fixture('disallowed_import'), 'run', []));
    expect([imp.module, imp.name, imp.fuelConsumed]).toEqual(['env', 'secret', 0]);
  });
});

describe('fuel: wasmtime’s cost model, deterministic', () => {
  const wb = fixture('well_behaved');

  it('add(2, 40) = 42 and consumes 4', async () => {
    const out = await Sandbox.denyAll().run(wb, 'add', [Value.i32(2), Value.i32(40)]);
    expect(out.values.map(String)).toEqual(['I32(42)']);
    expect(out.fuelConsumed).toBe(4);
    expect(out.peakMemoryBytes).toBe(0);
  });

  it('fib(n) consumes 12 + 17n', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wb);
    const expected = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55];
    for (let n = 0; n <= 10; n++) {
      const out = await sandbox.run(module, 'fib', [Value.i32(n)]);
      expect(out.values[0]!.value).toBe(expected[n]);
      expect(out.fuelConsumed).toBe(12 + 17 * n);
    }
  });

  it('fib(30) consumes 522 in three fresh sandboxes', async () => {
    const outs = [];
    for (let i = 0; i < 3; i++) outs.push(await Sandbox.denyAll().run(wb, 'fib', [Value.i32(30)]));
    for (const out of outs) {
      expect(out.values.map(String)).toEqual(['I32(832040)']);
      expect(out.fuelConsumed).toBe(522);
    }
  });

  it('is checked where wasmtime checks it: function entries and loop headers', async () => {
    // fib(30) reaches its last loop header having consumed 517; the 5 units after it run
    // unchecked. So 518 units suffice (the overrun is reported clamped to the budget, as
    // wasmtime's get_fuel saturates at 0), and 517 do not.
    const sandbox = Sandbox.denyAll();
    const exact = await sandbox.run(wb, 'fib', [Value.i32(30)], { fuel: 522 });
    expect(exact.fuelConsumed).toBe(522);
    const overrun = await sandbox.run(wb, 'fib', [Value.i32(30)], { fuel: 518 });
    expect(overrun.values[0]!.value).toBe(832040);
    expect(overrun.fuelConsumed).toBe(518);
    const e = await failure(sandbox.run(wb, 'fib', [Value.i32(30)], { fuel: 517 }));
    expect(e.kind).toBe('FuelExhausted');
    expect(e.fuelConsumed).toBe(517);
    const none = await failure(sandbox.run(wb, 'add', [Value.i32(1), Value.i32(2)], { fuel: 0 }));
    expect([none.kind, none.fuelConsumed]).toEqual(['FuelExhausted', 0]);
  });

  it('exhaustion happens at the same point every time', async () => {
    const sandbox = Sandbox.denyAll();
    const runs = await Promise.all([1, 2, 3].map(() => failure(sandbox.run(fixture('infinite_loop'), 'run', [], { fuel: 100_000 }))));
    expect(runs.map((e) => [e.kind, e.fuelConsumed])).toEqual([
      ['FuelExhausted', 100_000],
      ['FuelExhausted', 100_000],
      ['FuelExhausted', 100_000],
    ]);
  });
});

describe('the deadline', () => {
  it('stops an infinite loop with effectively unlimited fuel at 100 ms, well within a second', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(fixture('infinite_loop'));
    const start = performance.now();
    const e = await failure(sandbox.run(module, 'run', [], new Limits({ fuel: Number.MAX_SAFE_INTEGER, timeoutMs: 100 })));
    const elapsed = performance.now() - start;
    expect(e.kind).toBe('Timeout');
    expect(e.millis).toBe(100);
    expect(e.exitCode).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(99);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('lands close to the deadline (median of several runs)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(fixture('infinite_loop'));
    const overshoot: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await failure(sandbox.run(module, 'run', [], { fuel: 1e15, timeoutMs: 40 }));
      overshoot.push(performance.now() - start - 40);
    }
    overshoot.sort((a, b) => a - b);
    // The target is ~5 ms; allow for a loaded, shared machine.
    expect(overshoot[2]!).toBeLessThan(25);
  });

  it('does not fire for a run that finishes first, and leaves no timer behind', async () => {
    const sandbox = Sandbox.denyAll();
    const timers = () => process.getActiveResourcesInfo().filter((h) => h === 'Timeout').length;
    const before = timers();
    const out = await sandbox.run(fixture('well_behaved'), 'fib', [Value.i32(30)], { timeoutMs: 20 });
    expect(out.values[0]!.value).toBe(832040);
    // Nothing may keep the event loop busy after a run: the watchdog's timer is gone.
    expect(timers()).toBeLessThanOrEqual(before);
    const e = await failure(sandbox.run(fixture('traps'), 'unreachable', [], { timeoutMs: 20 }));
    expect(e.kind).toBe('Trap');
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('the memory cap', () => {
  it('reports the peak of granted growth', async () => {
    const out = await Sandbox.denyAll().run(fixture('grow_within_cap'), 'run', [], { fuel: 1_000_000, memoryBytes: 16 * MiB });
    expect(out.values.map(String)).toEqual(['I32(32)']);
    expect(out.peakMemoryBytes).toBe(32 * 64 * 1024);
  });

  it('a growth storm, one page at a time, ends with the cap refusing: 8192 pages under 512 MiB', async () => {
    const out = await Sandbox.denyAll().run(fixture('growth_storm'), 'run', [], { timeoutMs: 2000, memoryBytes: 512 * MiB });
    expect(out.values.map(String)).toEqual(['I32(8192)']);
    expect(out.peakMemoryBytes).toBe(512 * MiB);
  });

  it('reports 0 when memory never grew', async () => {
    const out = await Sandbox.denyAll().run(fixture('well_behaved'), 'add', [Value.i32(1), Value.i32(2)]);
    expect(out.peakMemoryBytes).toBe(0);
  });

  it('growth past the cap returns -1; a guest that handles it succeeds', async () => {
    const sandbox = Sandbox.denyAll();
    const refused = await sandbox.run(fixture('grow_and_recover'), 'run', [Value.i32(100)], { memoryBytes: 2 * MiB });
    expect(refused.values.map(String)).toEqual(['I32(-1)']);
    expect(refused.peakMemoryBytes).toBe(0);
    const granted = await sandbox.run(fixture('grow_and_recover'), 'run', [Value.i32(3)], { memoryBytes: 2 * MiB });
    expect(granted.values.map(String)).toEqual(['I32(1)']);
    expect(granted.peakMemoryBytes).toBe(4 * 65536);
  });

  it('a refused growth turns the out-of-bounds trap that follows into MemoryLimitExceeded', async () => {
    // grow_within_cap stores at 2 MiB - 1 after growing; under a 1 MiB cap the growth is refused.
    const e = await failure(Sandbox.denyAll().run(fixture('grow_within_cap'), 'run', [], { memoryBytes: MiB }));
    expect(e.kind).toBe('MemoryLimitExceeded');
    expect(e.limit).toBe(MiB);
  });

  it('a cap of exactly the declared minimum is enough', async () => {
    const out = await Sandbox.denyAll().run(fixture('huge_memory'), 'run', [], { memoryBytes: 512 * 65536 });
    expect(out.values.map(String)).toEqual(['I32(1)']);
  });

  it('a table larger than the table cap from the start is refused before running', async () => {
    const e = await failure(Sandbox.denyAll().run('(module (table 100 funcref) (func (export "run")))', 'run', [], { tableElements: 99 }));
    expect(e.kind).toBe('MemoryLimitExceeded');
    expect(e.resource).toBe('tableElements');
    expect(e.message).toBe('memory limit exceeded: the module requested more than 99 table elements');
    expect(e.fuelConsumed).toBe(0);
  });
});
