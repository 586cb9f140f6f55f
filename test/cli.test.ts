/**
 * The `sandboxd` command: argument parsing and output in-process, then end to end in a child
 * process (from source through tsx; through bin/sandboxd.cjs when the build is present).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, parseValue, runCli } from '../src/cli/index.js';
import { lineWriter } from '../src/cli/process.js';
import { Value } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const fx = (name: string): string => join(root, 'fixtures', name);

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l) }, { version: '9.9.9' });
  return { code, stdout: out.map((l) => `${l}\n`).join(''), stderr: err.map((l) => `${l}\n`).join('') };
}

describe('argument parsing', () => {
  it('has sandboxd’s defaults', () => {
    const parsed = parseArgs(['m.wasm']);
    expect(parsed).toEqual({
      kind: 'run',
      options: { module: 'm.wasm', invoke: 'run', fuel: 100_000_000n, timeoutMs: 1000, memoryMb: 16, args: [], allowLog: false, seed: null, wasi: null, describe: false, profile: null, coverage: null, trace: null, debug: false },
    });
  });

  it('reads every flag, in either spelling', () => {
    const parsed = parseArgs(['--invoke', 'fib', '--fuel=5', '--timeout-ms', '7', '--memory-mb=2', '--arg', '3', '--arg=i64:-4', '--allow-log', '--seed', '42', 'm.wat']);
    expect(parsed.kind).toBe('run');
    if (parsed.kind !== 'run') return;
    const o = parsed.options;
    expect([o.module, o.invoke, o.fuel, o.timeoutMs, o.memoryMb, o.allowLog, o.seed]).toEqual(['m.wat', 'fib', 5n, 7, 2, true, 42n]);
    expect(o.args.map(String)).toEqual(['I32(3)', 'I64(-4)']);
    expect(parseArgs(['-i', 'add', 'x'])).toMatchObject({ kind: 'run', options: { invoke: 'add' } });
    expect(parseArgs(['-iadd', 'x'])).toMatchObject({ kind: 'run', options: { invoke: 'add' } });
    expect(parseArgs(['--', '--weird-name.wasm'])).toMatchObject({ kind: 'run', options: { module: '--weird-name.wasm' } });
    expect(parseArgs(['x', '--arg', '-5'])).toMatchObject({ kind: 'run', options: { args: [Value.i32(-5)] } });
    expect(parseArgs(['x', '--fuel', '18446744073709551615'])).toMatchObject({ kind: 'run', options: { fuel: 2n ** 64n - 1n } });
  });

  it('reads the inspection flags and refuses their bad values', () => {
    expect(parseArgs(['m.wat', '--coverage', 'c.json', '--trace=12'])).toMatchObject({ kind: 'run', options: { coverage: 'c.json', trace: 12 } });
    expect(parseArgs(['m.wat', '--debug'])).toMatchObject({ kind: 'run', options: { debug: true } });
    // The debugger runs alone: the monitors' flags are refused with it, not ignored.
    expect(parseArgs(['m.wat', '--debug', '--trace', '3'])).toMatchObject({ kind: 'error', message: "'--debug' cannot be used with '--profile', '--coverage' or '--trace'" });
    expect(parseArgs(['m.wat', '--coverage=c.lcov'])).toMatchObject({ kind: 'run', options: { coverage: 'c.lcov' } });
    for (const bad of [['--coverage', 'c.txt'], ['--trace', '-1'], ['--trace', '1.5'], ['--trace', '99999999999'], ['--debug=1']]) {
      expect(parseArgs(['m.wat', ...bad]).kind, bad.join(' ')).toBe('error');
    }
  });

  it('parses typed values', () => {
    expect(String(parseValue('42'))).toBe('I32(42)');
    expect(String(parseValue('-2147483648'))).toBe('I32(-2147483648)');
    expect(String(parseValue('i32:7'))).toBe('I32(7)');
    expect(String(parseValue('i64:-9223372036854775808'))).toBe('I64(-9223372036854775808)');
    expect(String(parseValue('f32:1.5'))).toBe('F32(1.5)');
    expect(String(parseValue('f64:0.1'))).toBe('F64(0.1)');
    expect(String(parseValue('f64:-2e10'))).toBe('F64(-20000000000.0)');
    expect(String(parseValue('f64:inf'))).toBe('F64(inf)');
    expect(String(parseValue('f32:-Infinity'))).toBe('F32(-inf)');
    expect(String(parseValue('f64:NaN'))).toBe('F64(NaN)');
    expect(String(parseValue('F64:.5'))).toBe('F64(0.5)');
  });

  it('parses v128:0x and 32 hex digits as the little-endian 128-bit number, as a V128 prints', () => {
    const v = parseValue('v128:0x0f0e0d0c0b0a09080706050403020100');
    expect(v.type).toBe('v128');
    expect(Array.from(v.value as Uint8Array)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(String(v)).toBe('V128(0x0f0e0d0c0b0a09080706050403020100)');
    expect(String(parseValue('V128:0XFFFFFFFE000000000000000000000001'))).toBe('V128(0xfffffffe000000000000000000000001)');
    expect(parseArgs(['x', '--arg=v128:0x00000004000000030000000200000001', '--arg', '7'])).toMatchObject({
      kind: 'run',
      options: { args: [Value.v128(Uint8Array.from([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])), Value.i32(7)] },
    });
  });

  it.each([
    [['--help'], 'help'],
    [['-h'], 'help'],
    [['--version'], 'version'],
    [['-V'], 'version'],
    [['x', '--help'], 'help'],
  ])('%j is %s', (argv, kind) => {
    expect(parseArgs(argv as string[]).kind).toBe(kind);
  });

  it.each([
    [[], /required arguments were not provided: <MODULE>/],
    [['a', 'b'], /unexpected argument 'b'/],
    [['x', '--bogus'], /unexpected argument '--bogus'/],
    [['x', '-z'], /unexpected argument '-z'/],
    [['x', '--fuel'], /a value is required for '--fuel <N>'/],
    [['x', '--fuel', '-1'], /invalid value '-1' for '--fuel <N>'/],
    [['x', '--fuel', '1e6'], /invalid value '1e6'/],
    [['x', '--fuel', '18446744073709551616'], /too large/],
    [['x', '--timeout-ms', 'soon'], /invalid value 'soon' for '--timeout-ms <MS>'/],
    [['x', '--memory-mb', '1.5'], /invalid value '1.5' for '--memory-mb <MB>'/],
    [['x', '--seed', 'abc'], /invalid value 'abc' for '--seed <SEED>'/],
    [['x', '--arg', '1.5'], /invalid value '1.5' for '--arg <V>'/],
    [['x', '--arg', '2147483648'], /out of range for i32/],
    [['x', '--arg', 'i64:1.0'], /expected a decimal i64/],
    [['x', '--arg', 'f32:abc'], /expected a decimal f32/],
    [['x', '--arg', 'f64:0x10'], /expected a decimal f64/],
    [['x', '--arg', 'u8:1'], /invalid value 'u8:1'/],
    [['x', '--arg', 'v128:0x1'], /invalid value 'v128:0x1' for '--arg <V>': expected a v128 as 0x and exactly 32 hex digits/],
    [['x', '--arg', 'v128:0x0000000000000000000000000000000'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:0x000000000000000000000000000000000'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:00000000000000000000000000000000'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:0x0000000000000000000000000000000g'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:0x_0000000000000000000000000000000'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:1'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:'], /exactly 32 hex digits/],
    [['x', '--arg', 'v128:i32x4 1 2 3 4'], /exactly 32 hex digits/],
    [['x', '--allow-log=yes'], /takes no value/],
    [['x', '--invoke='], /must not be empty/],
  ])('rejects %j', (argv, message) => {
    const parsed = parseArgs(argv as string[]);
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error') expect(parsed.message).toMatch(message);
  });
});

describe('sandboxd, in process', () => {
  it('add(2, 40)', async () => {
    expect(await cli(fx('well_behaved.wat'), '--invoke', 'add', '--arg', '2', '--arg', '40')).toEqual({
      code: 0,
      stdout: 'result: I32(42)\n',
      stderr: 'fuel consumed: 4\n',
    });
  });

  it('fib(30)', async () => {
    expect(await cli(fx('well_behaved.wat'), '--invoke', 'fib', '--arg', '30')).toEqual({
      code: 0,
      stdout: 'result: I32(832040)\n',
      stderr: 'fuel consumed: 522\n',
    });
  });

  it('the logger, granted', async () => {
    expect(await cli(fx('logger.wat'), '--allow-log')).toEqual({
      code: 0,
      stdout: '[guest log] hello from the guest\nok (no return value)\n',
      stderr: 'fuel consumed: 4\n',
    });
  });

  it('random, seeded', async () => {
    expect(await cli(fx('random.wat'), '--invoke', 'roll', '--seed', '42')).toEqual({
      code: 0,
      stdout: 'result: I32(803958421)\n',
      stderr: 'fuel consumed: 3\n',
    });
  });

  it('peak memory, when memory grew', async () => {
    expect(await cli(fx('grow_within_cap.wat'))).toEqual({
      code: 0,
      stdout: 'result: I32(32)\n',
      stderr: 'fuel consumed: 7\npeak linear memory: 2097152 bytes\n',
    });
  });

  it('several results on one line, as sandboxd prints them; typed arguments', async () => {
    const r = await cli(fx('typed.wat'), '--invoke', 'swap', '--arg', '1', '--arg', 'i32:2');
    expect(r.stdout).toBe('result: I32(2), I32(1), I64(3), F64(1.0)\n');
    const n = await cli(fx('typed.wat'), '--invoke', 'swap', '--arg', '-2', '--arg', '-3');
    expect(n.stdout).toBe('result: I32(-3), I32(-2), I64(-5), F64(-2.0)\n');
    expect((await cli(fx('typed.wat'), '--invoke', 'nothing')).stdout).toBe('ok (no return value)\n');
    const f = await cli(fx('typed.wat'), '--invoke', 'mul_f32', '--arg', 'f32:1.5', '--arg', 'f32:0.5');
    expect(f.stdout).toBe('result: F32(0.75)\n');
  });

  it('v128 arguments and results', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wat = join(dir, 'simd.wat');
    writeFileSync(wat, SIMD_WAT);
    expect(await cli(wat, '--invoke', 'add', '--arg', 'v128:0x00000004000000030000000200000001', '--arg', 'v128:0xffffffff0000001e000000140000000a')).toEqual({
      code: 0,
      stdout: 'result: V128(0x0000000300000021000000160000000b)\n',
      stderr: 'fuel consumed: 4\n',
    });
    expect((await cli(wat, '--invoke', 'splat', '--arg', '-2')).stdout).toBe('result: V128(0xfffffffefffffffefffffffefffffffe), I32(-2)\n');
    expect((await cli(wat, '--invoke', 'lane3', '--arg', 'v128:0x12345678000000000000000000000000')).stdout).toBe('result: I32(305419896)\n');
    const type = await cli(wat, '--invoke', 'add', '--arg', '1', '--arg', '2');
    expect(type).toEqual({ code: 7, stdout: '', stderr: 'sandboxd: export error: function `add` parameter 0 has type V128 but the supplied value does not match\n' });
    const bad = await cli(wat, '--invoke', 'add', '--arg', 'v128:0x1234');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("sandboxd: error: invalid value 'v128:0x1234' for '--arg <V>': expected a v128 as 0x and exactly 32 hex digits");
  });

  it.each([
    [['infinite_loop.wat', '--fuel', '1000000'], 2, 'sandboxd: fuel exhausted: the module exceeded its instruction budget of 1000000 units\n'],
    [['infinite_loop.wat', '--fuel', '100000000000', '--timeout-ms', '100'], 3, 'sandboxd: wall-clock timeout: the module ran longer than 100 ms\n'],
    [['memory_bomb.wat', '--memory-mb', '4', '--fuel', '1000000000'], 4, 'sandboxd: memory limit exceeded: the module requested more than 4194304 bytes of linear memory\n'],
    [['disallowed_import.wat'], 5, 'sandboxd: disallowed import: the module imports `env::secret` which is not on the allow-list\n'],
    [['logger.wat'], 5, 'sandboxd: disallowed import: the module imports `host::log` which is not on the allow-list\n'],
    [['random.wat', '--invoke', 'roll'], 5, 'sandboxd: disallowed import: the module imports `host::random` which is not on the allow-list\n'],
    [['well_behaved.wat', '--invoke', 'nope'], 7, 'sandboxd: export error: no exported function named `nope`\n'],
    [['well_behaved.wat', '--invoke', 'add', '--arg', '1'], 7, 'sandboxd: export error: function `add` expects 2 parameter(s) but 1 were supplied\n'],
    [['traps.wat', '--invoke', 'div', '--arg', '1', '--arg', '0'], 8, 'sandboxd: guest trap: wasm trap: integer divide by zero\nwasm backtrace:\n    0:     0x62 - traps!div\n'],
  ])('%j exits %i', async (argv, code, stderr) => {
    const [module, ...rest] = argv as string[];
    const r = await cli(fx(module!), ...rest);
    expect(r).toEqual({ code, stdout: '', stderr });
  });

  it('an invalid module exits 6', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const bad = join(dir, 'bad.wasm');
    writeFileSync(bad, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 0x7f]));
    const r = await cli(bad);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^sandboxd: invalid module: /);
  });

  it('text nested too deeply exits 6, and the next text module runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const bomb = join(dir, 'bomb.wat');
    writeFileSync(bomb, `(module (func (export "run")\n${'(block '.repeat(5000)}${')'.repeat(5000)}))`);
    expect(await cli(bomb)).toEqual({
      code: 6,
      stdout: '',
      stderr: 'sandboxd: invalid module: module.wat:2:687: error: the WebAssembly text is nested too deeply (more than 100 levels of parentheses and blocks)\n',
    });
    expect(await cli(fx('well_behaved.wat'), '--invoke', 'fib', '--arg', '30')).toMatchObject({ code: 0, stdout: 'result: I32(832040)\n' });
  });

  it('an unreadable module is a host error, exit 1', async () => {
    const r = await cli(fx('does_not_exist.wasm'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sandboxd: host error: cannot read ${fx('does_not_exist.wasm')}: No such file or directory (os error 2)\n`);
  });

  it('bad flags exit 1 with a usage hint', async () => {
    const r = await cli('--frobnicate');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("sandboxd: error: unexpected argument '--frobnicate'");
    expect(r.stderr).toContain('Usage: sandboxd [OPTIONS] <MODULE>');
  });

  it('--help and --version', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sandboxd [OPTIONS] <MODULE>');
    for (const flag of ['--invoke', '--fuel', '--timeout-ms', '--memory-mb', '--arg', '--allow-log', '--seed', '--help', '--version']) {
      expect(help.stdout).toContain(flag);
    }
    expect(await cli('--version')).toEqual({ code: 0, stdout: 'sandboxd 9.9.9\n', stderr: '' });
  });

  it('prints what the guest logged even when the run then fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wat = join(dir, 'log_then_trap.wat');
    writeFileSync(wat, `(module (import "host" "log" (func $log (param i32 i32))) (memory (export "memory") 1)
      (data (i32.const 0) "about to fail") (func (export "run") (call $log (i32.const 0) (i32.const 13)) unreachable))`);
    const r = await cli(wat, '--allow-log');
    expect(r).toEqual({
      code: 8,
      stdout: '[guest log] about to fail\n',
      stderr: 'sandboxd: guest trap: wasm trap: wasm `unreachable` instruction executed\nwasm backtrace:\n    0:     0x47 - <unknown>!<wasm function 1>\n',
    });
  });
});

/** v128 parameters and results: i32x4.add, a splat beside an i32, lane 3 of a v128. */
const SIMD_WAT = `(module
  (func (export "add") (param v128 v128) (result v128) (i32x4.add (local.get 0) (local.get 1)))
  (func (export "splat") (param i32) (result v128 i32) (i32x4.splat (local.get 0)) (local.get 0))
  (func (export "lane3") (param v128) (result i32) (i32x4.extract_lane 3 (local.get 0))))`;

function spawn(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const start = performance.now();
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr, ms: performance.now() - start });
    });
  });
}

describe('sandboxd, end to end (from source, through tsx)', () => {
  const run = (...args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args]);

  it('runs a module and reports on stdout and stderr', async () => {
    const r = await run('fixtures/well_behaved.wat', '--invoke', 'add', '--arg', '2', '--arg', '40');
    expect(r).toMatchObject({ code: 0, stdout: 'result: I32(42)\n', stderr: 'fuel consumed: 4\n' });
  });

  it('exits with each fence’s code', async () => {
    const results = await Promise.all([
      run('fixtures/infinite_loop.wat', '--fuel', '1000000'),
      run('fixtures/infinite_loop.wat', '--fuel', '100000000000', '--timeout-ms', '100'),
      run('fixtures/memory_bomb.wat', '--memory-mb', '4', '--fuel', '1000000000'),
      run('fixtures/disallowed_import.wat'),
      run('--nope'),
    ]);
    expect(results.map((r) => r.code)).toEqual([2, 3, 4, 5, 1]);
    expect(results[1]!.stderr).toBe('sandboxd: wall-clock timeout: the module ran longer than 100 ms\n');
    expect(results[1]!.ms).toBeLessThan(10_000);
  });

  it('takes and prints v128 values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wat = join(dir, 'simd.wat');
    writeFileSync(wat, SIMD_WAT);
    const r = await run(wat, '--invoke', 'add', '--arg', 'v128:0x00000004000000030000000200000001', '--arg=v128:0xffffffff0000001e000000140000000a');
    expect(r).toMatchObject({ code: 0, stdout: 'result: V128(0x0000000300000021000000160000000b)\n', stderr: 'fuel consumed: 4\n' });
  });
});

const built = existsSync(join(root, 'dist/src/cli/main.js'));

describe.skipIf(!built)('sandboxd, end to end (bin/sandboxd.cjs over the build)', () => {
  const run = (...args: string[]) => spawn(process.execPath, ['bin/sandboxd.cjs', ...args]);

  it('runs fib(30) from a .wasm', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wasm = join(dir, 'fib.wasm');
    // well_behaved.wat, assembled: add and fib.
    const wabt = await (await import('wabt')).default();
    const text = readFileSync(fx('well_behaved.wat'), 'utf8');
    writeFileSync(wasm, wabt.parseWat('well_behaved.wat', text).toBinary({}).buffer);
    const r = await run(wasm, '--invoke', 'fib', '--arg', '30');
    expect(r).toMatchObject({ code: 0, stdout: 'result: I32(832040)\n', stderr: 'fuel consumed: 522\n' });
  });

  it('never loads wabt for a .wasm (the cold start depends on it), and loads it for a .wat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wasm = join(dir, 'answer.wasm');
    // (module (func (export "run") (result i32) i32.const 42)), assembled by hand.
    writeFileSync(wasm, new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00,
      0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a, 0x0b,
    ]));
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => {
      const loaded = Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]wabt[\\\\/]/.test(k));
      process.stderr.write('wabt loaded: ' + loaded + '\\n');
    });`);
    const binary = await spawn(process.execPath, ['-r', probe, 'bin/sandboxd.cjs', wasm]);
    expect(binary).toMatchObject({ code: 0, stdout: 'result: I32(42)\n', stderr: 'fuel consumed: 2\nwabt loaded: false\n' });
    const text = await spawn(process.execPath, ['-r', probe, 'bin/sandboxd.cjs', 'fixtures/well_behaved.wat', '--invoke', 'add', '--arg', '2', '--arg', '40']);
    expect(text).toMatchObject({ code: 0, stdout: 'result: I32(42)\n', stderr: 'fuel consumed: 4\nwabt loaded: true\n' });
  });

  it('prints several results on one line', async () => {
    const r = await run('fixtures/typed.wat', '--invoke', 'swap', '--arg', '-2', '--arg', '-3');
    expect(r).toMatchObject({ code: 0, stdout: 'result: I32(-3), I32(-2), I64(-5), F64(-2.0)\n' });
  });

  it('takes and prints v128 values; a malformed v128 is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-'));
    const wat = join(dir, 'simd.wat');
    writeFileSync(wat, SIMD_WAT);
    const r = await run(wat, '--invoke', 'splat', '--arg', '7');
    expect(r).toMatchObject({ code: 0, stdout: 'result: V128(0x00000007000000070000000700000007), I32(7)\n' });
    const bad = await run(wat, '--invoke', 'lane3', '--arg', 'v128:0x07');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("invalid value 'v128:0x07' for '--arg <V>'");
  });

  it('reports --version from package.json and exits 0', async () => {
    const r = await run('--version');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sandboxd \d+\.\d+\.\d+\n$/);
  });

  it('exits 3 on a timeout', async () => {
    const r = await run('fixtures/infinite_loop.wat', '--fuel', '100000000000', '--timeout-ms', '100');
    expect(r.code).toBe(3);
  });
});

describe.skipIf(!built)("the CLI's code cache (bin/load-cli.cjs)", () => {
  // (module (func (export "run") (result i32) i32.const 42)), assembled by hand.
  const answer = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00,
    0x07, 0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a, 0x0b,
  ]);

  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the command and its build in a directory of its own, then `change`d there. */
  function copyOfBuild(change: (dist: string) => void): string {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-cache-'));
    copies.push(dir);
    for (const sub of ['bin', 'dist']) mkdirSync(join(dir, sub));
    for (const file of ['bin/sandboxd.cjs', 'bin/load-cli.cjs', 'dist/sandboxd.cjs', 'dist/sandboxd.cjs.cache', 'package.json']) {
      copyFileSync(join(root, file), join(dir, file));
    }
    writeFileSync(join(dir, 'answer.wasm'), answer);
    change(join(dir, 'dist'));
    return dir;
  }

  /** Whether V8 took the cache for the bundle in `dir`, and what the command prints there (`node` given `flags`). */
  async function cachedAndRun(dir: string, flags: string[] = []): Promise<{ cached: string; run: Awaited<ReturnType<typeof spawn>> }> {
    const probe = `process.stdout.write(String(require(${JSON.stringify(join(dir, 'bin', 'load-cli.cjs'))}).loadBundle(true).cached))`;
    const cached = (await spawn(process.execPath, [...flags, '-e', probe])).stdout;
    return { cached, run: await spawn(process.execPath, [...flags, join(dir, 'bin', 'sandboxd.cjs'), join(dir, 'answer.wasm')]) };
  }

  const answered = { code: 0, stdout: 'result: I32(42)\n', stderr: 'fuel consumed: 2\n' };

  it('is written by the build for the bundle, and V8 takes it', async () => {
    expect(readFileSync(join(root, 'dist/sandboxd.cjs'), 'utf8')).toMatch(/\n\/\/# sandboxd-bundle [0-9a-f]{64}\n$/);
    const { cached, run } = await cachedAndRun(copyOfBuild(() => {}));
    expect(cached).toBe('true');
    expect(run).toMatchObject(answered);
  });

  it('is not used where it is damaged, another build\'s, or missing, and the command runs as well without it', async () => {
    const cache = readFileSync(join(root, 'dist/sandboxd.cjs.cache'));
    const damaged = Buffer.from(cache);
    // Past the digest and CRC: V8's data, which V8 itself does not check (it crashed on this).
    for (let i = 72 + 100; i < damaged.length; i += 997) damaged[i]! ^= 0x5a;
    const otherBuild = Buffer.from(cache);
    otherBuild[0] = otherBuild[0] === 0x30 ? 0x31 : 0x30; // a digest that is not the bundle's
    const cases: Array<[string, (dist: string) => void]> = [
      ['damaged', (dist) => writeFileSync(join(dist, 'sandboxd.cjs.cache'), damaged)],
      ['cut short', (dist) => writeFileSync(join(dist, 'sandboxd.cjs.cache'), cache.subarray(0, cache.length >> 1))],
      ["another build's", (dist) => writeFileSync(join(dist, 'sandboxd.cjs.cache'), otherBuild)],
      ['missing', (dist) => rmSync(join(dist, 'sandboxd.cjs.cache'))],
      // A bundle that esbuild wrote without the build's last step has no stamp.
      ['for a bundle without its stamp', (dist) => {
        const bundle = readFileSync(join(dist, 'sandboxd.cjs'), 'utf8');
        writeFileSync(join(dist, 'sandboxd.cjs'), bundle.slice(0, bundle.lastIndexOf('//# sandboxd-bundle ')));
      }],
    ];
    for (const [what, change] of cases) {
      const { cached, run } = await cachedAndRun(copyOfBuild(change));
      expect({ what, cached }).toEqual({ what, cached: 'false' });
      expect({ what, ...run }).toMatchObject({ what, ...answered });
    }
  });

  it('is not used on a Node without zlib.crc32 (before 20.15), which cannot check it', async () => {
    const dir = copyOfBuild(() => {});
    const preload = join(dir, 'no-crc32.cjs');
    writeFileSync(preload, "delete require('node:zlib').crc32;\n");
    const { cached, run } = await cachedAndRun(dir, ['-r', preload]);
    expect(cached).toBe('false');
    expect(run).toMatchObject(answered);
  });

  it('says in one line that wabt cannot be loaded, where it is not installed (the copy has no node_modules)', async () => {
    const dir = copyOfBuild(() => {});
    const r = await spawn(process.execPath, [join(dir, 'bin', 'sandboxd.cjs'), fx('well_behaved.wat'), '--invoke', 'add', '--arg', '1', '--arg', '2']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: "sandboxd: host error: cannot load the WebAssembly text compiler (wabt): Cannot find module 'wabt'\n" });
  });

  it('says the CLI is not built where the bundle is missing', async () => {
    const dir = copyOfBuild((dist) => rmSync(join(dist, 'sandboxd.cjs')));
    const r = await spawn(process.execPath, [join(dir, 'bin', 'sandboxd.cjs'), join(dir, 'answer.wasm')]);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: "sandboxd: host error: the CLI is not built; run 'npm run build' first\n" });
  });
});

describe('process output', () => {
  it('falls back to the stream, in order, when the descriptor refuses a write', () => {
    const written: string[] = [];
    const stream = { write: (chunk: string | Uint8Array): boolean => { written.push(Buffer.from(chunk).toString()); return true; } };
    // No process has descriptor 2^30 open: writeSync fails with EBADF.
    const write = lineWriter(2 ** 30, () => stream);
    write('first');
    write('second');
    expect(written.join('')).toBe('first\nsecond\n');
  });
});
