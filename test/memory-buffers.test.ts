/**
 * A growth up to 32 MiB takes its buffer unzeroed from Node's `Buffer.allocUnsafeSlow` and zeroes
 * it itself, in pieces (host-buffers.ts): whatever the C library's heap held before must
 * never reach the guest or the host. Here that allocation hands out buffers full of garbage, as
 * a heap that held another run's memory would, and every way a memory gets a buffer — its first,
 * growth at once and in pieces, growth in a run — must show zeros past what the memory holds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Limits, Sandbox, Value } from '../src/index.js';
import { Engine, MemoryInst, Store } from '../src/interpreter/index.js';
import { PIECE_BYTES, WorkMeter } from '../src/interpreter/pieces.js';
import { withHostRefusingAbove } from './helpers/refusing-host.js';

const GARBAGE = 0xa5;
const MiB = 1 << 20;
const allocUnsafeSlow = Buffer.allocUnsafeSlow;
/** Sizes of the buffers the memory asked for unzeroed. */
let handedOut: number[] = [];

beforeEach(() => {
  handedOut = [];
  Buffer.allocUnsafeSlow = (bytes: number) => {
    handedOut.push(bytes);
    return allocUnsafeSlow(bytes).fill(GARBAGE);
  };
});

afterEach(() => {
  Buffer.allocUnsafeSlow = allocUnsafeSlow;
});

/** The index of the first byte of `bytes` from `from` that is not zero, or -1. */
function firstNonZero(bytes: Uint8Array, from = 0): number {
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== 0) return i;
  return -1;
}

describe('unzeroed buffers are zeroed before anything reads them', () => {
  it("a memory's first buffer is the host's zeroed one, never the unzeroed allocation", () => {
    const memory = new MemoryInst(new Store(new Engine()), { limits: { min: 40, max: null } });
    expect(handedOut).toEqual([]);
    expect(firstNonZero(new Uint8Array(memory.buffer))).toBe(-1);
  });

  it('growth keeps the contents and zeroes the room, at once and in pieces', () => {
    const store = new Store(new Engine(), { maxMemoryBytes: 32 * MiB });
    const memory = new MemoryInst(store, { limits: { min: 1, max: null } });
    memory.bytes.fill(7);
    expect(memory.grow(1)).toBe(1); // at once: a buffer of 2 pages
    expect(firstNonZero(memory.bytes, 65536)).toBe(-1);
    expect(memory.bytes[65535]).toBe(7);

    // 40 pages are past twice the buffer: a buffer of just 40, 2.5 MiB copied and zeroed in pieces of 1 MiB.
    const meter = new WorkMeter();
    expect(memory.grow(38, meter)).toBe(2);
    expect(memory.pages).toBe(2); // nothing changes until the pieces are done
    let pieces = 0;
    while (!meter.continuePending()) pieces++;
    expect(pieces).toBeGreaterThan(2);
    expect(memory.pages).toBe(40);
    expect(memory.buffer.byteLength).toBe(40 * 65536);
    expect(handedOut.at(-1)).toBe(40 * 65536);
    expect(firstNonZero(new Uint8Array(memory.buffer), 2 * 65536)).toBe(-1);
    expect(memory.bytes.subarray(0, 65536).every((b) => b === 7)).toBe(true);
  });

  it('the guest reads zeros everywhere but its data after growing by 6 MiB, zeroed in pieces', async () => {
    // A data segment, and a function that grows the memory by `grow` pages and counts the
    // non-zero bytes of the whole memory.
    const wat = `(module
      (memory 1)
      (data (i32.const 1000) "\\01\\02\\03")
      (func (export "count") (param $grow i32) (result i32)
        (local $i i32) (local $n i32)
        (drop (memory.grow (local.get $grow)))
        (block $done
          (loop $next
            (br_if $done (i32.ge_u (local.get $i) (i32.mul (memory.size) (i32.const 65536))))
            (local.set $n (i32.add (local.get $n) (i32.ne (i32.load8_u (local.get $i)) (i32.const 0))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (local.get $n)))`;
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(wat);
    handedOut = []; // (the compiler's own buffers)
    const out = await sandbox.run(module, 'count', [Value.i32(100)], new Limits({ fuel: 1e9 }));
    expect(out.values[0]!.value).toBe(3);
    expect(handedOut).toEqual([101 * 65536]); // the growth's buffer, unzeroed, 6.3 MiB
  });

  it('where the whole room is refused, the doubled buffer taken instead comes unzeroed and is zeroed', () => {
    withHostRefusingAbove(32 * MiB, () => {
      const memory = new MemoryInst(new Store(new Engine(), { maxMemoryBytes: 512 * MiB }), { limits: { min: 64, max: null } });
      memory.bytes.fill(9);
      expect(memory.grow(1)).toBe(64); // past 4 MiB: the whole room refused, twice the buffer taken
      expect(memory.buffer.byteLength).toBe(128 * 65536);
      expect(handedOut).toEqual([128 * 65536]);
      expect(firstNonZero(memory.bytes, 64 * 65536)).toBe(-1);
      expect(memory.bytes.subarray(0, 64 * 65536).every((b) => b === 9)).toBe(true);
    });
  });

  it('a growth left unfinished (its pieces never done) leaves the memory as it was', () => {
    const memory = new MemoryInst(new Store(new Engine(), { maxMemoryBytes: 32 * MiB }), { limits: { min: 1, max: null } });
    const before = { buffer: memory.buffer, pages: memory.pages, bytes: memory.store.memoryBytes };
    const meter = new WorkMeter();
    expect(memory.grow(100, meter)).toBe(1);
    expect(meter.continuePending()).toBe(false); // a piece done, the run stopped there
    expect(memory.buffer).toBe(before.buffer);
    expect(memory.pages).toBe(before.pages);
    expect(memory.store.memoryBytes).toBe(before.bytes);
  });

  it('past 32 MiB of room a growth takes the whole room zeroed from the OS, not the unzeroed allocation', () => {
    const memory = new MemoryInst(new Store(new Engine(), { maxMemoryBytes: 64 * MiB }), { limits: { min: 1, max: null } });
    expect(memory.grow(600)).toBe(1);
    expect(handedOut).toEqual([]);
    expect(memory.buffer.byteLength).toBe(64 * MiB);
    expect(firstNonZero(new Uint8Array(memory.buffer))).toBe(-1);
  });

  it('the whole room taken at once is 1 GiB at most (V8 collects at once past half its heap limit)', () => {
    const memory = new MemoryInst(new Store(new Engine(), { maxMemoryBytes: 4 * 1024 * MiB }), { limits: { min: 64, max: null } });
    expect(memory.grow(1)).toBe(64);
    expect(memory.buffer.byteLength).toBe(1024 * MiB);
  });
});

describe('pieces paced by the clock (WorkMeter.plan and measure)', () => {
  /** A slice planned for 1 ms whose bulk work (`bytes`, done at once) took `ms`. */
  const slice = (meter: WorkMeter, bytes: number, ms: number): void => {
    meter.plan(1);
    meter.note(bytes);
    meter.measure(ms);
  };

  it('shrinks pieces at once where bulk work is slow, and grows them back by at most twice a slice, never past PIECE_BYTES', () => {
    const meter = new WorkMeter();
    for (let i = 0; i < 20; i++) slice(meter, PIECE_BYTES, 0.01); // a fast machine: back to the most
    meter.plan(1);
    expect(meter.pieceBytes).toBe(PIECE_BYTES);
    slice(meter, PIECE_BYTES, 8); // fresh pages mapped slowly: 32 KiB a millisecond
    meter.plan(1);
    expect(meter.pieceBytes).toBe(PIECE_BYTES / 8);
    meter.plan(0.5);
    expect(meter.pieceBytes).toBe(16 * 1024); // the least piece
    slice(meter, PIECE_BYTES / 8, 0.01);
    meter.plan(1);
    expect(meter.pieceBytes).toBe(PIECE_BYTES / 4);
    for (let i = 0; i < 20; i++) slice(meter, PIECE_BYTES, 0.01);
    meter.plan(1);
    expect(meter.pieceBytes).toBe(PIECE_BYTES);
  });

  it('learns nothing from a slice whose bulk work was under a piece (its time was the guest\'s)', () => {
    const meter = new WorkMeter();
    for (let i = 0; i < 20; i++) slice(meter, PIECE_BYTES, 0.01);
    slice(meter, 1024, 50);
    meter.plan(1);
    expect(meter.pieceBytes).toBe(PIECE_BYTES);
  });
});
