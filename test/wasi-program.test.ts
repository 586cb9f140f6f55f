/**
 * A real WASI program (fixtures/wasi/wordstat.c, built by fixtures/wasi/build.sh with clang and
 * Debian's wasi-libc) under the sandbox: it gives the same output as Node's own `node:wasi`
 * on the same bytes, except for what reads a host clock or an unseeded generator; and under
 * the virtual clock two runs are identical to the bit.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox } from '../src/index.js';

const wasm = readFileSync(new URL('../fixtures/wasi/wordstat.wasm', import.meta.url));
const STDIN = 'the quick brown fox\njumps over\n\tthe lazy dog\n';
const ARGS = ['wordstat', '3', 'two words'];
const ENV = { GREETING: 'hello, sandbox' };
const scratch = mkdtempSync(join(tmpdir(), 'wasi-wordstat-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh directory holding words.txt, as both runtimes get it. */
function inputDirectory(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'words.txt'), 'alpha beta gamma\ndelta\n');
  return dir;
}

async function runSandboxed(root: string, tier?: 'interpreter' | 'eager') {
  const { host, wasi } = HostAbi.denyAll().allowWasi({ args: ARGS, env: ENV, stdin: STDIN, preopens: { '/': root } });
  const out = await new Sandbox(host, { tier }).run(wasm, '_start', [], new Limits({ fuel: 1_000_000_000, timeoutMs: 30_000 }));
  return {
    exitCode: out.exitCode,
    fuel: out.fuelConsumed,
    stdout: new TextDecoder().decode(wasi.stdout),
    stderr: new TextDecoder().decode(wasi.stderr),
    summary: new TextDecoder().decode(wasi.fs!.readFile('/report/summary.txt')!),
  };
}

async function runNode(root: string) {
  const { WASI } = await import('node:wasi');
  const io = (name: string, text = ''): number => {
    writeFileSync(join(scratch, name), text);
    return openSync(join(scratch, name), name === 'stdin' ? 'r' : 'w');
  };
  const fds = { stdin: io('stdin', STDIN), stdout: io('stdout'), stderr: io('stderr') };
  const wasi = new WASI({ version: 'preview1', args: ARGS, env: ENV, preopens: { '/': root }, returnOnExit: true, ...fds });
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(wasm), wasi.getImportObject() as WebAssembly.Imports);
  const exitCode = wasi.start(instance);
  for (const fd of Object.values(fds)) closeSync(fd);
  return {
    exitCode,
    stdout: readFileSync(join(scratch, 'stdout'), 'utf8'),
    stderr: readFileSync(join(scratch, 'stderr'), 'utf8'),
    summary: readFileSync(join(root, 'report', 'summary.txt'), 'utf8'),
  };
}

/**
 * The output without the lines that read a host clock or an unseeded generator, and the one
 * about `../escape.txt`: node:wasi takes `..` of its `/` preopen to be `/` itself, and writes
 * there; this sandbox refuses any `..` above the directory a path starts from.
 */
const comparable = (stdout: string): string => stdout.split('\n').filter((l) => !/^(time|random|escape):/.test(l)).join('\n');

describe('a C program built for wasm32-wasi', () => {
  it('runs as under node:wasi: the same output, report file and exit code', async () => {
    const ours = await runSandboxed(inputDirectory('ours'));
    const node = await runNode(inputDirectory('node'));
    expect(ours.exitCode).toBe(3);
    expect(node.exitCode).toBe(3);
    expect(comparable(ours.stdout)).toBe(comparable(node.stdout));
    expect(ours.stderr).toBe(node.stderr);
    expect(ours.summary).toBe(node.summary);
    // What the program did, so that the comparison cannot pass on two empty outputs.
    expect(ours.stdout).toContain('arg 2: two words\nGREETING=hello, sandbox\nstdin: 3 lines, 9 words, 45 bytes\nwords.txt: 2 lines, 4 words, 23 bytes\n');
    expect(ours.stdout).toContain('report/summary.txt: 35 bytes\nentry: report\nentry: words.txt\nescape: Capabilities insufficient\nclock: monotonic\n');
    expect(ours.summary).toBe('total: 5 lines, 13 words, 68 bytes\n');
    expect(ours.stderr).toBe('wordstat: done, 68 bytes read\n');
  });

  it('never writes the host directory it was given: the report stays in memory', async () => {
    const root = inputDirectory('untouched');
    await runSandboxed(root);
    expect(existsSync(join(root, 'report'))).toBe(false);
    expect(readFileSync(join(root, 'words.txt'), 'utf8')).toBe('alpha beta gamma\ndelta\n');
  });

  it('under the virtual clock, replays bit for bit: clock and random lines too, and the fuel', async () => {
    const first = await runSandboxed(inputDirectory('replay1'));
    const second = await runSandboxed(inputDirectory('replay2'));
    expect(second).toEqual(first);
    expect(first.stdout).toMatch(/^time: \d+ ns elapsed, realtime 946684800 s$/m);
    expect(first.stdout).toMatch(/^random: ([0-9a-f]{2} ){7}[0-9a-f]{2}$/m);
  });

  it('reads the same virtual time in either tier: the fuel is up to date at every system call', async () => {
    const interpreted = await runSandboxed(inputDirectory('interpreted'), 'interpreter');
    const translated = await runSandboxed(inputDirectory('translated'), 'eager');
    expect(translated).toEqual(interpreted);
    expect(interpreted.stdout).toContain('time: 900057 ns elapsed');
  });
});

describe("README's WASI example", () => {
  it('runs as written', async () => {
    const { host, wasi } = HostAbi.denyAll().allowWasi({
      args: ['wordstat', '3'],
      env: { GREETING: 'hello' },
      stdin: 'the quick brown fox\n',
      preopens: { '/': { 'words.txt': 'alpha beta\n' } },
    });
    const out = await new Sandbox(host).run(wasm, '_start', [], new Limits({ fuel: 1_000_000_000 }));
    expect(out.exitCode).toBe(3);
    expect(new TextDecoder().decode(wasi.stdout)).toMatch(/^arg 0: wordstat\narg 1: 3\nGREETING=hello\n/);
    expect(new TextDecoder().decode(wasi.fs!.readFile('/report/summary.txt')!)).toBe('total: 2 lines, 6 words, 31 bytes\n');
    // The CLI example's output, from the same program and input.
    expect(new TextDecoder().decode(wasi.stdout)).toContain('escape: Capabilities insufficient\nclock: monotonic\ntime: 900057 ns elapsed, realtime 946684800 s\nrandom: af cd 1d 7b 39 a8 20 e2\n');
  });
});
