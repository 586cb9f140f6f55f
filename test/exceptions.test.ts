/**
 * Exception handling, both forms: try_table / throw / throw_ref / exnref, and the legacy
 * try / catch / catch_all / rethrow / delegate that Emscripten's -fwasm-exceptions emits.
 * Unwinding goes through the explicit frame stack, across functions and instances; an
 * exception that escapes the export ends the run as a trap naming it.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from './helpers/engine-oracle.js';
import {
  compileModule, Engine, Feature, instantiate, invokeSync, Store, TrapKind, WASM2_FEATURES, WasmValue,
} from '../src/interpreter/index.js';
import { UncaughtException } from '../src/interpreter/errors.js';
import { MAX_EXCEPTION_REFS } from '../src/interpreter/store.js';
import { FuncRef } from '../src/interpreter/values.js';
import { Sandbox, SandboxError, Value } from '../src/index.js';

async function load(src: string): Promise<(name: string, ...args: number[]) => WasmValue[]> {
  const store = new Store(new Engine());
  const inst = instantiate(store, compileModule(await assemble(src)), () => undefined);
  return (name, ...args) => invokeSync(store, inst.exports.get(name) as FuncRef, args.map((a) => WasmValue.i32(a)));
}

const STANDARD = `(module
  (tag $e (export "e") (param i32))
  (tag $f (param i32 i64))
  (func $thrower (param i32)
    (if (i32.eqz (local.get 0)) (then (throw $e (i32.const 42))))
    (if (i32.eq (local.get 0) (i32.const 1)) (then (throw $f (i32.const 7) (i64.const 8))))
    (if (i32.eq (local.get 0) (i32.const 2)) (then (unreachable))))
  ;; catch by tag, two frames down; catch_all for the other tag
  (func (export "catchDeep") (param i32) (result i32)
    (block $other
      (block $got (result i32)
        (try_table (catch $e $got) (catch_all $other)
          (call $middle (local.get 0)))
        (return (i32.const -1)))
      (return))
    (i32.const 100))
  (func $middle (param i32) (call $thrower (local.get 0)))
  ;; catch_ref then throw_ref: the same exception goes on outward
  (func (export "rethrowRef") (param i32) (result i32) (local $x exnref)
    (block $outer (result i32)
      (try_table (catch $e $outer)
        (block $caught (result i32 exnref)
          (try_table (catch_ref $e $caught) (call $thrower (local.get 0)))
          (return (i32.const -1)))
        (local.set $x) (drop) (throw_ref (local.get $x)))
      (return (i32.const -2)))
    (i32.const 1000) (i32.add))
  (func (export "catchAllRef") (param i32) (result i32)
    (block $outer (result i32)
      (try_table (catch $e $outer)
        (throw_ref (block $caught (result exnref)
          (try_table (catch_all_ref $caught) (call $thrower (local.get 0)))
          (return (i32.const -1)))))
      (return (i32.const -2)))
    (i32.const 2000) (i32.add))
  (func (export "uncaught") (param i32) (result i32) (call $thrower (local.get 0)) (i32.const 0))
  (func (export "nullRef") (throw_ref (ref.null exn)))
)`;

const LEGACY = `(module
  (tag $e (param i32))
  (func $thrower (param i32) (throw $e (local.get 0)))
  (func (export "tryCatch") (param i32) (result i32)
    (try (result i32)
      (do (call $thrower (local.get 0)) (i32.const 0))
      (catch $e (i32.const 1) (i32.add))))
  (func (export "rethrow") (param i32) (result i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (call $thrower (local.get 0)) (i32.const 0))
          (catch_all (rethrow 0))))
      (catch $e (i32.const 10) (i32.mul))))
  (func (export "delegate") (param i32) (result i32)
    (try (result i32)
      (do
        (try (result i32)
          (do (call $thrower (local.get 0)) (i32.const 0))
          (delegate 0)))
      (catch $e (i32.const 100) (i32.add))))
)`;

describe('exception handling (try_table, throw, throw_ref)', () => {
  it('catches by tag across frames, and with catch_all', async () => {
    const call = await load(STANDARD);
    expect(call('catchDeep', 0).map(String)).toEqual(['i32:42']);
    expect(call('catchDeep', 1).map(String)).toEqual(['i32:100']);
    expect(call('catchDeep', 3).map(String)).toEqual(['i32:-1']);
  });

  it('hands an exception on by reference (catch_ref, throw_ref)', async () => {
    const call = await load(STANDARD);
    expect(call('rethrowRef', 0).map(String)).toEqual(['i32:1042']);
    expect(call('catchAllRef', 0).map(String)).toEqual(['i32:2042']);
  });

  it('ends the invocation with an UncaughtException naming the tag; traps are not caught', async () => {
    const call = await load(STANDARD);
    let err: unknown;
    try {
      call('uncaught', 0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UncaughtException);
    expect((err as UncaughtException).kind).toBe(TrapKind.UncaughtException);
    expect((err as Error).message).toBe('wasm trap: uncaught exception: tag "e"');
    expect(() => call('uncaught', 1)).toThrow('wasm trap: uncaught exception: a tag of type (i32, i64)');
    expect(() => call('catchDeep', 2)).toThrow('unreachable');
    expect(() => call('nullRef')).toThrow(/null reference/);
  });

  it('takes from the host only exnrefs that refer to exceptions', async () => {
    const store = new Store(new Engine());
    const inst = instantiate(store, compileModule(await assemble('(module (func (export "f") (param exnref) (throw_ref (local.get 0))))')), () => undefined);
    expect(() => invokeSync(store, inst.exports.get('f') as FuncRef, [WasmValue.exnref({})])).toThrow('an exnref must refer to an exception');
    expect(() => invokeSync(store, inst.exports.get('f') as FuncRef, [WasmValue.exnref(null)])).toThrow(/null reference/);
  });

  it('is refused by name when the features leave it out', async () => {
    let err: unknown;
    try {
      compileModule(await assemble(STANDARD), WASM2_FEATURES);
    } catch (e) {
      err = e;
    }
    expect((err as { feature?: unknown }).feature).toBe(Feature.ExceptionHandling);
  });
});

describe('legacy exception handling (try, catch, catch_all, rethrow, delegate)', () => {
  it('catches, rethrows and delegates', async () => {
    const call = await load(LEGACY);
    expect(call('tryCatch', 5).map(String)).toEqual(['i32:6']);
    expect(call('rethrow', 5).map(String)).toEqual(['i32:50']);
    expect(call('delegate', 5).map(String)).toEqual(['i32:105']);
  });
});

describe('the host memory an exception storm can take', () => {
  const STORM = `(module (tag $e (param i64 i64 i64 i64)) (global $g (mut exnref) (ref.null exn))
    (func (export "storm") (param i32)
      (loop $l
        (block $h (result exnref)
          (try_table (catch_all_ref $h) (throw $e (i64.const 1) (i64.const 2) (i64.const 3) (i64.const 4)))
          (unreachable))
        (global.set $g)
        (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))))`;

  it('is bounded: each exception caught by reference is registered, at most maxExceptionRefs per store', async () => {
    const bytes = await assemble(STORM, false);
    const run = (n: number, maxExceptionRefs?: number): string => {
      const store = new Store(new Engine(), maxExceptionRefs === undefined ? {} : { maxExceptionRefs });
      const inst = instantiate(store, compileModule(bytes), () => undefined);
      try {
        invokeSync(store, inst.exports.get('storm') as FuncRef, [WasmValue.i32(n)]);
        return 'done';
      } catch (e) {
        return String(e);
      }
    };
    expect(run(MAX_EXCEPTION_REFS)).toBe('done');
    expect(run(MAX_EXCEPTION_REFS + 1)).toBe('Trap: wasm trap: too many exception references');
    expect(run(100, 99)).toBe('Trap: wasm trap: too many exception references');
    expect(run(99, 99)).toBe('done');
  });
});

describe('through the sandbox', () => {
  it('an uncaught exception is a Trap naming it', async () => {
    const sandbox = Sandbox.denyAll();
    let err: unknown;
    try {
      await sandbox.run(await assemble(STANDARD), 'uncaught', [Value.i32(0)]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as SandboxError).kind).toBe('Trap');
    expect((err as Error).message).toContain('uncaught exception: tag "e"');
  });
});
