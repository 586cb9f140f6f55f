/**
 * Builds the browser playground: `npx tsx playground/build.ts [--outdir DIR]` (default
 * `dist/playground`).
 *
 * esbuild bundles `playground/src/main.ts` for the browser (ESM, minified, with code
 * splitting, so that the text compiler — wabt, which the library loads with a dynamic
 * `import('wabt')` only for the first `.wat` — sits in a chunk of its own, fetched when first
 * needed), copies `index.html` and `style.css`, and prints the size of every file written.
 *
 * Node's built-in modules have no place in a page: wabt's Emscripten glue `require`s `fs` (on
 * its Node path only) and the library's WASI host-directory reader imports `node:fs` and
 * `node:path` (used only when a WASI guest preopens a host directory, which the page never
 * does). They resolve to an empty module here; the build prints which files asked for them.
 *
 * It also writes a size report, `sizes.json`: the library alone (`src/index.ts` bundled for
 * the browser and minified), in bytes and gzipped, without wabt (external) and with it.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
export const DEFAULT_OUTDIR = join(ROOT, 'dist', 'playground');
const STATIC_FILES = ['index.html', 'style.css'];

/** Node's built-in modules, as a browser bundle meets them (`fs`, `node:fs`, ...). */
const NODE_BUILTIN = /^(node:)?(fs|fs\/promises|path|url|os|crypto|module|worker_threads|child_process|util|zlib|stream)$/;

/** Resolves Node's built-in modules to an empty CommonJS module, and remembers who asked. */
function nodeStub(requests: Set<string>): esbuild.Plugin {
  return {
    name: 'node-builtins-stub',
    setup(build) {
      build.onResolve({ filter: NODE_BUILTIN }, (args) => {
        requests.add(`${args.path} (from ${relative(ROOT, args.importer) || args.importer})`);
        return { path: args.path, namespace: 'node-stub' };
      });
      // CommonJS, so that named imports (`import { lstatSync } from 'node:fs'`) bind to undefined.
      build.onLoad({ filter: /.*/, namespace: 'node-stub' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
    },
  };
}

/** The options of the playground's bundle (build.ts and serve.ts share them). */
export function playgroundOptions(outdir: string, requests: Set<string> = new Set()): esbuild.BuildOptions {
  return {
    entryPoints: { main: join(HERE, 'src', 'main.ts') },
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
    splitting: true,
    minify: true,
    sourcemap: false,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    loader: { '.wat': 'text' },
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [nodeStub(requests), copyStatic(outdir)],
  };
}

/** Copies index.html and style.css next to the bundle at the end of every build. */
function copyStatic(outdir: string): esbuild.Plugin {
  return {
    name: 'copy-static',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        mkdirSync(outdir, { recursive: true });
        for (const file of STATIC_FILES) copyFileSync(join(HERE, file), join(outdir, file));
      });
    },
  };
}

export interface SizeReport {
  /** `src/index.ts` for the browser, minified, wabt left out (it is fetched only for text). */
  libraryWithoutWabt: { bytes: number; gzip: number };
  /** The same with wabt bundled in (the library and its text compiler, everything a page needs). */
  libraryWithWabt: { bytes: number; gzip: number };
  /** The playground as built: every file written, and the total. */
  playground: { files: Array<{ file: string; bytes: number; gzip: number }>; bytes: number; gzip: number };
}

export interface BuildResult {
  outdir: string;
  sizes: SizeReport;
  /** The Node built-in modules resolved to an empty module, with the file that imported each. */
  stubbed: string[];
}

async function librarySize(withWabt: boolean): Promise<{ bytes: number; gzip: number }> {
  const result = await esbuild.build({
    entryPoints: [join(ROOT, 'src', 'index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    outdir: '/virtual',
    legalComments: 'none',
    logLevel: 'silent',
    external: withWabt ? [] : ['wabt'],
    plugins: [nodeStub(new Set())],
  });
  const all = Buffer.concat(result.outputFiles.map((f) => f.contents));
  return { bytes: all.length, gzip: gzipSync(all, { level: 9 }).length };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]);
}

/** Builds the playground into `outdir` (emptied first) and measures it. */
export async function buildPlayground(options: { outdir?: string; quiet?: boolean } = {}): Promise<BuildResult> {
  const outdir = resolve(options.outdir ?? DEFAULT_OUTDIR);
  rmSync(outdir, { recursive: true, force: true });
  const requests = new Set<string>();
  await esbuild.build(playgroundOptions(outdir, requests));
  const files = listFiles(outdir).sort().map((path) => {
    const data = readFileSync(path);
    return { file: relative(outdir, path), bytes: data.length, gzip: gzipSync(data, { level: 9 }).length };
  });
  const [without, withWabt] = await Promise.all([librarySize(false), librarySize(true)]);
  const sizes: SizeReport = {
    libraryWithoutWabt: without,
    libraryWithWabt: withWabt,
    playground: {
      files,
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      gzip: files.reduce((n, f) => n + f.gzip, 0),
    },
  };
  writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  const stubbed = [...requests].sort();
  if (options.quiet !== true) print(outdir, sizes, stubbed);
  return { outdir, sizes, stubbed };
}

const kb = (n: number): string => `${(n / 1024).toFixed(1).padStart(8)} KiB`;

function print(outdir: string, sizes: SizeReport, stubbed: string[]): void {
  console.log(`playground written to ${relative(process.cwd(), outdir) || outdir}:`);
  for (const f of sizes.playground.files) console.log(`  ${f.file.padEnd(36)} ${kb(f.bytes)}  (gzip ${kb(f.gzip).trim()})`);
  console.log(`  ${'total'.padEnd(36)} ${kb(sizes.playground.bytes)}  (gzip ${kb(sizes.playground.gzip).trim()})`);
  console.log('the library alone (src/index.ts, browser, minified):');
  const line = (label: string, s: { bytes: number; gzip: number }): void =>
    console.log(`  ${label.padEnd(14)} ${String(s.bytes).padStart(9)} bytes, ${String(s.gzip).padStart(8)} gzipped`);
  line('without wabt', sizes.libraryWithoutWabt);
  line('with wabt', sizes.libraryWithWabt);
  if (stubbed.length > 0) console.log(`Node built-ins resolved to an empty module: ${stubbed.join(', ')}`);
  console.log(`size report: ${join(relative(process.cwd(), outdir) || outdir, 'sizes.json')}`);
}

function parseOutdir(argv: readonly string[]): string | undefined {
  const i = argv.findIndex((a) => a === '--outdir' || a.startsWith('--outdir='));
  if (i < 0) return undefined;
  const value = argv[i]!.includes('=') ? argv[i]!.slice('--outdir='.length) : argv[i + 1];
  if (value === undefined || value === '') throw new Error('--outdir needs a directory');
  return value;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  buildPlayground({ outdir: parseOutdir(process.argv.slice(2)) }).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}
