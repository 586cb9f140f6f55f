/**
 * The playground's development server: `npx tsx playground/serve.ts [--port N]` (default 8080;
 * 0 picks a free port). esbuild serves the bundle from memory on 127.0.0.1 and rebuilds it
 * when a request comes after a source changed; index.html and style.css are copied into the
 * served folder (`dist/playground-dev`) at every build. Only the loopback interface listens.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { playgroundOptions } from './build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function parsePort(argv: readonly string[]): number {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return 8080;
  const text = argv[i]!.includes('=') ? argv[i]!.slice('--port='.length) : argv[i + 1];
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: expected a port number, got ${String(text)}`);
  return port;
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2));
  const outdir = join(ROOT, 'dist', 'playground-dev');
  mkdirSync(outdir, { recursive: true });
  const ctx = await esbuild.context({ ...playgroundOptions(outdir), minify: false, sourcemap: 'inline', logLevel: 'info' });
  // A first build writes index.html and style.css where the server looks for them.
  await ctx.rebuild();
  const served = await ctx.serve({ servedir: outdir, host: '127.0.0.1', port });
  console.log(`sandboxd-ts playground: http://127.0.0.1:${served.port}/`);
  console.log('  an example run: ' + `http://127.0.0.1:${served.port}/?example=fib&invoke=fib&args=30&run`);
  console.log('  (rebuilt on request after an edit; Ctrl-C stops)');
  const stop = (): void => {
    void ctx.dispose().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
