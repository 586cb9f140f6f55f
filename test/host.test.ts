import { describe, expect, it } from 'vitest';
import {
  GuestMemoryError,
  HostAbi,
  HostTrap,
  LogSink,
  Sandbox,
  SandboxError,
  SplitMix64,
  Value,
} from '../src/index.js';
import { splitmix64Reference } from '../src/host/splitmix64.js';
import { failure, fixture } from './helpers/sandbox.js';


describe('splitmix64', () => {
  it('matches the reference algorithm', () => {
    for (const seed of [0n, 1n, 42n, 0xffffffffffffffffn, 0x9e3779b97f4a7c15n, 123456789012345678n]) {
      const rng = new SplitMix64(seed);
      const got = Array.from({ length: 50 }, () => rng.next());
      expect(got).toEqual(splitmix64Reference(seed, 50));
    }
  });

  it('with seed 42 starts 0xBDD732262FEB6E95', () => {
    expect(new SplitMix64(42).next()).toBe(13679457532755275413n);
    expect(new SplitMix64(42n).next()).toBe(0xbdd732262feb6e95n);
  });

  it('takes seeds modulo 2^64 and rejects non-integers', () => {
    expect(new SplitMix64(-1).next()).toBe(new SplitMix64(0xffffffffffffffffn).next());
    expect(new SplitMix64(2n ** 64n + 5n).next()).toBe(new SplitMix64(5n).next());
    expect(() => new SplitMix64(1.5)).toThrow(RangeError);
  });
});

describe('HostAbi grants', () => {
  it('denies everything by default', () => {
    const host = HostAbi.denyAll();
    expect(host.grants).toEqual([]);
    expect(host.isAllowed('host', 'log')).toBe(false);
  });

  it('is immutable: allow* returns a new ABI', () => {
    const base = HostAbi.denyAll();
    const { host, logs } = base.allowLog();
    const seeded = host.allowRandom(7);
    expect(base.isAllowed('host', 'log')).toBe(false);
    expect(host.isAllowed('host', 'log')).toBe(true);
    expect(host.isAllowed('host', 'random')).toBe(false);
    expect(seeded.isAllowed('host', 'random')).toBe(true);
    expect(logs).toBeInstanceOf(LogSink);
    expect(seeded.grants.map((g) => `${g.module}::${g.name}:${g.capability}`)).toEqual(['host::log:log', 'host::random:random']);
    expect(seeded.grants[0]!.signature).toEqual({ params: ['i32', 'i32'], results: [] });
  });

  it('rejects malformed embedder grants', () => {
    const h = HostAbi.denyAll();
    expect(() => h.allowFunction('env', 'f', { params: ['i8' as 'i32'], results: [] }, () => undefined)).toThrow(TypeError);
    expect(() => h.allowFunction('env', 'f', { params: [], results: [] }, 42 as unknown as () => undefined)).toThrow(TypeError);
    expect(() => h.allowRandom(0.5)).toThrow(RangeError);
  });
});

describe('host::log', () => {
  it('is denied unless granted', async () => {
    const e = await failure(Sandbox.denyAll().run(fixture('logger'), 'run', []));
    expect(e.kind).toBe('DisallowedImport');
    expect(e.module).toBe('host');
    expect(e.name).toBe('log');
    expect(e.exitCode).toBe(5);
  });

  it('captures the line when granted', async () => {
    const { host, logs } = HostAbi.denyAll().allowLog();
    const out = await new Sandbox(host).run(fixture('logger'), 'run', []);
    expect(out.values).toEqual([]);
    expect(out.fuelConsumed).toBe(4);
    expect(logs.lines).toEqual(['hello from the guest']);
    expect([...logs]).toEqual(['hello from the guest']);
  });

  it('can collect into a sink of the embedder, with a listener', async () => {
    const sink = new LogSink();
    const seen: string[] = [];
    const off = sink.onLine((l) => seen.push(l));
    const { host, logs } = HostAbi.denyAll().allowLog(sink);
    expect(logs).toBe(sink);
    const sandbox = new Sandbox(host);
    await sandbox.run(fixture('logger'), 'run', []);
    off();
    await sandbox.run(fixture('logger'), 'run', []);
    expect(sink.length).toBe(2);
    expect(seen).toEqual(['hello from the guest']);
    sink.clear();
    expect(sink.lines).toEqual([]);
  });

  it('caps how much one run may log, so a guest cannot fill the host memory', async () => {
    const { host, logs } = HostAbi.denyAll().allowLog(undefined, { maxBytes: 100_000 });
    const flood = `(module (import "host" "log" (func $log (param i32 i32))) (memory (export "memory") 1)
      (func (export "run") (loop $l (call $log (i32.const 0) (i32.const 60000)) (br $l))))`;
    const e = await failure(new Sandbox(host).run(flood, 'run', [], { fuel: 1e12 }));
    expect(e.kind).toBe('Trap');
    expect(e.message).toContain('logged more than 100000 bytes');
    expect(logs.lines).toHaveLength(1);
    // The budget is per run: the next run may log again.
    await new Sandbox(host).run(fixture('logger'), 'run', []);
    expect(logs.lines).toHaveLength(2);
  });

  describe('bounds checks', () => {
    const { host, logs } = HostAbi.denyAll().allowLog();
    const sandbox = new Sandbox(host);
    const log = (ptr: number, len: number) => sandbox.run(fixture('log_bounds'), 'log', [Value.i32(ptr), Value.i32(len)]);

    it('reads in-bounds ranges, up to the last byte', async () => {
      logs.clear();
      await log(0, 2);
      await log(65534, 2);
      await log(65536, 0); // an empty range at the very end is in bounds
      expect(logs.lines).toEqual(['ok', '\u0000\u0000', '']);
    });

    it('replaces invalid UTF-8 with U+FFFD', async () => {
      logs.clear();
      await log(100, 12);
      expect(logs.lines).toEqual(['bad \ufffd\ufffd bytes']);
    });

    it.each([
      ['a pointer past the end', 65537, 0],
      ['a range running past the end', 65535, 2],
      ['a length larger than memory', 0, 65537],
      ['a negative pointer', -1, 1],
      ['a negative length', 0, -1],
      ['a pointer plus length that overflows 32 bits', 0x7fffffff, 0x7fffffff],
    ])('traps on %s', async (_what, ptr, len) => {
      logs.clear();
      const e = await failure(log(ptr, len));
      expect(e.kind).toBe('Trap');
      expect(e.message).toBe('guest trap: host::log pointer or length out of bounds');
      expect(e.exitCode).toBe(8);
      expect(logs.lines).toEqual([]);
    });

    it('traps when the guest exports no memory', async () => {
      const e = await failure(sandbox.run(fixture('log_no_memory'), 'run', []));
      expect(e.kind).toBe('Trap');
      expect(e.message).toBe('guest trap: host::log requires the guest to export its linear memory as `memory`');
    });
  });

  it('rejects a module importing host::log with the wrong signature as invalid', async () => {
    const { host } = HostAbi.denyAll().allowLog();
    const e = await failure(new Sandbox(host).run('(module (import "host" "log" (func (param i32))))', 'run', []));
    expect(e.kind).toBe('InvalidModule');
    expect(e.message).toBe(
      'invalid module: incompatible import type for `host::log`: expected func of type `(i32, i32) -> ()`, found func of type `(i32) -> ()`',
    );
  });

  it('rejects a granted name imported as a memory', async () => {
    const { host } = HostAbi.denyAll().allowLog();
    const e = await failure(new Sandbox(host).run('(module (import "host" "log" (memory 1)))', 'run', []));
    expect(e.kind).toBe('InvalidModule');
  });
});

describe('host::random', () => {
  it('is denied unless granted', async () => {
    const e = await failure(Sandbox.denyAll().run(fixture('random'), 'roll', []));
    expect(e.kind).toBe('DisallowedImport');
    expect([e.module, e.name]).toEqual(['host', 'random']);
  });

  it('with seed 42, the first roll is 803958421', async () => {
    const out = await new Sandbox(HostAbi.denyAll().allowRandom(42)).run(fixture('random'), 'roll', []);
    expect(out.values.map(String)).toEqual(['I32(803958421)']);
    expect(out.values[0]!.value).toBe(803958421);
  });

  it('is reproducible per seed, run after run and sandbox after sandbox', async () => {
    const roll = async (seed: bigint | number) =>
      (await new Sandbox(HostAbi.denyAll().allowRandom(seed)).run(fixture('random'), 'roll', [])).values[0]!.value;
    expect(await roll(42)).toBe(await roll(42n));
    expect(await roll(0)).toBe(await roll(0));
    expect(await roll(1)).not.toBe(await roll(2));
    const sandbox = new Sandbox(HostAbi.denyAll().allowRandom(42));
    const runs = await Promise.all([1, 2, 3].map(() => sandbox.run(fixture('random'), 'roll', [])));
    expect(runs.map((r) => r.values[0]!.value)).toEqual([803958421, 803958421, 803958421]);
  });

  it('continues its stream across calls on one instance', async () => {
    const instance = await new Sandbox(HostAbi.denyAll().allowRandom(42)).instantiate(fixture('random'));
    const rolls: number[] = [];
    for (let i = 0; i < 3; i++) rolls.push((await instance.call('roll')).values[0]!.value as number);
    const expected = splitmix64Reference(42n, 3).map((v) => Number(BigInt.asIntN(32, v)));
    expect(rolls).toEqual(expected);
  });
});

describe('embedder functions', () => {
  const calls = fixture('host_calls');

  it('a synchronous function gets and returns typed values', async () => {
    const host = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, () => undefined)
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, ([x]) => (x as bigint) * 2n);
    const out = await new Sandbox(host).run(calls, 'twice', [Value.i64(-21n)]);
    expect(out.values.map(String)).toEqual(['I64(-42)']);
  });

  it('an asynchronous function is awaited', async () => {
    const host = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, () => undefined)
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, async ([x]) => {
        await new Promise((r) => setTimeout(r, 5));
        return Value.i64((x as bigint) * 2n);
      });
    const out = await new Sandbox(host).run(calls, 'twice', [Value.i64(2n ** 40n)]);
    expect(out.values[0]!.value).toBe(2n ** 41n);
  });

  it('gets its arguments as numbers and bigints, and the caller memory', async () => {
    const seen: unknown[] = [];
    const host = HostAbi.denyAll().allowFunction('env', 'peek', { params: ['i32', 'i64', 'f32', 'f64'], results: ['i32'] }, (args, call) => {
      seen.push(...args, call.module, call.name, call.memory?.byteLength, call.signal.aborted);
      return call.memory!.read(0, 1)[0]!;
    });
    const wat = `(module (import "env" "peek" (func $p (param i32 i64 f32 f64) (result i32)))
      (memory (export "memory") 1) (data (i32.const 0) "\\07")
      (func (export "run") (result i32) (call $p (i32.const -1) (i64.const -2) (f32.const 1.5) (f64.const 0.25))))`;
    const out = await new Sandbox(host).run(wat, 'run', []);
    expect(out.values.map(String)).toEqual(['I32(7)']);
    expect(seen).toEqual([-1, -2n, 1.5, 0.25, 'env', 'peek', 65536, false]);
  });

  const withImpl = (impl: () => unknown) =>
    new Sandbox(
      HostAbi.denyAll()
        .allowFunction('env', 'slow', { params: [], results: [] }, () => undefined)
        .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, impl as () => bigint),
    ).run(calls, 'twice', [Value.i64(1n)]);

  it('a throwing function fails the run as a host error', async () => {
    const e = await failure(withImpl(() => {
      throw new Error('database unavailable');
    }));
    expect(e.kind).toBe('Host');
    expect(e.message).toBe('host error: host function `env::twice` failed: database unavailable');
    expect(e.exitCode).toBe(1);
  });

  it('a rejected promise fails the run as a host error', async () => {
    const e = await failure(withImpl(() => Promise.reject(new Error('nope'))));
    expect(e.kind).toBe('Host');
    expect(e.message).toContain('nope');
  });

  it('a result that does not fit the signature is a host error', async () => {
    expect((await failure(withImpl(() => 'text'))).kind).toBe('Host');
    expect((await failure(withImpl(() => [1n, 2n]))).message).toContain('returned 2 value(s)');
    expect((await failure(withImpl(() => Value.f64(1)))).kind).toBe('Host');
    expect((await failure(withImpl(() => 1.5))).kind).toBe('Host');
  });

  it('HostTrap makes the guest trap', async () => {
    const e = await failure(withImpl(() => {
      throw new HostTrap('bad request from the guest');
    }));
    expect(e.kind).toBe('Trap');
    expect(e.message).toBe('guest trap: bad request from the guest');
  });

  it('a bad guest pointer (GuestMemoryError) makes the guest trap', async () => {
    const host = HostAbi.denyAll().allowFunction('env', 'read', { params: ['i32'], results: ['i32'] }, ([ptr], call) => call.memory!.read(ptr as number, 4)[0]!);
    const wat = `(module (import "env" "read" (func $r (param i32) (result i32))) (memory (export "memory") 1)
      (func (export "run") (param i32) (result i32) (call $r (local.get 0))))`;
    const e = await failure(new Sandbox(host).run(wat, 'run', [Value.i32(65534)]));
    expect(e.kind).toBe('Trap');
    expect(e.message).toContain('out of bounds');
    expect(e.cause).toBeInstanceOf(GuestMemoryError);
  });

  it('a SandboxError thrown by the function ends the run with that error', async () => {
    const e = await failure(withImpl(() => {
      throw SandboxError.export('custom');
    }));
    expect(e.message).toBe('export error: custom');
  });

  it('time inside a host function consumes no fuel', async () => {
    const busy = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, () => undefined)
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, () => {
        const end = performance.now() + 20;
        while (performance.now() < end);
        return 0n;
      });
    const quick = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, () => undefined)
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, () => 0n);
    const a = await new Sandbox(busy).run(calls, 'twice', [Value.i64(1n)]);
    const b = await new Sandbox(quick).run(calls, 'twice', [Value.i64(1n)]);
    expect(a.fuelConsumed).toBe(b.fuelConsumed);
    expect(a.fuelConsumed).toBe(3);
  });

  describe.each(['interpreter', 'eager'] as const)('a host call that outlasts the deadline (%s): the run goes on to its next check point, as in wasmtime', (tier) => {
    // The deadline passes inside the host call; the driver sees it only once the slice ends,
    // and wasmtime's guest would go on to the next function entry or loop header before it trapped.
    const host = HostAbi.denyAll().allowFunction('env', 'busy', { params: ['i64'], results: ['i64'] }, ([x]) => {
      const end = performance.now() + 60;
      while (performance.now() < end);
      return (x as bigint) * 2n;
    });
    const after = (rest: string) => `(module (import "env" "busy" (func $busy (param i64) (result i64)))
      (func (export "f") (result i64) (local i64) (local.set 0 (call $busy (i64.const 21))) ${rest}))`;
    const run = (rest: string) => new Sandbox(host, { tier }).run(after(rest), 'f', [], { timeoutMs: 20 });

    it('a guest that returns then completes', async () => {
      expect((await run('(local.get 0)')).values.map(String)).toEqual(['I64(42)']);
    });

    it('a guest that reaches `unreachable` first traps there', async () => {
      const e = await failure(run('unreachable'));
      expect(e.kind).toBe('Trap');
    });

    it('so does a guest whose asynchronous call settles after work outlasting the deadline', async () => {
      // The promise settles after 60 ms of work in a microtask, before any timer can fire: the
      // call is no longer in flight when the deadline is seen, and the run goes on as above.
      const slow = HostAbi.denyAll().allowFunction('env', 'busy', { params: ['i64'], results: ['i64'] }, ([x]) =>
        Promise.resolve().then(() => {
          const end = performance.now() + 60;
          while (performance.now() < end);
          return (x as bigint) * 2n;
        }));
      const out = await new Sandbox(slow, { tier }).run(after('(local.get 0)'), 'f', [], { timeoutMs: 20 });
      expect(out.values.map(String)).toEqual(['I64(42)']);
    });

    it('a guest that loops ends with Timeout at the loop header, with the fuel it had there', async () => {
      const trapped = await failure(run('unreachable'));
      const e = await failure(run('(loop $l (local.set 0 (i64.add (local.get 0) (i64.const 1))) (br $l)) (local.get 0)'));
      expect(e.kind).toBe('Timeout');
      expect(e.fuelConsumed).toBe(trapped.fuelConsumed);
    });

    it('a guest that calls into a loop meets the deadline at its header, before its body runs again', async () => {
      // No fuel is charged between the call and the header (drop and loop cost none): the run
      // goes on with no fuel at all, not one.
      let ticks = 0;
      const counting = HostAbi.denyAll()
        .allowFunction('env', 'busy', { params: ['i64'], results: ['i64'] }, ([x]) => {
          const end = performance.now() + 60;
          while (performance.now() < end);
          return x;
        })
        .allowFunction('env', 'tick', { params: [], results: [] }, () => {
          ticks++;
        });
      const wat = `(module (import "env" "busy" (func $busy (param i64) (result i64))) (import "env" "tick" (func $tick))
        (func (export "f") (drop (call $busy (i64.const 21))) (loop $l (call $tick) (br $l))))`;
      const e = await failure(new Sandbox(counting, { tier }).run(wat, 'f', [], { timeoutMs: 20 }));
      expect(e.kind).toBe('Timeout');
      expect(ticks).toBe(0);
    });

    it('an abort after the deadline has passed leaves the run to end by its deadline', async () => {
      const controller = new AbortController();
      const aborting = HostAbi.denyAll()
        .allowFunction('env', 'busy', { params: ['i64'], results: ['i64'] }, ([x]) => {
          const end = performance.now() + 60;
          while (performance.now() < end);
          return x;
        })
        .allowFunction('env', 'abort', { params: [], results: [] }, () => controller.abort());
      const wat = `(module (import "env" "busy" (func $busy (param i64) (result i64))) (import "env" "abort" (func $abort))
        (func (export "f") (drop (call $busy (i64.const 21))) (call $abort) (loop $l (br $l))))`;
      const e = await failure(new Sandbox(aborting, { tier }).run(wat, 'f', [], { timeoutMs: 20 }, { signal: controller.signal }));
      expect(e.kind).toBe('Timeout');
    });

    it('a guest that goes on to an asynchronous call ends there if it is in flight, and goes on past it if it has settled', async () => {
      // The run reaches the second call past its deadline, its listener having let it go on.
      const then = (second: () => unknown) => HostAbi.denyAll()
        .allowFunction('env', 'busy', { params: ['i64'], results: ['i64'] }, ([x]) => {
          const end = performance.now() + 60;
          while (performance.now() < end);
          return x;
        })
        .allowFunction('env', 'then', { params: ['i64'], results: ['i64'] }, second as () => Promise<bigint>);
      const wat = `(module (import "env" "busy" (func $busy (param i64) (result i64))) (import "env" "then" (func $then (param i64) (result i64)))
        (func (export "f") (result i64) (call $then (call $busy (i64.const 21)))))`;
      const started = performance.now();
      const e = await failure(new Sandbox(then(() => new Promise(() => {})), { tier }).run(wat, 'f', [], { timeoutMs: 20 }));
      expect(e.kind).toBe('Timeout');
      expect(performance.now() - started).toBeLessThan(1000);
      const out = await new Sandbox(then(() => Promise.resolve(42n)), { tier }).run(wat, 'f', [], { timeoutMs: 20 });
      expect(out.values.map(String)).toEqual(['I64(42)']);
    });

    it('host calls with no check point between them end a few milliseconds past the deadline, not after them all', async () => {
      // 500 calls of 2 ms in straight-line code: a second in all, past a deadline of 20 ms.
      const slow = HostAbi.denyAll().allowFunction('env', 'tick', { params: [], results: [] }, () => {
        const end = performance.now() + 2;
        while (performance.now() < end);
      });
      const wat = `(module (import "env" "tick" (func $t)) (func (export "f") ${'call $t '.repeat(500)}))`;
      const started = performance.now();
      const e = await failure(new Sandbox(slow, { tier }).run(wat, 'f', [], { timeoutMs: 20 }));
      expect(e.kind).toBe('Timeout');
      expect(performance.now() - started).toBeLessThan(150);
    });
  });

  it('the deadline bounds a pending asynchronous call, and its signal is aborted', async () => {
    let signal: AbortSignal | null = null;
    const host = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, (_args, call) => {
        signal = call.signal;
        return new Promise<void>(() => {}); // never settles
      })
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, () => 0n);
    const start = performance.now();
    const e = await failure(new Sandbox(host).run(calls, 'run', [], { timeoutMs: 50 }));
    const elapsed = performance.now() - start;
    expect(e.kind).toBe('Timeout');
    expect(e.millis).toBe(50);
    expect(elapsed).toBeLessThan(50 + 400);
    expect(signal!.aborted).toBe(true);
  });

  it('the deadline bounds a guest looping over a slow synchronous call', async () => {
    const host = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, () => {
        const end = performance.now() + 2;
        while (performance.now() < end);
      })
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, () => 0n);
    const start = performance.now();
    const e = await failure(new Sandbox(host).run(calls, 'run', [], { timeoutMs: 60, fuel: 1e12 }));
    expect(e.kind).toBe('Timeout');
    expect(performance.now() - start).toBeLessThan(60 + 400);
    expect(e.fuelConsumed).toBeLessThan(1000); // almost all of the time was in the host
  });

  it('a host call’s memory is unusable once its run has ended', async () => {
    let late: (() => void) | null = null;
    const host = HostAbi.denyAll()
      .allowFunction('env', 'slow', { params: [], results: [] }, (_args, call) => {
        late = () => call.memory!.write(0, [0xff]);
        return new Promise<void>(() => {});
      })
      .allowFunction('env', 'twice', { params: ['i64'], results: ['i64'] }, () => 0n);
    const wat = `(module (import "env" "slow" (func $s)) (import "env" "twice" (func $t (param i64) (result i64)))
      (memory (export "memory") 1) (func (export "wait") (call $s)) (func (export "peek") (result i32) (i32.load8_u (i32.const 0))))`;
    const instance = await new Sandbox(host).instantiate(wat, { timeoutMs: 20 });
    expect((await failure(instance.call('wait'))).kind).toBe('Timeout');
    expect(() => late!()).toThrow(GuestMemoryError);
    expect((await instance.call('peek')).values[0]!.value).toBe(0);
  });

  it('a re-exported host function can be called directly', async () => {
    const host = HostAbi.denyAll().allowRandom(42);
    const out = await new Sandbox(host).run('(module (import "host" "random" (func $r (result i64))) (export "r" (func $r)))', 'r', []);
    expect(out.values.map(String)).toEqual(['I64(-4767286540954276203)']);
  });

  it('an ungranted import is refused before any code runs, naming the first one', async () => {
    const host = HostAbi.denyAll().allowFunction('env', 'slow', { params: [], results: [] }, () => undefined);
    const e = await failure(new Sandbox(host).run(calls, 'run', []));
    expect(e.kind).toBe('DisallowedImport');
    expect(e.message).toBe('disallowed import: the module imports `env::twice` which is not on the allow-list');
    expect(e.fuelConsumed).toBe(0);
  });
});
