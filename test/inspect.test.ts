/**
 * Looking at a module (describe, disassemble) and the CLI's inspection flags (--describe,
 * --profile).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe as suite, expect, it } from 'vitest';
import { runCli } from '../src/cli/index.js';
import { Sandbox, SandboxError, Value } from '../src/index.js';

const fixture = (name: string): string => new URL(`../fixtures/${name}`, import.meta.url).pathname;

async function cli(...argv: string[]): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, { stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l) }, { version: '0' });
  return { code, stdout, stderr };
}

suite('describe and disassemble', () => {
  it('describe: names, exports, functions, memory, sections and features', async () => {
    const m = await Sandbox.denyAll().compile(readFileSync(fixture('traps.wat'), 'utf8'));
    const d = m.describe();
    expect(d.name).toBe('traps');
    expect(d.exports.map((e) => e.name)).toEqual(['memory', 'div', 'unreachable', 'oob', 'recurse']);
    expect(d.functions[0]).toEqual({ index: 0, name: 'div', type: '(i32, i32) -> (i32)', imported: false, bodyBytes: 6, locals: 0 });
    expect(d.memories).toEqual([{ index: 0, min: 1, max: null, shared: false, memory64: false, imported: false }]);
    expect(d.customSections.map((c) => c.name)).toEqual(['name']);
    expect(d.features).toEqual([]);
    const simd = await Sandbox.denyAll().compile(readFileSync(fixture('realworld/as-sha256.simd.wasm')));
    expect(simd.describe().features).toEqual(['SIMD']);
    const threads = await Sandbox.denyAll().compile('(module (memory 1 1 shared) (func (export "f") (result i32) (i32.atomic.load (i32.const 0))))');
    expect(threads.describe().features).toEqual(['atomic instructions (threads)', 'shared memory (threads)']);
  });

  it('disassemble: each instruction with its byte offset, the ones backtraces report', async () => {
    const m = await Sandbox.denyAll().compile(readFileSync(fixture('traps.wat'), 'utf8'));
    expect(m.disassemble('div').split('\n')).toEqual([
      'func[0] <div>: (i32, i32) -> (i32)',
      '  0x00005e: local.get 0',
      '  0x000060: local.get 1',
      '  0x000062: i32.div_s',
      '  0x000063: end',
    ]);
    const e = await Sandbox.denyAll().run(m, 'div', [Value.i32(1), Value.i32(0)]).then(() => { throw new Error('expected a trap'); }, (x: unknown) => x as SandboxError);
    expect(m.disassemble(0)).toContain(`0x${e.backtrace[0]!.offset.toString(16).padStart(6, '0')}: i32.div_s`);
    expect(m.disassemble().split('\n').filter((l) => l.startsWith('func['))).toHaveLength(4);
    expect(() => m.disassemble('nope')).toThrow(RangeError);
    expect(() => m.disassemble(9)).toThrow(RangeError);
  });
});

suite('the CLI', () => {
  it('--describe prints the summary and runs nothing', async () => {
    const r = await cli(fixture('traps.wat'), '--describe');
    expect(r.code).toBe(0);
    expect(r.stdout.join('\n')).toContain('module traps');
    expect(r.stdout.join('\n')).toContain('func[0] div: (i32, i32) -> (i32), 6 bytes of code, 0 locals');
    expect(r.stderr).toEqual([]);
  });

  it('--profile FILE writes folded stacks that add up to the fuel consumed; - prints the top functions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-profile-'));
    const file = join(dir, 'fib.folded');
    const r = await cli(fixture('well_behaved.wat'), '--invoke', 'fib', '--arg', '20', '--profile', file);
    expect(r.code).toBe(0);
    const fuel = Number(/fuel consumed: (\d+)/.exec(r.stderr.join('\n'))![1]);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.reduce((a, l) => a + Number(l.split(' ').pop()), 0)).toBe(fuel);
    const cpu = join(dir, 'fib.cpuprofile');
    expect((await cli(fixture('well_behaved.wat'), '--invoke', 'fib', '--arg', '20', `--profile=${cpu}`)).code).toBe(0);
    expect((JSON.parse(readFileSync(cpu, 'utf8')) as { timeDeltas: number[] }).timeDeltas.reduce((a, t) => a + t, 0)).toBe(fuel);
    const top = await cli(fixture('well_behaved.wat'), '--invoke', 'fib', '--arg', '20', '--profile', '-');
    expect(top.stderr[0]).toBe(`profile: ${fuel} fuel`);
    expect((await cli(fixture('well_behaved.wat'), '--profile', 'out.txt')).code).toBe(1);
  });
});
