/**
 * Finding the core test suite and its scripts. Kept apart from the harness so that it can be
 * loaded without the engine (the vitest entry decides whether to skip before loading it).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/spec/locate.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `$SPEC_SUITE_DIR`, or `../shared/wasm-testsuite` relative to the repository root. */
export function defaultSuiteDir(): string {
  const fromEnv = process.env['SPEC_SUITE_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(repoRoot, '..', 'shared', 'wasm-testsuite');
}

/**
 * The newer suite (Wasm 3.0 features; its README lists them per script): `$SPEC_SUITE3_DIR`, or
 * `../shared/wasm-testsuite-3` relative to the repository root.
 */
export function suite3Dir(): string {
  const fromEnv = process.env['SPEC_SUITE3_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(repoRoot, '..', 'shared', 'wasm-testsuite-3');
}

/**
 * Whether a missing suite fails the tests instead of skipping them: in CI (`CI=true`, as
 * `.ci/run` is run), where a suite that silently went missing would take its checks with it.
 */
export function suitesRequired(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * For a test file that needs a suite: whether `dir` holds it (its `json/` folder). When it
 * does not, says so once on stderr; in CI that is an error the caller must fail on.
 */
export function suiteAvailable(dir: string, what: string): boolean {
  if (existsSync(join(dir, 'json'))) return true;
  const note = suitesRequired()
    ? `${what} not found at ${dir}: CI=true requires it (set SPEC_SUITE_DIR / SPEC_SUITE3_DIR, or check out ../shared)`
    : `${what} not found at ${dir}: its tests are skipped`;
  console.warn(note);
  return false;
}

export interface SpecFile {
  readonly name: string;
  readonly path: string;
}

/**
 * Every json/NAME/NAME.json of the suite, sorted by name. Which of them run is the suite
 * profile's business (suites.ts's NOT_RUN), not this listing's.
 */
export function listSpecFiles(suiteDir: string): SpecFile[] {
  const jsonDir = join(suiteDir, 'json');
  const files: SpecFile[] = [];
  for (const name of readdirSync(jsonDir).sort()) {
    const path = join(jsonDir, name, `${name}.json`);
    if (existsSync(path)) files.push({ name, path });
  }
  return files;
}

/**
 * A file named on the command line: `NAME`, `NAME.json`, `NAME.wast`, or a path to a
 * `.json` script. Returns null when there is no such script.
 */
export function findSpecFile(suiteDir: string, arg: string): SpecFile | null {
  if (arg.endsWith('.json') && existsSync(arg) && statSync(arg).isFile()) {
    return { name: basename(arg, '.json'), path: resolve(arg) };
  }
  const name = basename(arg).replace(/\.(json|wast)$/, '');
  const path = join(suiteDir, 'json', name, `${name}.json`);
  return existsSync(path) ? { name, path } : null;
}
