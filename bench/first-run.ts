/**
 * One kernel's first run in this (fresh) process, for `bench/run.ts`: compile, instantiate and
 * run `run(n)` once, timed from after the engine's own modules have loaded. Prints one JSON
 * line: `{ ms, result }`.
 *
 *   node --import tsx bench/first-run.ts KERNEL N native|interpreter|auto
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadInterpreter, ON_LIMITS } from './interp.js';
import { NativeModule } from './native.js';
import { canonical, type ResultType } from './values.js';

const [name, nText, side, resultType] = process.argv.slice(2);
const n = Number(nText);
const bytes = new Uint8Array(readFileSync(join(import.meta.dirname, 'kernels', `${name}.wasm`)));

async function main(): Promise<{ ms: number; result: string }> {
  if (side === 'native') {
    const t0 = performance.now();
    const mod = await NativeModule.compile(bytes);
    const result = await mod.runCanonical('run', [n], resultType as ResultType);
    return { ms: performance.now() - t0, result };
  }
  const loaded = await loadInterpreter(side === 'interpreter' ? 'interpreter' : undefined);
  if (!('interp' in loaded)) throw new Error(loaded.error);
  const t0 = performance.now();
  const mod = await loaded.interp.compile(bytes);
  const out = await loaded.interp.run(mod, 'run', [{ type: 'i32', value: n }], ON_LIMITS);
  const v = out.values[0]!;
  return { ms: performance.now() - t0, result: canonical(v.type, v.value) };
}

console.log(JSON.stringify(await main()));
