/**
 * The soak: many runs in flight at once on one Sandbox — hostile guests from issue 8's table
 * and ordinary ones — with deadlines from 5 to 200 ms. The storms move 0.5–1 MiB per
 * instruction and the memory caps are 2 MiB: a thousand runs of the table's 16 MiB storms at
 * once would ask this process for 16 GiB. Prints one JSON line: every run's
 * outcome checked against what its guest must give, how late runs ended past their deadlines
 * (the engine's share: less V8's collector pauses within the lateness; and with them; a deadline
 * that passed while this script's own loop asked for the runs counts from that loop's end), how
 * long each call took in that loop, and
 * the process's memory before and after (with a collection forced: run under --expose-gc).
 *
 * test/soak.test.ts runs it bundled by esbuild, as the build compiles the engine; by hand,
 * node --expose-gc --import tsx test/soak/run-soak.ts [--runs N] [--seed S] (tsx's transform
 * adds to each run's garbage: the test's comment says how much).
 */
import { readFileSync } from 'node:fs';
import { Limits, Sandbox, SandboxError, Value, type CompiledModule } from '../../src/index.js';
import { COLLECTOR_MS, CollectorPauses } from '../helpers/collector.js';
import { tableBomb } from '../helpers/hostile.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const RUNS = option('runs', 1000);
let seed = option('seed', 1) >>> 0 || 1;
function random(): number {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}.wat`, import.meta.url), 'utf8');
const MiB = 1 << 20;
/** A run ends within its deadline and this (ms), V8's collector pauses apart (docs/fences.md). */
const LATE_MS = 15;

interface Guest {
  name: string;
  module: CompiledModule;
  invoke: string;
  args: Value[];
  limits: Partial<ConstructorParameters<typeof Limits>[0]>;
  /** The kinds it may end with ('ok' for success). */
  expect: readonly string[];
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function memory(): { heapUsed: number; external: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external + m.arrayBuffers, rss: m.rss };
}

async function main(): Promise<void> {
  const sandbox = Sandbox.denyAll();
  const compile = (source: string | Uint8Array) => sandbox.compile(source);
  const guests: Guest[] = [
    { name: 'spin', module: await compile(fixture('infinite_loop')), invoke: 'run', args: [], limits: { fuel: 1e15 }, expect: ['Timeout'] },
    { name: 'fill storm', module: await compile(fixture('bulk_storm')), invoke: 'fill', args: [Value.i32(MiB)], limits: { fuel: 1e15 }, expect: ['Timeout'] },
    { name: 'copy storm', module: await compile(fixture('bulk_storm')), invoke: 'copy', args: [Value.i32(MiB / 2)], limits: { fuel: 1e15 }, expect: ['Timeout'] },
    { name: 'growth storm', module: await compile(fixture('growth_storm')), invoke: 'run', args: [], limits: { memoryBytes: 2 * MiB }, expect: ['ok', 'Timeout'] },
    { name: 'memory bomb', module: await compile(fixture('memory_bomb')), invoke: 'run', args: [], limits: { fuel: 1e15, memoryBytes: 2 * MiB }, expect: ['MemoryLimitExceeded', 'Timeout'] },
    { name: 'table bomb', module: await compile(tableBomb(20_000, 10_000)), invoke: 'run', args: [], limits: {}, expect: ['MemoryLimitExceeded'] },
    // Ordinary guests finish, unless a thousand others leave them too little of the event loop
    // before their deadline: then Timeout, and never before the deadline (checked below).
    { name: 'fib', module: await compile(fixture('well_behaved')), invoke: 'fib', args: [Value.i32(15)], limits: {}, expect: ['ok', 'Timeout'] },
    { name: 'add', module: await compile('(module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))'), invoke: 'add', args: [Value.i32(2), Value.i32(40)], limits: {}, expect: ['ok', 'Timeout'] },
  ];
  const before = memory();
  const collector = new CollectorPauses();
  const started = performance.now();
  const pending = Array.from({ length: RUNS }, async (_, i) => {
    const guest = guests[Math.floor(random() * guests.length)]!;
    const timeoutMs = 5 + Math.floor(random() * 196);
    const t0 = performance.now();
    let kind = 'ok';
    try {
      await sandbox.run(guest.module, guest.invoke, guest.args, new Limits({ ...guest.limits, timeoutMs }));
    } catch (e) {
      kind = e instanceof SandboxError ? e.kind : `not a SandboxError: ${String(e)}`;
    }
    const ms = performance.now() - t0;
    return { i, guest: guest.name, t0, timeoutMs, kind, ms, right: guest.expect.includes(kind) };
  });
  // The thousand calls above ran in one synchronous loop of this embedder's: no run can end
  // before it yields, so a run whose deadline passed meanwhile is late from then on only. The
  // engine's share of that loop, its calls' synchronous part, is reported on its own.
  const burstEnd = performance.now();
  const results = await Promise.all(pending);
  const totalMs = performance.now() - started;
  // Let the scheduler's last round pass the runs that ended at their deadline.
  await new Promise((resolve) => setTimeout(resolve, 20));
  await collector.stop();
  const after = memory();
  const timeouts = results.filter((r) => r.kind === 'Timeout');
  const wrong = results.filter((r) => !r.right);
  const early = timeouts.filter((r) => r.ms < r.timeoutMs);
  const lateness = timeouts.map((r) => {
    const deadline = Math.max(r.t0 + r.timeoutMs, burstEnd);
    const ms = r.t0 + r.ms - deadline;
    return { timeoutMs: r.timeoutMs, ms, lessCollectorMs: ms - collector.within(deadline, deadline + ms) };
  });
  const worst = (of: typeof lateness, key: 'ms' | 'lessCollectorMs') => Math.max(0, ...of.map((l) => l[key]));
  // Past the start-up burst (every run set up in the same few milliseconds): deadlines of 60 ms and more.
  const afterStart = lateness.filter((l) => l.timeoutMs >= 60);
  const kinds: Record<string, number> = {};
  for (const r of results) kinds[`${r.guest}: ${r.kind}`] = (kinds[`${r.guest}: ${r.kind}`] ?? 0) + 1;
  console.log(JSON.stringify({
    runs: RUNS,
    totalMs: Math.round(totalMs),
    // The synchronous loop that asked for every run, and what each call took in it on average (µs).
    burstMs: +(burstEnd - started).toFixed(1),
    callUs: +(((burstEnd - started) * 1000) / RUNS).toFixed(1),
    kinds,
    wrong: wrong.slice(0, 10),
    early: early.slice(0, 10),
    timeouts: timeouts.length,
    // Ended more than LATE_MS after the deadline, less the collector's pauses in between.
    late: lateness.filter((l) => l.lessCollectorMs > LATE_MS).length,
    // And with them: more than COLLECTOR_MS later still.
    lateWithCollector: lateness.filter((l) => l.ms > LATE_MS + COLLECTOR_MS).length,
    worstLateLessCollectorMs: worst(lateness, 'lessCollectorMs'),
    worstLateMs: worst(lateness, 'ms'),
    worstLateAfterStartLessCollectorMs: worst(afterStart, 'lessCollectorMs'),
    worstLateAfterStartMs: worst(afterStart, 'ms'),
    memory: { before, after },
  }));
}

await main();
