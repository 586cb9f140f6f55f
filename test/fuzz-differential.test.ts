/**
 * A short fixed-seed run of the differential fuzzer (test/fuzz/): modules from Binaryen's
 * fuzzer run in our engine and in Node's own WebAssembly, compared after every call. The long
 * runs are `npm run fuzz -- --seconds N --seed S`.
 *
 * Besides "no divergence", the run must have compared a real amount of work, so that a harness
 * that silently compares nothing fails here; and the harness is shown, on hand-written pairs
 * of modules, to notice each kind of difference it claims to compare.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FUZZ_INPUT_SIZE, generateFuzzModule } from './fuzz/binaryen-gen.js';
import { type ModuleResult, MEMORY_EXPORT, runDifferential, withMemoryExport } from './fuzz/differential.js';
import { assemble } from './helpers/engine-oracle.js';
import { compileModule } from '../src/interpreter/index.js';

const FIRST_SEED = 20261130;
const MODULES = 48;

describe('differential fuzzing against Node (Binaryen -ttf)', () => {
  it(`${MODULES} modules from seed ${FIRST_SEED}: no divergence, and the calls were really compared`, () => {
    const totals = { compared: 0, skipped: 0, calls: 0, ok: 0, trap: 0, hostCalls: 0 };
    const divergent: Array<{ seed: number; result: ModuleResult }> = [];
    for (let seed = FIRST_SEED; seed < FIRST_SEED + MODULES; seed++) {
      // Alternate the shapes, as the CLI does: raw fuzzer output and optimised code.
      const shaping = (['none', 'O2', 'fuzz-passes'] as const)[seed % 3]!;
      const result = runDifferential(generateFuzzModule(seed, DEFAULT_FUZZ_INPUT_SIZE, shaping));
      if (result.status === 'skipped') totals.skipped++;
      else totals.compared++;
      totals.calls += result.calls;
      totals.ok += result.callOutcomes.ok;
      totals.trap += result.callOutcomes.trap;
      totals.hostCalls += result.hostCalls;
      if (result.divergences.length > 0) divergent.push({ seed, result });
    }
    expect(divergent.map(({ seed, result }) => ({ seed, first: result.divergences[0] }))).toEqual([]);
    // Measured on this seed range (Binaryen 132): all 48 compared, 1,569 calls (1,182 returned,
    // 372 trapped) and 7,355 host calls. The bounds leave room for another Binaryen.
    expect(totals.compared).toBeGreaterThanOrEqual(MODULES - 4);
    expect(totals.calls).toBeGreaterThan(500);
    expect(totals.ok).toBeGreaterThan(200);
    expect(totals.trap).toBeGreaterThan(20);
    expect(totals.hostCalls).toBeGreaterThan(1000);
  }, 120_000); // about 7 s on this machine; a loaded machine can take several times that

  it('the generator is deterministic and stays within what both engines run', () => {
    const a = generateFuzzModule(7);
    const b = generateFuzzModule(7);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(generateFuzzModule(8)).equals(Buffer.from(a))).toBe(false);
    expect(() => compileModule(a)).not.toThrow();
    expect(WebAssembly.validate(a as Uint8Array<ArrayBuffer>)).toBe(true);
  });

  it('exports the memory without disturbing the other exports', async () => {
    const bytes = await assemble(`(module (memory 1) (func (export "f") (result i32) i32.const 1) (global (export "g") i32 (i32.const 2)))`);
    const exportsOf = (b: Uint8Array): WebAssembly.ModuleExportDescriptor[] => WebAssembly.Module.exports(new WebAssembly.Module(b as Uint8Array<ArrayBuffer>));
    const names = exportsOf(withMemoryExport(bytes)).map((e) => `${e.name}:${e.kind}`);
    expect(names).toEqual(['f:function', 'g:global', `${MEMORY_EXPORT}:memory`]);
    const bare = await assemble('(module (memory 1))');
    expect(exportsOf(withMemoryExport(bare)).map((e) => e.name)).toEqual([MEMORY_EXPORT]);
    const already = await assemble('(module (memory (export "m") 1))');
    expect(withMemoryExport(already)).toBe(already);
  });
});

describe('the harness notices each kind of difference', () => {
  /** Runs `node` in V8 and `ours` in our engine, as if our engine behaved like `ours`. */
  async function differ(node: string, ours: string, nanBits = false): Promise<ModuleResult> {
    return runDifferential(await assemble(node), { ourModuleForTesting: await assemble(ours), triageNan: false, compareNanBits: nanBits });
  }
  const log = '(import "fuzzing-support" "log-i32" (func $log (param i32)))';

  it('a result', async () => {
    const r = await differ('(module (func (export "f") (result i64) i64.const 5))', '(module (func (export "f") (result i64) i64.const 6))');
    expect(r.divergences[0]).toMatchObject({ step: 'call f()', what: 'outcome', ours: 'returned [i64:6]', node: 'returned [i64:5]' });
  });

  it('a trap against a result, and one kind of trap against another', async () => {
    const r1 = await differ('(module (func (export "f") (result i32) i32.const 1))', '(module (func (export "f") (result i32) unreachable))');
    expect(r1.divergences[0]?.what).toBe('outcome');
    const r2 = await differ(
      '(module (memory 1) (func (export "f") (result i32) i32.const 70000 i32.load))',
      '(module (memory 1) (func (export "f") (result i32) i32.const 1 i32.const 0 i32.div_u))',
    );
    expect(r2.divergences[0]).toMatchObject({ what: 'outcome' });
    expect(r2.divergences[0]!.ours).toMatch(/^trap divide-by-zero/);
    expect(r2.divergences[0]!.node).toMatch(/^trap memory-oob/);
  });

  it('but not the two ways of saying that a float does not fit an integer', async () => {
    const src = '(module (func (export "f") (result i32) f32.const 1e10 i32.trunc_f32_s))';
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    expect(r.calls).toBe(2);
    expect(r.callOutcomes.trap).toBe(2);
  });

  it('a logged value, and the number of host calls', async () => {
    const r = await differ(`(module ${log} (func (export "f") i32.const 1 call $log))`, `(module ${log} (func (export "f") i32.const 2 call $log))`);
    expect(r.divergences[0]).toMatchObject({ what: expect.stringMatching(/^host-calls/), ours: 'log-i32(i32:2)', node: 'log-i32(i32:1)' });
    const r2 = await differ(`(module ${log} (func (export "f") i32.const 1 call $log))`, `(module ${log} (func (export "f") i32.const 1 call $log i32.const 1 call $log))`);
    expect(r2.divergences[0]?.what).toMatch(/^host-calls/);
  });

  it('an exported global, an exported table and the memory', async () => {
    const g = await differ(
      '(module (global (export "g") (mut i32) (i32.const 0)) (func (export "f") i32.const 3 global.set 0))',
      '(module (global (export "g") (mut i32) (i32.const 0)) (func (export "f") i32.const 4 global.set 0))',
    );
    expect(g.divergences[0]).toMatchObject({ what: 'global g', ours: 'i32:4', node: 'i32:3' });
    const t = await differ(
      '(module (table (export "table") 2 funcref) (func $a) (func $b) (elem declare func $a $b) (func (export "f") i32.const 1 ref.func $a table.set 0))',
      '(module (table (export "table") 2 funcref) (func $a) (func $b) (elem declare func $a $b) (func (export "f") i32.const 1 ref.func $b table.set 0))',
    );
    expect(t.divergences[0]).toMatchObject({ what: 'table table' });
    const m = await differ(
      '(module (memory 1) (func (export "f") i32.const 100 i32.const 7 i32.store8))',
      '(module (memory 1) (func (export "f") i32.const 100 i32.const 8 i32.store8))',
    );
    expect(m.divergences[0]).toMatchObject({ what: `memory ${MEMORY_EXPORT} at byte 100` });
  });

  it('NaN payloads only when asked, and apart from divergences', async () => {
    const f64 = '(import "fuzzing-support" "log-f64" (func $log (param f64)))';
    const node = `(module ${f64} (func (export "f") f64.const nan:0x1234 call $log))`;
    const ours = `(module ${f64} (func (export "f") f64.const nan:0x5678 call $log))`;
    const quiet = await differ(node, ours);
    expect(quiet.divergences).toEqual([]);
    expect(quiet.nanDifferences).toEqual([]);
    const loud = await differ(node, ours, true);
    expect(loud.divergences).toEqual([]);
    expect(loud.nanDifferences[0]).toMatchObject({ what: expect.stringMatching(/^host-calls/) });
    // A NaN against a number is a divergence either way.
    const real = await differ(node, `(module ${f64} (func (export "f") f64.const 0 call $log))`);
    expect(real.divergences[0]?.what).toMatch(/^host-calls/);
  });

  it('call-export and call-export-catch behave alike on both sides', async () => {
    const imports = `${log}
      (import "fuzzing-support" "call-export" (func $call (param i32 i32)))
      (import "fuzzing-support" "call-export-catch" (func $catch (param i32) (result i32)))`;
    const src = `(module ${imports}
      (func (export "a") i32.const 11 call $log)
      (func (export "b") i32.const 0 i32.const 0 call $call (call $log (call $catch (i32.const 9))) (call $log (call $catch (i32.const 0))))
      (func (export "t") unreachable)
      (func (export "c") (result i32) i32.const 2 call $catch))`;
    const r = await differ(src, src);
    expect(r.divergences).toEqual([]);
    // "a" logs 11; "b" calls a (2 host calls), fails to call export 9 (caught: 3 more with the
    // log), calls a again (4); "c" calls "t", whose trap is not caught (1): it traps in both
    // engines. Two rounds.
    expect(r.callOutcomes).toEqual({ ok: 4, trap: 4, hostException: 0 });
    expect(r.hostCalls).toBe(2 * (1 + 2 + 3 + 4 + 1));
    const wrong = await differ(src, src.replace('i32.const 9', 'i32.const 8'));
    expect(wrong.divergences[0]?.what).toMatch(/^host-calls/);
  });
});
