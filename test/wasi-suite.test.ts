/**
 * The official WASI test suite (preview 1: 72 programs in C, Rust and AssemblyScript), every
 * test under the sandbox, through the same runner as `npm run wasi-suite`. Skipped, with a
 * note, when the suite is not next to the repository (`../shared/wasi-testsuite` or
 * $WASI_SUITE_DIR); in CI (`CI=true`) a missing suite fails.
 */
import { describe, expect, it } from 'vitest';
import { suitesRequired } from './spec/locate.js';
import { listWasiTests, runWasiTest, wasiSuiteDir, wasiSuitePresent, type WasiTestResult } from './wasi-suite/suite.js';

const dir = wasiSuiteDir();
const present = wasiSuitePresent(dir);
if (!present) {
  console.warn(suitesRequired()
    ? `the WASI test suite not found at ${dir}: CI=true requires it (set WASI_SUITE_DIR, or check out ../shared)`
    : `the WASI test suite not found at ${dir}: its tests are skipped`);
}

function failures(results: readonly WasiTestResult[]): string {
  return results.filter((r) => r.outcome !== 'pass').map((r) => `${r.outcome} ${r.name}: ${r.detail}`).join('\n');
}

describe.skipIf(!present && !suitesRequired())('the official WASI test suite (wasm32-wasip1)', () => {
  it('passes all 72 tests, and each replays bit for bit: the same output, exit code and fuel', { timeout: 120_000 }, async () => {
    expect(present, `the WASI test suite is missing at ${dir}, and CI=true requires it`).toBe(true);
    const tests = listWasiTests(dir);
    expect(tests.length).toBe(72);
    const first: WasiTestResult[] = [];
    for (const test of tests) first.push(await runWasiTest(test));
    expect(failures(first), 'WASI suite failures').toBe('');
    for (const [i, test] of tests.entries()) expect((await runWasiTest(test)).trace, test.name).toEqual(first[i]!.trace);
  });

  it('gives the same results in the JavaScript tier, every function translated on its first call', { timeout: 120_000 }, async () => {
    expect(present, `the WASI test suite is missing at ${dir}, and CI=true requires it`).toBe(true);
    const tests = listWasiTests(dir);
    const interpreted: WasiTestResult[] = [];
    for (const test of tests) interpreted.push(await runWasiTest(test, 'interpreter'));
    for (const [i, test] of tests.entries()) {
      const eager = await runWasiTest(test, 'eager');
      expect(eager.outcome, `${test.name}: ${eager.detail}`).toBe('pass');
      // The virtual clock reads fuel: the tiers must agree on it at every system call.
      expect(eager.trace, test.name).toEqual(interpreted[i]!.trace);
    }
  });
});
