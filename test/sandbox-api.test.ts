/**
 * The public surface: Value, Limits, SandboxError, RunOutput, compile, Instance, and the
 * promise that nothing but a SandboxError ever escapes.
 */
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import {
  CompiledModule,
  EXIT_CODES,
  GuestMemoryError,
  HostAbi,
  Instance,
  Limits,
  RunOutput,
  Sandbox,
  SandboxError,
  Value,
  formatFloatDebug,
} from '../src/index.js';
import { failure, fixture } from './helpers/sandbox.js';


describe('the package root', () => {
  it('exports the public names', () => {
    for (const name of ['Sandbox', 'Limits', 'Value', 'RunOutput', 'SandboxError', 'HostAbi', 'CompiledModule', 'Instance', 'LogSink', 'HostTrap']) {
      expect(root, name).toHaveProperty(name);
    }
  });
});

describe('Value', () => {
  it('constructs each type with .type and .value', () => {
    expect([Value.i32(42).type, Value.i32(42).value]).toEqual(['i32', 42]);
    expect([Value.i64(-1n).type, Value.i64(-1n).value]).toEqual(['i64', -1n]);
    expect([Value.f32(1.5).type, Value.f32(1.5).value]).toEqual(['f32', 1.5]);
    expect([Value.f64(0.1).type, Value.f64(0.1).value]).toEqual(['f64', 0.1]);
    expect(Value.f32(0.1).value).toBe(Math.fround(0.1));
    expect(Value.i32(0xffffffff).value).toBe(-1);
    expect(Value.i64(2n ** 64n - 1n).value).toBe(-1n);
    expect(Value.i64(5).value).toBe(5n);
  });

  it('rejects values out of range', () => {
    expect(() => Value.i32(2 ** 32)).toThrow(RangeError);
    expect(() => Value.i32(1.5)).toThrow(RangeError);
    expect(() => Value.i64(2n ** 64n)).toThrow(RangeError);
    expect(() => Value.i64(0.5)).toThrow(RangeError);
  });

  it('prints as sandboxd does (Rust Debug)', () => {
    expect(String(Value.i32(42))).toBe('I32(42)');
    expect(String(Value.i32(-7))).toBe('I32(-7)');
    expect(String(Value.i64(-1n))).toBe('I64(-1)');
    expect(String(Value.i64(9223372036854775807n))).toBe('I64(9223372036854775807)');
    expect(String(Value.f32(1.5))).toBe('F32(1.5)');
    expect(String(Value.f64(0.1))).toBe('F64(0.1)');
    expect(String(Value.f64(1))).toBe('F64(1.0)');
    expect(String(Value.f32(0.1))).toBe('F32(0.1)');
    expect(String(Value.f64(NaN))).toBe('F64(NaN)');
    expect(String(Value.f32(Infinity))).toBe('F32(inf)');
    expect(String(Value.f64(-Infinity))).toBe('F64(-inf)');
  });

  it('formats floats exactly like Rust’s {:?}', () => {
    // Expected strings printed by rustc 1.9x: println!("{:?}", x).
    const f64Cases: Array<[number, string]> = [
      [1.0, '1.0'], [0.1, '0.1'], [1.5, '1.5'], [-0.0, '-0.0'], [0.0, '0.0'], [1e16, '1e16'],
      [1e15, '1000000000000000.0'], [9999999999999998.0, '9999999999999998.0'], [1e-4, '0.0001'],
      [9.9e-5, '9.9e-5'], [1e-5, '1e-5'], [1e-7, '1e-7'], [123456.789, '123456.789'],
      [Number.MAX_VALUE, '1.7976931348623157e308'], [2.2250738585072014e-308, '2.2250738585072014e-308'],
      [5e-324, '5e-324'], [NaN, 'NaN'], [Infinity, 'inf'], [-Infinity, '-inf'], [-2.5e-7, '-2.5e-7'],
      [1.2345678901234567e17, '1.2345678901234566e17'], [100.0, '100.0'],
    ];
    for (const [x, s] of f64Cases) expect(formatFloatDebug(x, 'f64'), String(x)).toBe(s);
    const f32Cases: Array<[number, string]> = [
      [1.0, '1.0'], [0.1, '0.1'], [1.5, '1.5'], [-0.0, '-0.0'], [1e16, '1e16'], [1e15, '1000000000000000.0'],
      [1e-4, '0.0001'], [9.9e-5, '9.9e-5'], [16777216.0, '16777216.0'], [3.4028235e38, '3.4028235e38'],
      [1.1754943508222875e-38, '1.1754944e-38'], [1e-45, '1e-45'], [NaN, 'NaN'], [Infinity, 'inf'], [0.3, '0.3'],
    ];
    for (const [x, s] of f32Cases) expect(formatFloatDebug(Math.fround(x), 'f32'), String(x)).toBe(s);
  });

  it('compares by type and payload', () => {
    expect(Value.i32(1).equals(Value.i32(1))).toBe(true);
    expect(Value.i32(1).equals(Value.f32(1))).toBe(false);
    expect(Value.f64(NaN).equals(Value.f64(NaN))).toBe(true);
  });
});

describe('Limits', () => {
  it('has sandboxd’s defaults', () => {
    const l = new Limits();
    expect(l.toJSON()).toEqual({
      fuel: 100_000_000, timeoutMs: 1_000, memoryBytes: 16 * 1024 * 1024, tableElements: 10_000, instances: 1, tables: 10_000, memories: 10_000,
      fsBytes: 16 * 1024 * 1024, fsFiles: 10_000, fsDescriptors: 1_024,
    });
    expect(Limits.default().toJSON()).toEqual(l.toJSON());
  });

  it('takes overrides, and with() makes a changed copy', () => {
    const options = { fuel: 5, timeoutMs: 10, memoryBytes: 65536, tableElements: 3, instances: 2, tables: 4, memories: 1, fsBytes: 7, fsFiles: 8, fsDescriptors: 9 };
    const l = new Limits(options);
    expect(l.toJSON()).toEqual(options);
    expect(l.with({ fuel: 6 }).fuel).toBe(6);
    expect(l.fuel).toBe(5);
  });

  it('clamps huge fuel budgets and rejects nonsense', () => {
    expect(new Limits({ fuel: 2n ** 64n - 1n }).fuel).toBe(Number.MAX_SAFE_INTEGER);
    expect(new Limits({ fuel: Infinity }).fuel).toBe(Number.MAX_SAFE_INTEGER);
    expect(new Limits({ timeoutMs: Infinity }).timeoutMs).toBe(Infinity);
    expect(() => new Limits({ fuel: -1 })).toThrow(RangeError);
    expect(() => new Limits({ memoryBytes: 1.5 })).toThrow(RangeError);
    expect(() => new Limits({ timeoutMs: NaN })).toThrow(TypeError);
  });
});

describe('SandboxError', () => {
  it('has sandboxd’s messages and exit codes', () => {
    const cases: Array<[SandboxError, string, number]> = [
      [SandboxError.fuelExhausted(7), 'fuel exhausted: the module exceeded its instruction budget of 7 units', 2],
      [SandboxError.timeout(100), 'wall-clock timeout: the module ran longer than 100 ms', 3],
      [SandboxError.memoryLimitExceeded(4096), 'memory limit exceeded: the module requested more than 4096 bytes of linear memory', 4],
      [SandboxError.disallowedImport('env', 'exec'), 'disallowed import: the module imports `env::exec` which is not on the allow-list', 5],
      [SandboxError.invalidModule('bad magic'), 'invalid module: bad magic', 6],
      [SandboxError.export('no exported function named `x`'), 'export error: no exported function named `x`', 7],
      [SandboxError.trap('wasm trap: integer divide by zero'), 'guest trap: wasm trap: integer divide by zero', 8],
      [SandboxError.host('oops'), 'host error: oops', 1],
    ];
    for (const [e, message, code] of cases) {
      expect(e.message).toBe(message);
      expect(e.exitCode).toBe(code);
      expect(EXIT_CODES[e.kind]).toBe(code);
      expect(e).toBeInstanceOf(Error);
    }
  });

  it('carries each kind’s fields', () => {
    expect(SandboxError.fuelExhausted(7).budget).toBe(7);
    expect(SandboxError.timeout(9).millis).toBe(9);
    expect(SandboxError.memoryLimitExceeded(5).limit).toBe(5);
    const d = SandboxError.disallowedImport('host', 'fs_open');
    expect([d.module, d.name]).toEqual(['host', 'fs_open']);
    expect(SandboxError.trap('x').name).toBe('SandboxError');
    expect(String(d)).toBe('SandboxError: disallowed import: the module imports `host::fs_open` which is not on the allow-list');
    expect(d.stack).toContain('disallowed import');
  });
});

describe('compile', () => {
  it('accepts .wat text, .wat bytes and .wasm bytes, and reuses a compiled module', async () => {
    const sandbox = Sandbox.denyAll();
    const fromText = await sandbox.compile(fixture('well_behaved'));
    expect(fromText).toBeInstanceOf(CompiledModule);
    expect(fromText.exports.map((e) => `${e.kind} ${e.name}`)).toEqual(['func add', 'func fib']);
    const fromBytes = await sandbox.compile(new TextEncoder().encode(fixture('well_behaved')));
    const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 6, 1, 4, 0, 65, 42, 11]);
    const fromWasm = await sandbox.compile(wasm);
    const fromArrayBuffer = await sandbox.compile(wasm.slice().buffer);
    expect((await sandbox.run(fromArrayBuffer, 'f', [])).values[0]!.value).toBe(42);
    expect((await sandbox.run(fromBytes, 'add', [Value.i32(1), Value.i32(2)])).values[0]!.value).toBe(3);
    expect((await sandbox.run(fromWasm, 'f', [])).values.map(String)).toEqual(['I32(42)']);
    // One compiled module, many runs, even in other sandboxes.
    for (let i = 0; i < 3; i++) {
      expect((await new Sandbox().run(fromText, 'fib', [Value.i32(10)])).values[0]!.value).toBe(55);
    }
    const logger = await sandbox.compile(fixture('logger'));
    expect(logger.imports).toEqual([{ module: 'host', name: 'log', kind: 'func' }]);
  });

  it('reports malformed and invalid modules as InvalidModule', async () => {
    const sandbox = Sandbox.denyAll();
    const syntax = await failure(sandbox.compile('(module (func (export "f") (result i32) (i32.const 1)'));
    expect(syntax.kind).toBe('InvalidModule');
    const invalid = await failure(sandbox.compile('(module (func (result i32) (i64.const 1)))'));
    expect(invalid.kind).toBe('InvalidModule');
    const badVersion = await failure(sandbox.compile(new Uint8Array([0, 97, 115, 109, 2, 0, 0, 0])));
    expect(badVersion.kind).toBe('InvalidModule');
    const truncated = await failure(sandbox.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5])));
    expect(truncated.kind).toBe('InvalidModule');
    const binaryGarbage = await failure(sandbox.compile(new Uint8Array([0xff, 0x00, 0x13])));
    expect(binaryGarbage.kind).toBe('InvalidModule');
  });
});

describe('run: parameters and results', () => {
  const typed = fixture('typed');

  it('passes and returns every scalar type, and several results', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(typed);
    expect((await sandbox.run(module, 'add_i64', [Value.i64(2n ** 62n), Value.i64(2n ** 62n)])).values.map(String)).toEqual(['I64(-9223372036854775808)']);
    expect((await sandbox.run(module, 'mul_f32', [Value.f32(1.5), Value.f32(3)])).values.map(String)).toEqual(['F32(4.5)']);
    expect((await sandbox.run(module, 'div_f64', [Value.f64(1), Value.f64(0)])).values.map(String)).toEqual(['F64(inf)']);
    expect((await sandbox.run(module, 'swap', [Value.i32(3), Value.i32(4)])).values.map(String)).toEqual(['I32(4)', 'I32(3)', 'I64(7)', 'F64(3.0)']);
    const none = await sandbox.run(module, 'nothing', []);
    expect(none).toBeInstanceOf(RunOutput);
    expect(none.values).toEqual([]);
    expect(none.fuelConsumed).toBe(1);
  });

  it('checks the parameters against the export’s type', async () => {
    const sandbox = Sandbox.denyAll();
    const arity = await failure(sandbox.run(fixture('well_behaved'), 'add', [Value.i32(1)]));
    expect(arity.message).toBe('export error: function `add` expects 2 parameter(s) but 1 were supplied');
    const type = await failure(sandbox.run(fixture('well_behaved'), 'add', [Value.i32(1), Value.i64(2n)]));
    expect(type.message).toBe('export error: function `add` parameter 1 has type I32 but the supplied value does not match');
    const notValue = await failure(sandbox.run(fixture('well_behaved'), 'add', [1, 2] as unknown as Value[]));
    expect(notValue.kind).toBe('Export');
  });

  it('refuses exports that are not functions, and results it cannot represent', async () => {
    const sandbox = Sandbox.denyAll();
    const global = await failure(sandbox.run(fixture('typed'), 'a_global', []));
    expect(global.message).toBe('export error: no exported function named `a_global`');
    const ref = await failure(sandbox.run(fixture('typed'), 'get_ref', []));
    expect(ref.kind).toBe('Export');
    expect(ref.message).toBe('export error: unsupported return type FuncRef(None)');
  });
});

describe('nothing but SandboxError escapes', () => {
  it('for hostile or mistaken arguments', async () => {
    const sandbox = Sandbox.denyAll();
    const wb = fixture('well_behaved');
    const errors = await Promise.all([
      failure(sandbox.compile(42 as unknown as string)),
      failure(sandbox.compile(null as unknown as string)),
      failure(sandbox.run(wb, 'add', null as unknown as Value[])),
      failure(sandbox.run(wb, 'add', [Value.i32(1), Value.i32(2)], { fuel: -5 })),
      failure(sandbox.run(wb, 'add', [Value.i32(1), Value.i32(2)], { timeoutMs: 'soon' as unknown as number })),
      failure(sandbox.run({} as unknown as string, 'run', [])),
      failure(sandbox.instantiate(wb, { memoryBytes: -1 })),
    ]);
    for (const e of errors) expect(['Host', 'InvalidModule', 'Export']).toContain(e.kind);
    expect(errors[3]!.kind).toBe('Host');
  });

  it('the instances limit: a run needs one instance', async () => {
    const e = await failure(Sandbox.denyAll().run(fixture('well_behaved'), 'add', [Value.i32(1), Value.i32(1)], { instances: 0 }));
    expect(e.kind).toBe('Host');
    expect(e.message).toMatch(/^host error: instantiation failed/);
  });
});

describe('Instance', () => {
  it('keeps state across calls; each call is metered on its own', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('counter'));
    expect(instance).toBeInstanceOf(Instance);
    const outs = [];
    for (let i = 0; i < 3; i++) outs.push(await instance.call('next'));
    expect(outs.map((o) => o.values.map(String)[0])).toEqual(['I32(1)', 'I32(2)', 'I32(3)']);
    expect(outs.map((o) => o.fuelConsumed)).toEqual([6, 6, 6]);
  });

  it('exposes the exported memory with bounds-checked read and write', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('counter'));
    const memory = instance.memory!;
    expect(memory.byteLength).toBe(65536);
    memory.write(100, new Uint8Array([1, 2, 3, 250]));
    expect([...memory.read(100, 4)]).toEqual([1, 2, 3, 250]);
    const out = await instance.call('sum', [Value.i32(100), Value.i32(4)]);
    expect(out.values[0]!.value).toBe(256);
    expect(memory.read(65536, 0)).toEqual(new Uint8Array(0));
    expect(() => memory.read(65535, 2)).toThrow(GuestMemoryError);
    expect(() => memory.read(-1, 1)).toThrow(RangeError);
    expect(() => memory.write(65535, [1, 2])).toThrow(GuestMemoryError);
    expect(() => memory.read(0, 1.5)).toThrow(RangeError);
    // a read is a copy: changing it changes nothing inside
    const copy = memory.read(100, 1);
    copy[0] = 99;
    expect(memory.read(100, 1)[0]).toBe(1);
  });

  it('has no memory when the module exports none', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('well_behaved'));
    expect(instance.memory).toBeNull();
  });

  it('gives every call the full limits afresh, and survives a stopped call', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('counter'), { fuel: 1_000, timeoutMs: 30 });
    expect(instance.limits.fuel).toBe(1_000);
    const fuel = await failure(instance.call('spin', [Value.i32(10_000)]));
    expect(fuel.kind).toBe('FuelExhausted');
    // invocation 1; per pass: get, eqz, br_if, get, const, sub, set, br = 8; the exit: 3
    expect((await instance.call('spin', [Value.i32(10)])).fuelConsumed).toBe(1 + 10 * 8 + 3);
    const slow = await Sandbox.denyAll().instantiate(fixture('counter'), { fuel: 1e15, timeoutMs: 30 });
    expect((await failure(slow.call('forever'))).kind).toBe('Timeout');
    expect((await failure(slow.call('forever'))).kind).toBe('Timeout');
    expect((await slow.call('next')).values.map(String)).toEqual(['I32(1)']);
  });

  it('runs concurrent calls on one instance one at a time, in order', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('counter'));
    const outs = await Promise.all([1, 2, 3, 4].map(() => instance.call('next')));
    expect(outs.map((o) => o.values[0]!.value)).toEqual([1, 2, 3, 4]);
  });

  it('runs the start function at instantiation, under the limits', async () => {
    const e = await failure(Sandbox.denyAll().instantiate(fixture('start_loop'), { fuel: 1_000 }));
    expect(e.kind).toBe('FuelExhausted');
    const wat = '(module (global $g (mut i32) (i32.const 0)) (func $s (global.set $g (i32.const 9))) (start $s) (func (export "g") (result i32) (global.get $g)))';
    const instance = await Sandbox.denyAll().instantiate(wat);
    expect((await instance.call('g')).values[0]!.value).toBe(9);
  });

  it('reports the instance’s peak memory', async () => {
    const instance = await Sandbox.denyAll().instantiate(fixture('grow_and_recover'), { memoryBytes: 1024 * 1024 });
    expect((await instance.call('run', [Value.i32(2)])).peakMemoryBytes).toBe(3 * 65536);
    expect((await instance.call('run', [Value.i32(100)])).values[0]!.value).toBe(-1);
    expect((await instance.call('run', [Value.i32(0)])).peakMemoryBytes).toBe(3 * 65536);
    expect(instance.memory!.byteLength).toBe(3 * 65536);
  });

  it('applies the deny-by-default ABI at instantiation', async () => {
    const e = await failure(new Sandbox(HostAbi.denyAll()).instantiate(fixture('disallowed_import')));
    expect(e.kind).toBe('DisallowedImport');
  });
});
