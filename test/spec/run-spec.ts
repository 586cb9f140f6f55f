/**
 * `npm run spec [-- [--json] [--verbose] [--fuel=N] [NAME ...]]`
 *
 * Runs the core test suite's scripts (all but `simd_*` by default, or just the named ones)
 * and prints `NAME: P passed, F failed, S skipped` per script, the reasons of failed commands
 * (ten per script unless --verbose), and the totals alone on the last line. With --json, one
 * JSON object instead. Exit code 1 when any command failed, 2 on a usage error.
 */
import { existsSync } from 'node:fs';

import {
  defaultSuiteDir, findSpecFile, formatFileResult, formatTotals, listSpecFiles, runSpecFiles,
  summaryJson, type SpecFile,
} from './harness.js';

const USAGE = `usage: npm run spec -- [--json] [--verbose] [--fuel=N] [NAME ...]
  NAME      a script of the suite (e.g. i32, simd_address); default: every non-simd script
  --json    print one JSON object {"passed","failed","skipped","files":{NAME:{...}}}
  --verbose print every failure (otherwise ten per script) and each script's time
  --fuel=N  fuel given before each invocation (default 1e10)
  suite directory: $SPEC_SUITE_DIR or ../shared/wasm-testsuite`;

function main(argv: readonly string[]): number {
  let json = false;
  let verbose = false;
  let fuel: number | undefined;
  const names: string[] = [];
  for (const arg of argv) {
    if (arg === '--json') json = true;
    else if (arg === '--verbose' || arg === '-v') verbose = true;
    else if (arg.startsWith('--fuel=')) {
      fuel = Number(arg.slice('--fuel='.length));
      if (!Number.isFinite(fuel) || fuel <= 0) {
        console.error(`bad --fuel value: ${arg}`);
        return 2;
      }
    } else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      return 0;
    } else if (arg.startsWith('-')) {
      console.error(`unknown option ${arg}\n${USAGE}`);
      return 2;
    } else names.push(arg);
  }

  const suiteDir = defaultSuiteDir();
  if (!existsSync(suiteDir)) {
    console.error(`spec suite not found at ${suiteDir} (set SPEC_SUITE_DIR)`);
    return 2;
  }

  let files: SpecFile[];
  if (names.length === 0) {
    files = listSpecFiles(suiteDir);
  } else {
    files = [];
    for (const name of names) {
      const file = findSpecFile(suiteDir, name);
      if (file === null) {
        console.error(`no script named "${name}" in ${suiteDir}/json`);
        return 2;
      }
      files.push(file);
    }
  }

  const suite = runSpecFiles(files, fuel !== undefined ? { fuel } : {}, (result) => {
    if (!json) for (const line of formatFileResult(result, verbose)) console.log(line);
  });

  if (json) console.log(JSON.stringify(summaryJson(suite)));
  else console.log(formatTotals(suite));
  return suite.failed > 0 ? 1 : 0;
}

// Output piped into `head` and the like: stop quietly when the reader goes away.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = main(process.argv.slice(2));
