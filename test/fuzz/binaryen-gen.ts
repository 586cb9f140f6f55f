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

/**
 * What both our engine and Node 20's V8 implement: WebAssembly 2.0 without SIMD. Everything
 * else Binaryen knows is switched off by name, so that a newer Binaryen with a new default
 * cannot slip a proposal in.
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
  '--disable-simd',
  '--disable-relaxed-simd',
  '--disable-threads',
  '--disable-shared-everything',
  '--disable-exception-handling',
  '--disable-tail-call',
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
 * A valid WebAssembly 2.0 module (no SIMD) made by Binaryen's fuzzer from the bytes of
 * `fuzzInputBytes(seed, size)`. The same seed, size and shaping always give the same bytes.
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
