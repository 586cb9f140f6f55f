/**
 * The WebAssembly core test suite (every non-simd script), run in-process through the spec
 * harness. Skipped when the suite is not checked out next to the repository
 * (`../shared/wasm-testsuite`, or $SPEC_SUITE_DIR).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { defaultSuiteDir, listSpecFiles } from './spec/locate.js';

const suiteDir = defaultSuiteDir();
const suitePresent = existsSync(suiteDir);

if (!suitePresent) console.warn(`../shared/wasm-testsuite not found (looked in ${suiteDir}): spec suite skipped`);

describe.skipIf(!suitePresent)('WebAssembly core spec suite', () => {
  it('passes every command of the non-simd scripts', async () => {
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
    // assert_malformed: those, and nothing else, are skipped.
    expect(suite.skipped).toBe(567);
    expect(suite.passed).toBe(27_333);
  }, 300_000);
});
