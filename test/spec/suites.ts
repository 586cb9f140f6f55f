/**
 * The suites the spec runner knows, as profiles: the feature set a suite's modules are compiled
 * with, what each of its scripts uses beyond WebAssembly 2.0 (for reports), and NOT_RUN, the
 * one table of the scripts the runner leaves out and why. Loads no more of the engine than its
 * feature sets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

import { Feature } from '../../src/interpreter/errors.js';
import { THREADS_FEATURES, WASM2_FEATURES, WASMTIME_FEATURES, type FeatureSet } from '../../src/interpreter/features.js';
import { SUITE3_SCRIPTS_BY_FEATURE } from './suite3-features.js';

export type ProfileId = 'wasm2' | 'wasm3' | 'wasm3-extra' | 'legacy' | 'threads';

export interface SuiteProfile {
  readonly id: ProfileId;
  /** Where the suite sits, for reports. */
  readonly title: string;
  /** The feature set every module of the suite is compiled with. */
  readonly features: FeatureSet;
  /** The features a script uses beyond WebAssembly 2.0, by name (none: []). */
  scriptFeatures(script: string): readonly string[];
}

/**
 * wasmtime's defaults and exception handling: what the 3.0 suite's features are (its README),
 * with two parts of 3.0 that its `global`, `data` and `instance` scripts use beside extended
 * constants and multi-memory: defined globals read in constant expressions and table
 * initializers (wasmtime takes them only with GC or function references).
 */
const SUITE3_FEATURES: FeatureSet = new Set<Feature>([
  ...WASMTIME_FEATURES, Feature.ExceptionHandling, Feature.ConstantGlobals, Feature.TableInitializers,
]);

/** Script -> the README names of the features it uses, from suite3-features.ts. */
const SUITE3_FEATURES_BY_SCRIPT: ReadonlyMap<string, readonly string[]> = (() => {
  const byScript = new Map<string, string[]>();
  for (const [feature, scripts] of SUITE3_SCRIPTS_BY_FEATURE) {
    for (const script of scripts) byScript.set(script, [...(byScript.get(script) ?? []), feature]);
  }
  return byScript;
})();

/** The legacy exception-handling scripts that also use tail calls (`return_call` in a `try`). */
const LEGACY_TAIL_CALL_SCRIPTS: ReadonlySet<string> = new Set(['try_catch', 'try_delegate']);

export const PROFILES: Readonly<Record<ProfileId, SuiteProfile>> = {
  wasm2: {
    id: 'wasm2',
    title: 'WebAssembly 2.0 core suite',
    // Two memories are invalid here (binary.wast, imports.wast, memory.wast say so).
    features: WASM2_FEATURES,
    scriptFeatures: (script) => (script.startsWith('simd_') ? ['simd'] : []),
  },
  wasm3: {
    id: 'wasm3',
    title: 'WebAssembly 3.0 core suite',
    features: SUITE3_FEATURES,
    scriptFeatures: (script) => SUITE3_FEATURES_BY_SCRIPT.get(script) ?? [],
  },
  'wasm3-extra': {
    // extra/: the core 3.0 memory_grow.wast, which the flattened suite lost to the
    // multi-memory script of the same name (the suite's README, "Caveats").
    id: 'wasm3-extra',
    title: 'WebAssembly 3.0 core suite, extra scripts',
    features: SUITE3_FEATURES,
    scriptFeatures: () => [],
  },
  legacy: {
    // try/catch/delegate/rethrow, converted with --enable-exceptions --enable-tail-call.
    id: 'legacy',
    title: 'WebAssembly 3.0 core suite, legacy exception handling',
    features: SUITE3_FEATURES,
    scriptFeatures: (script) => (LEGACY_TAIL_CALL_SCRIPTS.has(script) ? ['legacy-exn', 'tail'] : ['legacy-exn']),
  },
  threads: {
    // From the threads proposal's fork of the spec, which predates multi-memory: its
    // "multiple memories" assert_invalids hold only with 2.0 and threads (the suite's README).
    id: 'threads',
    title: 'threads proposal',
    features: THREADS_FEATURES,
    scriptFeatures: () => ['threads'],
  },
};

// ---------------------------------------------------------------------------------------------
// NOT_RUN

/** The scripts named by `script`, or every script that uses `feature` (a scriptFeatures name). */
export type NotRunRule =
  | { readonly script: RegExp; readonly reason: string }
  | { readonly feature: string; readonly reason: string };

/**
 * The scripts the runner does not run, per suite, and why: each is reported as
 * "not run: <reason>" with its command count, never as passed. Shrink this as the engine gains
 * what a reason names; a script's first matching rule gives its reason. (`npm run spec -- --all`
 * runs them anyway.)
 */
export const NOT_RUN: Readonly<Record<ProfileId, readonly NotRunRule[]>> = {
  wasm2: [],
  wasm3: [
    // Outside the suite's feature set (wasmtime's defaults leave them out).
    { feature: 'gc', reason: 'needs GC' },
    { feature: 'func-refs', reason: 'needs function references' },
  ],
  'wasm3-extra': [],
  legacy: [],
  threads: [],
};

/** Why `script` of the suite is not run, or null when it is. */
export function notRunReason(profile: SuiteProfile, script: string): string | null {
  const features = profile.scriptFeatures(script);
  for (const rule of NOT_RUN[profile.id]) {
    if ('script' in rule ? rule.script.test(script) : features.includes(rule.feature)) return rule.reason;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Which suite a folder holds.

/** The first line of `dir`/README.md, or '' when there is none. */
function readmeTitle(dir: string): string {
  const path = join(dir, 'README.md');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n', 1)[0]! : '';
}

const isSuite3Root = (dir: string): boolean => /\(Wasm 3\.0/.test(readmeTitle(dir));
const isSuite2Root = (dir: string): boolean => /\(Wasm 2\.0\)/.test(readmeTitle(dir));

/**
 * The profile of the suite in `dir`: a suite root says which it is in its README's title
 * ("(Wasm 2.0)", "(Wasm 3.0 features)"); the 3.0 suite's `legacy/`, `extra/` and
 * `proposals/threads/` are known by their place under it. Null when `dir` is none of these.
 */
export function detectProfile(dir: string): SuiteProfile | null {
  const abs = resolve(dir);
  const parent = dirname(abs);
  if (isSuite3Root(abs)) return PROFILES.wasm3;
  if (isSuite2Root(abs)) return PROFILES.wasm2;
  if (basename(abs) === 'legacy' && isSuite3Root(parent)) return PROFILES.legacy;
  if (basename(abs) === 'extra' && isSuite3Root(parent)) return PROFILES['wasm3-extra'];
  if (basename(abs) === 'threads' && basename(parent) === 'proposals' && isSuite3Root(dirname(parent))) {
    return PROFILES.threads;
  }
  return null;
}

export function isProfileId(id: string): id is ProfileId {
  return Object.hasOwn(PROFILES, id);
}
