/**
 * `npm run wasi-suite`: runs the official WASI test suite (test/wasi-suite/suite.ts) and
 * reports each test. `--json` prints `{ passed, failed, skipped, tests: { NAME: outcome } }`;
 * `--suite DIR` (or $WASI_SUITE_DIR) names the suite; other arguments pick tests by name.
 * Exits 1 when a test fails or the suite is missing.
 */
import { listWasiTests, runWasiTest, wasiSuiteDir, wasiSuitePresent, type Outcome } from './suite.js';

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  const suiteAt = argv.indexOf('--suite');
  const dir = suiteAt >= 0 ? argv[suiteAt + 1]! : wasiSuiteDir();
  const picked = argv.filter((a, i) => !a.startsWith('--') && (suiteAt < 0 || i !== suiteAt + 1));
  if (!wasiSuitePresent(dir)) {
    console.error(`wasi-suite: no WASI test suite at ${dir} (set WASI_SUITE_DIR, or check out ../shared)`);
    return 1;
  }
  const tests = listWasiTests(dir).filter((t) => picked.length === 0 || picked.some((p) => t.name === p || t.name.endsWith(`/${p}`)));
  const outcomes: Record<string, Outcome> = {};
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of tests) {
    const result = await runWasiTest(test);
    outcomes[result.name] = result.outcome;
    if (result.outcome === 'pass') counts.passed++;
    else if (result.outcome === 'fail') counts.failed++;
    else counts.skipped++;
    if (!json) console.log(`${result.outcome.padEnd(4)} ${result.name}${result.detail === '' ? '' : `: ${result.detail}`}`);
  }
  if (json) console.log(JSON.stringify({ ...counts, tests: outcomes }, null, 2));
  else console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (${tests.length} tests)`);
  return counts.failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
