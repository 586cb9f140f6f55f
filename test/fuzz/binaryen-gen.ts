/**
 * Random WebAssembly modules from Binaryen's fuzzer (`wasm-opt --translate-to-fuzz`), for the
 * differential fuzzer in `differential.ts`.
 *
 * The npm package `binaryen` ships each tool as one Emscripten-built JavaScript file
 * (`bin/wasm-opt`). Spawning it costs about 0.4 s per module on this machine; loading it once
 * into this process and calling its `main` again for every module costs 10–30 ms. The script
 * is evaluated with `vm.runInThisContext` inside a function that hands us its `callMain`;
 * loading takes about 0.1–0.2 s and happens once, when this file is imported (top-level
 * await), so `generateFuzzModule` itself is synchronous.
 *
 * `--translate-to-fuzz` turns a string of random bytes into a valid module; the same bytes
 * and flags always give the same module, so a seed determines a module.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import { Feature, type FeatureSet } from '../../src/interpreter/index.js';

/**
 * What both our engine and Node 20's V8 (11.3) run without flags: WebAssembly 2.0 with SIMD,
 * plus tail calls and threads (shared memory and atomics; Binaryen's fuzzer makes no
 * `memory.atomic.wait`, and one agent is all either side runs). Everything else Binaryen knows
 * is switched off by name, so that a newer Binaryen with a new default cannot slip a proposal
 * in. Left out, because Node 20 cannot run them as the test runs it (in this process, with
 * its default flags):
 *
 * - relaxed SIMD, extended constant expressions, memory64: only behind V8 flags
 *   (`--experimental-wasm-relaxed-simd`, `-extended-const`, `-memory64`); relaxed SIMD's
 *   results in V8 depend on the CPU besides;
 * - multi-memory: not in V8 11.3 at all;
 * - exception handling: Binaryen makes `try_table` and `exnref` (and `noexternref` types),
 *   which V8 11.3 does not have (it has the legacy `try` only);
 * - GC, strings, stack switching, shared-everything, fp16, custom descriptors and the rest:
 *   not in our engine or not in V8 11.3.
 */
export const FUZZ_FEATURE_FLAGS: readonly string[] = [
  '--mvp-features',
  '--enable-mutable-globals',
  '--enable-sign-ext',
  '--enable-nontrapping-float-to-int',
  '--enable-multivalue',
  '--enable-bulk-memory',
  '--enable-bulk-memory-opt',
  '--enable-reference-types',
  '--enable-call-indirect-overlong',
  '--enable-simd',
  '--enable-tail-call',
  '--enable-threads',
  '--disable-relaxed-simd',
  '--disable-shared-everything',
  '--disable-exception-handling',
  '--disable-gc',
  '--disable-memory64',
  '--disable-multimemory',
  '--disable-extended-const',
  '--disable-strings',
  '--disable-stack-switching',
  '--disable-fp16',
  '--disable-custom-descriptors',
  '--disable-multibyte',
  '--disable-acquire-release-atomics',
];

/**
 * The same selection as our engine's feature set: the runner compiles with it, so a module
 * that strays outside it is refused by our engine (and shows as a compile divergence when
 * Node takes it).
 */
export const FUZZ_ENGINE_FEATURES: FeatureSet = new Set<Feature>([
  Feature.Simd, Feature.TailCalls, Feature.SharedMemory, Feature.Atomics,
]);

/** Random input bytes per module when no size is given (about 3 KB of wasm on average). */
export const DEFAULT_FUZZ_INPUT_SIZE = 6000;

interface WasmOptModule {
  callMain(args: string[]): number;
}

async function loadWasmOpt(): Promise<WasmOptModule> {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('binaryen/package.json')), 'bin');
  const file = join(dir, 'wasm-opt');
  let source = readFileSync(file, 'utf8');
  if (source.startsWith('#!')) source = `//${source.slice(2)}`; // keep line numbers
  const factory = vm.runInThisContext(
    `(function (require, __filename, __dirname, process, Module) {${source}\n;Module.__exposed = { callMain, stackSave, stackRestore };\n})`,
    { filename: file },
  ) as (req: NodeRequire, filename: string, dirname: string, proc: NodeJS.Process, module: Record<string, unknown>) => void;
  // The tool sets process.exitCode when main returns; give it a process of its own for that.
  const proc = Object.create(process, {
    exitCode: { value: undefined, writable: true },
    argv: { value: [process.argv[0], file] },
  }) as NodeJS.Process;
  const module: Record<string, unknown> = {
    noInitialRun: true,
    thisProgram: 'wasm-opt',
  };
  const ready = new Promise<void>((resolve) => {
    module.onRuntimeInitialized = resolve;
  });
  factory(require, file, dir, proc, module);
  await ready;
  const exposed = module.__exposed as { callMain: (args: string[]) => number; stackSave: () => number; stackRestore: (sp: number) => void };
  // callMain puts argv on the tool's own stack (in its linear memory) and never pops it:
  // without restoring the stack pointer, about a thousand calls overflow that stack.
  const callMain = (args: string[]): number => {
    const sp = exposed.stackSave();
    try {
      return exposed.callMain(args);
    } finally {
      exposed.stackRestore(sp);
    }
  };
  return { callMain };
}

let wasmOpt = await loadWasmOpt();

/**
 * Loads a fresh copy of wasm-opt. Each module made keeps about 170 KB of the tool's memory
 * (names and types it interns for good), so a long run reloads it every thousand modules or
 * so; the old copy is left to the garbage collector.
 */
export async function reloadFuzzGenerator(): Promise<void> {
  wasmOpt = await loadWasmOpt();
}

/**
 * This build of wasm-opt reads and writes the real file system (Emscripten's NODERAWFS), so
 * each process keeps its files in a directory of its own: fuzzers running side by side must
 * not share an input file.
 */
const workDir = mkdtempSync(join(tmpdir(), 'sandboxd-fuzz-'));
process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));
const inputFile = join(workDir, 'in');
/** The output file name to pass to wasm-opt (`-o`) when the output is wanted. */
export const OUTPUT = join(workDir, 'out');

/**
 * Runs `wasm-opt` in this process on `input` with `args`; returns the bytes it wrote to
 * `OUTPUT` when `-o OUTPUT` is among the args. The tool writes its messages (`Fatal: ...`)
 * straight to this process's standard error.
 */
export function runWasmOpt(input: Uint8Array, args: readonly string[]): Uint8Array | null {
  writeFileSync(inputFile, input);
  rmSync(OUTPUT, { force: true });
  const rc = wasmOpt.callMain([inputFile, ...args]);
  if (rc !== 0) throw new Error(`wasm-opt ${args.join(' ')} failed with exit code ${rc} (its message is on standard error)`);
  if (!args.includes(OUTPUT)) return null;
  if (!existsSync(OUTPUT)) throw new Error(`wasm-opt ${args.join(' ')} wrote no output`);
  return new Uint8Array(readFileSync(OUTPUT));
}

/**
 * The random bytes Binaryen's fuzzer reads for a seed: a mulberry32 stream, seeded by the
 * seed's low 32 bits mixed with its high bits.
 */
export function fuzzInputBytes(seed: number, size: number): Uint8Array {
  let state = (seed >>> 0) ^ Math.floor(seed / 0x1_0000_0000) * 0x9e3779b1;
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    bytes[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return bytes;
}

/**
 * How the fuzzer's module is shaped after it is made: left as generated (deeply nested blocks,
 * every value through locals), run through passes that Binaryen picks from the input bytes
 * (`--fuzz-passes`), or optimised (`-O2`, `-Oz`), which gives the code compilers emit: tees,
 * selects, br_if with values, loops with few locals.
 */
export type FuzzShaping = 'none' | 'fuzz-passes' | 'O2' | 'Oz';

const SHAPING_FLAGS: Record<FuzzShaping, readonly string[]> = {
  none: [],
  'fuzz-passes': ['--fuzz-passes'],
  O2: ['-O2'],
  Oz: ['-Oz'],
};

/**
 * A valid module (WebAssembly 2.0 with SIMD, tail calls and threads) made by Binaryen's fuzzer
 * from the bytes of `fuzzInputBytes(seed, size)`. The same seed, size and shaping always give the same bytes.
 */
export function generateFuzzModule(seed: number, size: number = DEFAULT_FUZZ_INPUT_SIZE, shaping: FuzzShaping = 'none'): Uint8Array {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);
  const args = ['--translate-to-fuzz', ...FUZZ_FEATURE_FLAGS, ...SHAPING_FLAGS[shaping], '-q', '-o', OUTPUT];
  return runWasmOpt(fuzzInputBytes(seed, size), args)!;
}

/**
 * The module with Binaryen's `--denan` instrumentation: every float that a function computes,
 * receives or loads is replaced by 0 when it is a NaN. The differential runner uses it to tell
 * a difference that comes from NaN payloads from one that does not.
 */
export function denanModule(bytes: Uint8Array): Uint8Array {
  return runWasmOpt(bytes, [...FUZZ_FEATURE_FLAGS, '--denan', '-q', '-o', OUTPUT])!;
}

/**
 * The module in Binaryen's text format (function indexes as names), for reports. (`--print`
 * would write to the process's own standard output: the tool's files are the real ones.)
 */
export function moduleToText(bytes: Uint8Array): string {
  return new TextDecoder().decode(runWasmOpt(bytes, [...FUZZ_FEATURE_FLAGS, '-S', '-q', '-o', OUTPUT])!);
}

/**
 * The scalar float instructions whose NaN results Node's engine (V8 11.3 on x86-64) chooses
 * differently from the rule of docs/determinism.md, in some tier or always, as measured:
 *
 * - `min`, `max` with a NaN operand: always the default NaN (`0xffc00000`,
 *   `0xfff8000000000000`), where the rule keeps the NaN operand (the right one if both);
 * - `add`, `sub`, `mul`, `div` with two NaN operands: the first in Liftoff code, as the rule;
 *   TurboFan commutes `add` and `mul`, and folds an operation with a constant NaN operand to
 *   the constant (`sub(x, NaN)` and f64 `div(x, NaN)` too), so it may give the second;
 * - f64 `div` of two zeros that TurboFan knows (constants, or locals never set): folded to
 *   the positive NaN `0x7ff8000000000000`, where the rule (and the CPU) gives the default NaN;
 * - `f64.floor` of a constant signalling NaN: TurboFan folds it without quieting it.
 *
 * Everything else gave the rule's bits in both tiers (measured with `--no-liftoff` for
 * TurboFan): the other scalar instructions, with constant operands too; every SIMD float
 * instruction on 3,000 random vectors of NaN, infinite and ordinary lanes; moves and bit
 * operations.
 */
const RULE_HELPERS: ReadonlyArray<{ op: string; types: ReadonlyArray<'f32' | 'f64'>; params: number; helper: (t: 'f32' | 'f64') => string }> = [
  ...['add', 'sub', 'mul', 'div'].map((op) => ({
    op, types: ['f32', 'f64'] as const, params: 2,
    helper: (t: 'f32' | 'f64'): string => `(if (result ${t}) (i32.and (${t}.ne (local.get 0) (local.get 0)) (${t}.ne (local.get 1) (local.get 1)))
      (then ${quiet(t, 0)}) (else (${t}.${op} (local.get 0) (local.get 1))))`,
  })),
  ...['min', 'max'].map((op) => ({
    op, types: ['f32', 'f64'] as const, params: 2,
    helper: (t: 'f32' | 'f64'): string => `(if (result ${t}) (${t}.ne (local.get 1) (local.get 1)) (then ${quiet(t, 1)})
      (else (if (result ${t}) (${t}.ne (local.get 0) (local.get 0)) (then ${quiet(t, 0)}) (else (${t}.${op} (local.get 0) (local.get 1))))))`,
  })),
  {
    op: 'floor', types: ['f64'], params: 1,
    helper: (t: 'f32' | 'f64'): string => `(if (result ${t}) (${t}.ne (local.get 0) (local.get 0)) (then ${quiet(t, 0)}) (else (${t}.floor (local.get 0))))`,
  },
];

/** The NaN in local `k` with its quiet bit set. */
function quiet(t: 'f32' | 'f64', k: number): string {
  return t === 'f32'
    ? `(f32.reinterpret_i32 (i32.or (i32.reinterpret_f32 (local.get ${k})) (i32.const 0x400000)))`
    : `(f64.reinterpret_i64 (i64.or (i64.reinterpret_f64 (local.get ${k})) (i64.const 0x8000000000000)))`;
}

/**
 * The module with each instruction of RULE_HELPERS replaced by a call to a function, added at
 * the end (so every other index stays), that computes the rule's bits from instructions on
 * which V8 and the rule agree, in every tier, and that cannot be constant-folded (V8 11.3 does
 * not inline WebAssembly calls). Node's engine runs this module where the runner compares NaN
 * bits: the rule's choices for these instructions are then compared, not V8's own. (For
 * numbers, each function gives what the instruction gives.) Made through Binaryen's text
 * format: printed, the instructions replaced, parsed again.
 */
export function nanRuleVariant(bytes: Uint8Array): Uint8Array {
  const text = moduleToText(bytes);
  const used = new Set<string>();
  const ops = RULE_HELPERS.flatMap((h) => h.types.map((t) => `${t}\\.${h.op}`)).join('|');
  const replaced = text.replace(new RegExp(`\\((${ops})(?=[\\s)])`, 'g'), (_, instr: string) => {
    used.add(instr);
    return `(call $__nan_rule_${instr.replace('.', '_')}`;
  });
  const end = replaced.lastIndexOf(')');
  const helpers: string[] = [];
  for (const h of RULE_HELPERS) {
    for (const t of h.types) {
      if (!used.has(`${t}.${h.op}`)) continue;
      const params = Array.from({ length: h.params }, () => t).join(' ');
      helpers.push(` (func $__nan_rule_${t}_${h.op} (param ${params}) (result ${t})\n  ${h.helper(t)})\n`);
    }
  }
  const source = `${replaced.slice(0, end)}${helpers.join('')})\n`;
  return runWasmOpt(new TextEncoder().encode(source), [...FUZZ_FEATURE_FLAGS, '-q', '-o', OUTPUT])!;
}
