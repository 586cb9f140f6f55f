/**
 * The WebAssembly core test suite (every non-simd script), run in-process through the spec
 * harness. Skipped, with a note, when the suite is not checked out next to the repository
 * (`../shared/wasm-testsuite`, or $SPEC_SUITE_DIR); in CI (`CI=true`) a missing suite fails.
 */
import { describe, expect, it } from 'vitest';

import { defaultSuiteDir, listSpecFiles, suiteAvailable, suitesRequired } from './spec/locate.js';

const suiteDir = defaultSuiteDir();
const suitePresent = suiteAvailable(suiteDir, 'the WebAssembly core test suite');

describe.skipIf(!suitePresent && !suitesRequired())('WebAssembly core spec suite', () => {
  it('passes every command of the non-simd scripts', async () => {
    expect(suitePresent, `the suite is missing at ${suiteDir}, and CI=true requires it`).toBe(true);
    // Loaded here, not at the top, so that a missing suite skips without loading the engine.
    const { formatFileResult, formatTotals, runSpecFiles } = await import('./spec/harness.js');
    const suite = runSpecFiles(listSpecFiles(suiteDir));
    const report = suite.files
      .filter((f) => f.failed > 0)
      .flatMap((f) => formatFileResult(f))
      .concat(formatTotals(suite))
      .join('\n');
    expect(suite.passed + suite.failed + suite.skipped, 'no spec commands found').toBeGreaterThan(0);
    expect(suite.failed, `spec suite failures:\n${report}`).toBe(0);
    // The suite's README counts 27,900 non-simd commands, 567 of them text-format
    // assert_malformed: those, and nothing else, are skipped. Every other command passes
    // under the harness's strict rules (test/spec/harness.ts: the exact error class, the
    // script's text as the message's prefix, the trap kind the text names).
    expect(suite.skipped).toBe(567);
    expect(suite.passed).toBe(27_333);
  }, 300_000);
});
