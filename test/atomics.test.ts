/**
 * The threads proposal's atomic instructions (src/interpreter/atomic-ops.ts,
 * atomic-dispatch.ts), differential against Node's own engine.
 *
 * Each 0xFE instruction runs through `atomicOperation` on a hand-built code array and frame,
 * on a real MemoryInst, and as a one-instruction function in V8 (assembled by wabt with
 * threads), with the same memory contents and operands; results and memory must agree. The
 * table is checked against wabt's encoding and alignment rule; traps, wait (not-equal,
 * timed-out, the suspension hook), notify and fence are tested directly; the threads
 * proposal's atomic.wast script (wasm-testsuite-3) runs its assertions through the table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATOMIC_OPS, ATOMIC_OPERANDS, atomicOpInfo, type AtomicOpInfo } from '../src/interpreter/atomic-ops.js';
import {
  type AtomicWaitHook, atomicOperation, isSharedMemory, WAIT_NOT_EQUAL, WAIT_TIMED_OUT,
} from '../src/interpreter/atomic-dispatch.js';
import { Trap, TrapKind } from '../src/interpreter/errors.js';
import { type MemoryInst, PAGE_SIZE, Store } from '../src/interpreter/store.js';
import { I32, I64 } from '../src/interpreter/types.js';

type Wabt = Awaited<ReturnType<typeof import('wabt')>>;
let wabt: Wabt;
const FEATURES = { threads: true };
/** Generous: the tests take well under a second of CPU, but a loaded machine stretches wall time. */
const SLOW = 120_000;

beforeAll(async () => {
  wabt = await (await import('wabt')).default();
}, SLOW);

function assemble(text: string): Uint8Array<ArrayBuffer> {
  const mod = wabt.parseWat('atomics.wat', text, FEATURES);
  try {
    // wabt.js's validate takes the features too (its .d.ts leaves them out): shared memories need threads.
    (mod as unknown as { validate(features: object): void }).validate(FEATURES);
    return new Uint8Array(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

function assembles(text: string): boolean {
  try {
    assemble(text);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Running one instruction
// ---------------------------------------------------------------------------------------------

/** A memory of `pages` pages; shared or not (the `type.shared` that isSharedMemory reads). */
function memory(shared: boolean, pages = 1): MemoryInst {
  const type = { limits: { min: pages, max: pages }, shared };
  return new Store().createMemory(type);
}

/** A value of the instruction's operand or result: an i32 as a number, an i64 as a bigint. */
type Value = number | bigint;

/** Which parameter (by index) each operand word names. */
const PARAM_OF: Record<string, number> = { addr: 0, value: 1, expected: 1, count: 1, replacement: 2, timeout: 2 };

const NO_WAIT: AtomicWaitHook = {
  atomicWaitSuspend(): boolean {
    throw new Error('unexpected suspension');
  },
};

const BASE = 6; // even, so every slot is
const PC = 3;

interface Outcome {
  /** The value returned: the next pc, or ~pc of it for a suspension. */
  readonly next: number;
  readonly result: Value | undefined;
  readonly s32: Int32Array;
  readonly d: number;
}

/**
 * Runs `info` with `args` (address first) on `mem`. Parameter i sits in slot i of the frame
 * (word BASE + 2i), the result in the slot after them — or, with `alias`, in parameter
 * `alias`'s slot. `offset` is the memarg offset; the address operand is args[0].
 */
function run(
  mem: MemoryInst | null, info: AtomicOpInfo, args: readonly Value[], options: { offset?: number; alias?: number; hook?: AtomicWaitHook } = {},
): Outcome {
  const s32 = new Int32Array(BASE + 2 * (info.params.length + 2));
  s32.fill(0x5a5a5a5a);
  args.forEach((v, i) => {
    const w = BASE + 2 * i;
    if (typeof v === 'bigint') {
      s32[w] = Number(BigInt.asIntN(32, v));
      s32[w + 1] = Number(BigInt.asIntN(32, v >> 32n));
    } else {
      s32[w] = v | 0;
    }
  });
  const dWord = 2 * (options.alias ?? info.params.length);
  const words = [0x7e, info.op];
  for (const operand of info.operands) {
    if (operand === 'd') words.push(dWord);
    else if (operand === 'offset') words.push((options.offset ?? 0) | 0);
    else words.push(2 * PARAM_OF[operand]!);
  }
  const code = new Int32Array(PC + words.length + 2);
  code.set(words, PC);
  const next = atomicOperation(mem, code, PC, s32, BASE, options.hook ?? NO_WAIT);
  const d = BASE + dWord;
  let result: Value | undefined;
  if (info.results.length === 1) {
    result = info.results[0] === I64 ? (BigInt(s32[d + 1]!) << 32n) | BigInt(s32[d]! >>> 0) : s32[d]!;
  }
  return { next, result, s32, d };
}

/** The trap kind `fn` throws, or null when it returns. */
function trapOf(fn: () => unknown): TrapKind | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof Trap) return error.kind;
    throw error;
  }
}

const byName = new Map(ATOMIC_OPS.map((info) => [info.name, info]));
function op(name: string): AtomicOpInfo {
  const info = byName.get(name);
  if (info === undefined) throw new Error(`no ${name}`);
  return info;
}

// ---------------------------------------------------------------------------------------------
// Random inputs
// ---------------------------------------------------------------------------------------------

/** xorshift32 with a fixed seed: the same inputs on every run. */
let seed = 0x2545f491;
function rand(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}
const SPECIAL32 = [
  0, 1, 2, -1, -2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, -0x80000000,
  0x80000001 | 0, 0x12345678, 0xfedcba98 | 0, 0xff00ff00 | 0, 0x00ff00ff,
];
function word(): number {
  return rand() % 3 === 0 ? SPECIAL32[rand() % SPECIAL32.length]! : rand() | 0;
}
function value(type: number): Value {
  if (type === I32) return word();
  return BigInt.asIntN(64, (BigInt(word() >>> 0) << 32n) | BigInt(word() >>> 0));
}

const REGION = 64;

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

const NAMES: Record<number, string> = { [I32]: 'i32', [I64]: 'i64' };

describe('the atomic instruction table', () => {
  it('has every 0xFE instruction of the threads proposal, with the encoding and types wabt gives it', () => {
    expect(ATOMIC_OPS.length).toBe(4 + 7 + 7 + 6 * 7 + 7);
    for (const info of ATOMIC_OPS) {
      const params = info.params.map((t) => NAMES[t]).join(' ');
      const results = info.results.map((t) => NAMES[t]).join(' ');
      const gets = info.params.map((_, i) => `local.get ${i}`).join(' ');
      const bytes = assemble(`(module (memory 1 1 shared) (func (param ${params}) (result ${results}) ${gets} ${info.name}))`);
      const tail = info.entry === 'fence' ? [0xfe, 0x03, 0x00, 0x0b] : [0xfe, info.op, info.alignLog2, 0x00, 0x0b];
      expect(Array.from(bytes.subarray(bytes.length - tail.length)), info.name).toEqual(tail);
      expect(atomicOpInfo(info.op)).toBe(info);
      expect(info.operands).toBe(ATOMIC_OPERANDS[info.entry]);
      expect(info.imm).toBe(info.entry === 'fence' ? 'zeroByte' : 'memarg');
    }
    for (const sub of [0x04, 0x0f, 0x4f, 0x50, 0x100, -1]) expect(atomicOpInfo(sub)).toBeUndefined();
  }, SLOW);

  it('requires the alignment to equal the natural one, as wabt does', () => {
    for (const info of ATOMIC_OPS.filter((i) => i.entry !== 'fence')) {
      const params = info.params.map((t) => NAMES[t]).join(' ');
      const results = info.results.map((t) => NAMES[t]).join(' ');
      const gets = info.params.map((_, i) => `local.get ${i}`).join(' ');
      const module = (align: number) =>
        `(module (memory 1 1 shared) (func (param ${params}) (result ${results}) ${gets} ${info.name} align=${align}))`;
      expect(assembles(module(info.accessBytes)), info.name).toBe(true);
      expect(assembles(module(info.accessBytes * 2)), info.name).toBe(false);
      if (info.accessBytes > 1) expect(assembles(module(info.accessBytes / 2)), info.name).toBe(false);
    }
  }, SLOW);

  it('returns the pc after the operand words the table lists', () => {
    const mem = memory(true);
    for (const info of ATOMIC_OPS) {
      const args = info.params.map((t, i) => (i === 0 ? 8 : t === I64 ? 0n : 0));
      expect(run(mem, info, args).next, info.name).toBe(PC + 2 + info.operands.length);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Against V8
// ---------------------------------------------------------------------------------------------

describe('atomic loads, stores, read-modify-write and compare-exchange against V8', () => {
  const tested = ATOMIC_OPS.filter((i) => ['load', 'store', 'rmw', 'cmpxchg'].includes(i.entry));
  let v8: Record<string, (...args: Value[]) => Value | undefined>;
  let v8Bytes: Uint8Array;

  beforeAll(async () => {
    const funcs = tested.map((info) => {
      const params = info.params.map((t) => NAMES[t]).join(' ');
      const results = info.results.length > 0 ? `(result ${info.results.map((t) => NAMES[t]).join(' ')})` : '';
      const gets = info.params.map((_, i) => `local.get ${i}`).join(' ');
      return `(func (export "f${info.op}") (param ${params}) ${results} ${gets} ${info.name})`;
    });
    const text = `(module (memory (export "mem") 1 1 shared) ${funcs.join('\n')})`;
    const { instance } = await WebAssembly.instantiate(assemble(text), {});
    v8 = instance.exports as unknown as typeof v8;
    v8Bytes = new Uint8Array((instance.exports.mem as WebAssembly.Memory).buffer);
  }, SLOW);

  const CASES = 400;

  it(`agree on results and memory, ${CASES} inputs per instruction, at every offset split and in place`, () => {
    const mem = memory(true);
    const failures: string[] = [];
    for (const info of tested) {
      const fn = v8[`f${info.op}`]!;
      for (let c = 0; c < CASES && failures.length < 20; c++) {
        const init = new Uint8Array(REGION);
        for (let i = 0; i < REGION; i++) init[i] = c % 5 === 0 ? [0, 0xff, 0x80, 0x7f][rand() & 3]! : rand() & 0xff;
        mem.bytes.set(init, 0);
        v8Bytes.set(init, 0);
        const ea = (rand() % (REGION / info.accessBytes)) * info.accessBytes;
        const args: Value[] = [ea, ...info.params.slice(1).map((t) => value(t))];
        if (info.entry === 'cmpxchg' && c % 2 === 0) {
          // Expect what memory holds, with noise above the access width (which must not count).
          let held = 0n;
          for (let i = info.accessBytes - 1; i >= 0; i--) held = (held << 8n) | BigInt(init[ea + i]!);
          const bits = BigInt(info.accessBytes * 8);
          const noise = c % 4 === 0 ? 0n : (BigInt(rand()) << 32n | BigInt(rand())) << bits;
          const expected = info.valueType === I64 ? BigInt.asIntN(64, held | noise) : Number(BigInt.asIntN(32, held | noise));
          args[1] = expected;
        }
        const expected = fn(...args);
        const expectedBytes = Array.from(v8Bytes.subarray(0, REGION));
        const offset = rand() % (ea + 1);
        const variants: { offset: number; alias?: number }[] = [{ offset: 0 }, { offset }];
        if (c % 3 === 0) for (let p = 0; p < info.params.length; p++) variants.push({ offset, alias: p });
        for (const variant of variants) {
          mem.bytes.set(init, 0);
          const ours = [...args];
          ours[0] = ea - variant.offset;
          const outcome = run(mem, info, ours, variant);
          const got = outcome.result;
          const gotBytes = Array.from(mem.bytes.subarray(0, REGION));
          const expectedValue = info.results.length === 0 ? undefined
            : info.results[0] === I64 ? BigInt.asIntN(64, expected as bigint) : expected;
          const gotValue = got === undefined ? undefined : typeof got === 'bigint' ? BigInt.asIntN(64, got) : got;
          if (gotValue !== expectedValue || gotBytes.join() !== expectedBytes.join()) {
            failures.push(`${info.name} ${args.join(', ')} (offset ${variant.offset}, alias ${variant.alias}): `
              + `got ${gotValue}, expected ${expectedValue}${gotBytes.join() !== expectedBytes.join() ? ', memory differs' : ''}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, SLOW);

  it('narrow results are zero-extended; narrow operations wrap', () => {
    const mem = memory(true);
    const view = mem.view;
    view.setUint32(0, 0xfffffffe, true);
    expect(run(mem, op('i32.atomic.rmw8.add_u'), [0, 3]).result).toBe(0xfe);
    expect(view.getUint32(0, true)).toBe(0xffffff01); // 0xfe + 3 wraps within the byte
    expect(run(mem, op('i64.atomic.rmw16.sub_u'), [0, 2n]).result).toBe(0xff01n);
    expect(view.getUint32(0, true)).toBe(0xfffffeff);
    expect(run(mem, op('i64.atomic.rmw32.add_u'), [0, 0x1_0000_0001n]).result).toBe(0xfffffeffn);
    expect(view.getUint32(0, true)).toBe(0xffffff00);
    expect(view.getUint32(4, true)).toBe(0); // the high word of the operand is never stored
    view.setBigUint64(8, 0xffff_ffff_ffff_ffffn, true);
    expect(run(mem, op('i64.atomic.rmw.add'), [8, 1n]).result).toBe(-1n);
    expect(view.getBigUint64(8, true)).toBe(0n); // carry across the halves
    expect(run(mem, op('i64.atomic.rmw.sub'), [8, 1n]).result).toBe(0n);
    expect(view.getBigUint64(8, true)).toBe(0xffff_ffff_ffff_ffffn); // borrow across the halves
    expect(run(mem, op('i64.atomic.load8_u'), [8]).result).toBe(0xffn);
    expect(run(mem, op('i32.atomic.load16_u'), [8]).result).toBe(0xffff);
    expect(run(mem, op('i64.atomic.load32_u'), [8]).result).toBe(0xffff_ffffn);
    run(mem, op('i64.atomic.store16'), [8, 0x1234_5678_9abc_def0n]);
    expect(view.getBigUint64(8, true)).toBe(0xffff_ffff_ffff_def0n);
  });

  it('cmpxchg compares the expected value wrapped to the access width', () => {
    const mem = memory(true);
    const view = mem.view;
    view.setUint32(0, 0x000000ff, true);
    // 0x1ff wraps to 0xff: equal, so 0x1234 (wrapped to 0x34) is stored.
    expect(run(mem, op('i32.atomic.rmw8.cmpxchg_u'), [0, 0x1ff, 0x1234]).result).toBe(0xff);
    expect(view.getUint32(0, true)).toBe(0x34);
    // Unequal: nothing stored, the loaded value returned.
    expect(run(mem, op('i32.atomic.rmw8.cmpxchg_u'), [0, 0x35, 0x99]).result).toBe(0x34);
    expect(view.getUint32(0, true)).toBe(0x34);
    expect(run(mem, op('i64.atomic.rmw32.cmpxchg_u'), [0, 0x7_0000_0034n, -1n]).result).toBe(0x34n);
    expect(view.getUint32(0, true)).toBe(0xffffffff);
    expect(view.getUint32(4, true)).toBe(0);
    expect(run(mem, op('i64.atomic.rmw16.cmpxchg_u'), [0, -1n, 0n]).result).toBe(0xffffn);
    expect(view.getUint32(0, true)).toBe(0xffff0000);
    // 64-bit: both halves must match.
    view.setBigUint64(8, 0x1_0000_0002n, true);
    expect(run(mem, op('i64.atomic.rmw.cmpxchg'), [8, 0x2_0000_0002n, 5n]).result).toBe(0x1_0000_0002n);
    expect(view.getBigUint64(8, true)).toBe(0x1_0000_0002n);
    expect(run(mem, op('i64.atomic.rmw.cmpxchg'), [8, 0x1_0000_0002n, 5n]).result).toBe(0x1_0000_0002n);
    expect(view.getBigUint64(8, true)).toBe(5n);
  });

  it('trap where V8 traps: unaligned, out of bounds; the last aligned address works', () => {
    const mem = memory(true);
    const problems: string[] = [];
    for (const info of tested) {
      const fn = v8[`f${info.op}`]!;
      const rest = info.params.slice(1).map((t) => (t === I64 ? 0n : 0));
      const cases: [number, TrapKind | null][] = [
        [PAGE_SIZE - info.accessBytes, null],
        [PAGE_SIZE, TrapKind.MemoryOutOfBounds],
        [0xfffffff8, TrapKind.MemoryOutOfBounds],
      ];
      if (info.accessBytes > 1) cases.push([1, TrapKind.UnalignedAtomic], [info.accessBytes / 2 + 8, TrapKind.UnalignedAtomic]);
      for (const [ea, kind] of cases) {
        let v8Error: string | null = null;
        try {
          fn(ea | 0, ...rest);
        } catch (error) {
          v8Error = (error as Error).message;
        }
        const v8Kind = v8Error === null ? null : /unaligned/.test(v8Error) ? TrapKind.UnalignedAtomic
          : /out of bounds/.test(v8Error) ? TrapKind.MemoryOutOfBounds : v8Error;
        const ours = trapOf(() => run(mem, info, [ea | 0, ...rest]));
        // Through the offset: the effective address is address + offset, never wrapped.
        const viaOffset = trapOf(() => run(mem, info, [(ea - (ea & 0xfff0)) | 0, ...rest], { offset: ea & 0xfff0 }));
        if (v8Kind !== kind || ours !== kind || viaOffset !== kind) {
          problems.push(`${info.name} at ${ea}: V8 ${v8Kind}, ours ${ours}, via offset ${viaOffset}, expected ${kind}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('traps', () => {
  it('check alignment before bounds (wasmtime order), with the effective address', () => {
    const mem = memory(true);
    for (const info of ATOMIC_OPS.filter((i) => i.accessBytes > 1)) {
      const rest = info.params.slice(1).map((t) => (t === I64 ? 0n : 0));
      // Unaligned and out of bounds: the alignment trap.
      expect(trapOf(() => run(mem, info, [PAGE_SIZE + 1, ...rest])), info.name).toBe(TrapKind.UnalignedAtomic);
      // An aligned address with an unaligned offset, and the reverse.
      expect(trapOf(() => run(mem, info, [8, ...rest], { offset: 1 })), info.name).toBe(TrapKind.UnalignedAtomic);
      expect(trapOf(() => run(mem, info, [1, ...rest], { offset: 7 })), info.name).toBe(null);
      // 0xfffffff8 + 16 is 2^32 + 8: out of bounds, not address 8.
      expect(trapOf(() => run(mem, info, [0xfffffff8 | 0, ...rest], { offset: 16 })), info.name).toBe(TrapKind.MemoryOutOfBounds);
      expect(trapOf(() => run(mem, info, [0, ...rest], { offset: 0xfffffff8 | 0 })), info.name).toBe(TrapKind.MemoryOutOfBounds);
    }
  });

  it('trap as out of bounds without a memory, except atomic.fence', () => {
    for (const info of ATOMIC_OPS) {
      const args = info.params.map((t, i) => (i === 0 ? 0 : t === I64 ? 0n : 0));
      expect(trapOf(() => run(null, info, args)), info.name).toBe(info.entry === 'fence' ? null : TrapKind.MemoryOutOfBounds);
    }
  });

  it('word their messages as wasmtime does', () => {
    expect(new Trap(TrapKind.UnalignedAtomic).message).toBe('wasm trap: unaligned atomic');
    expect(new Trap(TrapKind.AtomicWaitNonSharedMemory).message).toBe('wasm trap: atomic wait on non-shared memory');
  });

  it('see memory growth (the view and size are read at each instruction)', () => {
    const type = { limits: { min: 1, max: 2 }, shared: true };
    const mem = new Store().createMemory(type);
    const info = op('i32.atomic.rmw.add');
    expect(trapOf(() => run(mem, info, [PAGE_SIZE, 1]))).toBe(TrapKind.MemoryOutOfBounds);
    expect(mem.grow(1)).toBe(1);
    expect(run(mem, info, [PAGE_SIZE, 5]).result).toBe(0);
    expect(run(mem, info, [PAGE_SIZE, 1]).result).toBe(5);
  });
});

// ---------------------------------------------------------------------------------------------
// wait, notify, fence
// ---------------------------------------------------------------------------------------------

/** A hook that records what it was asked, and answers `pause`. */
function recordingHook(pause: boolean): AtomicWaitHook & { calls: number[] } {
  const calls: number[] = [];
  return { calls, atomicWaitSuspend: (ns: number) => { calls.push(ns); return pause; } };
}

describe('memory.atomic.wait32 / wait64 (one agent)', () => {
  const wait32 = () => op('memory.atomic.wait32');
  const wait64 = () => op('memory.atomic.wait64');

  it('returns 1 ("not-equal") when memory differs from the expected value, without suspending', () => {
    const mem = memory(true);
    mem.view.setBigUint64(0, 0x0000_ffff_ffff_ffffn, true);
    const hook = recordingHook(true);
    expect(run(mem, wait32(), [0, 0, -1n], { hook }).result).toBe(WAIT_NOT_EQUAL);
    expect(run(mem, wait64(), [0, 0n, -1n], { hook }).result).toBe(WAIT_NOT_EQUAL);
    // Equal low word, different high word.
    expect(run(mem, wait64(), [0, 0xffff_ffffn, -1n], { hook }).result).toBe(WAIT_NOT_EQUAL);
    // wait32 compares all 32 bits.
    expect(run(mem, wait32(), [4, 0xffff, 5n], { hook }).result).toBe(WAIT_TIMED_OUT); // equal: suspended
    expect(run(mem, wait32(), [4, 0x1ffff, 5n], { hook }).result).toBe(WAIT_NOT_EQUAL);
    expect(hook.calls).toEqual([5]);
  });

  it('with timeout 0 and an equal value, returns 2 ("timed-out") at once', () => {
    const mem = memory(true);
    const out32 = run(mem, wait32(), [0, 0, 0n]);
    expect(out32.result).toBe(WAIT_TIMED_OUT);
    expect(out32.next).toBe(PC + 7);
    expect(run(mem, wait64(), [8, 0n, 0n]).result).toBe(WAIT_TIMED_OUT);
  });

  it('with a timeout, writes 2 and asks the hook to let the time pass: ~next to pause, next to go on', () => {
    const mem = memory(true);
    mem.view.setBigInt64(16, -5n, true);
    const pausing = recordingHook(true);
    const paused = run(mem, wait64(), [16, -5n, 1_500_000n], { hook: pausing });
    expect(paused.result).toBe(WAIT_TIMED_OUT);
    expect(paused.next).toBeLessThan(0);
    expect(~paused.next).toBe(PC + 7);
    const going = recordingHook(false);
    const went = run(mem, wait32(), [16, -5, 1n], { hook: going });
    expect(went.next).toBe(PC + 7);
    expect(went.result).toBe(WAIT_TIMED_OUT);
    // No timeout (negative): Infinity. A large one: the exact count of nanoseconds.
    run(mem, wait32(), [16, -5, -1n], { hook: going });
    run(mem, wait32(), [16, -5, -0x8000_0000_0000_0000n], { hook: going });
    run(mem, wait32(), [16, -5, 0x12_3456_789an], { hook: going });
    run(mem, wait32(), [16, -5, 0x7fff_ffff_ffff_ffffn], { hook: going });
    expect(pausing.calls).toEqual([1_500_000]);
    expect(going.calls).toEqual([1, Infinity, Infinity, 0x12_3456_789a, 2 ** 63]);
  });

  it('writes the result last: d may be the address, expected or timeout slot', () => {
    const mem = memory(true);
    for (const alias of [0, 1, 2]) {
      expect(run(mem, wait32(), [0, 0, 0n], { alias }).result).toBe(WAIT_TIMED_OUT);
      expect(run(mem, wait32(), [0, 1, 0n], { alias }).result).toBe(WAIT_NOT_EQUAL);
      expect(run(mem, wait64(), [0, 0n, 0n], { alias }).result).toBe(WAIT_TIMED_OUT);
    }
  });

  it('traps on an unshared memory, after the alignment and bounds checks', () => {
    const mem = memory(false);
    expect(isSharedMemory(mem)).toBe(false);
    expect(isSharedMemory(memory(true))).toBe(true);
    expect(isSharedMemory(new Store().createMemory({ limits: { min: 1, max: 1 } }))).toBe(false);
    for (const [info, equal, unequal] of [[wait32(), 0, 1], [wait64(), 0n, 1n]] as const) {
      // Whether or not the value matches, whatever the timeout.
      expect(trapOf(() => run(mem, info, [0, equal, 0n])), info.name).toBe(TrapKind.AtomicWaitNonSharedMemory);
      expect(trapOf(() => run(mem, info, [0, unequal, -1n])), info.name).toBe(TrapKind.AtomicWaitNonSharedMemory);
      expect(trapOf(() => run(mem, info, [2, equal, 0n])), info.name).toBe(TrapKind.UnalignedAtomic);
      expect(trapOf(() => run(mem, info, [PAGE_SIZE, equal, 0n])), info.name).toBe(TrapKind.MemoryOutOfBounds);
    }
  });

  it('lets a driver sleep out a finite wait and end an infinite one at the deadline, the event loop free', async () => {
    // What the integration does (docs/atomics.md): the hook leaves a promise, the driver races
    // it against the run's deadline.
    class Sleeper implements AtomicWaitHook {
      pending: Promise<void> | null = null;
      atomicWaitSuspend(ns: number): boolean {
        this.pending = ns === Infinity ? new Promise<void>(() => {}) : new Promise<void>((r) => setTimeout(r, ns / 1e6));
        return true;
      }
    }
    const mem = memory(true);
    const deadline = (ms: number) => new Promise<'deadline'>((r) => setTimeout(() => r('deadline'), ms));
    let ticks = 0;
    const ticker = setInterval(() => { ticks++; }, 2);
    try {
      const finite = new Sleeper();
      const t0 = performance.now();
      const out = run(mem, op('memory.atomic.wait32'), [0, 0, 30_000_000n], { hook: finite });
      expect(out.next).toBeLessThan(0);
      expect(await Promise.race([finite.pending!.then(() => 'resumed' as const), deadline(5_000)])).toBe('resumed');
      expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
      expect(out.s32[out.d]).toBe(WAIT_TIMED_OUT);

      const infinite = new Sleeper();
      run(mem, op('memory.atomic.wait64'), [0, 0n, -1n], { hook: infinite });
      expect(await Promise.race([infinite.pending!.then(() => 'resumed' as const), deadline(40)])).toBe('deadline');
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(ticker);
    }
  });
});

describe('memory.atomic.notify and atomic.fence', () => {
  it('notify wakes nobody: 0, on shared and unshared memory, for any count', () => {
    const notify = op('memory.atomic.notify');
    for (const shared of [true, false]) {
      const mem = memory(shared);
      for (const count of [0, 1, 5, -1]) {
        expect(run(mem, notify, [PAGE_SIZE - 4, count]).result).toBe(0);
        expect(run(mem, notify, [8, count], { alias: 0 }).result).toBe(0);
        expect(run(mem, notify, [8, count], { alias: 1 }).result).toBe(0);
      }
      expect(trapOf(() => run(mem, notify, [2, 1]))).toBe(TrapKind.UnalignedAtomic);
      expect(trapOf(() => run(mem, notify, [PAGE_SIZE, 1]))).toBe(TrapKind.MemoryOutOfBounds);
      expect(trapOf(() => run(mem, notify, [PAGE_SIZE - 2, 1]))).toBe(TrapKind.UnalignedAtomic);
      expect(Array.from(mem.bytes.subarray(0, 16))).toEqual(new Array(16).fill(0));
    }
  });

  it('notify returns 0 in V8 too (one agent, nobody waiting)', async () => {
    const { instance } = await WebAssembly.instantiate(assemble(
      '(module (memory 1 1 shared) (func (export "n") (param i32 i32) (result i32) local.get 0 local.get 1 memory.atomic.notify))',
    ), {});
    expect((instance.exports.n as (a: number, c: number) => number)(0, 5)).toBe(0);
    expect(run(memory(true), op('memory.atomic.notify'), [0, 5]).result).toBe(0);
  });

  it('fence does nothing, with or without a memory', () => {
    const fence = op('atomic.fence');
    const mem = memory(true);
    const out = run(mem, fence, []);
    expect(out.next).toBe(PC + 2);
    expect(Array.from(out.s32.subarray(BASE))).toEqual(new Array(out.s32.length - BASE).fill(0x5a5a5a5a));
    expect(run(null, fence, []).next).toBe(PC + 2);
  });
});

// ---------------------------------------------------------------------------------------------
// The threads proposal's atomic.wast
// ---------------------------------------------------------------------------------------------

/** Relative to the repository (vitest's working directory), as the other suite-driven tests. */
const SCRIPT = join('..', 'shared', 'wasm-testsuite-3', 'proposals', 'threads', 'json', 'atomic', 'atomic.json');

interface ScriptValue { type: string; value?: string }
interface ScriptCommand {
  type: string;
  line: number;
  filename?: string;
  action?: { type: string; field: string; args: ScriptValue[] };
  expected?: ScriptValue[];
  text?: string;
}

describe.skipIf(!existsSync(SCRIPT))('threads proposal atomic.wast (wasm-testsuite-3)', () => {
  it('every assertion on its shared-memory modules holds through the table', () => {
    const commands = (JSON.parse(readFileSync(SCRIPT, 'utf8')) as { commands: ScriptCommand[] }).commands;
    const toValue = (v: ScriptValue): Value => (v.type === 'i64' ? BigInt.asIntN(64, BigInt(v.value!)) : Number(BigInt.asIntN(32, BigInt(v.value!))));
    let mem: MemoryInst | null = null;
    let checked = 0;
    const failures: string[] = [];
    for (const command of commands) {
      if (command.type === 'module') {
        // Modules 0 and 1 declare (memory 1 1 shared); module 2 (unshared) is only instantiated.
        mem = memory(true);
        continue;
      }
      if (command.action === undefined || mem === null) continue;
      const { field, args } = command.action;
      const values = args.map(toValue);
      if (field === 'init') {
        mem.view.setBigInt64(0, values[0] as bigint, true);
        continue;
      }
      const info = op(field);
      if (command.type === 'assert_trap') {
        const kind = trapOf(() => run(mem!, info, values));
        if (kind === null || !kind.startsWith(command.text!)) failures.push(`line ${command.line}: ${field} gave ${kind}`);
        checked++;
        continue;
      }
      const { result } = run(mem, info, values);
      if (command.type === 'assert_return') {
        const expected = command.expected!.map(toValue);
        const got = result === undefined ? [] : [result];
        if (got.length !== expected.length || got.some((g, i) => g !== expected[i])) {
          failures.push(`line ${command.line}: ${field}(${values.join(', ')}) = ${got.join()}, expected ${expected.join()}`);
        }
        checked++;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(142 + 45);
  });
});
