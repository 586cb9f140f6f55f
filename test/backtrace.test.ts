/**
 * Backtraces (issue 11's first part): a SandboxError of kind Trap, FuelExhausted or Timeout
 * carries the frames the guest was in, innermost first, with the byte offsets wasmtime and
 * Node's own engine report; a Trap's message goes on with them in wasmtime's words; a `.wat`
 * guest keeps its `$names`. The same in both tiers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostAbi, Limits, Sandbox, SandboxError, Value } from '../src/index.js';
import { formatBacktrace, MAX_PRINTED_FRAMES } from '../src/sandbox/errors.js';
import { Trap, TrapKind } from '../src/interpreter/errors.js';

const traps = readFileSync(new URL('../fixtures/traps.wat', import.meta.url), 'utf8');

async function failure(p: Promise<unknown>): Promise<SandboxError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(SandboxError);
  return e as SandboxError;
}

const NESTED = `(module $nest
  (func $leaf (param i32) (result i32) (i32.div_u (i32.const 100) (local.get 0)))
  (func $middle (param i32) (result i32) (i32.add (call $leaf (local.get 0)) (i32.const 1)))
  (func (export "top") (param i32) (result i32)
    (local i32)
    (loop $l
      (local.set 1 (i32.add (local.get 1) (call $middle (local.get 0))))
      (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
      (br_if $l (i32.ge_s (local.get 0) (i32.const 0))))
    (local.get 1)))`;

describe('backtraces', () => {
  it.each(['interpreter', 'eager'] as const)('a trap names where it happened, innermost first, at the offsets Node reports (%s)', async (tier) => {
    const sandbox = new Sandbox(HostAbi.denyAll(), { tier });
    const cases: Array<[string, Value[], string, number]> = [
      ['div', [Value.i32(1), Value.i32(0)], 'div', 0x62],
      ['oob', [], 'oob', 0x6e],
      ['unreachable', [], 'unreachable', 0x66],
    ];
    for (const [name, args, func, offset] of cases) {
      const e = await failure(sandbox.run(traps, name, args));
      expect(e.kind).toBe('Trap');
      expect(e.backtrace).toEqual([{ funcIndex: expect.any(Number), funcName: func, moduleName: 'traps', offset }]);
      expect(e.message.split('\n').slice(1)).toEqual(['wasm backtrace:', `    0: ${`0x${offset.toString(16)}`.padStart(8)} - traps!${func}`]);
    }
  });

  it.each(['interpreter', 'eager'] as const)('callers appear at their calls, through translated and interpreted frames alike (%s)', async (tier) => {
    const sandbox = new Sandbox(HostAbi.denyAll(), { tier });
    const e = await failure(sandbox.run(NESTED, 'top', [Value.i32(3)]));
    expect(e.backtrace.map((f) => f.funcName ?? `#${f.funcIndex}`)).toEqual(['leaf', 'middle', '#2']);
    expect(e.backtrace.every((f) => f.moduleName === 'nest')).toBe(true);
    const offsets = e.backtrace.map((f) => f.offset);
    expect(offsets[0]).toBeLessThan(offsets[1]!);
    expect(offsets[1]).toBeLessThan(offsets[2]!);
    expect(e.message).toContain('wasm backtrace:\n    0:');
    expect(e.message).toMatch(/\n {4}2: {5}0x[0-9a-f]{2} - nest!<wasm function 2>$/);
  });

  it('the same frames in both tiers, and the innermost one where Node sees the trap', async () => {
    const got: string[] = [];
    for (const tier of ['interpreter', 'eager', 'auto'] as const) {
      const e = await failure(new Sandbox(HostAbi.denyAll(), { tier }).run(NESTED, 'top', [Value.i32(3)]));
      got.push(JSON.stringify(e.backtrace));
    }
    expect(new Set(got).size).toBe(1);
  });

  it('FuelExhausted and Timeout carry the frame the guest stopped in; their messages stay one line', async () => {
    const spin = '(module $spin (func $inner (loop $l (br $l))) (func (export "run") (call $inner)))';
    const fuel = await failure(Sandbox.denyAll().run(spin, 'run', [], new Limits({ fuel: 10_000 })));
    expect(fuel.kind).toBe('FuelExhausted');
    expect(fuel.backtrace.map((f) => f.funcName)).toEqual(['inner', undefined]);
    expect(fuel.message).not.toContain('\n');
    const time = await failure(Sandbox.denyAll().run(spin, 'run', [], new Limits({ fuel: 1e15, timeoutMs: 30 })));
    expect(time.kind).toBe('Timeout');
    expect(time.backtrace[0]!.funcName).toBe('inner');
  });

  it('a call stack exhausted keeps every frame; its message prints the innermost ones', async () => {
    const e = await failure(Sandbox.denyAll().run(traps, 'recurse', [Value.i32(0)]));
    expect(e.backtrace.length).toBeGreaterThan(10_000);
    expect(e.backtrace.every((f) => f.funcName === 'recurse')).toBe(true);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(2 + MAX_PRINTED_FRAMES + 1);
    expect(lines.at(-1)).toBe(`  ... ${e.backtrace.length - MAX_PRINTED_FRAMES} more frames`);
  });

  it('formats as wasmtime does: index in three columns, {:#8x} offsets, <unknown> and <wasm function N>', () => {
    expect(formatBacktrace([
      { funcIndex: 3, offset: 0x2a, funcName: 'div', moduleName: 'traps' },
      { funcIndex: 12, offset: 0x1234 },
    ])).toBe('wasm backtrace:\n    0:     0x2a - traps!div\n    1:   0x1234 - <unknown>!<wasm function 12>');
  });
});

describe('a trap\'s JavaScript stack', () => {
  it('is not captured (the guest\'s frames are its backtrace), and Error.stackTraceLimit is left as it was', () => {
    const limit = Error.stackTraceLimit;
    const trap = new Trap(TrapKind.Interrupt);
    expect(trap.stack).not.toMatch(/\n\s+at /);
    expect(trap.message).toBe('wasm trap: interrupt');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('x').stack).toMatch(/\n\s+at /);
  });
});
