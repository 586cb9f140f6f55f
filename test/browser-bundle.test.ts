/**
 * The library runs in a browser: its entry point, bundled for one, imports nothing from Node
 * (`node:*`, Node's globals such as setImmediate or process are only looked up where present),
 * and the bundle runs a guest in a context that has none of Node's globals.
 */
import { build } from 'esbuild';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import wabt from 'wabt';

/** sum(n) = n + (n - 1) + ... + 1, by a loop. */
const SUM = `(module (func (export "sum") (param $n i32) (result i32) (local $s i32)
  (block (loop
    (br_if 1 (i32.eqz (local.get $n)))
    (local.set $s (i32.add (local.get $s) (local.get $n)))
    (local.set $n (i32.sub (local.get $n) (i32.const 1)))
    (br 0)))
  (local.get $s)))`;

async function browserBundle(): Promise<{ code: string; imports: string[] }> {
  const result = await build({
    entryPoints: ['src/index.ts'], bundle: true, platform: 'browser', format: 'iife', globalName: 'sandboxd',
    minify: true, write: false, metafile: true, external: ['wabt'], logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
  return { code: result.outputFiles[0]!.text, imports };
}

describe('the library in a browser', () => {
  it('imports nothing from node:, and runs a guest where Node\'s globals are missing', async () => {
    const { code, imports } = await browserBundle();
    expect(imports.filter((path) => path.startsWith('node:') || ['fs', 'path', 'os', 'crypto'].includes(path))).toEqual([]);
    // A bare context: the language's globals, and what a page has that the engine uses.
    const page = {
      performance, MessageChannel, TextEncoder, TextDecoder, AbortController, AbortSignal, queueMicrotask,
      setTimeout, clearTimeout, setInterval, clearInterval,
      WebAssembly: undefined, console,
    };
    const exported = runInNewContext(`${code}; sandboxd`, page) as typeof import('../src/index.js');
    expect(runInNewContext('typeof setImmediate + typeof process', page)).toBe('undefinedundefined');
    const sandbox = exported.Sandbox.denyAll();
    // A module in binary (the text parser, wabt, is left out of this bundle), made in the bundle's
    // own realm as a page would (a Uint8Array of this realm is not one of its).
    const wasm = (await wabt()).parseWat('sum.wat', SUM).toBinary({}).buffer;
    const bytes = (runInNewContext('(list) => new Uint8Array(list)', page) as (list: number[]) => Uint8Array)([...wasm]);
    const out = await sandbox.run(bytes, 'sum', [exported.Value.i32(100_000)], new exported.Limits({ fuel: 1e9, timeoutMs: 10_000 }));
    expect(String(out.values[0])).toBe(`I32(${(100_000 * 100_001) / 2 | 0})`);
  });
});
