/**
 * Tail calls (return_call, return_call_indirect): the callee replaces the caller's frame, so
 * mutual tail recursion of any depth runs in constant frames; a host callee is called and its
 * results returned; call_indirect's traps; wasmtime's fuel (1 per operator, 1 per invocation);
 * validation; and the refusal when the compile's features leave tail calls out.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { type Loaded, assemble, i32, i64, load, trapOf } from './helpers/engine-oracle.js';
import { compileModule, DecodeError, Feature, TrapKind, ValidationError, WASM2_FEATURES, WasmValue } from '../src/interpreter/index.js';
import { I32 } from '../src/interpreter/types.js';

const SRC = `(module
  (type $t (func (param i64 i64) (result i64)))
  (import "env" "double" (func $double (param i32) (result i32)))
  (table 4 funcref)
  (elem (i32.const 0) $even $odd $double)
  ;; even(n, acc): n steps of alternating even/odd, counting in acc; odd negates at the end.
  (func $even (export "even") (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))             ;; 3 on the way out: get, eqz, if
      (then (local.get 1))                               ;;   + 1
      (else (return_call $odd                            ;; get eqz if + 6 + return_call = 10
        (i64.sub (local.get 0) (i64.const 1)) (i64.add (local.get 1) (i64.const 1))))))
  (func $odd (param i64 i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0))
      (then (i64.sub (i64.const 0) (local.get 1)))
      (else (return_call_indirect (type $t)               ;; get eqz if + 5 + return_call_indirect = 9
        (i64.sub (local.get 0) (i64.const 1)) (local.get 1) (i32.const 0)))))
  (func (export "viaHost") (param i32) (result i32) (return_call $double (local.get 0)))
  (func (export "viaTable") (param i32 i32) (result i32)
    (return_call_indirect (param i32) (result i32) (local.get 0) (local.get 1)))
  (func (export "deep") (param i32) (result i32)
    ;; Not a tail call: each level keeps its frame.
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (i32.add (i32.const 1) (call 5 (i32.sub (local.get 0) (i32.const 1))))))))`;

describe('tail calls', () => {
  let m: Loaded;
  beforeAll(async () => {
    m = await load(SRC, (store) => ({
      'env.double': store.createHostFunction({ params: [I32], results: [I32] }, (args) => [WasmValue.i32(args[0]!.asI32 * 2)]),
    }), { maxCallDepth: 100 });
  });

  it('runs mutual tail recursion a million deep in constant frames', () => {
    // A call depth of 100 would overflow on the 101st real frame.
    expect(m.call('even', [i64(1_000_000), i64(0)]).map(String)).toEqual(['i64:500000']);
    expect(m.call('even', [i64(5), i64(0)]).map(String)).toEqual(['i64:-3']);
    expect(trapOf(() => m.call('deep', [i32(1000)])).kind).toBe(TrapKind.StackOverflow);
  });

  it('charges 1 per operator and 1 per invocation, as wasmtime does', () => {
    m.store.fuel = 1e9;
    m.call('even', [i64(4), i64(0)]);
    // Invocation + operators: even(4) 1+10, odd(3) 1+9, even(2) 1+10, odd(1) 1+9, even(0) 1+4.
    expect(1e9 - m.store.fuel).toBe(11 + 10 + 11 + 10 + 5);
  });

  it('calls a host callee in tail position and returns its results', () => {
    expect(m.call('viaHost', [i32(21)]).map(String)).toEqual(['i32:42']);
    expect(m.call('viaTable', [i32(8), i32(2)]).map(String)).toEqual(['i32:16']);
  });

  it('traps as call_indirect does', () => {
    expect(trapOf(() => m.call('viaTable', [i32(1), i32(3)])).kind).toBe(TrapKind.UninitializedElement);
    expect(trapOf(() => m.call('viaTable', [i32(1), i32(4)])).kind).toBe(TrapKind.TableOutOfBounds);
    expect(trapOf(() => m.call('viaTable', [i32(1), i32(0)])).kind).toBe(TrapKind.IndirectCallTypeMismatch);
  });

  it('requires the callee to return what the caller returns', async () => {
    // Assembled without wabt's own validation, which would refuse it first.
    const w = await wabt();
    const text = w.parseWat('t.wat', '(module (func $f (result i64) (i64.const 1)) (func (result i32) (return_call $f)))', { tail_call: true });
    const bytes = text.toBinary({}).buffer;
    text.destroy();
    expect(() => compileModule(bytes)).toThrow(/type mismatch: the callee of a tail call must return what the caller returns/);
    expect(() => compileModule(bytes)).toThrow(ValidationError);
  });

  it('is refused by name when the features leave it out', async () => {
    const bytes = await assemble(`(module (func $f) (func (return_call $f)))`);
    let err: unknown;
    try {
      compileModule(bytes, WASM2_FEATURES);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DecodeError);
    expect((err as DecodeError).feature).toBe(Feature.TailCalls);
    expect(() => compileModule(bytes)).not.toThrow();
  });
});
