/**
 * The WebAssembly core test suites, run in-process through the spec harness (test/spec/): the
 * 2.0 suite whole, and of the 3.0 suite the scripts that use only features the engine runs.
 * Skipped, with a note, when a suite is not checked out next to the repository
 * (`../shared/wasm-testsuite` or $SPEC_SUITE_DIR, `../shared/wasm-testsuite-3` or
 * $SPEC_SUITE3_DIR); in CI (`CI=true`) a missing suite fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { defaultSuiteDir, listSpecFiles, suite3Dir, suiteAvailable, suitesRequired, type SpecFile } from './spec/locate.js';
import type { SuiteResult } from './spec/harness.js';

const suiteDir = defaultSuiteDir();
const suitePresent = suiteAvailable(suiteDir, 'the WebAssembly core test suite');
const suite3 = suite3Dir();
const suite3Present = suiteAvailable(suite3, 'the WebAssembly 3.0 core test suite');

/**
 * The 3.0 suite's features (its README's names, test/spec/suite3-features.ts) that the engine
 * runs: the scripts that use no others run here, beside the WebAssembly 2.0-only ones.
 */
const SUITE3_FEATURES_RUN: ReadonlySet<string> = new Set(['simd', 'relaxed', 'tail', 'multi-mem', 'mem64', 'exn', 'ext-const']);

/**
 * Scripts within those features that fail, each because WebAssembly 3.0 words or orders a
 * malformation otherwise and the engine still answers as 2.0 does. The test checks that they still fail, so that a
 * script the engine comes to pass leaves this list and runs.
 */
const SUITE3_FAILING: ReadonlyMap<string, string> = new Map([
  ['binary', "a missing end reported as the body's, and \"illegal opcode ff\" (this engine prints 0xff everywhere)"],
  ['binary-gc', 'a malformed GC type is refused as GC, not "malformed mutability"'],
  ['binary-leb128', 'a LEB128 longer than its section (3.0 reads it to the end first: "integer representation too long" / "integer too large")'],
]);

/** The 3.0 scripts the engine runs whole: only the features it runs, not left out, none known to fail. */
async function suite3Runnable(): Promise<SpecFile[]> {
  const { notRunReason, PROFILES } = await import('./spec/suites.js');
  const profile = PROFILES.wasm3;
  return listSpecFiles(suite3).filter((f) =>
    profile.scriptFeatures(f.name).every((feature) => SUITE3_FEATURES_RUN.has(feature))
    && notRunReason(profile, f.name) === null && !SUITE3_FAILING.has(f.name));
}

/** The commands given as text (`module_type` `text`): the only ones the harness skips. */
function textFormatCommands(files: readonly SpecFile[]): number {
  let count = 0;
  for (const file of files) {
    const script = JSON.parse(readFileSync(file.path, 'utf8')) as { commands: { module_type?: string }[] };
    count += script.commands.filter((c) => c.module_type === 'text').length;
  }
  return count;
}

/** The failing scripts and their failures, for an assertion's message. */
async function failureReport(suite: SuiteResult): Promise<string> {
  // Loaded here, not at the top, so that a missing suite skips without loading the engine.
  const { formatFileResult, formatTotals } = await import('./spec/report.js');
  return suite.files.filter((f) => f.failed > 0).flatMap((f) => formatFileResult(f)).concat(formatTotals(suite)).join('\n');
}

describe.skipIf(!suitePresent && !suitesRequired())('WebAssembly 2.0 core spec suite', () => {
  it('passes every command of every script it runs, and runs every script NOT_RUN does not name', async () => {
    expect(suitePresent, `the suite is missing at ${suiteDir}, and CI=true requires it`).toBe(true);
    const { runSuite } = await import('./spec/harness.js');
    const { PROFILES } = await import('./spec/suites.js');
    const files = listSpecFiles(suiteDir);
    const suite = runSuite(PROFILES.wasm2, files);
    expect(suite.failed, `spec suite failures:\n${await failureReport(suite)}`).toBe(0);
    // Every command is accounted for: the suite's README counts 27,900 commands outside the
    // simd_* scripts and 25,976 in them. Of the scripts that run, the text-format modules are
    // skipped (567 + 510 of them), and nothing else: every other command passes under the
    // harness's strict rules (test/spec/harness.ts: the exact error class, the script's text
    // as the message's prefix, the trap kind the text names).
    expect(suite.passed + suite.skipped + suite.notRun).toBe(27_900 + 25_976);
    const notRun = new Set(suite.files.filter((f) => f.notRun !== null).map((f) => f.name));
    expect(suite.skipped).toBe(textFormatCommands(files.filter((f) => !notRun.has(f.name))));
    expect(suite.passed).toBeGreaterThan(0);
  }, 300_000);
});

describe.skipIf(!(suitePresent && suite3Present) && !suitesRequired())('the spec suites with every function in the JavaScript tier from its first call', () => {
  it('2.0, and the 3.0 scripts the engine runs (legacy, extra and threads too): the same results as the interpreter', async () => {
    expect(suitePresent && suite3Present, 'the suites are missing, and CI=true requires them').toBe(true);
    const { runSuite } = await import('./spec/harness.js');
    const { PROFILES } = await import('./spec/suites.js');
    const eager = { jitThreshold: 0 };
    const wasm2 = runSuite(PROFILES.wasm2, listSpecFiles(suiteDir), eager);
    const wasm3 = runSuite(PROFILES.wasm3, await suite3Runnable(), eager);
    const others = [
      runSuite(PROFILES['wasm3-extra'], listSpecFiles(join(suite3, 'extra')), eager),
      runSuite(PROFILES.legacy, listSpecFiles(join(suite3, 'legacy')), eager),
      runSuite(PROFILES.threads, listSpecFiles(join(suite3, 'proposals', 'threads')), eager),
    ];
    for (const s of [wasm2, wasm3, ...others]) {
      expect(s.failed, `spec suite failures in the JavaScript tier:\n${await failureReport(s)}`).toBe(0);
      expect(s.passed).toBeGreaterThan(0);
    }
    expect(wasm2.passed).toBe(52_799);
  }, 300_000);
});

describe.skipIf(!(suitePresent && suite3Present) && !suitesRequired())('the spec suites in the debugger\'s translation (a probe before every instruction)', () => {
  it('2.0 and the 3.0 scripts the engine runs: every command passes, and every instantiation, start and invocation consumes the same fuel as without probes', async () => {
    expect(suitePresent && suite3Present, 'the suites are missing, and CI=true requires them').toBe(true);
    const { runSuite } = await import('./spec/harness.js');
    const { PROFILES } = await import('./spec/suites.js');
    const runs = [
      { profile: PROFILES.wasm2, files: listSpecFiles(suiteDir) },
      { profile: PROFILES.wasm3, files: await suite3Runnable() },
    ];
    for (const { profile: p, files } of runs) {
      const plainFuel: number[] = [];
      const probedFuel: number[] = [];
      runSuite(p, files, { jitThreshold: Infinity, fuelLog: plainFuel });
      // The monitor reads the whole operand stack and every local at every instruction.
      const probed = runSuite(p, files, { probes: true, fuelLog: probedFuel });
      expect(probed.failed, `spec suite failures with probes:\n${await failureReport(probed)}`).toBe(0);
      expect(probed.passed).toBeGreaterThan(0);
      expect(probedFuel.length).toBeGreaterThan(10_000);
      const firstDifference = probedFuel.findIndex((fuel, i) => fuel !== plainFuel[i]);
      expect(firstDifference, `fuel differs at record ${firstDifference}`).toBe(-1);
      expect(probedFuel.length).toBe(plainFuel.length);
    }
  }, 300_000);
});

describe.skipIf(!suite3Present && !suitesRequired())('WebAssembly 3.0 core spec suite, the features the engine runs', () => {
  it('passes every command of the scripts that use no other features (and extra/)', async () => {
    expect(suite3Present, `the suite is missing at ${suite3}, and CI=true requires it`).toBe(true);
    const { runSuite } = await import('./spec/harness.js');
    const { notRunReason, PROFILES } = await import('./spec/suites.js');
    const profile = PROFILES.wasm3;
    const runnable = listSpecFiles(suite3).filter((f) =>
      profile.scriptFeatures(f.name).every((feature) => SUITE3_FEATURES_RUN.has(feature))
      && notRunReason(profile, f.name) === null);
    const files = runnable.filter((f) => !SUITE3_FAILING.has(f.name));
    expect(files.length).toBe(runnable.length - SUITE3_FAILING.size);

    const suite = runSuite(profile, files);
    const extra = runSuite(PROFILES['wasm3-extra'], listSpecFiles(join(suite3, 'extra')));
    const legacy = runSuite(PROFILES.legacy, listSpecFiles(join(suite3, 'legacy')));
    for (const s of [suite, extra, legacy]) {
      expect(s.failed, `spec suite failures:\n${await failureReport(s)}`).toBe(0);
      expect(s.notRun).toBe(0);
      expect(s.passed).toBeGreaterThan(0);
    }
    expect(suite.skipped).toBe(textFormatCommands(files));
    expect(extra.skipped).toBe(0);

    // The threads proposal's scripts, with the features their fork of the spec assumes
    // (features.ts, THREADS_FEATURES: no second table, as before reference types).
    const threads = runSuite(PROFILES.threads, listSpecFiles(join(suite3, 'proposals', 'threads')));
    expect(threads.failed, `spec suite failures:\n${await failureReport(threads)}`).toBe(0);
    expect(threads.passed).toBeGreaterThan(500);

    const failing = runSuite(profile, runnable.filter((f) => SUITE3_FAILING.has(f.name)));
    const nowPassing = failing.files.filter((f) => f.failed === 0).map((f) => f.name);
    expect(nowPassing, 'these scripts pass now: take them out of SUITE3_FAILING').toEqual([]);
  }, 300_000);
});
