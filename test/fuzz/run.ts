/**
 * The differential fuzzer's command line: Binaryen's fuzzer makes modules, `differential.ts`
 * runs each in our engine and in Node's own WebAssembly and compares them.
 *
 *   npm run fuzz -- [--seconds N] [--seed S] [--modules M] [--size BYTES] [--shaping SHAPE]
 *                   [--driver sync|sliced] [--nan-bits | --nan-bits-v8] [--fuel F] [--tier T] [--out DIR] [--quiet]
 *   npm run fuzz -- --replay FILE.wasm [--driver sync|sliced] [--nan-bits | --nan-bits-v8] [--tier T]
 *
 * Runs modules for seeds S, S+1, ... until N seconds (default 60) have passed or M modules
 * were made. Unless given, the input size, the shaping (see FuzzShaping) and how our engine
 * is driven (see OurSide.run in differential.ts) are chosen by the seed, so that a run mixes
 * small and large, raw and optimised modules, run at once or in slices and pieces. Each divergent module is written to DIR (default `fuzz-out/`) as .wasm, .wat and
 * a .txt saying what differed and how to rerun it. Exits 1 when any divergence was found.
 *
 * `--tier` says where our engine runs the module's functions: `auto` (the default policy),
 * `interpreter`, or `eager` (every function in the JavaScript tier from its first call).
 *
 * With `--nan-bits`, NaN bits are compared exactly (see differential.ts: Node's engine runs the
 * module with the rule's choices where V8's own differ); their differences are listed apart,
 * their modules written to DIR/nan/, and they make the run fail as divergences do.
 * `--nan-bits-v8` compares them with V8's own instructions instead (no rule variant): a
 * measurement of where V8 departs from the rule, expected to report differences.
 *
 * Node's engine runs in this process, so V8's flags apply to it:
 * `node --no-liftoff --import tsx test/fuzz/run.ts ...` compares against optimised (TurboFan)
 * code only, where `add`/`mul` commute and constant NaNs fold.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_FUZZ_INPUT_SIZE, type FuzzShaping, generateFuzzModule, moduleToText, reloadFuzzGenerator,
} from './binaryen-gen.js';
import { type Divergence, type Driver, type ModuleResult, runDifferential, withMemoryExport } from './differential.js';

interface Options {
  seconds: number;
  seed: number;
  modules: number;
  size: number | null;
  shaping: FuzzShaping | null;
  driver: Driver | null;
  /** StoreOptions.jitThreshold for our engine (--tier). */
  jitThreshold: number | undefined;
  nanBits: boolean;
  nodeOwnNaNs: boolean;
  fuel: number;
  out: string;
  quiet: boolean;
  replay: string | null;
}

function usage(message?: string): never {
  if (message) process.stderr.write(`fuzz: ${message}\n`);
  process.stderr.write(
    'usage: npm run fuzz -- [--seconds N] [--seed S] [--modules M] [--size BYTES] [--shaping none|fuzz-passes|O2|Oz]\n'
    + '                        [--driver sync|sliced] [--nan-bits | --nan-bits-v8] [--fuel F] [--tier auto|interpreter|eager] [--out DIR] [--quiet]\n'
    + '       npm run fuzz -- --replay FILE.wasm [--driver sync|sliced] [--nan-bits | --nan-bits-v8] [--fuel F] [--tier auto|interpreter|eager]\n',
  );
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    seconds: 60, seed: 1, modules: Infinity, size: null, shaping: null, driver: null, jitThreshold: undefined, nanBits: false, nodeOwnNaNs: false, fuel: 2_000_000, out: 'fuzz-out', quiet: false, replay: null,
  };
  const num = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0) usage(`${name} needs a non-negative number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case '--seconds': o.seconds = num(a, argv[++i]); break;
      case '--seed': o.seed = Math.floor(num(a, argv[++i])); break;
      case '--modules': o.modules = Math.floor(num(a, argv[++i])); break;
      case '--size': o.size = Math.max(1, Math.floor(num(a, argv[++i]))); break;
      case '--fuel': o.fuel = Math.floor(num(a, argv[++i])); break;
      case '--driver': {
        const v = argv[++i];
        if (v !== 'sync' && v !== 'sliced') return usage('--driver takes sync or sliced');
        o.driver = v;
        break;
      }
      case '--shaping': {
        const v = argv[++i];
        if (v !== 'none' && v !== 'fuzz-passes' && v !== 'O2' && v !== 'Oz') return usage('--shaping takes none, fuzz-passes, O2 or Oz');
        o.shaping = v;
        break;
      }
      case '--tier': {
        const v = argv[++i];
        if (v !== 'auto' && v !== 'interpreter' && v !== 'eager') return usage('--tier takes auto, interpreter or eager');
        o.jitThreshold = v === 'interpreter' ? Infinity : v === 'eager' ? 0 : undefined;
        break;
      }
      case '--nan-bits': o.nanBits = true; break;
      case '--nan-bits-v8': o.nanBits = true; o.nodeOwnNaNs = true; break;
      case '--out': o.out = argv[++i] ?? usage('--out needs a directory'); break;
      case '--quiet': o.quiet = true; break;
      case '--replay': o.replay = argv[++i] ?? usage('--replay needs a file'); break;
      case '--help': case '-h': return usage();
      default: return usage(`unknown argument ${a}`);
    }
  }
  return o;
}

/**
 * The input size for a seed when `--size` is not given: small, medium and large inputs in
 * turn, so that a run sees both many small modules and some big ones.
 */
const SIZES = [1500, DEFAULT_FUZZ_INPUT_SIZE, 3000, 16000];
const sizeForSeed = (seed: number): number => SIZES[seed % SIZES.length]!;

/** The shaping for a seed when `--shaping` is not given: as generated, or reshaped by passes. */
const SHAPINGS: readonly FuzzShaping[] = ['none', 'fuzz-passes', 'O2', 'none', 'fuzz-passes', 'Oz'];
const shapingForSeed = (seed: number): FuzzShaping => SHAPINGS[Math.floor(seed / SIZES.length) % SHAPINGS.length]!;

/** The driver for a seed when `--driver` is not given: one cycle of sizes and shapings each. */
const driverForSeed = (seed: number): Driver =>
  Math.floor(seed / (SIZES.length * SHAPINGS.length)) % 2 === 0 ? 'sync' : 'sliced';

function showDivergence(d: Divergence): string {
  return `  at ${d.step}: ${d.what}\n    ours: ${d.ours}\n    node: ${d.node}`;
}

function writeCase(dir: string, name: string, bytes: Uint8Array, header: string, list: readonly Divergence[]): string {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, name);
  writeFileSync(`${base}.wasm`, bytes);
  try {
    writeFileSync(`${base}.wat`, moduleToText(bytes));
  } catch (e) {
    writeFileSync(`${base}.wat`, `;; could not print: ${String(e)}\n`);
  }
  writeFileSync(`${base}.txt`, `${header}\n\n${list.map(showDivergence).join('\n')}\n`);
  return base;
}

function replay(o: Options): void {
  const bytes = new Uint8Array(readFileSync(o.replay!));
  const r = runDifferential(bytes, { compareNanBits: o.nanBits, nodeOwnNaNs: o.nodeOwnNaNs, fuel: o.fuel, driver: o.driver ?? 'sync', driverSeed: o.seed, jitThreshold: o.jitThreshold });
  process.stdout.write(`${o.replay}: ${r.status}${r.skipReason ? ` (${r.skipReason})` : ''}, ${r.steps} steps, ${r.calls} calls compared`
    + `${r.ended ? `, ended: ${r.ended}` : ''}\n`);
  for (const d of r.divergences) process.stdout.write(`divergence\n${showDivergence(d)}\n`);
  for (const d of r.nanDerived) process.stdout.write(`NaN-derived (gone under --denan)\n${showDivergence(d)}\n`);
  for (const d of r.nanDifferences) process.stdout.write(`NaN bits\n${showDivergence(d)}\n`);
  process.exitCode = r.divergences.length > 0 || r.nanDifferences.length > 0 ? 1 : 0;
}

/** Modules made between reloads of wasm-opt (see reloadFuzzGenerator). */
const RELOAD_EVERY = 1000;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.replay !== null) return replay(o);

  const started = performance.now();
  const deadline = started + o.seconds * 1000;
  const t = {
    generated: 0, compiled: 0, compared: 0, steps: 0, calls: 0, hostCalls: 0, nans: 0, v128s: 0,
    ok: 0, trap: 0, hostException: 0, genMs: 0, runMs: 0,
  };
  const skipped = new Map<string, number>();
  const ended = new Map<string, number>();
  const divergent: Array<{ seed: number; first: Divergence; file: string }> = [];
  const nanDerived: number[] = [];
  const nanPayload: Array<{ seed: number; first: Divergence; file: string }> = [];
  const count = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  let lastProgress = started;
  const progress = (): string => {
    const s = ((performance.now() - started) / 1000).toFixed(0);
    return `[${s}s] seed ${o.seed + t.generated - 1}: ${t.generated} modules, ${t.compared} compared, ${t.calls} calls, `
      + `${divergent.length} divergent${o.nanBits ? `, ${nanPayload.length} with NaN bit differences` : ''}`;
  };

  process.stdout.write(`fuzz: seeds from ${o.seed}, ${o.seconds} s, input size ${o.size ?? `by seed (${SIZES.join('/')})`}, `
    + `shaping ${o.shaping ?? `by seed (${[...new Set(SHAPINGS)].join('/')})`}, driver ${o.driver ?? 'by seed (sync/sliced)'}, `
    + `fuel ${o.fuel} per call, NaN bits ${o.nodeOwnNaNs ? 'compared with V8\'s own' : o.nanBits ? 'compared' : 'ignored'}, output to ${o.out}/\n`);

  for (let seed = o.seed; performance.now() < deadline && t.generated < o.modules; seed++) {
    const size = o.size ?? sizeForSeed(seed);
    const shaping = o.shaping ?? shapingForSeed(seed);
    const driver = o.driver ?? driverForSeed(seed);
    let t0 = performance.now();
    if (t.generated > 0 && t.generated % RELOAD_EVERY === 0) await reloadFuzzGenerator();
    let bytes: Uint8Array;
    try {
      bytes = generateFuzzModule(seed, size, shaping);
    } catch (e) {
      t.generated++;
      count(skipped, `generator failed: ${String(e).slice(0, 80)}`);
      continue;
    }
    t.generated++;
    t.genMs += performance.now() - t0;
    t0 = performance.now();
    let r: ModuleResult;
    try {
      r = runDifferential(bytes, { compareNanBits: o.nanBits, nodeOwnNaNs: o.nodeOwnNaNs, fuel: o.fuel, driver, driverSeed: seed, jitThreshold: o.jitThreshold });
    } catch (e) {
      // A bug in the harness itself: report it, keep the module, go on.
      count(skipped, 'harness error');
      writeCase(join(o.out, 'harness'), `seed-${seed}`, bytes, `harness error for seed ${seed}: ${e instanceof Error ? e.stack : String(e)}`, []);
      continue;
    }
    t.runMs += performance.now() - t0;
    if (r.status === 'skipped') count(skipped, r.skipReason ?? 'unknown');
    else {
      t.compared++;
      if (!r.divergences.some((d) => d.what === 'compile')) t.compiled++;
    }
    t.steps += r.steps;
    t.calls += r.calls;
    t.hostCalls += r.hostCalls;
    t.nans += r.seen.nans;
    t.v128s += r.seen.v128s;
    t.ok += r.callOutcomes.ok;
    t.trap += r.callOutcomes.trap;
    t.hostException += r.callOutcomes.hostException;
    if (r.ended !== undefined && r.ended !== 'divergence') count(ended, r.ended);
    const tier = o.jitThreshold === Infinity ? ' --tier interpreter' : o.jitThreshold === 0 ? ' --tier eager' : '';
    const rerun = `npm run fuzz -- --seed ${seed} --modules 1 --size ${size} --shaping ${shaping} --driver ${driver}${o.nodeOwnNaNs ? ' --nan-bits-v8' : o.nanBits ? ' --nan-bits' : ''}${tier}`;
    if (r.divergences.length > 0) {
      const file = writeCase(o.out, `seed-${seed}`, withMemoryExport(bytes),
        `seed ${seed}, input size ${size}, shaping ${shaping}, driver ${driver}: divergence between our engine and Node\nrerun: ${rerun}`, r.divergences);
      divergent.push({ seed, first: r.divergences[0]!, file });
      if (!o.quiet) process.stdout.write(`DIVERGENCE seed ${seed} (${file}.wasm)\n${showDivergence(r.divergences[0]!)}\n`);
    }
    if (r.nanDerived.length > 0) nanDerived.push(seed);
    if (o.nanBits && r.nanDifferences.length > 0) {
      const file = writeCase(join(o.out, 'nan'), `seed-${seed}`, withMemoryExport(bytes),
        `seed ${seed}, input size ${size}, shaping ${shaping}, driver ${driver}: NaN bit difference\nrerun: ${rerun}`, r.nanDifferences);
      nanPayload.push({ seed, first: r.nanDifferences[0]!, file });
    }
    if (!o.quiet && performance.now() - lastProgress > 5000) {
      lastProgress = performance.now();
      process.stdout.write(`${progress()}\n`);
    }
  }

  const seconds = (performance.now() - started) / 1000;
  const lines = [
    '',
    `fuzz summary (seeds ${o.seed}..${o.seed + t.generated - 1}, ${seconds.toFixed(1)} s; generating ${(t.genMs / 1000).toFixed(1)} s, running ${(t.runMs / 1000).toFixed(1)} s)`,
    `  modules generated:    ${t.generated}`,
    `  compiled and run:     ${t.compared} (both engines accepted ${t.compiled})`,
    `  skipped:              ${t.generated - t.compared}${[...skipped].map(([k, v]) => `\n    ${v} × ${k}`).join('')}`,
    `  steps compared:       ${t.steps} (instantiations and calls)`,
    `  calls compared:       ${t.calls} (returned ${t.ok}, trapped ${t.trap}, host exception ${t.hostException})`,
    `  host calls compared:  ${t.hostCalls}`,
    `  values compared:      ${t.nans} float NaNs (${o.nanBits ? 'bit for bit' : 'any NaN matching any NaN'}), ${t.v128s} v128s `
      + '(results, host-call arguments, exported globals after each step)',
    `  modules ended early:  ${[...ended].map(([k, v]) => `${v} × ${k}`).join(', ') || 'none'}`,
    ...o.nanBits ? [] : [`  NaN-derived differences (gone under --denan, not divergences): ${nanDerived.length}${nanDerived.length ? ` (seeds ${nanDerived.slice(0, 20).join(', ')}${nanDerived.length > 20 ? ', ...' : ''})` : ''}`],
  ];
  if (o.nanBits) {
    lines.push(`  NaN bit differences:  ${nanPayload.length} module(s) (compared exactly, failures)`);
    for (const n of nanPayload.slice(0, 20)) lines.push(`    seed ${n.seed} (${n.file}.wasm)\n  ${showDivergence(n.first)}`);
  }
  lines.push(`  divergences:          ${divergent.length} module(s)`);
  for (const d of divergent) lines.push(`    seed ${d.seed} (${d.file}.wasm)\n  ${showDivergence(d.first)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = divergent.length > 0 || nanPayload.length > 0 ? 1 : 0;
}

await main();
