/**
 * Regressions found by the differential fuzzer (test/fuzz/, `npm run fuzz`): each module is
 * the fuzzer's finding cut down by hand, run in our engine and in Node's own WebAssembly.
 */
import { describe, expect, it } from 'vitest';
import { runDifferential } from './fuzz/differential.js';
import { assemble } from './helpers/engine-oracle.js';

describe('regressions found by the differential fuzzer', () => {
  // Found at 1e4bda4 (fuzz seed 700043): the dispatch loop called bulkOperation without the
  // execution's work meter, so every bulk memory and table instruction threw an internal error.
  it('every bulk memory and table instruction runs, in both drivers', async () => {
    const bytes = await assemble(`(module
      (memory 1)
      (data $d "\\01\\02\\03\\04")
      (table $t 4 funcref)
      (func $f (result i32) i32.const 42)
      (elem $e func $f $f)
      (func (export "memory.fill") (result i32)
        (memory.fill (i32.const 8) (i32.const 7) (i32.const 4)) (i32.load (i32.const 8)))
      (func (export "memory.copy") (result i32)
        (i32.store (i32.const 16) (i32.const 0x11223344))
        (memory.copy (i32.const 18) (i32.const 16) (i32.const 4)) (i32.load (i32.const 18)))
      (func (export "memory.init") (result i32)
        (memory.init $d (i32.const 32) (i32.const 1) (i32.const 3)) (i32.load (i32.const 32)))
      (func (export "data.drop") (data.drop $d))
      (func (export "table.size") (result i32) (table.size $t))
      (func (export "table.grow") (result i32) (table.grow $t (ref.null func) (i32.const 2)))
      (func (export "table.init") (result i32)
        (table.init $t $e (i32.const 1) (i32.const 0) (i32.const 2)) (call_indirect (result i32) (i32.const 2)))
      (func (export "table.get") (result i32) (ref.is_null (table.get $t (i32.const 0))))
      (func (export "table.set") (result i32)
        (table.set $t (i32.const 0) (ref.func $f)) (call_indirect (result i32) (i32.const 0)))
      (func (export "table.fill") (result i32)
        (table.fill $t (i32.const 0) (ref.null func) (i32.const 3)) (ref.is_null (table.get $t (i32.const 1))))
      (func (export "table.copy") (result i32)
        (table.set $t (i32.const 3) (ref.func $f))
        (table.copy $t $t (i32.const 0) (i32.const 3) (i32.const 1)) (call_indirect (result i32) (i32.const 0)))
      (func (export "elem.drop") (elem.drop $e))
      (func (export "memory.init after data.drop") (memory.init $d (i32.const 0) (i32.const 0) (i32.const 1))))`);
    for (const driver of ['sync', 'sliced'] as const) {
      const r = runDifferential(bytes, { driver, rounds: 1, triageNan: false });
      expect(r.divergences).toEqual([]);
      // All thirteen calls return, except memory.init after data.drop, which traps.
      expect(r.callOutcomes).toEqual({ ok: 12, trap: 1, hostException: 0 });
    }
  });
});
