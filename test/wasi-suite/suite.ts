/**
 * The official WASI test suite (WebAssembly/wasi-testsuite, preview 1), run under the sandbox
 * as the suite's specification.md says a runner must: every `NAME.wasm` of each language's
 * `wasm32-wasip1` folder is a test; `NAME.json`, when present, gives its arguments,
 * environment, the directory to preopen as `/` (`root`, relative to the test's folder), the
 * exit code expected (default 0) and what stdout and stderr must hold (checked only when
 * given, as the suite's own runner does). The preopened directory is copied into memory for
 * each test, so the suite's files are never written.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/wasi-suite/suite.ts). */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `$WASI_SUITE_DIR`, or `../shared/wasi-testsuite` next to the repository. */
export function wasiSuiteDir(): string {
  const fromEnv = process.env['WASI_SUITE_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(repoRoot, '..', 'shared', 'wasi-testsuite');
}

/** Whether `dir` holds the suite (its `tests/` folder). */
export function wasiSuitePresent(dir: string): boolean {
  return existsSync(join(dir, 'tests'));
}

export interface WasiTest {
  /** `LANGUAGE/NAME`, e.g. `rust/fd_readdir`. */
  readonly name: string;
  readonly wasm: string;
  readonly spec: WasiTestSpec;
}

/** A test's legacy-style specification, with the suite's defaults filled in. */
export interface WasiTestSpec {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The host directory to preopen as `/`, or null. */
  readonly root: string | null;
  readonly exitCode: number;
  readonly stdout: string | null;
  readonly stderr: string | null;
  /** Why the test cannot run here (it needs a proposal beyond preview 1), or null. */
  readonly unsupported: string | null;
}

/** Every test of the suite, sorted by name. */
export function listWasiTests(dir: string): WasiTest[] {
  const tests: WasiTest[] = [];
  const languages = join(dir, 'tests');
  for (const language of readdirSync(languages).sort()) {
    const folder = join(languages, language, 'testsuite', 'wasm32-wasip1');
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.wasm')) continue;
      const wasm = join(folder, file);
      tests.push({ name: `${language}/${basename(file, '.wasm')}`, wasm, spec: readSpec(wasm) });
    }
  }
  return tests;
}

function readSpec(wasm: string): WasiTestSpec {
  const path = wasm.replace(/\.wasm$/, '.json');
  const json = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  if ('operations' in json || 'proposals' in json) {
    const proposals = (json['proposals'] as string[] | undefined) ?? [];
    return { args: [], env: {}, root: null, exitCode: 0, stdout: null, stderr: null, unsupported: `operation-based specification (proposals: ${proposals.join(', ') || 'none'})` };
  }
  const root = typeof json['root'] === 'string' ? join(dirname(wasm), json['root']) : null;
  return {
    args: (json['args'] as string[] | undefined) ?? [],
    env: (json['env'] as Record<string, string> | undefined) ?? {},
    root,
    exitCode: (json['exit_code'] as number | undefined) ?? 0,
    stdout: (json['stdout'] as string | undefined) ?? null,
    stderr: (json['stderr'] as string | undefined) ?? null,
    unsupported: null,
  };
}

export type Outcome = 'pass' | 'fail' | 'skip';

export interface WasiTestResult {
  readonly name: string;
  readonly outcome: Outcome;
  /** Why it failed or was skipped ('' when it passed). */
  readonly detail: string;
  /** What the run did, for comparing runs: its streams, exit code (-1 for an error) and fuel. */
  readonly trace: { readonly stdout: string; readonly stderr: string; readonly exitCode: number; readonly fuel: number } | null;
}

/** Runs one test under a sandbox granting WASI only (with `tier`, in that tier). */
export async function runWasiTest(test: WasiTest, tier?: 'interpreter' | 'eager'): Promise<WasiTestResult> {
  const { spec } = test;
  if (spec.unsupported !== null) return { name: test.name, outcome: 'skip', detail: spec.unsupported, trace: null };
  // Loaded here, so that listing the suite does not load the engine.
  const { HostAbi, Limits, Sandbox, SandboxError } = await import('../../src/index.js');
  const { host, wasi } = HostAbi.denyAll().allowWasi({
    args: [basename(test.wasm), ...spec.args],
    env: spec.env,
    preopens: spec.root === null ? {} : { '/': spec.root },
  });
  const failures: string[] = [];
  let exitCode: number;
  let fuel: number;
  try {
    const out = await new Sandbox(host, { tier }).run(readFileSync(test.wasm), '_start', [], new Limits({ fuel: 1_000_000_000, timeoutMs: 60_000 }));
    exitCode = out.exitCode;
    fuel = out.fuelConsumed;
  } catch (e) {
    if (!(e instanceof SandboxError)) throw e;
    failures.push(e.message);
    exitCode = -1;
    fuel = e.fuelConsumed;
  }
  const stdout = new TextDecoder().decode(wasi.stdout);
  const stderr = new TextDecoder().decode(wasi.stderr);
  if (exitCode !== spec.exitCode) failures.push(`exit code ${exitCode}, expected ${spec.exitCode}`);
  if (spec.stdout !== null && stdout !== spec.stdout) failures.push(`stdout ${JSON.stringify(stdout)}, expected ${JSON.stringify(spec.stdout)}`);
  if (spec.stderr !== null && stderr !== spec.stderr) failures.push(`stderr ${JSON.stringify(stderr)}, expected ${JSON.stringify(spec.stderr)}`);
  const trace = { stdout, stderr, exitCode, fuel };
  if (failures.length === 0) return { name: test.name, outcome: 'pass', detail: '', trace };
  const tail = stderr.trim() === '' ? '' : ` — stderr: ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
  return { name: test.name, outcome: 'fail', detail: failures.join('; ') + tail, trace };
}
