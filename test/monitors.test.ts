/**
 * Coverage and the trace (src/inspect/monitors.ts, RunOptions.coverage / RunOptions.trace):
 * a watched run has the results and fuel of a plain one; coverage lists, per defined function,
 * the offsets `disassemble` lists that ran; the trace is the instructions run, in order, with
 * the top of the operand stack; both come on a failure's SandboxError too; an instance asks
 * for them with `{ inspect: true }`; lcov from DWARF; the tier does not matter.
 *
 * Expectations come from the fixtures' own arithmetic (well_behaved.wat's fuel comment, the
 * control flow of its loop), from first principles, or from the same run without inspection.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cWasm, fibValue, listing, marked } from './helpers/inspect.js';
import { failure } from './helpers/sandbox.js';
import { type CompiledModule, type FunctionCoverage, HostAbi, Limits, type RunOutput, Sandbox, SandboxError, Value } from '../src/index.js';

const wellBehaved = readFileSync(new URL('../fixtures/well_behaved.wat', import.meta.url), 'utf8');
const trapsWat = readFileSync(new URL('../fixtures/traps.wat', import.meta.url), 'utf8');

/** well_behaved.wat's own fuel arithmetic for fib(n). */
const fibFuel = (n: number): number => 12 + 17 * n;

/**
 * The offsets fib(n) runs, in order, from the fixture's control flow. Its 29 instructions, by
 * index in the listing: 0-5 the prologue (three const/set pairs), 6 `block`, 7 `loop`, 8-24
 * the loop body (8-11 the check: two local.gets, i32.ge_s, br_if 1; ... 24 `br 0`, which goes
 * back to index 8 — the `loop` instruction itself is not run again), 25 the loop's `end`
 * (never reached: the body always branches), 26 the block's `end` (never reached either:
 * `br_if 1` leaves to the instruction after it), 27 `local.get 1`, 28 the function's `end`.
 * So: 8 + 17n + 4 + 2 = 14 + 17n instructions — the fuel 12 + 17n, less the invocation's 1,
 * plus the three that run for free (block, loop, the final end).
 */
function fibPath(offsets: readonly number[], n: number): number[] {
  expect(offsets).toHaveLength(29);
  const idx = [0, 1, 2, 3, 4, 5, 6, 7];
  for (let k = 0; k < n; k++) for (let i = 8; i <= 24; i++) idx.push(i);
  idx.push(8, 9, 10, 11, 27, 28);
  return idx.map((i) => offsets[i]!);
}

describe('coverage and the trace on well_behaved.wat', () => {
  it('fib(10): the same values and fuel as a plain run; coverage of both functions from the disassembly', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const plain = await sandbox.run(module, 'fib', [Value.i32(10)]);
    expect(plain.values.map(String)).toEqual([`I32(${fibValue(10)})`]);
    expect(plain.fuelConsumed).toBe(fibFuel(10));
    expect(plain.coverage).toBeUndefined();
    expect(plain.trace).toBeUndefined();

    const out = await sandbox.run(module, 'fib', [Value.i32(10)], undefined, { coverage: true, trace: { limit: 40 } });
    expect(out.values.map(String)).toEqual(plain.values.map(String));
    expect(out.fuelConsumed).toBe(plain.fuelConsumed);

    const coverage = out.coverage!;
    expect(coverage.map((f) => f.funcIndex)).toEqual([0, 1]);
    const addListing = listing(module, 'add');
    const fibListing = listing(module, 'fib');
    const [add, fib] = coverage as [FunctionCoverage, FunctionCoverage];
    expect(add.covered).toEqual([]);
    expect(add.instructions).toBe(addListing.length);
    expect(add.instructions).toBe(4);
    expect(fib.instructions).toBe(fibListing.length);
    expect(fib.funcName).toBe('<unknown>!<wasm function 1>');

    const offsets = fibListing.map((l) => l.offset);
    const all = new Set(offsets);
    expect(fib.covered.every((o) => all.has(o))).toBe(true);
    expect([...fib.covered]).toEqual([...fib.covered].sort((a, b) => a - b));
    expect(new Set(fib.covered).size).toBe(fib.covered.length);
    expect(fib.covered).toContain(offsets[0]); // the first instruction
    expect(fibListing[0]!.text).toBe('i32.const 0');
    expect(fib.covered).toContain(offsets[offsets.length - 1]); // the function's final end
    expect(fibListing[fibListing.length - 1]!.text).toBe('end');
    // Exactly the distinct offsets of the path fib(10) takes: all but the two inner `end`s.
    expect(fib.covered).toEqual([...new Set(fibPath(offsets, 10))].sort((a, b) => a - b));
    expect(fib.covered).toEqual(offsets.filter((_, i) => i !== 25 && i !== 26));
  });

  it('the trace: the first `limit` instructions run, with the operand stack', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const fibListing = listing(module, 'fib');
    const text = new Map(fibListing.map((l) => [l.offset, l.text]));
    const path = fibPath(fibListing.map((l) => l.offset), 10);

    const out = await sandbox.run(module, 'fib', [Value.i32(10)], undefined, { trace: { limit: 40 } });
    expect(out.coverage).toBeUndefined();
    const trace = out.trace!;
    expect(trace).toHaveLength(40);
    expect(trace[0]).toEqual({ funcIndex: 1, funcName: '<unknown>!<wasm function 1>', offset: fibListing[0]!.offset, instruction: 'i32.const 0', stack: [] });
    expect(trace.map((t) => t.offset)).toEqual(path.slice(0, 40));
    for (const t of trace) expect(t.instruction).toBe(text.get(t.offset));
    // The prologue's local.sets see the constant they store.
    expect(trace.slice(0, 6).map((t) => t.stack)).toEqual([[], ['i32:0'], [], ['i32:1'], [], ['i32:0']]);
    const geS = trace.find((t) => t.instruction === 'i32.ge_s')!;
    expect(geS.stack).toEqual(['i32:0', 'i32:10']);
  });

  it('a limit larger than the run gives the whole run: 14 + 17n instructions, each with its stack', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const fibListing = listing(module, 'fib');
    for (const n of [0, 1, 10]) {
      const path = fibPath(fibListing.map((l) => l.offset), n);
      expect(path).toHaveLength(14 + 17 * n);
      const out = await sandbox.run(module, 'fib', [Value.i32(n)], undefined, { trace: { limit: 1_000_000 } });
      expect(out.fuelConsumed).toBe(fibFuel(n));
      const trace = out.trace!;
      expect(trace.map((t) => t.offset)).toEqual(path);
      // At each loop check, i32.ge_s sees [i, n]; br_if sees whether i >= n.
      const checks = trace.filter((t) => t.instruction === 'i32.ge_s').map((t) => t.stack);
      expect(checks).toEqual(Array.from({ length: n + 1 }, (_, i) => [`i32:${i}`, `i32:${n}`]));
      const brIfs = trace.filter((t) => t.instruction === 'br_if 1').map((t) => t.stack);
      expect(brIfs).toEqual(Array.from({ length: n + 1 }, (_, i) => [i < n ? 'i32:0' : 'i32:1']));
      // local.set 4 stores a + b = fib(k + 2) in pass k.
      const sums = trace.filter((t) => t.instruction === 'local.set 4').map((t) => t.stack);
      expect(sums).toEqual(Array.from({ length: n }, (_, k) => [`i32:${fibValue(k + 2)}`]));
      // The last instruction, the function's end, sees the result.
      expect(trace[trace.length - 1]!.stack).toEqual([`i32:${fibValue(n)}`]);
      // A limit of exactly the run's length gives the same; one less drops the last.
      const exact = await sandbox.run(module, 'fib', [Value.i32(n)], undefined, { trace: { limit: path.length } });
      expect(exact.trace!.map((t) => t.offset)).toEqual(path);
      const short = await sandbox.run(module, 'fib', [Value.i32(n)], undefined, { trace: { limit: path.length - 1 } });
      expect(short.trace!.map((t) => t.offset)).toEqual(path.slice(0, -1));
    }
  });

  it('a limit of 0 gives an empty trace (asked for, nothing kept)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const out = await sandbox.run(module, 'fib', [Value.i32(10)], undefined, { trace: { limit: 0 } });
    expect(out.values.map(String)).toEqual([`I32(${fibValue(10)})`]);
    expect(out.trace).toEqual([]);
    expect((await sandbox.run(module, 'fib', [Value.i32(10)])).trace).toBeUndefined();
  });

  it('the trace shows at most the top four values of the operand stack', async () => {
    const wat = `(module (func (export "f") (result i32)
      (i32.add (i32.const 1) (i32.add (i32.const 2) (i32.add (i32.const 3) (i32.add (i32.const 4) (i32.add (i32.const 5) (i32.const 6))))))))`;
    const plain = await Sandbox.denyAll().run(wat, 'f');
    const out = await Sandbox.denyAll().run(wat, 'f', [], undefined, { trace: { limit: 100 } });
    expect(out.values.map(String)).toEqual(['I32(21)']);
    expect(out.fuelConsumed).toBe(plain.fuelConsumed);
    // Six constants, then the innermost add sees 1 2 3 4 5 6 on the stack: its top four.
    const firstAdd = out.trace!.find((t) => t.instruction === 'i32.add')!;
    expect(firstAdd.stack).toEqual(['i32:3', 'i32:4', 'i32:5', 'i32:6']);
    expect(out.trace!.map((t) => t.instruction)).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((k) => `i32.const ${k}`), 'i32.add', 'i32.add', 'i32.add', 'i32.add', 'i32.add', 'end',
    ]);
  });
});

/** A plain run and a watched one of the same call: equal results (or equal errors), equal fuel. */
async function sameWithCoverage(sandbox: Sandbox, module: CompiledModule, name: string, args: Value[], limits?: Limits): Promise<RunOutput | SandboxError> {
  const plain = await sandbox.run(module, name, args, limits).catch((e: unknown) => e as SandboxError);
  const watched = await sandbox.run(module, name, args, limits, { coverage: true, trace: { limit: 1_000_000 } }).catch((e: unknown) => e as SandboxError);
  if (plain instanceof SandboxError) {
    expect(watched).toBeInstanceOf(SandboxError);
    const w = watched as SandboxError;
    expect(w.kind).toBe(plain.kind);
    expect(w.message).toBe(plain.message);
    expect(w.backtrace).toEqual(plain.backtrace);
    expect(w.fuelConsumed).toBe(plain.fuelConsumed);
    expect(w.coverage).toBeDefined();
    expect(w.trace).toBeDefined();
  } else {
    expect(watched).not.toBeInstanceOf(SandboxError);
    const w = watched as RunOutput;
    expect(w.values.map(String)).toEqual(plain.values.map(String));
    expect(w.fuelConsumed).toBe(plain.fuelConsumed);
    expect(w.coverage).toBeDefined();
  }
  return watched;
}

/** Calls, loops, memory and i64: stores i*i (i64, through a call) at 8*i, then sums them back. */
const SUMSQ = `(module $mix
  (memory (export "memory") 1)
  (func $sq (param i64) (result i64) (i64.mul (local.get 0) (local.get 0)))
  (func (export "sumsq") (param $n i32) (result i64) (local $i i32) (local $acc i64)
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
      (i64.store (i32.shl (local.get $i) (i32.const 3)) (call $sq (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.set $i (i32.const 0))
    (block $d2 (loop $l2
      (br_if $d2 (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $acc (i64.add (local.get $acc) (i64.load (i32.shl (local.get $i) (i32.const 3)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l2)))
    (local.get $acc)))`;

/** f64 and calls: 30 Newton steps towards sqrt(a). */
const NEWTON = `(module $newton
  (func $step (param f64 f64) (result f64)
    (f64.mul (f64.const 0.5) (f64.add (local.get 0) (f64.div (local.get 1) (local.get 0)))))
  (func (export "sqrt") (param $a f64) (result f64) (local $x f64) (local $k i32)
    (local.set $x (local.get $a))
    (loop $l
      (local.set $x (call $step (local.get $x) (local.get $a)))
      (br_if $l (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 30))))
    (local.get $x)))`;

describe('the same results and fuel with coverage on', () => {
  it('the C fixture: run_fib(15)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const out = (await sameWithCoverage(sandbox, module, 'run_fib', [Value.i32(15)])) as RunOutput;
    expect(out.values.map(String)).toEqual([`I32(${fibValue(15)})`]);
    const byName = new Map(out.coverage!.map((f) => [f.funcName, f]));
    expect(byName.get('<unknown>!div')!.covered).toEqual([]);
    expect(byName.get('<unknown>!scale')!.covered).toEqual([]);
    expect(byName.get('<unknown>!run')!.covered).toEqual([]);
    // run_fib runs every one of its instructions; fib (15 > 1) every one.
    expect(byName.get('<unknown>!run_fib')!.covered).toEqual(listing(module, 'run_fib').map((l) => l.offset));
    // fib(15) takes both ways out of `if (n < 2)`: the early one, and the recursion that falls
    // through the block's end: every instruction of fib runs.
    expect(byName.get('<unknown>!fib')!.covered).toEqual(listing(module, 'fib').map((l) => l.offset));
  });

  it('the C fixture profiled, covered and traced at once: run_fib(10)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const plain = await sandbox.run(module, 'run_fib', [Value.i32(10)]);
    const out = await sandbox.run(module, 'run_fib', [Value.i32(10)], undefined, { profile: true, coverage: true, trace: { limit: 30 } });
    expect(out.values.map(String)).toEqual([`I32(${fibValue(10)})`]);
    expect(out.fuelConsumed).toBe(plain.fuelConsumed);
    const fib = out.profile!.functions.find((f) => f.funcName === '<unknown>!fib')!;
    // fib(10) makes 177 calls (C(n) = 1 + C(n-1) + C(n-2), C(0) = C(1) = 1).
    expect(fib.calls).toBe(177);
    expect(out.profile!.functions.reduce((a, f) => a + f.selfFuel, 0)).toBe(out.fuelConsumed);
    expect(out.trace).toHaveLength(30);
    expect(out.trace![0]!.funcName).toBe('<unknown>!run_fib');
    expect(out.trace!.some((t) => t.funcName === '<unknown>!fib')).toBe(true);
    expect(out.coverage!.find((f) => f.funcName === '<unknown>!fib')!.covered.length).toBeGreaterThan(0);
  });

  it('fixtures/traps.wat: each trap keeps its message and backtrace, and carries coverage and the trace', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(trapsWat);
    const div = (await sameWithCoverage(sandbox, module, 'div', [Value.i32(1), Value.i32(0)])) as SandboxError;
    expect(div.kind).toBe('Trap');
    expect(div.message).toBe('guest trap: wasm trap: integer divide by zero\nwasm backtrace:\n    0:     0x62 - traps!div');
    // div runs local.get 0, local.get 1 and traps at i32.div_s: its end never runs.
    const divListing = listing(module, 'div');
    expect(divListing.map((l) => l.text)).toEqual(['local.get 0', 'local.get 1', 'i32.div_s', 'end']);
    expect(div.coverage!.find((f) => f.funcName === 'traps!div')!.covered).toEqual(divListing.slice(0, 3).map((l) => l.offset));
    expect(div.coverage!.filter((f) => f.funcName !== 'traps!div').every((f) => f.covered.length === 0)).toBe(true);
    expect(div.trace!.map((t) => t.instruction)).toEqual(['local.get 0', 'local.get 1', 'i32.div_s']);
    expect(div.trace![2]!.stack).toEqual(['i32:1', 'i32:0']);
    expect(div.trace![2]!.offset).toBe(div.backtrace[0]!.offset);

    const unreachable = (await sameWithCoverage(sandbox, module, 'unreachable', [])) as SandboxError;
    expect(unreachable.message).toMatch(/^guest trap: wasm trap: wasm `unreachable` instruction executed\n/);
    expect(unreachable.trace!.map((t) => t.instruction)).toEqual(['unreachable']);

    const oob = (await sameWithCoverage(sandbox, module, 'oob', [])) as SandboxError;
    expect(oob.message).toMatch(/^guest trap: wasm trap: out of bounds memory access\n/);
    expect(oob.trace!.map((t) => [t.instruction, t.stack])).toEqual([['i32.const 65536', []], ['i32.load', ['i32:65536']]]);

    const recurse = (await sameWithCoverage(sandbox, module, 'recurse', [Value.i32(0)])) as SandboxError;
    expect(recurse.message).toMatch(/^guest trap: wasm trap: call stack exhausted\n/);
    // Only the instructions up to the recursive call ever run.
    const recurseListing = listing(module, 'recurse');
    const call = recurseListing.findIndex((l) => l.text.startsWith('call '));
    expect(recurse.coverage!.find((f) => f.funcName === 'traps!recurse')!.covered).toEqual(recurseListing.slice(0, call + 1).map((l) => l.offset));
  });

  it('a FuelExhausted run carries coverage up to where the fuel ran out', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const e = (await sameWithCoverage(sandbox, module, 'fib', [Value.i32(30)], new Limits({ fuel: 100 }))) as SandboxError;
    expect(e.kind).toBe('FuelExhausted');
    expect(e.fuelConsumed).toBe(100);
    // 100 fuel: the invocation and prologue (7), then five full passes (85) and part of a sixth:
    // every instruction of the loop ran, nothing after it.
    const offsets = listing(module, 'fib').map((l) => l.offset);
    const fib = e.coverage!.find((f) => f.funcIndex === 1)!;
    expect(fib.covered).toEqual(offsets.slice(0, 25));
    // The sixth pass's check costs 4 of the last 8 fuel: six checks ran, and nothing after the loop.
    expect(e.trace!.filter((t) => t.instruction === 'i32.ge_s')).toHaveLength(6);
    expect(e.trace!.some((t) => t.offset === offsets[27])).toBe(false);
  });

  it('calls, loops, memory and i64', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(SUMSQ);
    for (const n of [0, 1, 100]) {
      const out = (await sameWithCoverage(sandbox, module, 'sumsq', [Value.i32(n)])) as RunOutput;
      expect(out.values.map(String)).toEqual([`I64(${((n - 1) * n * (2 * n - 1)) / 6})`]);
      const sq = out.coverage!.find((f) => f.funcName === 'mix!sq')!;
      expect(sq.covered.length).toBe(n === 0 ? 0 : sq.instructions);
    }
  });

  it('f64 and calls', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(NEWTON);
    let x = 2;
    for (let k = 0; k < 30; k++) x = 0.5 * (x + 2 / x);
    const out = (await sameWithCoverage(sandbox, module, 'sqrt', [Value.f64(2)])) as RunOutput;
    expect(out.values[0]!.value).toBe(x);
    expect(Math.abs(x - Math.SQRT2)).toBeLessThan(1e-15);
  });
});

describe('what the trace shows', () => {
  it('values of every type, as type:value', async () => {
    const T = `(module $ty
      (func (export "f") (param i64 f32 f64) (result f64) (local v128)
        (local.set 3 (v128.const i32x4 1 2 3 4))
        (f64.add (f64.convert_i64_s (local.get 0)) (f64.add (f64.promote_f32 (local.get 1)) (local.get 2)))))`;
    const sandbox = Sandbox.denyAll();
    const args = [Value.i64(-5n), Value.f32(1.5), Value.f64(0.25)];
    const plain = await sandbox.run(T, 'f', args);
    const out = await sandbox.run(T, 'f', args, undefined, { trace: { limit: 100 } });
    expect(out.values.map(String)).toEqual(['F64(-3.25)']);
    expect(out.fuelConsumed).toBe(plain.fuelConsumed);
    const at = (instruction: string): readonly string[] => out.trace!.find((t) => t.instruction === instruction)!.stack;
    expect(at('local.set 3')).toEqual(['v128:0x00000004000000030000000200000001']); // lane 3 first
    expect(at('f64.convert_i64_s')).toEqual(['i64:-5']);
    expect(at('f64.promote_f32')).toEqual(['f64:-5', 'f32:1.5']);
    expect(out.trace!.filter((t) => t.instruction === 'f64.add').map((t) => t.stack)).toEqual([['f64:-5', 'f64:1.5', 'f64:0.25'], ['f64:-5', 'f64:1.75']]);
    expect(out.trace![out.trace!.length - 1]!.stack).toEqual(['f64:-3.25']);
  });

  it('the start function’s instructions come first, in coverage and the trace', async () => {
    const START = `(module $st
      (global $g (mut i32) (i32.const 0))
      (func $init (global.set $g (i32.const 41)))
      (start $init)
      (func (export "get") (result i32) (i32.add (global.get $g) (i32.const 1))))`;
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(START);
    const plain = await sandbox.run(module, 'get');
    const out = await sandbox.run(module, 'get', [], undefined, { coverage: true, trace: { limit: 100 } });
    expect(out.values.map(String)).toEqual(['I32(42)']);
    expect(out.fuelConsumed).toBe(plain.fuelConsumed);
    const init = listing(module, 'init');
    const get = listing(module, 'get');
    expect(out.coverage!.map((f) => [f.funcName, f.covered])).toEqual([['st!init', init.map((l) => l.offset)], ['st!<wasm function 1>', get.map((l) => l.offset)]]);
    expect(out.trace!.map((t) => t.offset)).toEqual([...init, ...get].map((l) => l.offset));
  });
});

describe('instances', () => {
  it('an instance made with { inspect: true } gives coverage and the trace per call', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const instance = await sandbox.instantiate(module, undefined, { inspect: true });
    const viaRun = await sandbox.run(module, 'fib', [Value.i32(10)], undefined, { coverage: true });
    const out = await instance.call('fib', [Value.i32(10)], { coverage: true });
    expect(out.values.map(String)).toEqual([`I32(${fibValue(10)})`]);
    expect(out.fuelConsumed).toBe(fibFuel(10));
    expect(out.coverage).toEqual(viaRun.coverage);
    // Each call has its own: fib(0) never enters the loop body.
    const zero = await instance.call('fib', [Value.i32(0)], { coverage: true, trace: { limit: 3 } });
    const offsets = listing(module, 'fib').map((l) => l.offset);
    expect(zero.coverage!.find((f) => f.funcIndex === 1)!.covered).toEqual([...new Set(fibPath(offsets, 0))].sort((a, b) => a - b));
    expect(zero.trace!.map((t) => t.offset)).toEqual(offsets.slice(0, 3));
    // And a call that asks for nothing gets nothing.
    const none = await instance.call('add', [Value.i32(2), Value.i32(40)]);
    expect(none.values.map(String)).toEqual(['I32(42)']);
    expect(none.coverage).toBeUndefined();
    expect(none.trace).toBeUndefined();
  });

  it('without inspect, asking for coverage or a trace rejects with a Host error that says so', async () => {
    const sandbox = Sandbox.denyAll();
    const instance = await sandbox.instantiate(wellBehaved);
    for (const options of [{ coverage: true }, { trace: { limit: 5 } }]) {
      const e = await failure(instance.call('fib', [Value.i32(3)], options));
      expect(e.kind).toBe('Host');
      expect(e.message).toMatch(/inspect/);
    }
    // The instance still works.
    expect((await instance.call('fib', [Value.i32(3)])).values.map(String)).toEqual(['I32(2)']);
  });

  it.each([-1, 1.5, NaN, Infinity])('a trace limit of %s rejects with a SandboxError', async (limit) => {
    const sandbox = Sandbox.denyAll();
    const e = await failure(sandbox.run(wellBehaved, 'fib', [Value.i32(3)], undefined, { trace: { limit } }));
    expect(e.kind).toBe('Host');
    expect(e.message).toMatch(/trace\.limit/);
    const instance = await sandbox.instantiate(wellBehaved, undefined, { inspect: true });
    const e2 = await failure(instance.call('fib', [Value.i32(3)], { trace: { limit } }));
    expect(e2.kind).toBe('Host');
  });
});

describe('lcov', () => {
  it('is null for a module without DWARF', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const out = await sandbox.run(module, 'fib', [Value.i32(5)], undefined, { coverage: true });
    expect(module.lcov(out.coverage!)).toBeNull();
  });

  it('the C fixture after run_fib(5): fib’s line hit, div’s not', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const out = await sandbox.run(module, 'run_fib', [Value.i32(5)], undefined, { coverage: true });
    expect(out.values.map(String)).toEqual([`I32(${fibValue(5)})`]);
    const lcov = module.lcov(out.coverage!)!;
    expect(lcov).not.toBeNull();
    const lines = lcov.trimEnd().split('\n');
    const sf = lines.filter((l) => l.startsWith('SF:'));
    expect(sf).toHaveLength(1);
    expect(sf[0]!.endsWith('fixtures/c/traps.c')).toBe(true);
    const da = new Map(lines.filter((l) => l.startsWith('DA:')).map((l) => {
      const [line, hits] = l.slice(3).split(',');
      return [Number(line), Number(hits)] as const;
    }));
    expect(da.get(marked('fib').line)).toBe(1);
    expect(da.get(marked('div').line)).toBe(0);
    expect(da.get(marked('scale calls div').line)).toBe(0);
    expect(da.get(marked('run calls scale').line)).toBe(0);
    // LF and LH count the DA lines and the hit ones.
    expect(lines).toContain(`LF:${da.size}`);
    expect(lines).toContain(`LH:${[...da.values()].filter((h) => h > 0).length}`);
    expect(lines[lines.length - 1]).toBe('end_of_record');
  });

  it('after run(0), which traps in div: div’s line is hit, fib’s not', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const e = await failure(sandbox.run(module, 'run', [Value.i32(0)], undefined, { coverage: true }));
    const lcov = module.lcov(e.coverage!)!;
    const da = new Map(lcov.split('\n').filter((l) => l.startsWith('DA:')).map((l) => l.slice(3).split(',').map(Number) as [number, number]));
    expect(da.get(marked('div').line)).toBe(1);
    expect(da.get(marked('scale calls div').line)).toBe(1);
    expect(da.get(marked('run calls scale').line)).toBe(1);
    expect(da.get(marked('fib').line)).toBe(0);
  });
});

describe('the tier does not matter', () => {
  it('eager, auto and interpreter give the same coverage, trace, values and fuel', async () => {
    const cases: Array<[Uint8Array | string, string, Value[]]> = [
      [wellBehaved, 'fib', [Value.i32(20)]],
      [cWasm, 'run_fib', [Value.i32(12)]],
      [SUMSQ, 'sumsq', [Value.i32(50)]],
    ];
    for (const [source, name, args] of cases) {
      const seen: string[] = [];
      for (const tier of ['interpreter', 'eager', 'auto'] as const) {
        const out = await new Sandbox(HostAbi.denyAll(), { tier }).run(source, name, args, new Limits({ fuel: 1e9 }), { coverage: true, trace: { limit: 500 } });
        seen.push(JSON.stringify([out.values.map(String), out.fuelConsumed, out.coverage, out.trace]));
      }
      expect(seen[1]).toBe(seen[0]);
      expect(seen[2]).toBe(seen[0]);
      // And the same values and fuel as an unwatched run in the eager tier.
      const plain = await new Sandbox(HostAbi.denyAll(), { tier: 'eager' }).run(source, name, args, new Limits({ fuel: 1e9 }));
      expect(JSON.parse(seen[0]!).slice(0, 2)).toEqual([plain.values.map(String), plain.fuelConsumed]);
    }
  });
});
