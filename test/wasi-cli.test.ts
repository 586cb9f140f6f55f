/**
 * `sandboxd --wasi`: the flags, a WASI program run in process with its streams passed
 * through as bytes, and end to end in a child process with our stdin piped in.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseArgs, runCli } from '../src/cli/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const wordstat = join(root, 'fixtures', 'wasi', 'wordstat.wasm');

function inputDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandboxd-wasi-'));
  writeFileSync(join(dir, 'words.txt'), 'one two three\n');
  return dir;
}

async function cli(argv: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  const text = (chunks: Uint8Array[]): string => Buffer.concat(chunks).toString('utf8');
  const code = await runCli(argv, {
    stdout: (l) => out.push(Buffer.from(`${l}\n`)),
    stderr: (l) => err.push(Buffer.from(`${l}\n`)),
    writeStdout: (b) => out.push(b),
    writeStderr: (b) => err.push(b),
    readStdin: () => Buffer.from(stdin),
  }, { version: '9.9.9' });
  return { code, stdout: text(out), stderr: text(err) };
}

describe('sandboxd --wasi: arguments', () => {
  it('takes --dir, --env and the program arguments after --, and invokes _start', () => {
    const parsed = parseArgs(['p.wasm', '--wasi', '--dir', '/data', '--dir=/srv/in::/in', '--env', 'A=1', '--env=B=x=y', '--', '-v', 'file']);
    expect(parsed).toMatchObject({
      kind: 'run',
      options: {
        module: 'p.wasm',
        invoke: '_start',
        wasi: { dirs: [{ host: '/data', guest: '/data' }, { host: '/srv/in', guest: '/in' }], env: [['A', '1'], ['B', 'x=y']], args: ['-v', 'file'] },
      },
    });
    expect(parseArgs(['--wasi', '--', 'p.wasm', 'a'])).toMatchObject({ options: { module: 'p.wasm', wasi: { args: ['a'] } } });
    expect(parseArgs(['p.wasm', '--wasi', '--invoke', 'main'])).toMatchObject({ options: { invoke: 'main' } });
  });

  it('refuses the WASI flags and program arguments without --wasi, as before', () => {
    expect(parseArgs(['p.wasm', '--dir', 'x'])).toEqual({ kind: 'error', message: "'--dir' requires '--wasi'" });
    expect(parseArgs(['p.wasm', '--env', 'A=1'])).toEqual({ kind: 'error', message: "'--env' requires '--wasi'" });
    expect(parseArgs(['p.wasm', '--', 'x'])).toEqual({ kind: 'error', message: "unexpected argument 'x' (the module is already 'p.wasm')" });
    expect(parseArgs(['p.wasm', 'x'])).toEqual({ kind: 'error', message: "unexpected argument 'x' (the module is already 'p.wasm')" });
    expect(parseArgs(['p.wasm', '--wasi', '--env', '=1'])).toMatchObject({ kind: 'error' });
    expect(parseArgs(['p.wasm', '--wasi', '--dir', '::/x'])).toMatchObject({ kind: 'error' });
    expect(parseArgs(['p.wasm', '--wasi=1'])).toEqual({ kind: 'error', message: "'--wasi' takes no value" });
  });
});

describe('sandboxd --wasi, in process', () => {
  it("passes the program's streams through, reads our stdin, and exits with the program's code", async () => {
    const dir = inputDirectory();
    const r = await cli([wordstat, '--wasi', '--fuel', '1000000000', '--dir', `${dir}::/`, '--env', 'GREETING=hi', '--', '42'], 'a b\n');
    expect(r.code).toBe(42);
    expect(r.stdout).toMatch(/^arg 0: .*wordstat\.wasm\narg 1: 42\nGREETING=hi\nstdin: 1 lines, 2 words, 4 bytes\nwords\.txt: 1 lines, 3 words, 14 bytes\n/);
    // Only the program's own output: no result or fuel lines.
    expect(r.stdout).not.toMatch(/^(result|ok)/m);
    expect(r.stderr).toBe('wordstat: done, 18 bytes read\n');
    // The report went to the in-memory copy, not to the host directory.
    expect(existsSync(join(dir, 'report'))).toBe(false);
  });

  it('without --wasi, a WASI program stops at its first import', async () => {
    const r = await cli([wordstat]);
    expect(r).toEqual({ code: 5, stdout: '', stderr: 'sandboxd: disallowed import: the module imports `wasi_snapshot_preview1::args_get` which is not on the allow-list\n' });
  });

  it('reports a sandbox error with its exit code, after what the program wrote', async () => {
    const fuel = await cli([wordstat, '--wasi', '--fuel', '50000']);
    expect(fuel.code).toBe(2);
    expect(fuel.stderr).toMatch(/sandboxd: fuel exhausted: the module exceeded its instruction budget of 50000 units\n$/);
    const missing = await cli([wordstat, '--wasi', '--dir', join(root, 'no-such-directory')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^sandboxd: host error: cannot preopen the host directory .*no-such-directory: ENOENT/);
  });

  it('caps an exit code above 255 at 255, which a process can report', async () => {
    expect((await cli([wordstat, '--wasi', '--fuel', '1000000000', '--', '300'])).code).toBe(255);
    expect((await cli([wordstat, '--wasi', '--fuel', '1000000000', '--', '0'])).code).toBe(0);
  });
});

describe('sandboxd --wasi, end to end (from source, through tsx)', () => {
  it('pipes our stdin to the program and its output to ours', { timeout: 60_000 }, async () => {
    const dir = inputDirectory();
    mkdirSync(join(dir, 'sub'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), wordstat, '--wasi', '--fuel', '1000000000', '--dir', `${dir}::.`, '--', '7'], { cwd: root });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.stdin.end('x y z\n');
    const code = await new Promise<number | null>((done) => child.on('close', done));
    const stdout = Buffer.concat(out).toString();
    expect(Buffer.concat(err).toString()).toBe('wordstat: done, 20 bytes read\n');
    expect(code).toBe(7);
    expect(stdout).toContain('stdin: 1 lines, 3 words, 6 bytes\n');
    expect(stdout).toContain('entry: report\nentry: sub\nentry: words.txt\n');
  });
});
