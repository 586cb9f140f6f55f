/**
 * Fuel, under wasmtime's cost model: every executed operator costs 1, except nop, drop, block,
 * loop, unreachable, return, else and end, which cost 0; every function invocation costs 1 more.
 * Each expected amount below is counted by hand in the comments. A check point (function entry,
 * loop header) that finds the fuel <= 0 traps with TrapKind.OutOfFuel.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Loaded, i32, i64, load, trapOf } from './helpers/engine-oracle.js';
import { invoke, invokeSync, Trap, TrapKind, type WasmValue } from '../src/interpreter/index.js';
import { I32 } from '../src/interpreter/types.js';

const SRC = `(module
  (memory 1)
  (global $g (mut i32) (i32.const 0))
  (func $add (export "add") (param i32 i32) (result i32)
    local.get 0      ;; 1
    local.get 1      ;; 1
    i32.add)         ;; 1   + 1 invocation = 4

  (func (export "sum") (param $n i32) (result i32) (local $acc i32)
    (block $done
      (loop $l                   ;; 0
        local.get $n             ;; 1
        i32.eqz                  ;; 1
        br_if $done              ;; 1   (3 on the exit pass)
        local.get $acc           ;; 1
        local.get $n             ;; 1
        i32.add                  ;; 1
        local.set $acc           ;; 1
        local.get $n             ;; 1
        i32.const 1              ;; 1
        i32.sub                  ;; 1
        local.set $n             ;; 1
        br $l))                  ;; 1   = 12 per iteration
    local.get $acc)              ;; 1   total 12n + 3 + 1 + 1 invocation = 12n + 5

  (func (export "brif") (param i32) (result i32)
    (block (result i32)
      i32.const 10               ;; 1
      local.get 0                ;; 1
      br_if 0                    ;; 1
      drop                       ;; 0
      i32.const 20)              ;; 1   (not taken only)
    i32.const 1                  ;; 1
    i32.add)                     ;; 1   taken: 1 + 3 + 2 = 6, not taken: 7

  (func (export "call_add") (param i32) (result i32)
    local.get 0                  ;; 1
    local.get 0                  ;; 1
    call $add                    ;; 1 + 4 in $add
    i32.const 1                  ;; 1
    call $add)                   ;; 1 + 4 in $add  = 1 + 3 + 4 + 2 + 4 = 14

  (func (export "ifelse") (param i32) (result i32)
    local.get 0                  ;; 1
    (if (result i32)             ;; 1
      (then i32.const 1)         ;; 1
      (else                      ;; 0
        i32.const 2              ;; 1
        i32.const 3              ;; 1
        i32.add)))               ;; 1   true: 1 + 3 = 4, false: 1 + 5 = 6

  (func (export "free_ops") (result i32)
    nop nop                      ;; 0
    (block (block nop))          ;; 0
    (loop nop)                   ;; 0
    i32.const 1                  ;; 1
    i32.const 2                  ;; 1
    drop                         ;; 0
    return)                      ;; 0   1 + 2 = 3

  (func (export "unreachable") (result i32)
    i32.const 1                  ;; 1
    drop                         ;; 0
    unreachable)                 ;; 0   1 + 1 = 2, then the trap

  (func (export "brtable") (param i32) (result i32)
    (block $b
      (block $a
        local.get 0              ;; 1
        br_table $a $b $a)       ;; 1
      i32.const 100              ;; 1   ($a only)
      global.set $g)             ;; 1   ($a only)
    i32.const 7)                 ;; 1   $a: 1 + 2 + 2 + 1 = 6, $b: 1 + 2 + 1 = 4

  (func (export "select_mem") (param i32) (result i32)
    i32.const 8                  ;; 1
    local.get 0                  ;; 1
    i32.store                    ;; 1
    i32.const 8                  ;; 1
    i32.load                     ;; 1
    i32.const 5                  ;; 1
    local.get 0                  ;; 1
    select                       ;; 1
    global.get $g                ;; 1
    i32.add                      ;; 1
    local.tee 0                  ;; 1
    memory.size                  ;; 1
    i32.add)                     ;; 1   13 + 1 = 14

  (func $fib (export "fib") (param $n i32) (result i32)
    local.get $n                 ;; 1
    i32.const 2                  ;; 1
    i32.lt_u                     ;; 1
    (if (result i32)             ;; 1
      (then local.get $n)        ;; 1   base case: 1 + 5 = 6
      (else
        local.get $n             ;; 1
        i32.const 1              ;; 1
        i32.sub                  ;; 1
        call $fib                ;; 1
        local.get $n             ;; 1
        i32.const 2              ;; 1
        i32.sub                  ;; 1
        call $fib                ;; 1
        i32.add)))               ;; 1   recursive case: 1 + 4 + 9 = 14 plus the callees

  (func (export "loop_forever")
    (loop $l br $l))             ;; 1 per iteration

  (func $rec (export "recurse_forever")
    call $rec)                   ;; 1 + 1 invocation per level

  (func (export "loop3")
    (loop $l                     ;; 0
      i32.const 1                ;; 1
      drop                       ;; 0
      i32.const 1                ;; 1
      br_if $l))                 ;; 1   3 per iteration
)`;

/** Fuel used by `fib(n)` under the counts in the comments. */
function fibFuel(n: number): number {
  if (n < 2) return 6;
  return 14 + fibFuel(n - 1) + fibFuel(n - 2);
}

describe('fuel accounting (wasmtime model), counted by hand', () => {
  let m: Loaded;
  beforeAll(async () => {
    m = await load(SRC);
  });
  const cost = (name: string, args: WasmValue[] = []): number => {
    m.store.fuel = 1_000_000;
    m.call(name, args);
    return 1_000_000 - m.store.fuel;
  };

  it('add(a, b) costs 4: three operators and the invocation', () => {
    expect(cost('add', [i32(1), i32(2)])).toBe(4);
  });

  it('a counted loop costs 12 per iteration plus 5', () => {
    for (const n of [0, 1, 2, 10, 1000]) expect(cost('sum', [i32(n)])).toBe(12 * n + 5);
  });

  it('br_if costs 1 whether taken or not', () => {
    expect(cost('brif', [i32(1)])).toBe(6);
    expect(cost('brif', [i32(0)])).toBe(7);
  });

  it('calls cost the call operator plus the callee\'s invocation and body', () => {
    expect(cost('call_add', [i32(5)])).toBe(14);
  });

  it('if/else: if costs 1, else and end nothing', () => {
    expect(cost('ifelse', [i32(1)])).toBe(4);
    expect(cost('ifelse', [i32(0)])).toBe(6);
  });

  it('nop, drop, block, loop, return and end are free', () => {
    expect(cost('free_ops')).toBe(3);
  });

  it('br_table costs 1, and the path after it its own operators', () => {
    expect(cost('brtable', [i32(0)])).toBe(6);
    expect(cost('brtable', [i32(2)])).toBe(6);
    expect(cost('brtable', [i32(1)])).toBe(4);
    expect(cost('brtable', [i32(99)])).toBe(6);
  });

  it('memory, select, globals, tee', () => {
    expect(cost('select_mem', [i32(3)])).toBe(14);
  });

  it('recursion: fib', () => {
    expect(fibFuel(0)).toBe(6);
    for (const n of [0, 1, 2, 5, 15]) expect(cost('fib', [i32(n)])).toBe(fibFuel(n));
  });

  it('unreachable is free, and the fuel before it is charged', () => {
    m.store.fuel = 1000;
    expect(trapOf(() => m.call('unreachable')).kind).toBe(TrapKind.Unreachable);
    expect(1000 - m.store.fuel).toBe(2);
  });

  it('is charged the same when run through invoke()/resume()', () => {
    m.store.fuel = 1000;
    const ex = invoke(m.store, m.func('sum'), [i32(7)]);
    expect(ex.resume()).toBe('done');
    expect(ex.results).toEqual([i32(28)]);
    expect(1000 - m.store.fuel).toBe(12 * 7 + 5);
  });
});

describe('fuel exhaustion', () => {
  let m: Loaded;
  beforeAll(async () => {
    m = await load(SRC);
  });

  it('an infinite loop traps with OutOfFuel at the loop header, when the fuel reaches 0 there', () => {
    // invocation 1, then 1 per `br`: the header finds 0 after exactly `fuel - 1` iterations.
    m.store.fuel = 500;
    expect(trapOf(() => m.call('loop_forever')).kind).toBe(TrapKind.OutOfFuel);
    expect(m.store.fuel).toBe(0);
  });

  it('the header check sees fuel below 0 when an iteration overshoots', () => {
    // invocation 1 leaves 10; iterations of 3 take it to 7, 4, 1, -2: the header traps at -2.
    m.store.fuel = 11;
    expect(trapOf(() => m.call('loop3')).kind).toBe(TrapKind.OutOfFuel);
    expect(m.store.fuel).toBe(-2);
    // With 10: 9, 6, 3, 0: traps at 0.
    m.store.fuel = 10;
    expect(trapOf(() => m.call('loop3')).kind).toBe(TrapKind.OutOfFuel);
    expect(m.store.fuel).toBe(0);
  });

  it('infinite recursion traps with OutOfFuel at a function entry', () => {
    // invocation 1, then per level `call` 1 + invocation 1.
    m.store.fuel = 101;
    expect(trapOf(() => m.call('recurse_forever')).kind).toBe(TrapKind.OutOfFuel);
    expect(m.store.fuel).toBe(0);
  });

  it('the entry of the invoked function is a check point', () => {
    m.store.fuel = 1;
    expect(trapOf(() => m.call('add', [i32(1), i32(2)])).kind).toBe(TrapKind.OutOfFuel);
    m.store.fuel = 0;
    expect(trapOf(() => m.call('add', [i32(1), i32(2)])).kind).toBe(TrapKind.OutOfFuel);
    m.store.fuel = -5;
    expect(trapOf(() => m.call('add', [i32(1), i32(2)])).kind).toBe(TrapKind.OutOfFuel);
  });

  it('straight-line code past the last check point may end below zero without trapping', () => {
    // add: invocation leaves 1 (> 0, no trap), then its 3 operators take it to -2.
    m.store.fuel = 2;
    expect(m.call('add', [i32(1), i32(2)])).toEqual([i32(3)]);
    expect(m.store.fuel).toBe(-2);
  });

  it('exactly enough fuel for a loop', () => {
    // sum(3) costs 41: the last check point is the header on the exit pass, after
    // 1 + 3 * 12 = 37, so any budget leaving > 0 there (>= 38) succeeds.
    m.store.fuel = 38;
    expect(m.call('sum', [i32(3)])).toEqual([i32(6)]);
    expect(m.store.fuel).toBe(38 - 41);
    m.store.fuel = 37;
    expect(trapOf(() => m.call('sum', [i32(3)])).kind).toBe(TrapKind.OutOfFuel);
  });

  it('a call inside a loop: the callee entry is the check point', async () => {
    const c = await load(`(module
      (func $f)                                   ;; invocation 1
      (func (export "g") (param $n i32)
        (loop $l                                  ;; check point
          call $f                                 ;; 1 + 1 (check point at $f's entry)
          local.get $n i32.const 1 i32.sub local.tee $n    ;; 4
          br_if $l)))                             ;; 1: 7 per iteration`);
    c.store.fuel = 1 + 7 * 10;
    expect(c.call('g', [i32(10)])).toEqual([]);
    expect(c.store.fuel).toBe(0);
    // 6 less: after 1 + 9 * 7 the 10th call leaves 0 and $f's entry takes it to -1.
    c.store.fuel = 1 + 7 * 10 - 6;
    expect(trapOf(() => c.call('g', [i32(10)])).kind).toBe(TrapKind.OutOfFuel);
  });

  it('host function calls: the call operator is charged, the host function runs freely', async () => {
    const h = await load(`(module (import "env" "h" (func $h (param i32) (result i32)))
      (func (export "f") (result i32) i32.const 1 call $h))`, (store) => ({
      'env.h': store.createHostFunction({ params: [I32], results: [I32] }, ([x]) => [i32(x!.asI32 + 1)]),
    }));
    h.store.fuel = 100;
    expect(h.call('f')).toEqual([i32(2)]);
    // invocation 1 + i32.const 1 + call 1 (+ whatever the engine charges for entering a host function)
    const used = 100 - h.store.fuel;
    expect(used === 3 || used === 4).toBe(true);
  });

  it('a trap is a Trap, never a plain Error', () => {
    m.store.fuel = 3;
    let caught: unknown;
    try {
      invokeSync(m.store, m.func('loop_forever'), []);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Trap);
    expect((caught as Trap).message).toContain('all fuel consumed');
  });

  it('i64 arithmetic costs like i32', async () => {
    const c = await load(`(module (func (export "f") (param i64) (result i64)
      local.get 0 i64.const 3 i64.mul i64.const 1 i64.add))   ;; 5 + 1`);
    c.store.fuel = 100;
    expect(c.call('f', [i64(4)])).toEqual([i64(13)]);
    expect(c.store.fuel).toBe(94);
  });
});
