/**
 * Feature sets and fuel for the features beyond WebAssembly 2.0. The sandbox accepts by
 * default everything this engine runs; `features: 'wasmtime'` accepts exactly wasmtime 45's
 * defaults (SIMD, relaxed SIMD, tail calls, multi-memory, extended constants, memory64) and
 * refuses the rest by name, as sandboxd would. Every new instruction costs 1 fuel, as wasmtime
 * charges any operator but nop, drop, block, loop, unreachable, return, else and end.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from './helpers/engine-oracle.js';
import { Feature, HostAbi, Sandbox, SandboxError } from '../src/index.js';
import { compileModule, Engine, instantiate, invokeSync, Store } from '../src/interpreter/index.js';
import type { FuncRef } from '../src/interpreter/values.js';


/** One small module per feature, each using nothing else beyond 2.0. */
const MODULES: Record<string, string> = {
  simd: '(module (func (export "f") (result i32) (i32x4.extract_lane 0 (i32x4.splat (i32.const 7)))))',
  relaxedSimd: '(module (func (export "f") (result i32) (i32x4.extract_lane 0 (i32x4.relaxed_trunc_f32x4_s (f32x4.splat (f32.const 7))))))',
  tailCalls: '(module (func $g (result i32) (i32.const 7)) (func (export "f") (result i32) (return_call $g)))',
  multiMemory: '(module (memory 1) (memory $b 1) (func (export "f") (result i32) (i32.store $b (i32.const 0) (i32.const 7)) (i32.load $b (i32.const 0))))',
  extendedConst: '(module (global $g i32 (i32.add (i32.const 3) (i32.const 4))) (func (export "f") (result i32) (global.get $g)))',
  memory64: '(module (memory i64 1) (func (export "f") (result i32) (i32.store (i64.const 8) (i32.const 7)) (i32.load (i64.const 8))))',
  threads: '(module (memory 1 1 shared) (func (export "f") (result i32) (i32.atomic.rmw.add (i32.const 0) (i32.const 7)) (drop) (i32.atomic.load (i32.const 0))))',
  exceptions: '(module (tag $e (param i32)) (func (export "f") (result i32) (block $h (result i32) (try_table (catch $e $h) (throw $e (i32.const 7))) (i32.const 0))))',
};

const WASMTIME_ACCEPTS = ['simd', 'relaxedSimd', 'tailCalls', 'multiMemory', 'extendedConst', 'memory64'];

describe('feature sets', () => {
  for (const [name, src] of Object.entries(MODULES)) {
    it(`${name}: runs by default; ${WASMTIME_ACCEPTS.includes(name) ? 'also' : 'refused by name'} under 'wasmtime'`, async () => {
      const bytes = await assemble(src, false);
      const all = await Sandbox.denyAll().run(bytes, 'f');
      expect(String(all.values)).toBe('I32(7)');
      const wasmtime = new Sandbox(HostAbi.denyAll(), { features: 'wasmtime' });
      if (WASMTIME_ACCEPTS.includes(name)) {
        expect(String((await wasmtime.run(bytes, 'f')).values)).toBe('I32(7)');
      } else {
        const err = await wasmtime.compile(bytes).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(SandboxError);
        expect((err as SandboxError).kind).toBe('InvalidModule');
        expect((err as Error).message).toMatch(name === 'threads' ? /shared memory \(threads\)/ : /exception handling/);
      }
    });
  }

  it('takes a custom set, and refuses what it leaves out', async () => {
    const sandbox = new Sandbox(HostAbi.denyAll(), { features: new Set([Feature.Simd]) });
    expect(String((await sandbox.run(await assemble(MODULES.simd!, false), 'f')).values)).toBe('I32(7)');
    await expect(sandbox.compile(await assemble(MODULES.tailCalls!, false))).rejects.toThrow(/tail calls are not supported/);
    expect(() => new Sandbox(HostAbi.denyAll(), { features: 'everything' as never })).toThrow(TypeError);
  });
});

describe('fuel of the new instructions: 1 each, as wasmtime', () => {
  /** Fuel one call of `f` consumes. */
  async function fuelOf(src: string): Promise<number> {
    const store = new Store(new Engine());
    const inst = instantiate(store, compileModule(await assemble(src, false)), () => undefined);
    store.fuel = 1e9;
    invokeSync(store, inst.exports.get('f') as FuncRef, []);
    return 1e9 - store.fuel;
  }

  it('counts them like any operator', async () => {
    // 1 invocation + i32.const, i32x4.splat, i32x4.extract_lane
    expect(await fuelOf(MODULES.simd!)).toBe(4);
    // 1 + f32.const, f32x4.splat, relaxed_trunc, extract_lane
    expect(await fuelOf(MODULES.relaxedSimd!)).toBe(5);
    // f: 1 + return_call; g: 1 + i32.const
    expect(await fuelOf(MODULES.tailCalls!)).toBe(4);
    // 1 + const, const, store, const, load
    expect(await fuelOf(MODULES.multiMemory!)).toBe(6);
    expect(await fuelOf(MODULES.memory64!)).toBe(6);
    // 1 + const, const, rmw.add, (drop: 0), const, atomic.load
    expect(await fuelOf(MODULES.threads!)).toBe(6);
    // 1 + try_table, i32.const, throw (block: 0); the catch lands at the block's end
    expect(await fuelOf(MODULES.exceptions!)).toBe(4);
    // v128.const, shuffle, any_true and a v128 local round trip
    expect(await fuelOf(`(module (func (export "f") (result i32) (local v128)
      (local.set 0 (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (v128.const i64x2 1 2) (v128.const i64x2 3 4)))
      (v128.any_true (local.get 0))))`)).toBe(1 + 6);
  });
});

describe('the text path', () => {
  it("parses every feature, and the sandbox's feature set decides", async () => {
    const src = '(module (tag $e (param i32)) (func (export "f") (result i32) (block $h (result i32) (try_table (catch $e $h) (throw $e (i32.const 7))) (i32.const 0))))';
    expect(String((await Sandbox.denyAll().run(src, 'f')).values)).toBe('I32(7)');
    await expect(new Sandbox(HostAbi.denyAll(), { features: 'wasmtime' }).run(src, 'f')).rejects.toThrow(/exception handling is not supported/);
    await expect(Sandbox.denyAll().run('(module (func (export "f") (result exnref) (ref.null exn)))', 'f'))
      .rejects.toThrow('unsupported return type exnref');
  });
});
