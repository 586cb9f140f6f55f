/**
 * The stepping debugger (Sandbox.debug, src/sandbox/debugger.ts, src/inspect/debugger.ts):
 * stepping instruction by instruction with the exact locals and operand stack, breakpoints,
 * stepping over and out of calls, callers' frames, the same end (result, error, fuel) as a
 * plain run, globals and memory while paused, a deadline that counts only running time, other
 * runs going on meanwhile, the command protocol; and the CLI's --debug, --trace and --coverage.
 *
 * Expectations are derived from the guests' algorithms (a small model of well_behaved.wat's
 * fib, the C fixture's arithmetic), or from the same run without the debugger.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/index.js';
import { cWasm, fibValue, listing, marked } from './helpers/inspect.js';
import { failure } from './helpers/sandbox.js';
import { type DebugEvent, type DebugFrame, type FunctionCoverage, HostAbi, Limits, Sandbox, SandboxError, Value } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const fx = (name: string): string => join(root, 'fixtures', name);
const wellBehaved = readFileSync(fx('well_behaved.wat'), 'utf8');
const trapsWat = readFileSync(fx('traps.wat'), 'utf8');

const strs = (values: readonly unknown[]): string[] => values.map(String);
const hex = (n: number): string => `0x${n.toString(16)}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function paused(event: DebugEvent): readonly DebugFrame[] {
  expect(event.kind).toBe('paused');
  return (event as Extract<DebugEvent, { kind: 'paused' }>).frames;
}

function finished(event: DebugEvent): Extract<DebugEvent, { kind: 'finished' }>['output'] {
  if (event.kind === 'failed') throw event.error;
  expect(event.kind).toBe('finished');
  return (event as Extract<DebugEvent, { kind: 'finished' }>).output;
}

function failed(event: DebugEvent): SandboxError {
  expect(event.kind).toBe('failed');
  const error = (event as Extract<DebugEvent, { kind: 'failed' }>).error;
  expect(error).toBeInstanceOf(SandboxError);
  return error;
}

interface ModelStep {
  offset: number;
  instruction: string;
  locals: number[];
  stack: number[];
}

/**
 * A model of well_behaved.wat's fib running: each instruction about to run, with the locals
 * and operand stack before it — the WebAssembly semantics of its ten kinds of instruction.
 * `br 0` goes back to the first instruction after `loop`; `br_if 1` (taken) leaves to the
 * first instruction after the block's `end`. The `end`s a branch jumps over do not run.
 */
function modelFib(list: Array<{ offset: number; text: string }>, n: number): ModelStep[] {
  const texts = list.map((l) => l.text);
  const loopStart = texts.indexOf('loop') + 1;
  const ends = texts.flatMap((t, i) => (t === 'end' ? [i] : []));
  expect(ends).toHaveLength(3); // the loop's, the block's, the function's
  const afterBlock = ends[1]! + 1;
  const locals = [n, 0, 0, 0, 0];
  const stack: number[] = [];
  const steps: ModelStep[] = [];
  for (let pc = 0; ;) {
    const text = texts[pc]!;
    steps.push({ offset: list[pc]!.offset, instruction: text, locals: [...locals], stack: [...stack] });
    const [op, arg] = text.split(' ') as [string, string | undefined];
    pc++;
    switch (op) {
      case 'i32.const': stack.push(Number(arg)); break;
      case 'local.get': stack.push(locals[Number(arg)]!); break;
      case 'local.set': locals[Number(arg)] = stack.pop()!; break;
      case 'i32.ge_s': { const b = stack.pop()!; const a = stack.pop()!; stack.push(a >= b ? 1 : 0); break; }
      case 'i32.add': { const b = stack.pop()!; const a = stack.pop()!; stack.push((a + b) | 0); break; }
      case 'br_if': if (arg !== '1') throw new Error(text); if (stack.pop()! !== 0) pc = afterBlock; break;
      case 'br': if (arg !== '0') throw new Error(text); pc = loopStart; break;
      case 'block': case 'loop': break;
      case 'end': if (pc - 1 === ends[2]) return steps; break;
      default: throw new Error(`the model does not know ${text}`);
    }
  }
}

describe('stepping', () => {
  it('fib(3) with step() from the start: every instruction, its locals and operand stack, then the plain run’s end', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const list = listing(module, 'fib');
    const model = modelFib(list, 3);
    // 14 + 17n instructions: the fixture's fuel 12 + 17n, less the invocation, plus block, loop and the final end.
    expect(model).toHaveLength(14 + 17 * 3);

    const debug = await sandbox.debug(module, 'fib', [Value.i32(3)]);
    expect(debug.state).toBe('ready');
    expect(debug.frames).toEqual([]);
    const seen: ModelStep[] = [];
    let event = await debug.step();
    while (event.kind === 'paused') {
      expect(debug.state).toBe('paused');
      expect(event.frames).toHaveLength(1);
      const f = event.frames[0]!;
      expect(f.funcIndex).toBe(1);
      expect(f.funcName).toBe('<unknown>!<wasm function 1>');
      expect(debug.frames).toBe(event.frames);
      seen.push({
        offset: f.offset,
        instruction: f.instruction,
        locals: f.locals.map((v) => { expect(String(v)).toMatch(/^I32\(/); return Number((v as Value).value); }),
        stack: f.stack.map((v) => { expect(String(v)).toMatch(/^I32\(/); return Number((v as Value).value); }),
      });
      event = await debug.step();
    }
    expect(seen).toEqual(model);

    // Spot checks, as the algorithm has them.
    const firstGe = seen.find((s) => s.instruction === 'i32.ge_s')!;
    expect(firstGe.stack).toEqual([0, 3]); // [I32(0), I32(3)]: i = 0, n = 3
    const sets4 = seen.filter((s) => s.instruction === 'local.set 4');
    expect(sets4.map((s) => s.stack)).toEqual([[1], [2], [3]]); // a + b: fib(2), fib(3), fib(4)
    expect(sets4[1]!.locals).toEqual([3, 1, 1, 1, 1]); // second pass: a = 1, b = 1, i = 1, tmp = 1
    expect(seen[seen.length - 1]).toMatchObject({ instruction: 'end', stack: [2], locals: [3, 2, 3, 3, 3] });

    const plain = await sandbox.run(module, 'fib', [Value.i32(3)]);
    const output = finished(event);
    expect(strs(output.values)).toEqual(['I32(2)']);
    expect(strs(output.values)).toEqual(strs(plain.values));
    expect(output.fuelConsumed).toBe(12 + 17 * 3);
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);
    expect(debug.state).toBe('ended');
    expect(debug.frames).toEqual([]);
  });

  it('instructions() lists the paused function as disassemble does', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const debug = await sandbox.debug(module, 'fib', [Value.i32(1)]);
    paused(await debug.step());
    expect(debug.instructions()).toEqual(listing(module, 'fib'));
    expect(debug.instructions(0)).toEqual(listing(module, 'add'));
    expect(() => debug.instructions(2)).toThrow(RangeError);
    finished(await debug.continue());
  });
});

describe('breakpoints', () => {
  it('at the loop’s i32.add: once per pass of fib(5); cleared, the run finishes', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const list = listing(module, 'fib');
    const add = list.find((l) => l.text === 'i32.add')!; // a + b, the first add of the body
    const plain = await sandbox.run(module, 'fib', [Value.i32(5)]);

    const debug = await sandbox.debug(module, 'fib', [Value.i32(5)]);
    expect(debug.breakAt({ func: 'fib', offset: add.offset })).toEqual({ funcIndex: 1, funcName: '<unknown>!<wasm function 1>', offset: add.offset });
    const stacks: string[][] = [];
    let event = await debug.continue();
    while (event.kind === 'paused') {
      expect(event.frames[0]!.offset).toBe(add.offset);
      expect(event.frames[0]!.instruction).toBe('i32.add');
      stacks.push(strs(event.frames[0]!.stack));
      event = await debug.continue();
    }
    // Pass k adds a = fib(k) and b = fib(k + 1).
    expect(stacks).toEqual(Array.from({ length: 5 }, (_, k) => [`I32(${fibValue(k)})`, `I32(${fibValue(k + 1)})`]));
    const output = finished(event);
    expect(strs(output.values)).toEqual(strs(plain.values));
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);

    const again = await sandbox.debug(module, 'fib', [Value.i32(5)]);
    again.breakAt({ func: 1, offset: add.offset });
    paused(await again.continue());
    paused(await again.continue());
    again.clearBreakpoints();
    const end = finished(await again.continue());
    expect(strs(end.values)).toEqual([`I32(${fibValue(5)})`]);
    expect(end.fuelConsumed).toBe(plain.fuelConsumed);
  });

  it('a function’s breakpoint is its first instruction; by export name, name-section name or index', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const divFirst = listing(module, 'div')[0]!;
    const fibFirst = listing(module, 'fib')[0]!;
    const debug = await sandbox.debug(module, 'run_fib', [Value.i32(1)]);
    expect(debug.breakAt({ func: 'fib' })).toEqual({ funcIndex: 2, funcName: '<unknown>!fib', offset: fibFirst.offset });
    expect(debug.breakAt({ func: 'div' })).toEqual({ funcIndex: 0, funcName: '<unknown>!div', offset: divFirst.offset });
    expect(debug.breakAt({ func: 'run_fib' }).funcIndex).toBe(4);
    expect(debug.breakAt({ func: 3 }).funcName).toBe('<unknown>!run');
    const f = paused(await debug.continue());
    expect(f[0]!.funcName).toBe('<unknown>!run_fib');
    const g = paused(await debug.continue());
    expect(g[0]).toMatchObject({ funcName: '<unknown>!fib', offset: fibFirst.offset, instruction: fibFirst.text });
    expect(strs(finished(await debug.continue()).values)).toEqual(['I32(1)']);
  });

  it('an unknown function, or an offset that is not an instruction, throws RangeError', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const fib = listing(module, 'fib');
    const add = listing(module, 'add');
    const debug = await sandbox.debug(module, 'fib', [Value.i32(2)]);
    expect(() => debug.breakAt({ func: 'nope' })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: 2 })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: -1 })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: 0.5 })).toThrow(RangeError);
    // The middle of `i32.const 0` (two bytes), an instruction of another function, outside the module's code.
    expect(() => debug.breakAt({ func: 'fib', offset: fib[0]!.offset + 1 })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: 'fib', offset: add[0]!.offset })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: 'fib', offset: 0 })).toThrow(RangeError);
    expect(() => debug.breakAt({ func: 'fib', offset: -1 })).toThrow(RangeError);
    // Nothing was set: the run goes to its end.
    expect(strs(finished(await debug.continue()).values)).toEqual(['I32(1)']);
  });
});

describe('calls (the C fixture)', () => {
  it('stepOver a call lands on the next instruction of the same function, the callee’s result on the stack', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const run = listing(module, 'run');
    const call = run.findIndex((l) => l.text === 'call 1'); // run calls scale
    const debug = await sandbox.debug(module, 'run', [Value.i32(5)]);
    debug.breakAt({ func: 'run', offset: run[call]!.offset });
    const before = paused(await debug.continue());
    expect(before).toHaveLength(1);
    expect(strs(before[0]!.stack)).toEqual(['I32(7)', 'I32(5)']); // scale(7, by)
    const after = paused(await debug.stepOver());
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ funcName: '<unknown>!run', offset: run[call + 1]!.offset, instruction: run[call + 1]!.text });
    // scale(7, 5) = 1000 / 5 + 7
    expect(strs(after[0]!.stack)).toEqual([`I32(${1000 / 5 + 7})`]);
    // One more: i32.add, the last instruction before the end.
    expect(paused(await debug.stepOver())[0]).toMatchObject({ offset: run[call + 2]!.offset, instruction: run[call + 2]!.text });
    const plain = await sandbox.run(module, 'run', [Value.i32(5)]);
    const output = finished(await debug.continue());
    expect(strs(output.values)).toEqual([`I32(${1000 / 5 + 7 + 1})`]);
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);
  });

  it('a breakpoint in the callee stops a stepOver', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const run = listing(module, 'run');
    const debug = await sandbox.debug(module, 'run', [Value.i32(5)]);
    debug.breakAt({ func: 'run', offset: run.find((l) => l.text === 'call 1')!.offset });
    paused(await debug.continue());
    debug.breakAt({ func: 'div' });
    const inDiv = paused(await debug.stepOver());
    expect(inDiv.map((f) => f.funcName)).toEqual(['<unknown>!div', '<unknown>!scale', '<unknown>!run']);
  });

  it('frames innermost first, callers at their call with their locals; stepOut shrinks them by one', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const div = listing(module, 'div');
    const scale = listing(module, 'scale');
    const run = listing(module, 'run');
    const scaleCall = scale.findIndex((l) => l.text === 'call 0');
    const runCall = run.findIndex((l) => l.text === 'call 1');
    const debug = await sandbox.debug(module, 'run', [Value.i32(5)]);
    debug.breakAt({ func: 'div' });
    const inDiv = paused(await debug.continue());
    expect(inDiv.map((f) => ({ ...f, locals: strs(f.locals), stack: strs(f.stack) }))).toEqual([
      { funcIndex: 0, funcName: '<unknown>!div', offset: div[0]!.offset, instruction: div[0]!.text, locals: ['I32(1000)', 'I32(5)'], stack: [] },
      // Callers' stacks leave out the arguments of their call: nothing else is on them.
      { funcIndex: 1, funcName: '<unknown>!scale', offset: scale[scaleCall]!.offset, instruction: 'call 0', locals: ['I32(7)', 'I32(5)'], stack: [] },
      { funcIndex: 3, funcName: '<unknown>!run', offset: run[runCall]!.offset, instruction: 'call 1', locals: ['I32(5)'], stack: [] },
    ]);

    const inScale = paused(await debug.stepOut());
    expect(inScale).toHaveLength(inDiv.length - 1);
    expect(inScale[0]).toMatchObject({ funcName: '<unknown>!scale', offset: scale[scaleCall + 1]!.offset, instruction: scale[scaleCall + 1]!.text });
    expect(strs(inScale[0]!.stack)).toEqual([`I32(${1000 / 5})`]); // div(1000, 5)
    expect(strs(inScale[0]!.locals)).toEqual(['I32(7)', 'I32(5)']);
    expect(inScale[1]).toMatchObject({ funcName: '<unknown>!run', offset: run[runCall]!.offset });

    const inRun = paused(await debug.stepOut());
    expect(inRun).toHaveLength(1);
    expect(inRun[0]).toMatchObject({ funcName: '<unknown>!run', offset: run[runCall + 1]!.offset });
    expect(strs(inRun[0]!.stack)).toEqual([`I32(${1000 / 5 + 7})`]);

    const plain = await sandbox.run(module, 'run', [Value.i32(5)]);
    const output = finished(await debug.stepOut());
    expect(strs(output.values)).toEqual(strs(plain.values));
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);
  });

  it('step into a call: the callee’s first instruction, one frame deeper', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const scale = listing(module, 'scale');
    const div = listing(module, 'div');
    const debug = await sandbox.debug(module, 'run', [Value.i32(4)]);
    debug.breakAt({ func: 'scale', offset: scale.find((l) => l.text === 'call 0')!.offset });
    const atCall = paused(await debug.continue());
    expect(strs(atCall[0]!.stack)).toEqual(['I32(1000)', 'I32(4)']);
    const inDiv = paused(await debug.step());
    expect(inDiv).toHaveLength(atCall.length + 1);
    expect(inDiv[0]).toMatchObject({ funcName: '<unknown>!div', offset: div[0]!.offset });
    // Through div one instruction at a time, out to scale after the call.
    const texts: string[] = [];
    let frames = inDiv;
    while (frames[0]!.funcName === '<unknown>!div') {
      texts.push(frames[0]!.instruction);
      frames = paused(await debug.step());
    }
    expect(texts).toEqual(div.map((l) => l.text));
    expect(strs(frames[0]!.stack)).toEqual([`I32(${1000 / 4})`]);
    expect(strs(finished(await debug.continue()).values)).toEqual([`I32(${1000 / 4 + 7 + 1})`]);
  });

  it('a breakpoint in a recursive function: the frames grow with the recursion', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const fib = listing(module, 'fib');
    const runFib = listing(module, 'run_fib');
    const calls = fib.filter((l) => l.text === 'call 2').map((l) => l.offset); // fib(n - 1), then fib(n - 2)
    expect(calls).toHaveLength(2);
    const debug = await sandbox.debug(module, 'run_fib', [Value.i32(3)]);
    debug.breakAt({ func: 'fib' });
    // fib(3)'s calls in order (preorder of its call tree): each with its depth and how it was called.
    type Call = { n: number; depth: number; via: number[] };
    const expected: Call[] = [];
    const walk = (n: number, via: number[]): void => {
      expected.push({ n, depth: via.length, via });
      if (n < 2) return;
      walk(n - 1, [calls[0]!, ...via]);
      walk(n - 2, [calls[1]!, ...via]);
    };
    walk(3, [runFib.find((l) => l.text === 'call 2')!.offset]);
    const got: Call[] = [];
    let event = await debug.continue();
    while (event.kind === 'paused') {
      const frames = event.frames;
      expect(frames[0]!.offset).toBe(fib[0]!.offset);
      expect(frames[frames.length - 1]!.funcName).toBe('<unknown>!run_fib');
      got.push({ n: Number((frames[0]!.locals[0] as Value).value), depth: frames.length - 1, via: frames.slice(1).map((f) => f.offset) });
      event = await debug.continue();
    }
    expect(got).toEqual(expected);
    expect(got.map((c) => c.depth + 1)).toEqual([2, 3, 4, 4, 3]); // frames.length at each pause
    expect(strs(finished(event).values)).toEqual([`I32(${fibValue(3)})`]);
  });

  it('stepOver a recursive call stays in the same activation', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const fib = listing(module, 'fib');
    const first = fib.findIndex((l) => l.text === 'call 2');
    const debug = await sandbox.debug(module, 'run_fib', [Value.i32(6)]);
    debug.breakAt({ func: 'fib', offset: fib[first]!.offset });
    const at = paused(await debug.continue()); // fib(6) about to call fib(5)
    expect(strs(at[0]!.locals)).toEqual(['I32(6)']);
    debug.clearBreakpoints();
    const over = paused(await debug.stepOver());
    expect(over).toHaveLength(at.length);
    expect(over[0]).toMatchObject({ offset: fib[first + 1]!.offset, instruction: fib[first + 1]!.text });
    expect(strs(over[0]!.stack)).toEqual([`I32(${fibValue(5)})`]);
    expect(strs(over[0]!.locals)).toEqual(['I32(6)']);
    expect(strs(finished(await debug.continue()).values)).toEqual([`I32(${fibValue(6)})`]);
  });
});

const INDIRECT = `(module $ci
  (type $t (func (param i32 i32) (result i32)))
  (table 1 funcref) (elem (i32.const 0) $sum)
  (func $sum (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "direct") (result i32)
    (i32.const 100)
    (call $sum (i32.const 2) (i32.const 3))
    (i32.add))
  (func (export "indirect") (result i32)
    (i32.const 100)
    (call_indirect (type $t) (i32.const 2) (i32.const 3) (i32.const 0))
    (i32.add)))`;

describe('callers’ operand stacks', () => {
  // While $sum runs, its caller's operand stack holds only the 100 below the call: `call`
  // popped the two arguments, `call_indirect` the two arguments and the table index.
  it.each(['direct', 'indirect'])('%s: the caller’s stack leaves out what its call popped', async (name) => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(INDIRECT);
    const caller = listing(module, name);
    const debug = await sandbox.debug(module, name);
    debug.breakAt({ func: 'sum' });
    const frames = paused(await debug.continue());
    expect(frames).toHaveLength(2);
    expect(strs(frames[0]!.locals)).toEqual(['I32(2)', 'I32(3)']);
    expect(frames[1]!.offset).toBe(caller.find((l) => l.text.startsWith('call'))!.offset);
    expect(strs(frames[1]!.stack)).toEqual(['I32(100)']);
    // And after the call returns, the caller's stack is the 100 and the sum.
    expect(strs(paused(await debug.stepOut())[0]!.stack)).toEqual(['I32(100)', 'I32(5)']);
    expect(strs(finished(await debug.continue()).values)).toEqual(['I32(105)']);
  });

  it('a recursion deeper than 100 frames shows its innermost 100', async () => {
    const sandbox = Sandbox.denyAll();
    const debug = await sandbox.debug(trapsWat, 'recurse', [Value.i32(0)]);
    debug.breakAt({ func: 'recurse' });
    let frames = paused(await debug.continue());
    for (let i = 1; i < 150; i++) frames = paused(await debug.continue());
    // The 150th activation has n = 149; its callers n = 148, 147, ...
    expect(frames).toHaveLength(100);
    expect(frames.map((f) => String(f.locals[0]))).toEqual(Array.from({ length: 100 }, (_, i) => `I32(${149 - i})`));
  });
});

describe('the start function', () => {
  it('runs under the debugger: a breakpoint in it, globals as it sets them', async () => {
    const START = `(module $st
      (global $g (export "g") (mut i32) (i32.const 0))
      (func $init (global.set $g (i32.const 41)))
      (start $init)
      (func (export "get") (result i32) (i32.add (global.get $g) (i32.const 1))))`;
    const sandbox = Sandbox.denyAll();
    const plain = await sandbox.run(START, 'get');
    const debug = await sandbox.debug(START, 'get');
    debug.breakAt({ func: 'init' });
    const frames = paused(await debug.continue());
    expect(frames.map((f) => [f.funcName, f.instruction])).toEqual([['st!init', 'i32.const 41']]);
    expect(String(debug.globals()[0]!.value)).toBe('I32(0)');
    paused(await debug.step()); // global.set
    const end = paused(await debug.step());
    expect(end[0]!.instruction).toBe('end');
    expect(String(debug.globals()[0]!.value)).toBe('I32(41)');
    const next = paused(await debug.step()); // the export, after the start function
    expect(next.map((f) => [f.funcName, f.instruction])).toEqual([['st!<wasm function 1>', 'global.get 0']]);
    const output = finished(await debug.continue());
    expect(strs(output.values)).toEqual(['I32(42)']);
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);
  });
});

describe('the end of a debugged run is a plain run’s', () => {
  it('a trap: the same message, backtrace and fuel', async () => {
    const sandbox = Sandbox.denyAll();
    const cases: Array<[string | Uint8Array, string, Value[]]> = [
      [trapsWat, 'div', [Value.i32(7), Value.i32(0)]],
      [trapsWat, 'oob', []],
      [trapsWat, 'unreachable', []],
      [cWasm, 'run', [Value.i32(0)]],
    ];
    for (const [source, name, args] of cases) {
      const module = await sandbox.compile(source);
      const plain = await failure(sandbox.run(module, name, args));
      expect(plain.kind).toBe('Trap');
      const debug = await sandbox.debug(module, name, args);
      const error = failed(await debug.continue());
      expect(error.kind).toBe('Trap');
      expect(error.message).toBe(plain.message);
      expect(error.backtrace).toEqual(plain.backtrace);
      expect(error.fuelConsumed).toBe(plain.fuelConsumed);
      // Stepping all the way gives the same again.
      const stepped = await sandbox.debug(module, name, args);
      let event = await stepped.step();
      while (event.kind === 'paused') event = await stepped.step();
      const e2 = failed(event);
      expect([e2.message, e2.backtrace, e2.fuelConsumed]).toEqual([plain.message, plain.backtrace, plain.fuelConsumed]);
    }
  });

  it('the C trap’s backtrace has source positions, under the debugger too', async () => {
    const sandbox = Sandbox.denyAll();
    const debug = await sandbox.debug(cWasm, 'run', [Value.i32(0)]);
    const error = failed(await debug.continue());
    expect(error.backtrace.map((f) => [f.funcName, f.source?.line])).toEqual([
      ['div', marked('div').line],
      ['scale', marked('scale calls div').line],
      ['run', marked('run calls scale').line],
    ]);
  });

  it('FuelExhausted: the same error and fuel, also after pauses', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wellBehaved);
    const limits = new Limits({ fuel: 100 });
    const plain = await failure(sandbox.run(module, 'fib', [Value.i32(30)], limits));
    expect(plain.kind).toBe('FuelExhausted');
    const debug = await sandbox.debug(module, 'fib', [Value.i32(30)], limits);
    const error = failed(await debug.continue());
    expect([error.kind, error.message, error.fuelConsumed]).toEqual([plain.kind, plain.message, plain.fuelConsumed]);
    expect(error.fuelConsumed).toBe(100);
    expect(error.backtrace).toEqual(plain.backtrace);

    const paused3 = await sandbox.debug(module, 'fib', [Value.i32(30)], limits);
    paused3.breakAt({ func: 'fib', offset: listing(module, 'fib').find((l) => l.text === 'i32.ge_s')!.offset });
    let pauses = 0;
    let event = await paused3.continue();
    while (event.kind === 'paused') {
      pauses++;
      event = await paused3.continue();
    }
    // 100 fuel: invocation and prologue 7, five passes of 17, and the sixth pass's check.
    expect(pauses).toBe(6);
    const e2 = failed(event);
    expect([e2.kind, e2.fuelConsumed]).toEqual(['FuelExhausted', 100]);
  });
});

const GLOBALS = `(module $g
  (memory (export "memory") 1)
  (global $counter (export "counter") (mut i32) (i32.const 5))
  (global $k i64 (i64.const -7))
  (func (export "go") (param $v i32)
    (i32.store (i32.const 16) (local.get $v))
    (global.set $counter (i32.add (global.get $counter) (local.get $v)))
    (i32.store8 (i32.const 100) (i32.const 0xab))
    nop))`;

describe('globals and memory while paused', () => {
  it('reflect the guest’s writes so far', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(GLOBALS);
    const go = listing(module, 'go');
    const at = (text: string): number => go.find((l) => l.text === text)!.offset;
    const debug = await sandbox.debug(module, 'go', [Value.i32(0x01020304)]);
    expect(debug.globals()).toEqual([]); // no instance yet
    expect(debug.memory()).toBeNull();
    debug.breakAt({ func: 'go', offset: at('global.get 0') }); // after the i32.store
    debug.breakAt({ func: 'go', offset: at('i32.const 100') }); // after the global.set
    debug.breakAt({ func: 'go', offset: at('nop') }); // after the i32.store8

    paused(await debug.continue());
    expect(Array.from(debug.memory()!.read(16, 4))).toEqual([4, 3, 2, 1]); // little-endian
    expect(Array.from(debug.memory('memory')!.read(100, 1))).toEqual([0]);
    expect(debug.globals().map((g) => ({ ...g, value: String(g.value) }))).toEqual([
      { index: 0, name: 'counter', type: 'i32', mutable: true, value: 'I32(5)' },
      { index: 1, type: 'i64', mutable: false, value: 'I64(-7)' },
    ]);

    paused(await debug.continue());
    expect(String(debug.globals()[0]!.value)).toBe(`I32(${5 + 0x01020304})`);
    expect(Array.from(debug.memory(0)!.read(100, 1))).toEqual([0]);

    paused(await debug.continue());
    expect(Array.from(debug.memory()!.read(100, 1))).toEqual([0xab]);
    expect(Array.from(debug.memory()!.read(16, 4))).toEqual([4, 3, 2, 1]);
    expect(debug.memory(1)).toBeNull();
    expect(debug.memory('nope')).toBeNull();

    const output = finished(await debug.continue());
    expect(output.values).toEqual([]);
    const plain = await sandbox.run(module, 'go', [Value.i32(0x01020304)]);
    expect(output.fuelConsumed).toBe(plain.fuelConsumed);
  });
});

describe('the deadline counts only running time', () => {
  it('a guest paused for 300 ms under a 100 ms timeout finishes', async () => {
    const sandbox = Sandbox.denyAll();
    const debug = await sandbox.debug(wellBehaved, 'fib', [Value.i32(20)], new Limits({ timeoutMs: 100 }));
    debug.breakAt({ func: 'fib' });
    paused(await debug.continue());
    await sleep(300);
    const output = finished(await debug.continue());
    expect(strs(output.values)).toEqual([`I32(${fibValue(20)})`]);
    expect(output.fuelConsumed).toBe(12 + 17 * 20);
  });

  it('an infinite loop under continue() times out within a few hundred ms; a pause before does not count', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(readFileSync(fx('infinite_loop.wat'), 'utf8'));
    const limits = new Limits({ fuel: 1e15, timeoutMs: 100 });
    const debug = await sandbox.debug(module, 'run', [], limits);
    let started = performance.now();
    const error = failed(await debug.continue());
    let elapsed = performance.now() - started;
    expect(error.kind).toBe('Timeout');
    expect(error.message).toBe('wall-clock timeout: the module ran longer than 100 ms');
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(1000);

    // Paused at the loop for 300 ms, then let go: the guest still has (about) its 100 ms.
    const again = await sandbox.debug(module, 'run', [], limits);
    again.breakAt({ func: 'run', offset: listing(module, 'run').find((l) => l.text === 'br 0')!.offset });
    paused(await again.continue());
    await sleep(300);
    again.clearBreakpoints();
    started = performance.now();
    const e2 = failed(await again.continue());
    elapsed = performance.now() - started;
    expect(e2.kind).toBe('Timeout');
    expect(elapsed).toBeGreaterThanOrEqual(50);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe('the command protocol', () => {
  it('while a debugger is paused, other runs on the same and another sandbox complete', async () => {
    const sandbox = Sandbox.denyAll();
    const other = new Sandbox(HostAbi.denyAll(), { tier: 'eager' });
    const module = await sandbox.compile(wellBehaved);
    const debug = await sandbox.debug(module, 'fib', [Value.i32(10)]);
    debug.breakAt({ func: 'fib' });
    paused(await debug.continue());
    const [a, b, c] = await Promise.all([
      sandbox.run(module, 'fib', [Value.i32(30)]),
      other.run(wellBehaved, 'fib', [Value.i32(25)]),
      sandbox.run(module, 'fib', [Value.i32(10)], undefined, { coverage: true }),
    ]);
    expect([strs(a.values), a.fuelConsumed]).toEqual([['I32(832040)'], 522]);
    expect([strs(b.values), b.fuelConsumed]).toEqual([[`I32(${fibValue(25)})`], 12 + 17 * 25]);
    expect(c.coverage).toBeDefined();
    // A second debugger on the same module, run to its end meanwhile.
    const second = await sandbox.debug(module, 'add', [Value.i32(2), Value.i32(40)]);
    expect(strs(finished(await second.continue()).values)).toEqual(['I32(42)']);
    expect(debug.state).toBe('paused');
    const output = finished(await debug.continue());
    expect([strs(output.values), output.fuelConsumed]).toEqual([[`I32(${fibValue(10)})`], 12 + 17 * 10]);
  });

  it('a command while one runs rejects; after the end every command resolves to the final event', async () => {
    const sandbox = Sandbox.denyAll();
    const debug = await sandbox.debug(wellBehaved, 'fib', [Value.i32(200_000)]);
    const running = debug.continue();
    expect(debug.state).toBe('running');
    await expect(debug.step()).rejects.toThrow(/already running/);
    await expect(debug.continue()).rejects.toThrow();
    await expect(debug.stepOver()).rejects.toThrow();
    await expect(debug.stepOut()).rejects.toThrow();
    const end = await running;
    const output = finished(end);
    expect(output.fuelConsumed).toBe(12 + 17 * 200_000);
    expect(debug.state).toBe('ended');
    for (const next of [debug.step(), debug.continue(), debug.stepOver(), debug.stepOut()]) expect(await next).toBe(end);

    const failing = await sandbox.debug(trapsWat, 'div', [Value.i32(1), Value.i32(0)]);
    const fail = await failing.step();
    paused(fail);
    const last = await failing.continue();
    failed(last);
    expect(await failing.step()).toBe(last);
  });

  it('a debugger of an unknown export or bad arguments ends failed, as run rejects', async () => {
    const sandbox = Sandbox.denyAll();
    const plain = await failure(sandbox.run(wellBehaved, 'nope'));
    const debug = await sandbox.debug(wellBehaved, 'nope');
    const e = failed(await debug.continue());
    expect([e.kind, e.message]).toEqual([plain.kind, plain.message]);
  });
});

// ---- the CLI ----

async function cli(argv: string[], script: string[] = []): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io = {
    stdout: (l: string) => stdout.push(l),
    stderr: (l: string) => stderr.push(l),
    readLines: async function* lines(): AsyncIterable<string> {
      for (const line of script) yield line;
    },
  };
  const code = await runCli(argv, io, { version: '9.9.9' });
  return { code, stdout, stderr };
}

describe('the CLI', () => {
  it('--debug: a scripted session on traps.wat’s div(7, 0)', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(trapsWat);
    const div = listing(module, 'div');
    const plain = await failure(sandbox.run(module, 'div', [Value.i32(7), Value.i32(0)]));
    const r = await cli([fx('traps.wat'), '--invoke', 'div', '--arg', '7', '--arg', '0', '--debug'],
      ['break div', 'continue', 'bt', 'locals', 'stack', 'step', 'stack', 'x 0 16', 'continue']);
    expect(div[0]!.offset).toBe(0x5e);
    expect(r.stdout.join('\n').split('\n')).toEqual([
      'sandboxd debugger: the guest has not started; type help for the commands',
      `breakpoint at ${hex(div[0]!.offset)} in traps!div`,
      `paused at ${hex(div[0]!.offset)} in traps!div: local.get 0`,
      `  0: ${hex(div[0]!.offset)} - traps!div  local.get 0`,
      '  local 0: I32(7)',
      '  local 1: I32(0)',
      '  (empty)',
      `paused at ${hex(div[1]!.offset)} in traps!div: local.get 1`,
      '  0: I32(7)',
      `  0x00000000  ${Array(16).fill('00').join(' ')}  ${'.'.repeat(16)}`,
      `failed: ${plain.message}`,
    ].join('\n').split('\n'));
    expect(plain.message).toBe('guest trap: wasm trap: integer divide by zero\nwasm backtrace:\n    0:     0x62 - traps!div');
    expect(r.code).toBe(8);
    expect(r.stderr).toEqual([]);
  });

  it('--debug: next, finish, list, globals, help, errors; unfinished is exit 0; finished prints the result', async () => {
    const module = await Sandbox.denyAll().compile(cWasm);
    const run = listing(module, 'run');
    const scale = listing(module, 'scale');
    const callAt = run.find((l) => l.text === 'call 1')!.offset;
    const r = await cli([fx('c/traps.wasm'), '--arg', '5', '--debug'],
      ['help', 'frob', 'break nowhere', 'locals', `break run+${hex(callAt)}`, 'continue', 'next', 'stack', 'quit', 'continue']);
    const out = r.stdout.join('\n').split('\n');
    expect(out).toContain('  break FUNC[+OFFSET]  break at a function (index, export or name) or one of its instructions (b)');
    expect(out).toContain('error: unknown command "frob" (type help)');
    expect(out.some((l) => l.startsWith('error: ') && l.includes('nowhere'))).toBe(true);
    expect(out).toContain('error: the guest is not paused'); // locals before the start
    expect(out).toContain(`breakpoint at ${hex(callAt)} in <unknown>!run`);
    expect(out).toContain(`paused at ${hex(callAt)} in <unknown>!run: call 1`);
    const next = run[run.findIndex((l) => l.offset === callAt) + 1]!;
    // `next` runs the call through: run's next instruction, scale(7, 5) on the stack.
    expect(out.slice(-2)).toEqual([`paused at ${hex(next.offset)} in <unknown>!run: ${next.text}`, `  0: I32(${1000 / 5 + 7})`]);
    expect(r.code).toBe(0); // quit before the end: the run's outcome is none

    const f = await cli([fx('c/traps.wasm'), '--arg', '5', '--debug'], ['break div', 'continue', 'finish', 'list', 'globals']);
    const fout = f.stdout.join('\n').split('\n');
    const afterCall = scale[scale.findIndex((l) => l.text === 'call 0') + 1]!;
    expect(fout).toContain(`paused at ${hex(afterCall.offset)} in <unknown>!scale: ${afterCall.text}`);
    expect(fout).toContain('<unknown>!scale:');
    // list: the function's instructions (it has fewer than 11), the current one marked.
    expect(fout.filter((l) => /^(=>| {2}) 0x[0-9a-f]+: /.test(l))).toEqual(scale.map((l) => `${l.offset === afterCall.offset ? '=>' : '  '} ${hex(l.offset)}: ${l.text}`));
    // The C program's one global, wasm-ld's __stack_pointer: a mutable i32.
    expect(fout[fout.length - 1]).toMatch(/^ {2}global 0: mut i32 = I32\(\d+\)$/);
    expect(f.code).toBe(0); // the commands ran out before the end

    const done = await cli([fx('well_behaved.wat'), '--invoke', 'fib', '--arg', '3', '--debug'], ['continue']);
    expect(done.stdout.slice(1)).toEqual(['finished: result: I32(2)', `fuel consumed: ${12 + 17 * 3}`]);
    expect(done.code).toBe(0);
  });

  it('--debug on the C fixture’s trap: source positions in the backtrace', async () => {
    const r = await cli([fx('c/traps.wasm'), '--arg', '0', '--debug'], ['continue']);
    expect(r.code).toBe(8);
    const div = marked('div');
    expect(r.stdout.join('\n')).toContain(`<unknown>!div at fixtures/c/traps.c:${div.line}:${div.text.indexOf('/') + 1}`);
  });

  it('the C fixture’s trap backtrace names its source lines', async () => {
    const r = await cli([fx('c/traps.wasm'), '--arg', '0']);
    expect(r.code).toBe(8);
    const module = await Sandbox.denyAll().compile(cWasm);
    const divOffset = listing(module, 'div').find((l) => l.text === 'i32.div_s')!.offset;
    const div = marked('div');
    const scale = marked('scale calls div');
    const run = marked('run calls scale');
    const lines = r.stderr.join('\n').split('\n');
    expect(lines[0]).toBe('sandboxd: guest trap: wasm trap: integer divide by zero');
    expect(lines[1]).toBe('wasm backtrace:');
    // The column: the `/` of `a / b`; a call's: its callee's name.
    expect(lines[2]).toBe(`    0: ${hex(divOffset).padStart(8)} - <unknown>!div at fixtures/c/traps.c:${div.line}:${div.text.indexOf('/') + 1}`);
    expect(lines[3]).toMatch(new RegExp(` - <unknown>!scale at fixtures/c/traps\\.c:${scale.line}:${scale.text.indexOf('div(') + 1}$`));
    expect(lines[4]).toMatch(new RegExp(` - <unknown>!run at fixtures/c/traps\\.c:${run.line}:${run.text.indexOf('scale(') + 1}$`));
    expect(lines).toHaveLength(5);
  });

  it('--trace 5 prints the first five instructions to stderr', async () => {
    const out = await Sandbox.denyAll().run(wellBehaved, 'fib', [Value.i32(3)], undefined, { trace: { limit: 5 } });
    const r = await cli([fx('well_behaved.wat'), '--invoke', 'fib', '--arg', '3', '--trace', '5']);
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual(['result: I32(2)']);
    const traces = r.stderr.filter((l) => l.startsWith('trace:'));
    expect(traces).toHaveLength(5);
    expect(traces).toEqual(out.trace!.map((t) => `trace: 0x${t.offset.toString(16).padStart(6, '0')}  ${t.funcName}  ${t.instruction}${t.stack.length > 0 ? `  [${t.stack.join(' ')}]` : ''}`));
    expect(traces[0]).toBe('trace: 0x000039  <unknown>!<wasm function 1>  i32.const 0');
    expect(traces[1]).toBe('trace: 0x00003b  <unknown>!<wasm function 1>  local.set 1  [i32:0]');
    expect(r.stderr[r.stderr.length - 1]).toBe(`fuel consumed: ${12 + 17 * 3}`);
  });

  it('--coverage FILE.json and FILE.lcov', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandboxd-cov-'));
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(cWasm);
    const lib = await sandbox.run(module, 'run_fib', [Value.i32(5)], undefined, { coverage: true });

    const json = join(dir, 'cov.json');
    const r1 = await cli([fx('c/traps.wasm'), '--invoke', 'run_fib', '--arg', '5', '--coverage', json]);
    expect(r1.code).toBe(0);
    expect(r1.stdout).toEqual(['result: I32(5)']);
    expect(JSON.parse(readFileSync(json, 'utf8')) as FunctionCoverage[]).toEqual(lib.coverage);

    const lcov = join(dir, 'cov.lcov');
    const r2 = await cli([fx('c/traps.wasm'), '--invoke', 'run_fib', '--arg', '5', '--coverage', lcov]);
    expect(r2.code).toBe(0);
    const text = readFileSync(lcov, 'utf8');
    expect(text).toBe(module.lcov(lib.coverage!));
    expect(text).toContain(`DA:${marked('fib').line},1`);
    expect(text).toContain(`DA:${marked('div').line},0`);

    // A failed run writes its coverage too.
    const trapJson = join(dir, 'trap.json');
    const r3 = await cli([fx('c/traps.wasm'), '--arg', '0', '--coverage', trapJson]);
    expect(r3.code).toBe(8);
    const trapCov = JSON.parse(readFileSync(trapJson, 'utf8')) as FunctionCoverage[];
    expect(trapCov.find((f) => f.funcName === '<unknown>!div')!.covered.length).toBeGreaterThan(0);

    // No DWARF, no lcov: said so, and no file.
    const none = join(dir, 'none.lcov');
    const r4 = await cli([fx('well_behaved.wat'), '--invoke', 'fib', '--arg', '5', '--coverage', none]);
    expect(r4.code).toBe(0);
    expect(r4.stderr.some((l) => l.includes('no lcov written'))).toBe(true);
    expect(existsSync(none)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
