/**
 * Reports of a suite's results (harness.ts): a line per script with its failures, the totals,
 * a tally per feature (the features the suite's profile names for its scripts), and the
 * `--json` summary. Commands of the scripts not run are counted apart, never as passed.
 */
import type { CommandFailure, FileResult, SuiteResult } from './harness.js';
import type { SuiteProfile } from './suites.js';

/** How many failures per script are printed (and put in the JSON) unless verbose. */
export const FAILURES_SHOWN = 10;

/** The tally of the scripts that use no feature beyond WebAssembly 2.0. */
export const NO_FEATURE = 'none';

/** `NAME: P passed, F failed, S skipped` and the failures (capped unless verbose), or `NAME: not run: REASON`. */
export function formatFileResult(result: FileResult, verbose = false): string[] {
  if (result.notRun !== null) return [`${result.name}: not run: ${result.notRun} (${result.commands} commands)`];
  const lines = [`${result.name}: ${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`
    + (verbose ? ` (${Math.round(result.durationMs)} ms)` : '')];
  const shown = shownFailures(result, verbose);
  for (const f of shown) lines.push(`  line ${f.line} ${f.command}: ${f.reason}`);
  if (shown.length < result.failures.length) {
    lines.push(`  ... and ${result.failures.length - shown.length} more failures (--verbose shows all)`);
  }
  return lines;
}

function shownFailures(result: FileResult, verbose: boolean): readonly CommandFailure[] {
  return verbose ? result.failures : result.failures.slice(0, FAILURES_SHOWN);
}

function notRunScripts(suite: SuiteResult): number {
  return suite.files.filter((f) => f.notRun !== null).length;
}

/** `P passed, F failed, S skipped, N not run (K scripts)`: commands, and the scripts not run. */
export function formatTotals(suite: SuiteResult): string {
  return `${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped, `
    + `${suite.notRun} not run (${plural(notRunScripts(suite), 'script')})`;
}

export interface FeatureTally {
  /** Scripts that use the feature, by outcome: every command passed, some failed, not run. */
  scripts: number;
  scriptsPassing: number;
  scriptsFailing: number;
  scriptsNotRun: number;
  /** Their commands. */
  passed: number;
  failed: number;
  skipped: number;
  notRun: number;
}

/**
 * Per feature, the scripts that use it (a script with several counts under each; NO_FEATURE for
 * none), NO_FEATURE first and the others by name.
 */
export function tallyByFeature(suite: SuiteResult): Map<string, FeatureTally> {
  const tallies = new Map<string, FeatureTally>();
  for (const file of suite.files) {
    for (const feature of file.features.length > 0 ? file.features : [NO_FEATURE]) {
      let t = tallies.get(feature);
      if (t === undefined) {
        t = { scripts: 0, scriptsPassing: 0, scriptsFailing: 0, scriptsNotRun: 0, passed: 0, failed: 0, skipped: 0, notRun: 0 };
        tallies.set(feature, t);
      }
      t.scripts++;
      if (file.notRun !== null) {
        t.scriptsNotRun++;
        t.notRun += file.commands;
      } else if (file.failed > 0) t.scriptsFailing++;
      else t.scriptsPassing++;
      t.passed += file.passed;
      t.failed += file.failed;
      t.skipped += file.skipped;
    }
  }
  const order = (feature: string): string => (feature === NO_FEATURE ? '' : feature);
  return new Map([...tallies].sort(([a], [b]) => order(a).localeCompare(order(b))));
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** One line per feature: `simd: 67 scripts (66 pass, 1 fail, 0 not run); commands 25555 passed, ...`. */
export function formatFeatureTallies(suite: SuiteResult): string[] {
  return [...tallyByFeature(suite)].map(([feature, t]) =>
    `${feature}: ${plural(t.scripts, 'script')} (${t.scriptsPassing} pass, ${t.scriptsFailing} fail, ${t.scriptsNotRun} not run); `
    + `commands ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped, ${t.notRun} not run`);
}

export interface FileSummary {
  commands: number;
  passed: number;
  failed: number;
  skipped: number;
  features: readonly string[];
  notRun?: string;
  failures?: readonly CommandFailure[];
}

export interface SuiteSummary {
  suite: { dir: string; profile: string; title: string; features: string[] };
  passed: number;
  failed: number;
  skipped: number;
  notRun: number;
  notRunScripts: number;
  byFeature: Record<string, FeatureTally>;
  files: Record<string, FileSummary>;
}

/** The `--json` summary: totals, tallies per feature, and per script its counts, reason not run, failures. */
export function summaryJson(suite: SuiteResult, dir: string, profile: SuiteProfile, verbose = false): SuiteSummary {
  const files: Record<string, FileSummary> = {};
  for (const f of suite.files) {
    const summary: FileSummary = {
      commands: f.commands, passed: f.passed, failed: f.failed, skipped: f.skipped, features: f.features,
    };
    if (f.notRun !== null) summary.notRun = f.notRun;
    if (f.failures.length > 0) summary.failures = shownFailures(f, verbose);
    files[f.name] = summary;
  }
  return {
    suite: { dir, profile: profile.id, title: profile.title, features: [...profile.features].sort() },
    passed: suite.passed,
    failed: suite.failed,
    skipped: suite.skipped,
    notRun: suite.notRun,
    notRunScripts: notRunScripts(suite),
    byFeature: Object.fromEntries(tallyByFeature(suite)),
    files,
  };
}
