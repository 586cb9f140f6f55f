/**
 * What inspection costs (docs/inspect.md): each scalar kernel of the bench, in the interpreter,
 * plain and with each inspection tool on — the fuel profile, coverage, a trace of the first
 * 1,000 instructions, and the debugger running to the end with no breakpoint — checking that
 * every variant returns the same value and consumes the same fuel. Prints, per kernel, the
 * median time of each (after a warm-up) and its ratio to plain, then the geometric means.
 *
 *     npx tsx bench/inspect.ts [--runs=N]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HostAbi, Limits, Sandbox, Value, type CompiledModule, type RunOutput } from '../src/index.js';

const KERNEL_DIR = join(dirname(fileURLToPath(import.meta.url)), 'kernels');
/** The bench's kernels, at a quarter of its sizes or less (several variants each). */
const KERNELS = [
  { name: 'calls', n: 25 }, { name: 'loops', n: 2_500 }, { name: 'f64', n: 800 }, { name: 'i64', n: 120 },
  { name: 'indirect', n: 75_000 }, { name: 'bulk', n: 15_000 }, { name: 'sha256', n: 16 }, { name: 'lz77', n: 15_000 },
];
const runsArg = process.argv.find((a) => a.startsWith('--runs='));
const RUNS = runsArg === undefined ? 5 : Number(runsArg.slice('--runs='.length));
const limits = new Limits({ fuel: 1e15, timeoutMs: 600_000, memoryBytes: 256 * 1024 * 1024 });
const sandbox = new Sandbox(HostAbi.denyAll(), { tier: 'interpreter' });

type Variant = (module: CompiledModule, n: number) => Promise<RunOutput>;
const VARIANTS: Record<string, Variant> = {
  plain: (m, n) => sandbox.run(m, 'run', [Value.i32(n)], limits),
  profile: (m, n) => sandbox.run(m, 'run', [Value.i32(n)], limits, { profile: true }),
  coverage: (m, n) => sandbox.run(m, 'run', [Value.i32(n)], limits, { coverage: true }),
  'trace 1000': (m, n) => sandbox.run(m, 'run', [Value.i32(n)], limits, { trace: { limit: 1000 } }),
  debugger: async (m, n) => {
    const event = await (await sandbox.debug(m, 'run', [Value.i32(n)], limits)).continue();
    if (event.kind !== 'finished') throw new Error(`debugger: ${event.kind}`);
    return event.output;
  },
};

async function timed(variant: Variant, module: CompiledModule, n: number): Promise<{ ms: number; out: RunOutput }> {
  const t0 = performance.now();
  const out = await variant(module, n);
  return { ms: performance.now() - t0, out };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const names = Object.keys(VARIANTS);
const ratios = new Map<string, number[]>(names.map((v) => [v, []]));
console.log(`kernel      ${names.map((v) => v.padStart(18)).join('')}`);
for (const k of KERNELS) {
  const module = await sandbox.compile(readFileSync(join(KERNEL_DIR, `${k.name}.wasm`)));
  const medians: number[] = [];
  let reference: RunOutput | null = null;
  for (const name of names) {
    const variant = VARIANTS[name]!;
    await timed(variant, module, k.n); // warm-up
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { ms, out } = await timed(variant, module, k.n);
      times.push(ms);
      reference ??= out;
      if (String(out.values) !== String(reference.values) || out.fuelConsumed !== reference.fuelConsumed) {
        throw new Error(`${k.name} ${name}: ${String(out.values)} / ${out.fuelConsumed} fuel, plain gave ${String(reference.values)} / ${reference.fuelConsumed}`);
      }
    }
    medians.push(median(times));
  }
  const cells = medians.map((ms, i) => {
    const ratio = ms / medians[0]!;
    ratios.get(names[i]!)!.push(ratio);
    return `${ms.toFixed(1)} ms ${i === 0 ? '     ' : `${ratio.toFixed(2)}x`}`.padStart(18);
  });
  console.log(`${k.name.padEnd(12)}${cells.join('')}`);
}
const geomean = (xs: number[]): number => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
console.log(`geomean     ${names.map((v) => (v === 'plain' ? '' : `${geomean(ratios.get(v)!).toFixed(2)}x`).padStart(18)).join('')}`);
