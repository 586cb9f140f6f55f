/**
 * `npm run bench`: CPU kernels in our engine (through the sandbox's public API, with fuel and
 * deadline on) — the interpreter alone and with the JavaScript tier on — and in Node's built-in
 * WebAssembly on the same bytes, in one process; then each kernel's first run in a fresh process.
 * Then metering overhead, compile speed, start-up, responsiveness, deadline precision and the
 * CLI's cold start, each next to its target.
 *
 *   npx tsx bench/run.ts [--json] [--native-only] [--quick] [--kernels=calls,lz77] [--no-simd] [--require-simd]
 *
 * See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  measureCli, measureCompile, measureDeadline, measureResponsiveness, measureStartup,
  type CliResult, type CompileResult, type DeadlineResult, type ResponsivenessResult,
  type Skipped, type StartupResult,
} from './extras.js';
import { loadInterpreter, loadProgramEngine, ON_LIMITS, type Interpreter } from './interp.js';
import { nativeEngine, PROGRAMS, programBytes, type ProgramEngine } from './programs.js';
import { NativeModule } from './native.js';
import { fmtMs, geomean, median, now, repeat } from './stats.js';
import { loadAddModule } from './tiny.js';
import { canonical, type ResultType } from './values.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const KERNEL_DIR = join(BENCH, 'kernels');

interface Kernel {
  name: string;
  /** The argument of run(n): sized so one native run takes roughly 10-20 ms. */
  n: number;
  result: ResultType;
  what: string;
}

const KERNELS: Kernel[] = [
  { name: 'calls', n: 29, result: 'i32', what: 'recursive fib, tak, ackermann, tree walk' },
  { name: 'loops', n: 10_000, result: 'i32', what: 'sieve, prefix sums, int matmul, histogram' },
  { name: 'f64', n: 3_500, result: 'i64', what: 'n-body + mandelbrot (f64 bits)' },
  { name: 'i64', n: 500, result: 'i64', what: 'FNV-1a 64, murmur-like mixing, xorshift*, i64 div' },
  { name: 'indirect', n: 300_000, result: 'i64', what: 'call_indirect: operator table + stack VM' },
  { name: 'bulk', n: 60_000, result: 'i32', what: 'memory.copy / memory.fill (-mbulk-memory)' },
  { name: 'sha256', n: 70, result: 'i32', what: 'SHA-256 over 32 KiB, chained' },
  { name: 'lz77', n: 60_000, result: 'i32', what: 'LZ77 compress + decompress, CRC-32' },
];

/**
 * Kernels built with -msimd128 (0xFD instructions). A separate group with its own table and
 * geomean: the scalar geomean above stays comparable with figures from before they existed.
 * An engine that refuses SIMD ("... not supported by this engine") gets REFUSED in the table,
 * which is not a failure of the bench unless --require-simd; any other interpreter error or
 * a disagreement is.
 */
const SIMD_KERNELS: Kernel[] = [
  { name: 'simd_f32', n: 1_500, result: 'i32', what: 'f32x4: saxpy, dot, 3x4 transform + normalise, mandelbrot' },
  { name: 'simd_int', n: 200, result: 'i32', what: 'i8x16 count/search, SAD, alpha blend, i16 FIR (dot), 4-lane hash' },
];
/**
 * Unrolled code, as hash and cipher implementations are written: one function past what the
 * JavaScript tier translates whole, which it runs in pieces (src/jit/tier.ts). A group apart,
 * as the SIMD one, so that the means above stay comparable with figures from before it; the
 * targets are the scalar kernels', printed beside its figures for reference.
 */
const UNROLLED_KERNELS: Kernel[] = [
  { name: 'sha512', n: 250, result: 'i32', what: 'SHA-512, 80 rounds unrolled: i64, one 15,752-word function' },
];
/**
 * Held-out kernels: written on 2026-12-02, after the JavaScript tier had been tuned on the
 * kernels above, to measure it on code it was not tuned for (the planners also measure on
 * kernels nobody here has seen). A group apart, so that the means above stay comparable with
 * figures from before it; its means are printed, not judged, the scalar targets beside them
 * for reference. What they found is in docs/performance.md (Held-out kernels).
 */
const HELD_OUT_KERNELS: Kernel[] = [
  { name: 'matmul', n: 20, result: 'i64', what: '96x96 matrix products, f64 and f32 side by side' },
  { name: 'nbody', n: 200_000, result: 'i64', what: 'five-body simulation, f64 and sqrt over structs' },
  { name: 'sieve', n: 10, result: 'i32', what: 'sieve of Eratosthenes over a million byte flags' },
  { name: 'sort', n: 1, result: 'i64', what: 'quicksort of 200,000 u32s, insertion sort of 2,000' },
  { name: 'xxh64', n: 3_000, result: 'i64', what: 'XXH64 over 64 KiB: i64 multiplies and rotations' },
];
const ALL_KERNELS = [...KERNELS, ...SIMD_KERNELS, ...UNROLLED_KERNELS, ...HELD_OUT_KERNELS];

const TARGETS = {
  geomeanRatio: 20, // interpreter/native, at most
  tierGeomeanRatio: 5, // JavaScript tier/native after warm-up, at most
  firstRunRatio: 15, // JavaScript tier's first run in a fresh process / native's, per kernel, at most
  meteringOverhead: 0.1, // fuel + deadline on vs off, at most
  eventLoopGapMs: 10, // at most
  deadlineMedianMs: 5, // overshoot, at most
  deadlineMaxMs: 15, // overshoot, at most
  compileMBps: 20, // at least
  addRunsPerSec: 50_000, // at least
  cliColdStartMs: 150, // at most
};

// ---------------------------------------------------------------- options

const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(`--${name}`);
const opt = (name: string): string | undefined =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

if (flag('help') || flag('h')) {
  console.log('usage: tsx bench/run.ts [--json] [--native-only] [--quick] [--kernels=a,b,...] [--no-simd] [--require-simd]');
  process.exit(0);
}
const JSON_OUT = flag('json');
const NATIVE_ONLY = flag('native-only');
const QUICK = flag('quick');
/** Skip the SIMD group altogether. */
const NO_SIMD = flag('no-simd');
/** Count an engine's refusal of a SIMD kernel as a failure (exit code 1), as any other error. */
const REQUIRE_SIMD = flag('require-simd');
const only = opt('kernels')?.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = only?.filter((k) => !ALL_KERNELS.some((x) => x.name === k)) ?? [];
if (unknown.length) {
  console.error(`unknown kernel(s): ${unknown.join(', ')}; known: ${ALL_KERNELS.map((k) => k.name).join(', ')}`);
  process.exit(2);
}
const kernels = only ? KERNELS.filter((k) => only.includes(k.name)) : KERNELS;
const simdKernels = NO_SIMD ? [] : only ? SIMD_KERNELS.filter((k) => only.includes(k.name)) : SIMD_KERNELS;
const unrolledKernels = only ? UNROLLED_KERNELS.filter((k) => only.includes(k.name)) : UNROLLED_KERNELS;
const heldOutKernels = only ? HELD_OUT_KERNELS.filter((k) => only.includes(k.name)) : HELD_OUT_KERNELS;

/** Time for the interpreter's kernel runs altogether, spread over the kernels left. */
const INTERP_TOTAL_BUDGET_MS = QUICK ? 40_000 : 180_000;
const INTERP_KERNEL_BUDGET_MS = QUICK ? 4_000 : 12_000;
const INTERP_MAX_PAIRS = QUICK ? 2 : 5;
/**
 * The JavaScript tier's runs are five to ten times shorter, and its times vary more from run to
 * run (V8 optimising the translations): with five pairs its metering overhead moved by ±20% between
 * runs of the bench on unchanged code, so it gets three times the pairs, still within its budget.
 */
const TIER_MAX_PAIRS = QUICK ? 2 : 15;
/** Runs of a kernel with the JavaScript tier on before its measured ones, beyond the first. */
const TIER_WARMUPS = 4;
/** The SIMD group's own budget, so that it never takes time from the scalar kernels. */
const SIMD_TOTAL_BUDGET_MS = QUICK ? 15_000 : 60_000;
/** The unrolled group's. */
const UNROLLED_TOTAL_BUDGET_MS = QUICK ? 8_000 : 20_000;
/** The held-out group's. */
const HELD_OUT_TOTAL_BUDGET_MS = QUICK ? 15_000 : 40_000;

// Human-readable lines go to stdout, or to stderr as progress when --json owns stdout.
const say = (line = ''): void => {
  if (JSON_OUT) process.stderr.write(`${line}\n`);
  else console.log(line);
};

// ---------------------------------------------------------------- kernels

interface KernelReport {
  name: string;
  n: number;
  what: string;
  wasmBytes: number;
  native: { medianMs: number; runs: number; result: string; deterministic: boolean };
  interp?: {
    medianMs: number;
    runs: number;
    result: string;
    offMedianMs?: number;
    offRuns?: number;
    overhead?: number;
    note?: string;
    /** Fuel one run consumes (about one unit per operator) and the rate, in millions per second. */
    fuelConsumed?: number;
    mfuelPerSec?: number;
  };
  /** The same with the JavaScript tier on (the sandbox's default, tier 'auto'). */
  tiered?: KernelReport['interp'];
  tieredRatio?: number;
  interpError?: string;
  /** The interpreter refused the module for a feature it does not implement (SIMD, say). */
  refused?: boolean;
  agree?: boolean;
  ratio?: number;
}

interface ProgramReport {
  name: string;
  what: string;
  nativeMs: number;
  interpMs: number;
  tieredMs: number;
  agree: boolean;
}

interface FirstRunReport {
  name: string;
  /** Medians over FIRST_RUN_PROCESSES fresh processes each; the tier's every time besides. */
  nativeMs: number;
  tieredMs: number;
  tieredSamplesMs: number[];
  tieredRatio: number;
  interpMs?: number;
  interpRatio?: number;
  agree: boolean;
}

/**
 * Fresh processes per kernel and side for the first runs: one first run moves by a fifth or
 * more between processes a minute apart (calls 238–325 ms in three bench runs, 2026-12-01; lz77
 * 150–204 ms in twelve processes in a row), too much for a pass/fail against a ratio; the median
 * of five (of three until 2026-12-01: a median of three of those twelve lz77 runs is over 15× of
 * Node's 12 ms one time in six, of five one time in ten), with the tier's range printed.
 */
const FIRST_RUN_PROCESSES = QUICK ? 1 : 5;

/** One first run in a child process (bench/first-run.ts): `side` is native, auto (the JavaScript tier on) or interpreter. */
function firstRun(k: Kernel, side: 'native' | 'auto' | 'interpreter'): { ms: number; result: string } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(BENCH, 'first-run.ts'), k.name, String(k.n), side, k.result], {
    cwd: ROOT, encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { ms: number; result: string };
}

async function nativeKernel(k: Kernel, bytes: Uint8Array): Promise<KernelReport['native']> {
  const mod = await NativeModule.compile(bytes);
  const s = await repeat(() => mod.runCanonical('run', [k.n], k.result), {
    warmup: 3, maxRuns: QUICK ? 5 : 11, budgetMs: QUICK ? 500 : 2000, minRuns: 3,
  });
  return {
    medianMs: median(s.times),
    runs: s.times.length,
    result: s.results[0]!,
    deterministic: s.results.every((r) => r === s.results[0]),
  };
}

async function interpKernel(interp: Interpreter, k: Kernel, bytes: Uint8Array, budgetMs: number,
  measureOff: boolean, extraWarmups = 0, maxPairs = INTERP_MAX_PAIRS): Promise<NonNullable<KernelReport['interp']>> {
  const mod = await interp.compile(bytes);
  const args = [{ type: 'i32', value: k.n }] as const;
  const once = async (limits: typeof ON_LIMITS | 'off'): Promise<{ ms: number; result: string }> => {
    const t0 = now();
    const out = await interp.run(mod, 'run', args, limits);
    const ms = now() - t0;
    const vals = out.values;
    if (out.fuelConsumed !== undefined) fuel = out.fuelConsumed;
    const v = vals[0];
    const result = vals.length !== 1 || !v ? `results:${vals.length}`
      : v.type !== k.result ? `${v.type}:${String(v.value)}` : canonical(v.type, v.value);
    return { ms, result };
  };

  let fuel: number | undefined;
  const warm = await once(ON_LIMITS);
  for (let i = 0; i < extraWarmups; i++) await once(ON_LIMITS);
  const on: number[] = [];
  const off: number[] = [];
  let note: string | undefined;
  if (warm.ms > budgetMs / 4) {
    // A slow engine: one measured run each rather than spend minutes. Both come after the
    // warm-up, so the cold first run biases neither the time nor the overhead.
    if (measureOff) {
      off.push((await once('off')).ms);
      on.push((await once(ON_LIMITS)).ms);
      note = 'slow: 1 run each after a warm-up';
    } else {
      on.push(warm.ms);
      note = 'slow: 1 cold run, out of time for more';
    }
  } else {
    if (measureOff) await once('off');
    const start = now();
    while (on.length < maxPairs && (on.length === 0 || now() - start < budgetMs)) {
      // alternate the order within each pair so drift does not favour either side
      if (measureOff && on.length % 2 === 1) off.push((await once('off')).ms);
      on.push((await once(ON_LIMITS)).ms);
      if (measureOff && on.length % 2 === 1) off.push((await once('off')).ms);
    }
  }
  const medianMs = median(on);
  const offMedianMs = off.length ? median(off) : undefined;
  // on[i] and off[i] ran back to back, so each pair shares V8's state of the moment (a
  // translation optimised or not yet, a collection pending): the median of the pairs' ratios
  // is steadier than the ratio of the two medians.
  const pairRatios = off.map((offMs, i) => on[i]! / offMs);
  return {
    medianMs,
    runs: on.length,
    result: warm.result,
    ...(offMedianMs !== undefined ? { offMedianMs, offRuns: off.length, overhead: median(pairRatios) - 1 } : {}),
    ...(note ? { note } : {}),
    ...(fuel !== undefined ? { fuelConsumed: fuel, mfuelPerSec: fuel / 1e3 / medianMs } : {}),
  };
}

/** The engine's wording of a refusal (src/interpreter/errors.ts `refusal`): "SIMD is not supported by this engine (...)". */
const REFUSAL = /\bnot supported by this engine\b/;

// ---------------------------------------------------------------- output helpers

const pct = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const verdict = (ok: boolean): string => (ok ? 'ok  ' : 'MISS');
const pad = (s: string, n: number): string => s.padEnd(n);
const lpad = (s: string, n: number): string => s.padStart(n);

function row(cells: string[]): string {
  const widths = [9, 8, 7, 9, 9, 7, 9, 7, 10, 9, 8];
  return cells.map((c, i) => (i < 3 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join(' ');
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const started = now();
  say(`sandboxd-ts benchmark — node ${process.version}, ${process.platform}/${process.arch}`);

  /** The sandbox with tier 'interpreter', and with its default tier (the JavaScript tier on). */
  let interp: Interpreter | undefined;
  let tiered: Interpreter | undefined;
  let interpUnavailable: string | undefined;
  if (NATIVE_ONLY) {
    interpUnavailable = 'skipped (--native-only)';
  } else {
    const loaded = await loadInterpreter('interpreter');
    if ('interp' in loaded) interp = loaded.interp;
    else interpUnavailable = loaded.error;
    const loadedTiered = await loadInterpreter();
    if ('interp' in loadedTiered) tiered = loadedTiered.interp;
  }
  say(interp ? `interpreter: ${interp.source}` : `interpreter: unavailable (${interpUnavailable})`);
  if (interp) {
    say(`limits: fuel ${ON_LIMITS.fuel.toExponential()} and a ${ON_LIMITS.timeoutMs} ms deadline (on); off = ${interp.offNote}`);
  }

  let disagreements = 0;
  /** Runs one group of kernels, one table row each, within `totalBudgetMs` of interpreter time. */
  const runGroup = async (group: readonly Kernel[], totalBudgetMs: number, simd: boolean): Promise<KernelReport[]> => {
    const reports: KernelReport[] = [];
    let interpSpent = 0;
    say(row(['kernel', 'n', 'agree', 'native', 'interp', 'ratio', 'JS tier', 'ratio', 'meter off', 'overhead', 'Mfuel/s']));
    for (const [i, k] of group.entries()) {
      const bytes = new Uint8Array(readFileSync(join(KERNEL_DIR, `${k.name}.wasm`)));
      const native = await nativeKernel(k, bytes);
      const rep: KernelReport = { name: k.name, n: k.n, what: k.what, wasmBytes: bytes.length, native };
      if (interp) {
        const left = group.length - i;
        const remaining = totalBudgetMs - interpSpent;
        const budget = Math.max(500, Math.min(INTERP_KERNEL_BUDGET_MS, remaining / left));
        const t0 = now();
        try {
          rep.interp = await interpKernel(interp, k, bytes, budget, remaining > 0);
          rep.agree = rep.interp.result === native.result;
          rep.ratio = rep.interp.medianMs / native.medianMs;
          if (tiered) {
            // Warmed up further: hot functions are translated in the first run, and V8
            // optimises the translations over the next few (the first runs are reported below).
            rep.tiered = await interpKernel(tiered, k, bytes, budget / 2, true, TIER_WARMUPS, TIER_MAX_PAIRS);
            rep.agree &&= rep.tiered.result === native.result;
            rep.tieredRatio = rep.tiered.medianMs / native.medianMs;
          }
        } catch (e) {
          rep.interpError = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
          rep.agree = false;
          if (REFUSAL.test(rep.interpError)) rep.refused = true;
        }
        interpSpent += now() - t0;
        // A SIMD kernel the engine refuses is reported, not failed (unless --require-simd).
        if (!rep.agree && !(simd && rep.refused && !REQUIRE_SIMD)) disagreements++;
      }
      if (!native.deterministic) disagreements++;
      reports.push(rep);
      const agree = !interp ? (native.deterministic ? 'n/a' : 'NONDET')
        : rep.refused ? 'REFUSED' : rep.interpError ? 'ERROR' : rep.agree ? 'yes' : 'NO';
      say(row([
        k.name, String(k.n), agree, fmtMs(native.medianMs), fmtMs(rep.interp?.medianMs),
        rep.ratio !== undefined ? `${rep.ratio.toFixed(1)}x` : '-',
        fmtMs(rep.tiered?.medianMs), rep.tieredRatio !== undefined ? `${rep.tieredRatio.toFixed(1)}x` : '-',
        fmtMs(rep.tiered?.offMedianMs), pct(rep.tiered?.overhead),
        rep.tiered?.mfuelPerSec !== undefined ? rep.tiered.mfuelPerSec.toFixed(0) : '-',
      ]) + (rep.interp?.note ? `  (${rep.interp.note})` : ''));
      if (rep.refused) say(`          interpreter refuses it: ${rep.interpError!.split('\n')[0]}`);
      else if (rep.interpError) say(`          interpreter error: ${rep.interpError.split('\n')[0]}`);
      else if (interp && !rep.agree) say(`          native ${native.result}  interp ${rep.interp?.result}  JS tier ${rep.tiered?.result}`);
    }
    return reports;
  };

  say();
  const reports = kernels.length ? await runGroup(kernels, INTERP_TOTAL_BUDGET_MS, false) : [];

  const ratios = reports.map((r) => r.ratio).filter((x): x is number => x !== undefined);
  const geo = ratios.length === reports.length && ratios.length ? geomean(ratios) : undefined;
  const tieredRatios = reports.map((r) => r.tieredRatio).filter((x): x is number => x !== undefined);
  const tierGeo = tieredRatios.length === reports.length && tieredRatios.length ? geomean(tieredRatios) : undefined;
  const overheadGeomean = (side: 'interp' | 'tiered'): number | undefined => {
    const overheads = reports.map((r) => r[side]?.overhead).filter((x): x is number => x !== undefined);
    return overheads.length ? geomean(overheads.map((o) => 1 + o)) - 1 : undefined;
  };
  const overheadGeo = overheadGeomean('interp');
  const tierOverheadGeo = overheadGeomean('tiered');

  if (reports.length) say();
  if (reports.length) say(`native results: ${reports.every((r) => r.native.deterministic) ? 'deterministic across runs' : 'NOT deterministic'}`);
  if (interp && reports.length) {
    say(`geomean interpreter/native: ${geo !== undefined ? `${geo.toFixed(1)}x` : 'n/a (a kernel failed)'}`
      + `   target <= ${TARGETS.geomeanRatio}x   ${geo !== undefined ? verdict(geo <= TARGETS.geomeanRatio) : 'MISS'}`);
    say(`geomean JS tier/native (after warm-up): ${tierGeo !== undefined ? `${tierGeo.toFixed(1)}x` : 'n/a'}`
      + `   target <= ${TARGETS.tierGeomeanRatio}x   ${tierGeo !== undefined ? verdict(tierGeo <= TARGETS.tierGeomeanRatio) : 'MISS'}`);
    say(`metering overhead (geomean): interpreter ${pct(overheadGeo)}, JS tier ${pct(tierOverheadGeo)}   target <= ${pct(TARGETS.meteringOverhead)}   `
      + `${overheadGeo !== undefined && tierOverheadGeo !== undefined ? verdict(overheadGeo <= TARGETS.meteringOverhead && tierOverheadGeo <= TARGETS.meteringOverhead) : '-'}`);
  }

  // ---------------------------------------------------------------- real programs
  // Modules from npm packages nobody here wrote, through their own calling conventions
  // (bench/programs.ts): median of a few runs after warm-up, each a fresh instance and the
  // program's whole job; the output compared between the engines.
  const programReports: ProgramReport[] = [];
  if (interp && !only) {
    say();
    say('real programs (npm packages; bench/programs/)');
    say(row(['program', '', 'agree', 'native', 'interp', 'ratio', 'JS tier', 'ratio']));
    const engines = { native: nativeEngine, interpreter: await loadProgramEngine('interpreter'), tiered: await loadProgramEngine() };
    for (const program of PROGRAMS) {
      const bytes = programBytes(join(BENCH, 'programs'), program);
      const measure = async (engine: ProgramEngine, warmups: number): Promise<{ ms: number; out: string }> => {
        let out = '';
        for (let i = 0; i < warmups; i++) out = await program.run(engine, bytes);
        const times: number[] = [];
        for (let i = 0; i < (QUICK ? 2 : 3); i++) {
          const t0 = now();
          out = await program.run(engine, bytes);
          times.push(now() - t0);
        }
        return { ms: median(times), out };
      };
      const native = await measure(engines.native, 2);
      const interpreted = await measure(engines.interpreter, 1);
      const tieredRun = await measure(engines.tiered, TIER_WARMUPS);
      const report: ProgramReport = {
        name: program.name, what: program.what, nativeMs: native.ms, interpMs: interpreted.ms, tieredMs: tieredRun.ms,
        agree: interpreted.out === native.out && tieredRun.out === native.out,
      };
      if (!report.agree) disagreements++;
      programReports.push(report);
      say(row([
        program.name, '', report.agree ? 'yes' : 'NO', fmtMs(report.nativeMs), fmtMs(report.interpMs), `${(report.interpMs / report.nativeMs).toFixed(1)}x`,
        fmtMs(report.tieredMs), `${(report.tieredMs / report.nativeMs).toFixed(1)}x`,
      ]) + `  ${program.what}`);
    }
  }

  // ---------------------------------------------------------------- first runs
  // Each kernel's first run in a fresh process (compile, instantiate, one run(n)), where V8 has
  // optimised nothing of ours yet: native, the JavaScript tier on (the default), and with
  // --quick left out, the interpreter alone.
  const firstRunsOf = (group: readonly Kernel[]): FirstRunReport[] => {
    const out: FirstRunReport[] = [];
    say();
    say(`first run in a fresh process (compile + instantiate + one run; medians of ${FIRST_RUN_PROCESSES} processes each)`);
    say(row(['kernel', 'n', 'agree', 'native', 'JS tier', 'ratio', 'interp', 'ratio', '  JS tier, each']));
    for (const k of group) {
      const sides = QUICK ? (['native', 'auto'] as const) : (['native', 'auto', 'interpreter'] as const);
      // Rounds of one process per side, so that the machine's drift falls on every side alike.
      const got: Record<string, Array<{ ms: number; result: string }>> = Object.fromEntries(sides.map((side) => [side, []]));
      for (let round = 0; round < FIRST_RUN_PROCESSES; round++) for (const side of sides) got[side]!.push(firstRun(k, side));
      const ms = (side: string): number => median(got[side]!.map((r) => r.ms));
      const nativeMs = ms('native');
      const report: FirstRunReport = {
        name: k.name, nativeMs, tieredMs: ms('auto'), tieredSamplesMs: got['auto']!.map((r) => r.ms), tieredRatio: ms('auto') / nativeMs,
        agree: sides.every((side) => got[side]!.every((r) => r.result === got['native']![0]!.result)),
        ...(got['interpreter'] ? { interpMs: ms('interpreter'), interpRatio: ms('interpreter') / nativeMs } : {}),
      };
      if (!report.agree) disagreements++;
      out.push(report);
      say(row([
        k.name, String(k.n), report.agree ? 'yes' : 'NO', fmtMs(report.nativeMs), fmtMs(report.tieredMs), `${report.tieredRatio.toFixed(1)}x`,
        fmtMs(report.interpMs), report.interpRatio !== undefined ? `${report.interpRatio.toFixed(1)}x` : '-',
        `  ${report.tieredSamplesMs.map((t) => t.toFixed(0)).join(' / ')}`,
      ]));
    }
    return out;
  };
  const firstRuns = interp && reports.length ? firstRunsOf(kernels) : [];
  if (firstRuns.length) {
    const worst = Math.max(...firstRuns.map((r) => r.tieredRatio));
    say(`worst first run, JS tier/native: ${worst.toFixed(1)}x   target <= ${TARGETS.firstRunRatio}x per kernel   ${verdict(worst <= TARGETS.firstRunRatio)}`);
  }

  // ---------------------------------------------------------------- SIMD kernels
  let simdReports: KernelReport[] = [];
  let simdGeo: number | undefined;
  if (simdKernels.length) {
    if (reports.length) say();
    say('SIMD kernels (built with -msimd128; a group apart, not in the geomean above)');
    simdReports = await runGroup(simdKernels, SIMD_TOTAL_BUDGET_MS, true);
    const simdRatios = simdReports.map((r) => r.ratio).filter((x): x is number => x !== undefined);
    simdGeo = simdRatios.length === simdReports.length ? geomean(simdRatios) : undefined;
    const refused = simdReports.filter((r) => r.refused).length;
    say();
    say(`native results (SIMD): ${simdReports.every((r) => r.native.deterministic) ? 'deterministic across runs' : 'NOT deterministic'}`);
    if (interp) {
      if (refused) {
        say(`SIMD: the interpreter refuses ${refused} of ${simdReports.length} SIMD kernels (unsupported feature): `
          + (REQUIRE_SIMD ? 'counted as failures (--require-simd)' : 'reported, not counted as failures (--require-simd to count them)'));
      }
      say(`geomean interpreter/native (SIMD): ${simdGeo !== undefined ? `${simdGeo.toFixed(1)}x` : `n/a (${refused ? 'refused' : 'a kernel failed'})`}`);
    }
  }

  // ---------------------------------------------------------------- groups apart
  // Kernels reported beside the scalar ones but in no mean above: their table, their first
  // runs, and a line of their figures against the scalar kernels' targets.
  const runGroupApart = async (title: string, group: readonly Kernel[], budgetMs: number): Promise<{ reports: KernelReport[]; firstRuns: FirstRunReport[] }> => {
    if (!group.length) return { reports: [], firstRuns: [] };
    say();
    say(`${title} (a group apart, not in the means above; the scalar kernels' targets for reference)`);
    const groupReports = await runGroup(group, budgetMs, false);
    const groupFirstRuns = interp ? firstRunsOf(group) : [];
    if (interp) {
      // (The geometric mean of one kernel's figures is its own, under its name.)
      const mean = (xs: Array<number | undefined>): string =>
        (xs.length > 0 && xs.every((x) => x !== undefined) ? `${geomean(xs as number[]).toFixed(1)}x` : '-x');
      say(`${group.length === 1 ? group[0]!.name : 'geomean'}: interpreter ${mean(groupReports.map((r) => r.ratio))} (kernels' mean <= ${TARGETS.geomeanRatio}x), `
        + `JS tier ${mean(groupReports.map((r) => r.tieredRatio))} (<= ${TARGETS.tierGeomeanRatio}x), `
        + `first run ${mean(groupFirstRuns.map((r) => r.tieredRatio))} (<= ${TARGETS.firstRunRatio}x)`);
      if (group.length > 1 && groupFirstRuns.length) say(`worst first run, JS tier/native: ${Math.max(...groupFirstRuns.map((r) => r.tieredRatio)).toFixed(1)}x`);
    }
    return { reports: groupReports, firstRuns: groupFirstRuns };
  };
  const unrolled = await runGroupApart('unrolled code', unrolledKernels, UNROLLED_TOTAL_BUDGET_MS);
  const heldOut = await runGroupApart('held-out kernels, written after the tier was tuned', heldOutKernels, HELD_OUT_TOTAL_BUDGET_MS);

  // ---------------------------------------------------------------- the rest
  let compile: CompileResult | Skipped;
  let startup: StartupResult | Skipped;
  let responsiveness: ResponsivenessResult | Skipped;
  let deadline: DeadlineResult | Skipped;
  const cli: CliResult | Skipped = measureCli(ROOT, join(ROOT, 'bin', 'sandboxd.cjs'), join(KERNEL_DIR, 'fib.wasm'));

  const guard = async <T>(what: string, f: () => Promise<T>): Promise<T | Skipped> => {
    if (!interp) return { skipped: `interpreter unavailable` };
    try {
      return await f();
    } catch (e) {
      return { skipped: `${what} failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
    }
  };
  const largest = KERNELS.map((k) => ({ k, size: readFileSync(join(KERNEL_DIR, `${k.name}.wasm`)).length }))
    .sort((a, b) => b.size - a.size)[0]!.k.name;
  compile = await guard('compile', () =>
    measureCompile((b) => interp!.compile(b), `${largest}.wasm`, new Uint8Array(readFileSync(join(KERNEL_DIR, `${largest}.wasm`)))));
  // The largest real program, compiled as by default (bodies translated on first call), with
  // every body translated at compile time, and by Node's own engine.
  const largestProgram = PROGRAMS.map((p) => ({ p, bytes: programBytes(join(BENCH, 'programs'), p) }))
    .sort((a, b) => b.bytes.length - a.bytes.length)[0]!;
  const eagerLoaded = NATIVE_ONLY ? null : await loadInterpreter('interpreter', 'eager');
  const programCompile = await guard('compile', async () => {
    if (eagerLoaded === null || !('interp' in eagerLoaded)) throw new Error('no sandbox with translation: eager');
    const file = largestProgram.p.file;
    const eager = eagerLoaded.interp;
    return {
      lazy: await measureCompile((b) => interp!.compile(b), file, largestProgram.bytes),
      eager: await measureCompile((b) => eager.compile(b), file, largestProgram.bytes),
      native: await measureCompile((b) => NativeModule.compile(b), file, largestProgram.bytes),
    };
  });
  startup = await guard('start-up', async () => {
    const add = await loadAddModule(join(ROOT, 'fixtures', 'well_behaved.wat'));
    return measureStartup(interp!, add.bytes, add.source);
  });
  responsiveness = await guard('responsiveness', () => measureResponsiveness(interp!, 1000));
  deadline = await guard('deadline', () => measureDeadline(interp!, 100, 20));

  say();
  const skipped = (x: object): x is Skipped => 'skipped' in x;
  if (skipped(compile)) say(`compile: ${compile.skipped}`);
  else say(`compile (${compile.file}, ${compile.bytes} bytes, ${compile.runs} runs after a warm-up): ${compile.mbPerSec.toFixed(1)} MB/s`
    + ` (${fmtMs(compile.medianMs)} each; the first: ${fmtMs(compile.firstMs)})   target >= ${TARGETS.compileMBps} MB/s   ${verdict(compile.mbPerSec >= TARGETS.compileMBps)}`);
  if (skipped(programCompile)) say(`compile of the largest program: ${programCompile.skipped}`);
  else {
    const { lazy, eager, native } = programCompile;
    say(`compile (${lazy.file}, ${lazy.bytes} bytes, a real program): ${lazy.mbPerSec.toFixed(1)} MB/s (${fmtMs(lazy.medianMs)});`
      + ` every body translated at compile time: ${eager.mbPerSec.toFixed(1)} MB/s (${fmtMs(eager.medianMs)}), ${(eager.medianMs / lazy.medianMs).toFixed(1)}x the time;`
      + ` Node's WebAssembly.compile: ${fmtMs(native.medianMs)}`);
  }
  if (skipped(startup)) say(`start-up: ${startup.skipped}`);
  else say(`start-up (add(2, 40) -> ${startup.result}, precompiled, ${startup.source}): `
    + `${Math.round(startup.runsPerSec).toLocaleString('en-US')} runs/s   target >= ${TARGETS.addRunsPerSec.toLocaleString('en-US')}   `
    + `${verdict(startup.runsPerSec >= TARGETS.addRunsPerSec)}   (native instantiate+call: ${Math.round(startup.nativeRunsPerSec).toLocaleString('en-US')}/s)`);
  if (skipped(responsiveness)) say(`responsiveness: ${responsiveness.skipped}`);
  else say(`responsiveness (spin under a ${responsiveness.deadlineMs} ms deadline, 1 ms setInterval): largest gap `
    + `${fmtMs(responsiveness.maxGapMs)}, ${responsiveness.ticks} ticks, ${responsiveness.outcome} after ${fmtMs(responsiveness.elapsedMs)}`
    + `   target <= ${TARGETS.eventLoopGapMs} ms   ${verdict(responsiveness.maxGapMs <= TARGETS.eventLoopGapMs && responsiveness.outcome === 'timeout')}`);
  if (skipped(deadline)) say(`deadline: ${deadline.skipped}`);
  else if (deadline.runs === 0) say(`deadline (${deadline.deadlineMs} ms): no timeout observed: ${deadline.failures.slice(0, 2).join('; ')}   MISS`);
  else say(`deadline (${deadline.deadlineMs} ms, ${deadline.runs} runs): overshoot median ${fmtMs(deadline.medianOvershootMs)}, `
    + `max ${fmtMs(deadline.maxOvershootMs)}   target median <= ${TARGETS.deadlineMedianMs} ms, max <= ${TARGETS.deadlineMaxMs} ms   `
    + `${verdict(deadline.medianOvershootMs <= TARGETS.deadlineMedianMs && deadline.maxOvershootMs <= TARGETS.deadlineMaxMs && deadline.failures.length === 0)}`
    + (deadline.failures.length ? `   (${deadline.failures.length} runs without a timeout: ${deadline.failures[0]})` : ''));
  if (skipped(cli)) say(`CLI cold start: skipped (${cli.skipped})`);
  else say(`CLI cold start (${cli.command}, ${cli.runs} runs): median ${fmtMs(cli.medianMs)}`
    + ` (bare node: ${fmtMs(cli.nodeBaselineMs)})   target <= ${TARGETS.cliColdStartMs} ms   ${verdict(cli.medianMs <= TARGETS.cliColdStartMs && cli.ok)}`
    + (cli.ok ? '' : `   (output did not include 832040: ${JSON.stringify(cli.output)})`));
  say(`total bench time: ${fmtMs(now() - started)}`);

  if (JSON_OUT) {
    const out = {
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
      date: new Date().toISOString(),
      interpreter: interp ? { available: true, source: interp.source, offLimits: interp.offNote } : { available: false, reason: interpUnavailable },
      limits: ON_LIMITS,
      targets: TARGETS,
      kernels: reports,
      geomeanRatio: geo ?? null,
      tierGeomeanRatio: tierGeo ?? null,
      tierMeteringOverheadGeomean: tierOverheadGeo ?? null,
      firstRuns,
      programs: programReports,
      simdKernels: simdReports,
      simdGeomeanRatio: simdGeo ?? null,
      unrolledKernels: unrolled.reports,
      unrolledFirstRuns: unrolled.firstRuns,
      heldOutKernels: heldOut.reports,
      heldOutFirstRuns: heldOut.firstRuns,
      meteringOverheadGeomean: overheadGeo ?? null,
      compile,
      programCompile,
      startup,
      responsiveness,
      deadline,
      cliColdStart: cli,
      totalMs: now() - started,
    };
    console.log(JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2));
  }
  return disagreements ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(2);
  },
);
