/**
 * The deterministic fuel profile (src/inspect/profile.ts): per function calls, self and total
 * fuel, whose self fuel adds up to the run's fuel exactly — on success and on failure, through
 * calls, indirect calls, tail calls, exceptions and host calls — identical from run to run and
 * whatever the tier; and its three exports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Profile, Sandbox, SandboxError, Value } from '../src/index.js';

const kernel = (name: string): Uint8Array => readFileSync(new URL(`../bench/kernels/${name}.wasm`, import.meta.url));
const sumSelf = (p: Profile): number => p.functions.reduce((a, f) => a + f.selfFuel, 0);

const FIB = `(module $p
  (func $leaf (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func $fib (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2)) (then (call $leaf (local.get 0)))
      (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1))) (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
  (func $main (export "main") (param i32) (result i32) (call $fib (local.get 0))))`;

const MIXED = `(module $mixed
  (import "host" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1) (data (i32.const 0) "hi")
  (type $t (func (param i32) (result i32)))
  (table 2 funcref) (elem (i32.const 0) $double $count)
  (tag $oops (param i32))
  (func $double (param i32) (result i32) (i32.add (local.get 0) (local.get 0)))
  (func $count (param i32) (result i32) (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
    (else (return_call $count (i32.sub (local.get 0) (i32.const 1))))))
  (func $thrower (param i32) (throw $oops (local.get 0)))
  (func (export "run") (param i32) (result i32) (local i32)
    (loop $l
      (call $log (i32.const 0) (i32.const 2))
      (local.set 1 (i32.add (local.get 1) (call_indirect (type $t) (local.get 0) (i32.and (local.get 0) (i32.const 1)))))
      (block $caught (result i32)
        (try_table (catch $oops $caught) (call $thrower (local.get 0)))
        (i32.const 0))
      (local.set 1 (i32.add (local.get 1)))
      (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
    (local.get 1)))`;

describe('the fuel profile', () => {
  it('self fuel adds up to the fuel consumed, and the calls are counted', async () => {
    const out = await Sandbox.denyAll().run(FIB, 'main', [Value.i32(10)], new Limits({ fuel: 1e9 }), { profile: true });
    const p = out.profile!;
    expect(sumSelf(p)).toBe(out.fuelConsumed);
    expect(p.totalFuel).toBe(out.fuelConsumed);
    const byName = new Map(p.functions.map((f) => [f.funcName, f]));
    expect(byName.get('p!main')).toMatchObject({ calls: 1, totalFuel: out.fuelConsumed });
    expect(byName.get('p!fib')!.calls).toBe(177); // fib(10) makes 177 calls of fib
    expect(byName.get('p!leaf')!.calls).toBe(89); // one per leaf of that tree
    expect(byName.get('p!fib')!.totalFuel).toBe(out.fuelConsumed - byName.get('p!main')!.selfFuel);
  });

  it('exact through call_indirect, return_call, exceptions and host calls, on success', async () => {
    const { host } = HostAbi.denyAll().allowLog();
    const out = await new Sandbox(host).run(MIXED, 'run', [Value.i32(40)], new Limits({ fuel: 1e9 }), { profile: true });
    expect(sumSelf(out.profile!)).toBe(out.fuelConsumed);
    const names = out.profile!.functions.map((f) => f.funcName).sort();
    expect(names).toEqual(['mixed!count', 'mixed!double', 'mixed!thrower', 'mixed!<wasm function 4>'].sort());
  });

  it.each(['calls', 'lz77', 'indirect', 'f64'])('exact on the %s kernel, identical run to run and whatever the tier', async (name) => {
    const n: Record<string, number> = { calls: 18, lz77: 6000, indirect: 5000, f64: 100 };
    const profiles: string[] = [];
    for (const tier of ['auto', 'interpreter', 'eager'] as const) {
      const out = await new Sandbox(HostAbi.denyAll(), { tier }).run(kernel(name), 'run', [Value.i32(n[name]!)], new Limits({ fuel: 1e12 }), { profile: true });
      expect(sumSelf(out.profile!)).toBe(out.fuelConsumed);
      profiles.push(JSON.stringify(out.profile!.functions) + out.profile!.toFolded());
    }
    expect(new Set(profiles).size).toBe(1);
  });

  it('a failed run carries the profile up to its end: out of fuel, a timeout, a trap', async () => {
    const sandbox = Sandbox.denyAll();
    const fuel = await sandbox.run(FIB, 'main', [Value.i32(25)], new Limits({ fuel: 50_000 }), { profile: true }).then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as SandboxError);
    expect(fuel.kind).toBe('FuelExhausted');
    expect(sumSelf(fuel.profile!)).toBe(50_000);
    const time = await sandbox.run(FIB, 'main', [Value.i32(40)], new Limits({ fuel: 1e15, timeoutMs: 30 }), { profile: true }).then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as SandboxError);
    expect(time.kind).toBe('Timeout');
    expect(sumSelf(time.profile!)).toBe(time.fuelConsumed);
    const trap = await sandbox.run('(module (func $f (export "f") (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0))))', 'f', [Value.i32(0)], {}, { profile: true }).then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as SandboxError);
    expect(trap.kind).toBe('Trap');
    expect(sumSelf(trap.profile!)).toBe(trap.fuelConsumed);
    // Without the option, nothing.
    const plain = await sandbox.run(FIB, 'main', [Value.i32(5)]);
    expect(plain.profile).toBeUndefined();
  });

  it('an instance call profiles that call', async () => {
    const instance = await Sandbox.denyAll().instantiate(FIB);
    const a = await instance.call('main', [Value.i32(8)], { profile: true });
    const b = await instance.call('main', [Value.i32(8)], { profile: true });
    expect(sumSelf(a.profile!)).toBe(a.fuelConsumed);
    expect(a.profile!.toFolded()).toBe(b.profile!.toFolded());
  });

  it('exports folded stacks, speedscope and .cpuprofile, each adding up to the fuel', async () => {
    const out = await Sandbox.denyAll().run(FIB, 'main', [Value.i32(9)], new Limits({ fuel: 1e9 }), { profile: true });
    const p = out.profile!;
    const folded = p.toFolded().split('\n');
    expect(folded[0]).toMatch(/^p!main( \d+|;)/);
    expect(folded.reduce((a, line) => a + Number(line.split(' ').pop()), 0)).toBe(out.fuelConsumed);
    expect(folded.some((line) => /^p!main(;p!fib)+;p!leaf \d+$/.test(line))).toBe(true);
    const speedscope = p.toSpeedscope() as { shared: { frames: Array<{ name: string }> }; profiles: Array<{ samples: number[][]; weights: number[]; endValue: number }> };
    expect(speedscope.profiles[0]!.weights.reduce((a, w) => a + w, 0)).toBe(out.fuelConsumed);
    expect(speedscope.profiles[0]!.endValue).toBe(out.fuelConsumed);
    expect(speedscope.shared.frames.map((f) => f.name).sort()).toEqual(['p!fib', 'p!leaf', 'p!main']);
    const cpu = p.toCpuProfile() as { nodes: Array<{ id: number; children: number[] }>; samples: number[]; timeDeltas: number[] };
    expect(cpu.timeDeltas.reduce((a, t) => a + t, 0)).toBe(out.fuelConsumed);
    const ids = new Set(cpu.nodes.map((n) => n.id));
    expect(cpu.samples.every((s) => ids.has(s))).toBe(true);
    expect(cpu.nodes.flatMap((n) => n.children).every((c) => ids.has(c))).toBe(true);
  });
});
