/**
 * `npm run spec [-- [--suite DIR] [--profile ID] [--json] [--verbose] [--fuel=N] [--all] [NAME ...]]`
 *
 * Runs a core test suite's scripts (all of them, or the named ones) under the suite's profile
 * (suites.ts: its feature set and NOT_RUN) and prints `NAME: P passed, F failed, S skipped`
 * per script (or `NAME: not run: REASON`), the reasons of failed commands (ten per script
 * unless --verbose), a tally per feature when the whole suite ran, and the totals alone on the
 * last line. With --json, one JSON object instead (report.ts's summaryJson). Exit code 1 when
 * any command failed, 2 on a usage error.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { runSuite } from './harness.js';
import { defaultSuiteDir, findSpecFile, listSpecFiles, type SpecFile } from './locate.js';
import { formatFeatureTallies, formatFileResult, formatTotals, summaryJson } from './report.js';
import { detectProfile, isProfileId, PROFILES, type SuiteProfile } from './suites.js';

const USAGE = `usage: npm run spec -- [--suite DIR] [--profile ID] [--json] [--verbose] [--fuel=N] [--all] [NAME ...]
  NAME         a script of the suite (e.g. i32, simd_address); default: every script
  --suite DIR  the suite: ../shared/wasm-testsuite (the default, or $SPEC_SUITE_DIR),
               ../shared/wasm-testsuite-3, or its legacy/, extra/ or proposals/threads/
  --profile ID the suite's profile when DIR does not tell (${Object.keys(PROFILES).join(', ')})
  --json       print one JSON object: suite, totals, byFeature, and per script its counts,
               reason not run and failures
  --verbose    print every failure (otherwise ten per script) and each script's time
  --fuel=N     fuel given before each invocation (default 1e10)
  --tier=T     interpreter (no JavaScript tier), eager (every function translated on its first
               call) or auto (the default policy)
  --all        also run the scripts the suite's NOT_RUN table leaves out (test/spec/suites.ts)`;

interface Args {
  suiteDir: string | null;
  profile: SuiteProfile | null;
  json: boolean;
  verbose: boolean;
  all: boolean;
  fuel?: number;
  jitThreshold?: number;
  names: string[];
}

/** The command line, or an error message. */
function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { suiteDir: null, profile: null, json: false, verbose: false, all: false, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // `--suite DIR` or `--suite=DIR`, likewise --profile.
    const valueOf = (option: string): string | undefined => {
      if (arg.startsWith(`${option}=`)) return arg.slice(option.length + 1);
      if (arg === option) return argv[++i];
      return undefined;
    };
    const suite = valueOf('--suite');
    const profile = suite === undefined ? valueOf('--profile') : undefined;
    if (suite !== undefined) args.suiteDir = resolve(suite);
    else if (profile !== undefined) {
      if (!isProfileId(profile)) return `unknown profile "${profile}"`;
      args.profile = PROFILES[profile];
    } else if (arg === '--suite' || arg === '--profile') return `${arg} needs a value`;
    else if (arg === '--json') args.json = true;
    else if (arg === '--verbose' || arg === '-v') args.verbose = true;
    else if (arg === '--all') args.all = true;
    else if (arg.startsWith('--fuel=')) {
      args.fuel = Number(arg.slice('--fuel='.length));
      if (!Number.isFinite(args.fuel) || args.fuel <= 0) return `bad --fuel value: ${arg}`;
    } else if (arg.startsWith('--tier=')) {
      const tier = arg.slice('--tier='.length);
      const thresholds: Record<string, number | undefined> = { interpreter: Infinity, eager: 0, auto: undefined };
      if (!(tier in thresholds)) return `bad --tier value: ${arg}`;
      args.jitThreshold = thresholds[tier];
    } else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else args.names.push(arg);
  }
  return args;
}

function main(argv: readonly string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    console.error(`${args}\n${USAGE}`);
    return 2;
  }

  // Without --suite, the 2.0 suite as always; a named folder says which suite it is.
  const suiteDir = args.suiteDir ?? defaultSuiteDir();
  if (!existsSync(suiteDir)) {
    console.error(`spec suite not found at ${suiteDir}${args.suiteDir === null ? ' (set SPEC_SUITE_DIR)' : ''}`);
    return 2;
  }
  const profile = args.profile ?? (args.suiteDir === null ? PROFILES.wasm2 : detectProfile(suiteDir));
  if (profile === null) {
    console.error(`cannot tell which suite ${suiteDir} is: give --profile (${Object.keys(PROFILES).join(', ')})`);
    return 2;
  }

  let files: SpecFile[];
  if (args.names.length === 0) {
    files = listSpecFiles(suiteDir);
  } else {
    files = [];
    for (const name of args.names) {
      const file = findSpecFile(suiteDir, name);
      if (file === null) {
        console.error(`no script named "${name}" in ${suiteDir}/json`);
        return 2;
      }
      files.push(file);
    }
  }

  if (!args.json) console.log(`${profile.title} (${profile.id}) at ${suiteDir}`);
  const options = {
    all: args.all,
    ...(args.fuel !== undefined ? { fuel: args.fuel } : {}),
    ...(args.jitThreshold !== undefined ? { jitThreshold: args.jitThreshold } : {}),
  };
  const suite = runSuite(profile, files, options, (result) => {
    if (!args.json) for (const line of formatFileResult(result, args.verbose)) console.log(line);
  });

  if (args.json) {
    console.log(JSON.stringify(summaryJson(suite, suiteDir, profile, args.verbose)));
  } else {
    if (args.names.length === 0) for (const line of formatFeatureTallies(suite)) console.log(line);
    console.log(formatTotals(suite));
  }
  return suite.failed > 0 ? 1 : 0;
}

// Output piped into `head` and the like: stop quietly when the reader goes away.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = main(process.argv.slice(2));
