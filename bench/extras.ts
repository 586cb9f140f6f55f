/**
 * The measurements besides the kernels: compile speed, start-up, event-loop responsiveness
 * while a guest spins, deadline precision, and the CLI's cold start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ON_LIMITS, type Interpreter } from './interp.js';
import { wasm } from './native.js';
import { max, median, now, repeat } from './stats.js';
import { SPIN_WASM } from './tiny.js';

export type Skipped = { skipped: string };

function describe(e: unknown): string {
  if (e instanceof Error) {
    const kind = (e as { kind?: unknown }).kind;
    return `${e.name}${kind !== undefined ? `(${String(kind)})` : ''}: ${e.message}`;
  }
  return String(e);
}

/** Whether an error from a run looks like the deadline firing. */
export function isTimeout(e: unknown): boolean {
  if (e === null || e === undefined) return false;
  const o = e as Record<string, unknown>;
  if (typeof o['kind'] === 'string') return o['kind'] === 'Timeout'; // SandboxError
  const text = [o['name'], o['kind'], o['code'], o['message'], String(e)].map((x) => String(x ?? '')).join(' ');
  return /time\s*-?out|deadline|interrupt/i.test(text);
}

// ---------------------------------------------------------------- compile speed

export interface CompileResult {
  file: string;
  bytes: number;
  /** The first compile of this module in the process (the compiler itself not yet optimised by V8). */
  firstMs: number;
  medianMs: number;
  runs: number;
  mbPerSec: number;
}

/**
 * Compile speed once V8 has optimised the compiler — the same warm-up as start-up (up to 500
 * runs or 500 ms) — plus the first compile on its own, which is what a process that compiles
 * one module pays.
 */
export async function measureCompile(compile: (bytes: Uint8Array) => Promise<unknown>, file: string, bytes: Uint8Array): Promise<CompileResult> {
  const t0 = now();
  await compile(bytes);
  const firstMs = now() - t0;
  for (let i = 0; i < 500 && now() - t0 < 500; i++) await compile(bytes);
  const s = await repeat(() => compile(bytes), { warmup: 0, maxRuns: 500, budgetMs: 3000, minRuns: 5 });
  const ms = median(s.times);
  return { file, bytes: bytes.length, firstMs, medianMs: ms, runs: s.times.length, mbPerSec: bytes.length / 1e6 / (ms / 1000) };
}

// ---------------------------------------------------------------- start-up

export interface StartupResult {
  source: string;
  runsPerSec: number;
  runs: number;
  result: string;
  nativeRunsPerSec: number;
}

export async function measureStartup(interp: Interpreter, bytes: Uint8Array, source: string): Promise<StartupResult> {
  const mod = await interp.compile(bytes);
  const args = [{ type: 'i32', value: 2 }, { type: 'i32', value: 40 }] as const;
  const first = await interp.run(mod, 'add', args, ON_LIMITS);
  const result = first.values.map((v) => `${v.type}:${String(v.value)}`).join(',');
  const w0 = now();
  for (let i = 0; i < 500 && now() - w0 < 500; i++) await interp.run(mod, 'add', args, ON_LIMITS); // warm-up
  let runs = 0;
  const t0 = now();
  while (runs < 500_000 && now() - t0 < 1500) {
    for (let i = 0; i < 100; i++) await interp.run(mod, 'add', args, ON_LIMITS);
    runs += 100;
  }
  const runsPerSec = runs / ((now() - t0) / 1000);

  // For context: the same loop on Node's engine (instantiate + call).
  const nmod = await wasm.compile(bytes);
  let nruns = 0;
  const n0 = now();
  while (nruns < 1_000_000 && now() - n0 < 500) {
    for (let i = 0; i < 100; i++) {
      const inst = await wasm.instantiate(nmod, {});
      (inst.exports['add'] as (a: number, b: number) => number)(2, 40);
    }
    nruns += 100;
  }
  return { source, runsPerSec, runs, result, nativeRunsPerSec: nruns / ((now() - n0) / 1000) };
}

// ---------------------------------------------------------------- responsiveness

/**
 * Fuel for the spinning guest: far more than the deadline lets it burn (one `br` costs 1;
 * translated to JavaScript the loop burns over a billion a second, so 1e9 ran out first), but
 * a backstop so that a deadline that never fires cannot hang the benchmark.
 */
const SPIN_FUEL = 1e12;

export interface ResponsivenessResult {
  deadlineMs: number;
  maxGapMs: number;
  ticks: number;
  elapsedMs: number;
  outcome: string;
}

export async function measureResponsiveness(interp: Interpreter, deadlineMs = 1000): Promise<ResponsivenessResult> {
  const mod = await interp.compile(SPIN_WASM);
  let last = now();
  let maxGap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const t = now();
    if (t - last > maxGap) maxGap = t - last;
    last = t;
    ticks++;
  }, 1);
  const t0 = now();
  last = t0;
  let outcome: string;
  try {
    await interp.run(mod, 'spin', [], { ...ON_LIMITS, fuel: SPIN_FUEL, timeoutMs: deadlineMs });
    outcome = 'returned (the deadline did not fire)';
  } catch (e) {
    outcome = isTimeout(e) ? 'timeout' : `unexpected error: ${describe(e)}`;
  }
  const elapsed = now() - t0;
  // the gap still open when the run ended counts too
  if (now() - last > maxGap) maxGap = now() - last;
  clearInterval(timer);
  return { deadlineMs, maxGapMs: maxGap, ticks, elapsedMs: elapsed, outcome };
}

// ---------------------------------------------------------------- deadline precision

export interface DeadlineResult {
  deadlineMs: number;
  runs: number;
  medianOvershootMs: number;
  maxOvershootMs: number;
  overshootsMs: number[];
  failures: string[];
}

export async function measureDeadline(interp: Interpreter, deadlineMs = 100, runs = 20): Promise<DeadlineResult> {
  const mod = await interp.compile(SPIN_WASM);
  const over: number[] = [];
  const failures: string[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    try {
      await interp.run(mod, 'spin', [], { ...ON_LIMITS, fuel: SPIN_FUEL, timeoutMs: deadlineMs });
      failures.push('returned without a timeout');
    } catch (e) {
      const dt = now() - t0;
      if (isTimeout(e)) over.push(dt - deadlineMs);
      else failures.push(describe(e));
    }
    if (failures.length > 0) break; // the deadline does not work: do not spin on
  }
  return {
    deadlineMs,
    runs: over.length,
    medianOvershootMs: median(over),
    maxOvershootMs: max(over),
    overshootsMs: over.map((x) => Math.round(x * 100) / 100),
    failures,
  };
}

// ---------------------------------------------------------------- CLI cold start

export interface CliResult {
  command: string;
  runs: number;
  medianMs: number;
  nodeBaselineMs: number;
  output: string;
  ok: boolean;
}

export function measureCli(root: string, cliPath: string, fibWasm: string): CliResult | Skipped {
  if (!existsSync(cliPath)) return { skipped: `${cliPath} does not exist yet` };
  const args = [cliPath, fibWasm, '--invoke', 'fib', '--arg', '30'];
  const time = (argv: string[]): { ms: number; out: string; status: number | null } => {
    const t0 = now();
    const r = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8', timeout: 20_000 });
    return { ms: now() - t0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim(), status: r.status };
  };
  const first = time(args); // warm the file-system cache
  const times: number[] = [];
  const t0 = now();
  while (times.length < 10 && (times.length < 3 || now() - t0 < 15_000)) times.push(time(args).ms);
  const base: number[] = [];
  for (let i = 0; i < 5; i++) base.push(time(['-e', '0']).ms);
  return {
    command: `node ${args.map((a) => a.replace(`${root}/`, '')).join(' ')}`,
    runs: times.length,
    medianMs: median(times),
    nodeBaselineMs: median(base),
    output: first.out.slice(0, 200),
    ok: first.status === 0 && first.out.includes('832040'),
  };
}
