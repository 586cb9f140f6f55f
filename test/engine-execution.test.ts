/**
 * Resumable executions (execution.ts): fuel slices and 'paused', asynchronous host functions
 * and 'pending', host exceptions, epoch interruption, the call-depth and stack limits.
 */
import { describe, expect, it } from 'vitest';
import { type Loaded, i32, i64, load, trapOf } from './helpers/engine-oracle.js';
import {
  type Execution, GlobalInst, invoke, invokeSync, type Store, Trap, TrapKind, WasmValue,
} from '../src/interpreter/index.js';
import { I32, I64 } from '../src/interpreter/types.js';
import { MAX_SLICE_FUEL } from '../src/interpreter/interpreter.js';

const LOOPS = `(module
  (global $g (export "g") (mut i32) (i32.const 0))
  (func (export "forever") (loop $l global.get $g i32.const 1 i32.add global.set $g br $l))
  (func (export "sum") (param $n i32) (result i64) (local $acc i64)
    (block $d (loop $l
      local.get $n i32.eqz br_if $d
      local.get $acc local.get $n i64.extend_i32_u i64.const 2654435761 i64.mul i64.xor
      i64.const 7 i64.rotl local.set $acc
      local.get $n i32.const 1 i32.sub local.set $n
      br $l))
    local.get $acc)
  (func $fib (export "fib") (param $n i32) (result i32)
    local.get $n i32.const 2 i32.lt_u
    (if (result i32) (then local.get $n)
      (else local.get $n i32.const 1 i32.sub call $fib local.get $n i32.const 2 i32.sub call $fib i32.add)))
)`;

/** Drives an execution to completion, counting the pauses. */
function drive(ex: Execution): number {
  let pauses = 0;
  for (;;) {
    const s = ex.resume();
    if (s === 'done') return pauses;
    expect(s).toBe('paused');
    pauses++;
  }
}

describe('fuel slices', () => {
  it('an infinite loop returns paused again and again, spending about one slice each time', async () => {
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('forever'), []);
    ex.sliceFuel = 1000;
    let before = m.store.fuel;
    for (let k = 0; k < 20; k++) {
      expect(ex.resume()).toBe('paused');
      const spent = before - m.store.fuel;
      expect(spent).toBeGreaterThanOrEqual(1000);
      expect(spent).toBeLessThan(1000 + 10);
      before = m.store.fuel;
    }
    // 5 operators per iteration; the global shows the loop made progress in every slice.
    const g = (m.instance.exports.get('g') as GlobalInst).value.asI32;
    expect(g).toBeGreaterThan(20 * 1000 / 5 - 5);
  });

  it('an unbounded slice is cut at MAX_SLICE_FUEL, and the fuel stays exact', async () => {
    // runLoop counts a slice's fuel as a small integer, so no slice may exceed 2^30.
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('forever'), []);
    ex.sliceFuel = Infinity;
    const before = m.store.fuel;
    expect(ex.resume()).toBe('paused');
    const spent = before - m.store.fuel;
    expect(spent).toBeGreaterThanOrEqual(MAX_SLICE_FUEL);
    expect(spent).toBeLessThan(MAX_SLICE_FUEL + 10);
    expect(Number.isInteger(m.store.fuel)).toBe(true);
  });

  it('an infinite loop with finite fuel: pauses, then traps with OutOfFuel', async () => {
    const m = await load(LOOPS);
    m.store.fuel = 10_500;
    const ex = invoke(m.store, m.func('forever'), []);
    ex.sliceFuel = 1000;
    let pauses = 0;
    const trap = trapOf(() => {
      while (ex.resume() === 'paused') pauses++;
    });
    expect(trap.kind).toBe(TrapKind.OutOfFuel);
    expect(pauses).toBe(10);
    expect(m.store.fuel).toBeLessThanOrEqual(0);
  });

  it('a long computation paused many times gives the same result and fuel as one run', async () => {
    const one = await load(LOOPS);
    const whole = invokeSync(one.store, one.func('sum'), [i32(20_000)]);
    const fuelWhole = Number.MAX_SAFE_INTEGER - one.store.fuel;

    for (const slice of [1, 7, 1000, 12_345]) {
      const m = await load(LOOPS);
      const ex = invoke(m.store, m.func('sum'), [i32(20_000)]);
      ex.sliceFuel = slice;
      const pauses = drive(ex);
      expect(ex.results).toEqual(whole);
      expect(Number.MAX_SAFE_INTEGER - m.store.fuel).toBe(fuelWhole);
      expect(pauses).toBeGreaterThanOrEqual(Math.floor(fuelWhole / (slice + 20)) - 1);
    }
  });

  it('pausing inside deep recursion (at function entries) keeps the result and the fuel', async () => {
    const one = await load(LOOPS);
    const whole = invokeSync(one.store, one.func('fib'), [i32(18)]);
    const fuelWhole = Number.MAX_SAFE_INTEGER - one.store.fuel;
    expect(whole).toEqual([i32(2584)]);
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('fib'), [i32(18)]);
    ex.sliceFuel = 3;
    expect(drive(ex)).toBeGreaterThan(1000);
    expect(ex.results).toEqual(whole);
    expect(Number.MAX_SAFE_INTEGER - m.store.fuel).toBe(fuelWhole);
  });

  it('a chain of returns past the slice\'s deadline pauses at a return, and keeps the result and the fuel', async () => {
    // 12,000 frames, then the host at the bottom; the returns from there pass no check point.
    const DEPTH = 12_000;
    const src = `(module (import "env" "bottom" (func $bottom))
      (func $down (export "down") (param $d i32) (result i32)
        (if (result i32) (i32.eqz (local.get $d))
          (then (call $bottom) (i32.const 0))
          (else (i32.add (call $down (i32.sub (local.get $d) (i32.const 1))) (local.get $d))))))`;
    let reached = false;
    const imports = (store: Store) => ({
      'env.bottom': store.createHostFunction({ params: [], results: [] }, () => {
        reached = true;
        return [];
      }),
    });
    const one = await load(src, imports, { jitThreshold: Infinity });
    const whole = invokeSync(one.store, one.func('down'), [i32(DEPTH)]);
    const fuelWhole = Number.MAX_SAFE_INTEGER - one.store.fuel;
    expect(whole).toEqual([i32((DEPTH * (DEPTH + 1)) / 2)]);

    const m = await load(src, imports, { jitThreshold: Infinity });
    reached = false;
    const ex = invoke(m.store, m.func('down'), [i32(DEPTH)]);
    ex.sliceFuel = MAX_SLICE_FUEL;
    while (!reached) expect(ex.resume()).toBe('paused'); // a host call pauses after it
    const deepest = ex.fsp;
    ex.sliceDeadline = 0; // long past
    expect(ex.resume()).toBe('paused');
    expect(ex.fsp).toBeLessThan(deepest); // some returns done...
    expect(ex.fsp).toBeGreaterThan(3 * 1000); // ...and paused far from the bottom frame
    ex.sliceDeadline = Infinity;
    expect(ex.resume()).toBe('done');
    expect(ex.results).toEqual(whole);
    expect(Number.MAX_SAFE_INTEGER - m.store.fuel).toBe(fuelWhole);
  });

  it('the slice may change between resumes', async () => {
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('sum'), [i32(5000)]);
    let s: string;
    let k = 0;
    do {
      ex.sliceFuel = [5, 500, 50_000, 1][k++ % 4]!;
      s = ex.resume();
    } while (s !== 'done');
    const ref = await load(LOOPS);
    expect(ex.results).toEqual(ref.call('sum', [i32(5000)]));
  });

  it('two executions in one store, interleaved', async () => {
    const m = await load(LOOPS);
    const a = invoke(m.store, m.func('sum'), [i32(3000)]);
    const b = invoke(m.store, m.func('fib'), [i32(15)]);
    a.sliceFuel = 97;
    b.sliceFuel = 61;
    let da = false;
    let db = false;
    while (!da || !db) {
      if (!da) da = a.resume() === 'done';
      if (!db) db = b.resume() === 'done';
    }
    const ref = await load(LOOPS);
    expect(a.results).toEqual(ref.call('sum', [i32(3000)]));
    expect(b.results).toEqual([i32(610)]);
  });

  it('resume() after done keeps returning done with the same results', async () => {
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('fib'), [i32(10)]);
    expect(ex.resume()).toBe('done');
    expect(ex.resume()).toBe('done');
    expect(ex.results).toEqual([i32(55)]);
  });
});

describe('host functions', () => {
  const HOST = `(module
    (import "env" "add" (func $add (param i32 i64) (result i64)))
    (import "env" "pair" (func $pair (param i32) (result i32 i32)))
    (import "env" "boom" (func $boom (param i32)))
    (global $g (export "g") (mut i32) (i32.const 0))
    (func (export "use_add") (param i32) (result i64) (local $k i32) (local $acc i64)
      (loop $l
        local.get $k local.get $acc call $add local.set $acc
        local.get $k i32.const 1 i32.add local.tee $k
        local.get 0 i32.lt_u br_if $l)
      local.get $acc)
    (func (export "use_pair") (param i32) (result i32)
      local.get 0 call $pair i32.sub)
    (func (export "boom") (param i32) (result i32)
      i32.const 1 global.set $g
      local.get 0 call $boom
      i32.const 2 global.set $g
      i32.const 42)
    (func $deep (export "deep") (param $n i32) (result i32)
      local.get $n i32.eqz
      (if (result i32) (then i32.const 5 call $pair i32.add)
        (else local.get $n i32.const 1 i32.sub call $deep i32.const 1 i32.add)))
  )`;

  function setup(async: boolean, calls: string[] = []): Promise<Loaded> {
    return load(HOST, (store) => ({
      'env.add': store.createHostFunction({ params: [I32, I64], results: [I64] }, ([a, b]) => {
        calls.push(`add(${a!.asI32}, ${b!.asI64})`);
        const r = [i64(b!.asI64 + BigInt(a!.asI32))];
        return async ? Promise.resolve(r) : r;
      }),
      'env.pair': store.createHostFunction({ params: [I32], results: [I32, I32] }, ([a]) => {
        const r = [i32(a!.asI32 * 10), i32(a!.asI32)];
        return async ? new Promise((resolve) => setTimeout(() => resolve(r), 1)) : r;
      }),
      'env.boom': store.createHostFunction({ params: [I32], results: [] }, ([a]) => {
        const e = new Error(`boom ${a!.asI32}`);
        if (async) return Promise.reject(e);
        throw e;
      }),
    }));
  }

  it('synchronous host functions: each call pauses, results come back', async () => {
    const calls: string[] = [];
    const m = await setup(false, calls);
    const ex = invoke(m.store, m.func('use_add'), [i32(4)]);
    expect(drive(ex)).toBe(4); // one pause after each host call
    expect(ex.results).toEqual([i64(0 + 1 + 2 + 3)]);
    expect(calls).toEqual(['add(0, 0)', 'add(1, 0)', 'add(2, 1)', 'add(3, 3)']);
    expect(m.call('use_pair', [i32(3)])).toEqual([i32(27)]);
    expect(m.call('deep', [i32(300)])).toEqual([i32(355)]);
  });

  it('an asynchronous host function yields pending; resume() delivers its result', async () => {
    const m = await setup(true);
    const ex = invoke(m.store, m.func('use_pair'), [i32(7)]);
    expect(ex.resume()).toBe('pending');
    expect(ex.pending).toBeInstanceOf(Promise);
    expect(ex.resume()).toBe('pending'); // not settled yet
    await ex.pending;
    expect(ex.resume()).toBe('done');
    expect(ex.results).toEqual([i32(63)]);
  });

  it('many asynchronous calls in a loop and deep in the call stack', async () => {
    const m = await setup(true);
    const run = async (name: string, args: WasmValue[]): Promise<WasmValue[]> => {
      const ex = invoke(m.store, m.func(name), args);
      for (;;) {
        const s = ex.resume();
        if (s === 'done') return ex.results;
        if (s === 'pending') await ex.pending;
      }
    };
    expect(await run('use_add', [i32(50)])).toEqual([i64(1225)]);
    expect(await run('deep', [i32(500)])).toEqual([i32(555)]);
  });

  it('invokeSync refuses an asynchronous host function', async () => {
    const m = await setup(true);
    expect(() => invokeSync(m.store, m.func('use_pair'), [i32(1)])).toThrow(TypeError);
  });

  it('a synchronous host exception propagates unchanged', async () => {
    const m = await setup(false);
    const ex = invoke(m.store, m.func('boom'), [i32(9)]);
    let caught: unknown;
    try {
      drive(ex);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught).not.toBeInstanceOf(Trap);
    expect((caught as Error).message).toBe('boom 9');
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(1));
  });

  it('an asynchronous host rejection is rethrown by the next resume()', async () => {
    const m = await setup(true);
    const ex = invoke(m.store, m.func('boom'), [i32(3)]);
    expect(ex.resume()).toBe('pending');
    await ex.pending;
    expect(() => ex.resume()).toThrow('boom 3');
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(1));
  });

  it('a host function invoked directly, synchronously and asynchronously', async () => {
    const m = await setup(false);
    let callerInstance: unknown = 'unset';
    const f = m.store.createHostFunction({ params: [I32], results: [I32] }, ([x], caller) => {
      callerInstance = caller.instance;
      return [i32(x!.asI32 * 2)];
    });
    expect(invokeSync(m.store, f, [i32(21)])).toEqual([i32(42)]);
    expect(callerInstance).toBeNull();
    const g = m.store.createHostFunction({ params: [], results: [I64] }, () => Promise.resolve([i64(-1n)]));
    const ex = invoke(m.store, g, []);
    expect(ex.resume()).toBe('pending');
    await ex.pending;
    expect(ex.resume()).toBe('done');
    expect(ex.results).toEqual([i64(-1n)]);
  });

  it('a host function returning the wrong results is an error, not a silent corruption', async () => {
    const m = await load(`(module (import "env" "bad" (func $b (result i32))) (func (export "f") (result i32) call $b))`, (store) => ({
      'env.bad': store.createHostFunction({ params: [], results: [I32] }, () => [i64(1n)]),
    }));
    expect(() => m.call('f')).toThrow(TypeError);
  });

  it('the caller passed to a host function is the calling instance', async () => {
    let seen: unknown = 'unset';
    const m = await load(`(module (import "env" "who" (func $w)) (func (export "f") call $w))`, (store) => ({
      'env.who': store.createHostFunction({ params: [], results: [] }, (_args, caller) => {
        seen = caller.instance;
        return [];
      }),
    }));
    m.call('f');
    expect(seen).toBe(m.instance);
  });

  it('invoke checks the argument count and types', async () => {
    const m = await load(LOOPS);
    expect(() => invoke(m.store, m.func('fib'), [])).toThrow(TypeError);
    expect(() => invoke(m.store, m.func('fib'), [i64(1n)])).toThrow(TypeError);
    expect(() => invoke(m.store, m.func('fib'), [i32(1), i32(2)])).toThrow(TypeError);
  });
});

describe('epoch interruption', () => {
  it('incrementEpoch past the deadline makes the next resume throw Interrupt', async () => {
    const m = await load(LOOPS);
    const ex = invoke(m.store, m.func('forever'), []);
    ex.sliceFuel = 1000;
    expect(ex.resume()).toBe('paused');
    m.store.epochDeadline = m.engine.epoch + 1;
    expect(ex.resume()).toBe('paused'); // deadline not reached yet
    m.engine.incrementEpoch();
    expect(trapOf(() => ex.resume()).kind).toBe(TrapKind.Interrupt);
  });

  it('a deadline already passed stops an execution before it starts', async () => {
    const m = await load(LOOPS);
    m.store.epochDeadline = m.engine.epoch;
    expect(trapOf(() => m.call('fib', [i32(3)])).kind).toBe(TrapKind.Interrupt);
  });

  it('a host function that advances the epoch interrupts its caller at the next check point, not when it returns (as in wasmtime)', async () => {
    let m!: Loaded;
    m = await load(`(module (import "env" "tick" (func $t)) (global $g (export "g") (mut i32) (i32.const 0))
      (func (export "f") call $t i32.const 1 global.set $g)
      (func (export "then_loop") call $t i32.const 2 global.set $g (loop $l (br $l)))
      (func (export "then_call") call $t i32.const 3 global.set $g call $sub i32.const 4 global.set $g)
      (func $sub))`, (store) => ({
      'env.tick': store.createHostFunction({ params: [], results: [] }, () => {
        m.engine.incrementEpoch();
        return [];
      }),
    }));
    // No check point after the call: the caller runs to its end.
    m.store.epochDeadline = m.engine.epoch + 1;
    m.call('f');
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(1));
    // The loop's header is one: the caller traps there, its global written.
    m.store.epochDeadline = m.engine.epoch + 1;
    expect(trapOf(() => m.call('then_loop')).kind).toBe(TrapKind.Interrupt);
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(2));
    // So is a callee's entry (wasmtime's tests/all/epoch_interruption.rs, epoch_yield_at_func_entry).
    m.store.epochDeadline = m.engine.epoch + 1;
    expect(trapOf(() => m.call('then_call')).kind).toBe(TrapKind.Interrupt);
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(3));
  });

  it('an engine shared by two stores interrupts both', async () => {
    const a = await load(LOOPS);
    const { Store, instantiate, compileModule } = await import('../src/interpreter/index.js');
    const storeB = new Store(a.engine);
    const instB = instantiate(storeB, compileModule(await (await import('./helpers/engine-oracle.js')).assemble(LOOPS)), () => undefined);
    const exA = invoke(a.store, a.func('forever'), []);
    const exB = invoke(storeB, instB.exports.get('forever') as ReturnType<typeof a.func>, []);
    exA.sliceFuel = exB.sliceFuel = 100;
    a.store.epochDeadline = storeB.epochDeadline = a.engine.epoch + 2;
    expect(exA.resume()).toBe('paused');
    expect(exB.resume()).toBe('paused');
    a.engine.incrementEpoch();
    expect(exA.resume()).toBe('paused');
    a.engine.incrementEpoch();
    expect(trapOf(() => exA.resume()).kind).toBe(TrapKind.Interrupt);
    expect(trapOf(() => exB.resume()).kind).toBe(TrapKind.Interrupt);
  });
});

describe('stack limits', () => {
  const REC = `(module
    (func $r (export "r") (param $n i32) (result i32)
      local.get $n i32.eqz
      (if (result i32) (then i32.const 0)
        (else local.get $n i32.const 1 i32.sub call $r i32.const 1 i32.add)))
    (func $big (export "big") (param $n i32) (result i32)
      (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
             i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
             i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
             i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
             i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
      local.get $n i32.eqz
      (if (result i32) (then i32.const 0)
        (else local.get $n i32.const 1 i32.sub call $big i32.const 1 i32.add)))
    (func $inf (export "inf") call $inf)
    (func $mutual_a (export "mutual") (param i64) (result i64)
      local.get 0 i64.const 1 i64.add call $mutual_b)
    (func $mutual_b (param i64) (result i64)
      local.get 0 i64.const 1 i64.add call $mutual_a)
  )`;

  const stackTrap = (fn: () => unknown): Trap => {
    let caught: unknown;
    try {
      fn();
    } catch (e) {
      caught = e;
    }
    // A JavaScript RangeError ("Maximum call stack size exceeded") would mean the
    // interpreter recursed on the host stack.
    expect(caught).not.toBeInstanceOf(RangeError);
    expect(caught).toBeInstanceOf(Trap);
    return caught as Trap;
  };

  it('recursion 1e6 deep traps with StackOverflow, never a RangeError', async () => {
    const m = await load(REC);
    expect(stackTrap(() => m.call('r', [i32(1_000_000)])).kind).toBe(TrapKind.StackOverflow);
    expect(stackTrap(() => m.call('inf')).kind).toBe(TrapKind.StackOverflow);
    expect(stackTrap(() => m.call('mutual', [i64(0n)])).kind).toBe(TrapKind.StackOverflow);
  });

  it('big frames trap on the value-stack limit, not a JavaScript error', async () => {
    const m = await load(REC);
    expect(stackTrap(() => m.call('big', [i32(1_000_000)])).kind).toBe(TrapKind.StackOverflow);
    expect(m.call('big', [i32(1000)])).toEqual([i32(1000)]);
  });

  it('a growing stack is copied and zeroed in pieces, the run pausing between them: every caller\'s frame intact, the fuel the same', async () => {
    // Each frame holds a value through its call, among 100 unused i64 locals: 3,000 of them
    // take the stack to 2.5 MB, each growth's copy done in pieces of 4 KiB.
    const src = `(module (func $d (export "d") (param $n i32) (result i64) (local $x i64) ${'(local i64)'.repeat(100)}
      (if (i32.eqz (local.get $n)) (then (return (i64.const 0))))
      (local.set $x (i64.mul (i64.extend_i32_u (local.get $n)) (i64.const 0x9e3779b97f4a7c15)))
      (i64.add (call $d (i32.sub (local.get $n) (i32.const 1))) (i64.xor (local.get $x) (i64.extend_i32_u (local.get $n))))))`;
    const one = await load(src, undefined, { jitThreshold: Infinity });
    const whole = invokeSync(one.store, one.func('d'), [i32(3000)]);
    const fuelWhole = Number.MAX_SAFE_INTEGER - one.store.fuel;
    let expected = 0n;
    for (let n = 1n; n <= 3000n; n++) expected = BigInt.asIntN(64, expected + (BigInt.asUintN(64, n * 0x9e3779b97f4a7c15n) ^ n));
    expect(whole).toEqual([i64(expected)]);
    const m = await load(src, undefined, { jitThreshold: Infinity });
    const ex = invoke(m.store, m.func('d'), [i32(3000)]);
    ex.sliceFuel = MAX_SLICE_FUEL;
    let pauses = 0;
    for (;;) {
      ex.meter.pieceBytes = 4096;
      if (ex.resume() === 'done') break;
      pauses++;
    }
    expect(ex.results).toEqual(whole);
    expect(Number.MAX_SAFE_INTEGER - m.store.fuel).toBe(fuelWhole);
    expect(pauses).toBeGreaterThan(2_500_000 / 4096);
  });

  it('recursion within the default depth works, and the store is usable after an overflow', async () => {
    const m = await load(REC);
    expect(m.call('r', [i32(10_000)])).toEqual([i32(10_000)]);
    expect(stackTrap(() => m.call('r', [i32(100_000)])).kind).toBe(TrapKind.StackOverflow);
    expect(m.call('r', [i32(19_000)])).toEqual([i32(19_000)]);
  });

  it('maxCallDepth bounds the depth', async () => {
    const m = await load(REC, undefined, { maxCallDepth: 1000 });
    expect(m.call('r', [i32(900)])).toEqual([i32(900)]);
    expect(stackTrap(() => m.call('r', [i32(1100)])).kind).toBe(TrapKind.StackOverflow);
  });

  it('a small maxCallDepth is enforced too', async () => {
    // Regression: the frame array started with room for 64 frames and the limit was only
    // checked when it grew, so any maxCallDepth below 63 allowed 63 nested calls.
    const m = await load(REC, undefined, { maxCallDepth: 10 });
    expect(m.call('r', [i32(5)])).toEqual([i32(5)]);
    expect(stackTrap(() => m.call('r', [i32(50)])).kind).toBe(TrapKind.StackOverflow);
  });

  it('deep recursion with pauses at every few calls', async () => {
    const m = await load(REC);
    const ex = invoke(m.store, m.func('r'), [i32(15_000)]);
    ex.sliceFuel = 50;
    expect(drive(ex)).toBeGreaterThan(100);
    expect(ex.results).toEqual([i32(15_000)]);
  });
});

describe('fuel and re-entrancy around host calls', () => {
  const SRC = `(module
    (import "env" "h" (func $h))
    (func (export "f") call $h)
    (func (export "work") (local i32)
      i32.const 100 local.set 0
      (loop $l local.get 0 i32.const 1 i32.sub local.tee 0 br_if $l)))`;

  it('a host function may re-enter the store with invokeSync', async () => {
    let m!: Loaded;
    m = await load(SRC, (store) => ({
      'env.h': store.createHostFunction({ params: [], results: [] }, () => {
        invokeSync(store, m.func('work'), []);
        return [];
      }),
    }));
    expect(m.call('f')).toEqual([]);
  });

  it('fuel spent by a re-entrant call during a host call is not refunded', async () => {
    // Regression: the dispatch loop wrote its local fuel counter back to store.fuel after the
    // host call returned, discarding whatever happened to store.fuel meanwhile.
    let m!: Loaded;
    m = await load(SRC, (store) => ({
      'env.h': store.createHostFunction({ params: [], results: [] }, () => {
        invokeSync(store, m.func('work'), []);
        return [];
      }),
    }));
    m.store.fuel = 100_000;
    m.call('work');
    const work = 100_000 - m.store.fuel; // 1 + 2 + 100 * 5 = 503
    expect(work).toBe(503);
    m.store.fuel = 100_000;
    m.call('f');
    // f: invocation 1 + call 1, plus the nested work.
    expect(100_000 - m.store.fuel).toBe(2 + work);
  });

  it('a host function that adds fuel to the store keeps it', async () => {
    const m = await load(`(module (import "env" "refuel" (func $r)) (func (export "f") (result i32) (local i32)
      call $r
      (loop $l local.get 0 i32.const 1 i32.add local.tee 0 i32.const 200 i32.lt_u br_if $l)
      local.get 0))`, (store) => ({
      'env.refuel': store.createHostFunction({ params: [], results: [] }, () => {
        store.fuel += 10_000;
        return [];
      }),
    }));
    m.store.fuel = 100;
    expect(m.call('f')).toEqual([i32(200)]);
  });
});

describe('an execution that stopped cannot be resumed', () => {
  // Regression: after a trap or a host exception the Execution was not marked as ended; a
  // later resume() continued from the last saved state (after a host exception, as if the
  // host function had returned whatever was in its argument slots).
  it('resume() after a trap throws again instead of continuing', async () => {
    const m = await load(LOOPS);
    m.store.fuel = 5000;
    const ex = invoke(m.store, m.func('forever'), []);
    ex.sliceFuel = 1000;
    trapOf(() => {
      while (ex.resume() === 'paused');
    });
    m.store.fuel = 1_000_000;
    expect(() => ex.resume()).toThrow();
  });

  it('resume() after a host exception does not run the rest of the function', async () => {
    const m = await load(`(module (import "env" "boom" (func $b))
      (global $g (export "g") (mut i32) (i32.const 0))
      (func (export "f") (result i32) call $b i32.const 1 global.set $g i32.const 42))`, (store) => ({
      'env.boom': store.createHostFunction({ params: [], results: [] }, () => {
        throw new Error('boom');
      }),
    }));
    const ex = invoke(m.store, m.func('f'), []);
    expect(() => ex.resume()).toThrow('boom');
    let status: string | undefined;
    try {
      status = ex.resume();
    } catch {
      status = 'threw';
    }
    expect(status).not.toBe('done');
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(0));
  });
});

describe('values crossing the boundary', () => {
  it('i64 and float arguments and results keep their bits, NaN payloads included', async () => {
    const m = await load(`(module
      (func (export "id") (param i32 i64 f32 f64) (result f64 f32 i64 i32)
        local.get 3 local.get 2 local.get 1 local.get 0))`);
    const args = [i32(-7), i64(-(1n << 63n)), WasmValue.f32Bits(0x7fa00001), WasmValue.f64Bits(0xfff4000000000123n)];
    const r = m.call('id', args);
    expect(r.map((v) => v.type)).toEqual([0x7c, 0x7d, I64, I32]);
    expect(r[0]!.bits64).toBe(0xfff4000000000123n);
    expect(r[1]!.bits32).toBe(0x7fa00001);
    expect(r[2]!.asI64).toBe(-(1n << 63n));
    expect(r[3]!.asI32).toBe(-7);
  });

  it('i32 and f32 values leave the engine with a zero high half, as values.ts documents', async () => {
    // Bug: an i32/f32 result or host argument written over a slot that held an i64/f64 keeps
    // that slot's old high word in WasmValue.hi, so it is not equal to WasmValue.i32(x).
    let seen: WasmValue[] = [];
    const m = await load(`(module (import "env" "h" (func $h (param i32 f32)))
      (func (export "wrap") (param i64) (result i32)
        local.get 0 i64.const 1 i64.add drop
        local.get 0 i32.wrap_i64)
      (func (export "demote") (param f64) (result f32)
        local.get 0 f64.const 1 f64.add drop
        local.get 0 f32.demote_f64)
      (global $g (export "g") (mut i32) (i32.const 0))
      (func (export "setg") (param i64)
        local.get 0 i64.const 1 i64.add drop
        local.get 0 i32.wrap_i64 global.set $g)
      (func (export "host") (param i64 f64)
        local.get 0 i64.const 1 i64.add drop
        local.get 1 f64.const 1 f64.add drop
        local.get 0 i32.wrap_i64 local.get 1 f32.demote_f64 call $h))`, (store) => ({
      'env.h': store.createHostFunction({ params: [I32, 0x7d], results: [] }, (args) => {
        seen = args;
        return [];
      }),
    }));
    expect(m.call('wrap', [i64(0x1234567800000005n)])).toEqual([i32(5)]);
    expect(m.call('demote', [WasmValue.f64(-2.5)])).toEqual([WasmValue.f32(-2.5)]);
    m.call('host', [i64(0x1234567800000005n), WasmValue.f64(0.75)]);
    expect(seen).toEqual([i32(5), WasmValue.f32(0.75)]);
    expect(seen.map((v) => v.hi)).toEqual([0, 0]);
    m.call('setg', [i64(0x1234567800000005n)]);
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(5));
  });
});
