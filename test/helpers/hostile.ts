/**
 * Hostile guests that are cheap in fuel and expensive for the host, and the measurements the
 * fence tests make of them: how long a run takes and how long the event loop waited.
 */
import { CollectorPauses } from './collector.js';

/** LEB128 of a non-negative integer (a bigint for values past 2^53). */
export function uleb(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

/** Signed LEB128. */
export function sleb(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** A section: id, size, contents. */
export function section(id: number, contents: ArrayLike<number>): number[] {
  return [id, ...uleb(contents.length), ...Array.from(contents)];
}

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** A module with `count` tables of `elements` funcrefs each (20,000 × 10,000 is 80 KB). */
export function tableBomb(count: number, elements: number): Uint8Array {
  const table = [0x70, 0x00, ...uleb(elements)];
  const tables: number[] = [...uleb(count)];
  for (let i = 0; i < count; i++) tables.push(...table);
  return new Uint8Array([...HEADER, ...section(4, tables)]);
}

/**
 * A module of `functions` functions of about `bodyBytes` bytes each, every one a chain of
 * i32 arithmetic on its parameter, and an export `f0`: a giant module to compile.
 */
export function giantModule(functions: number, bodyBytes: number): Uint8Array {
  const type = section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]);
  const funcs = section(3, [...uleb(functions), ...new Array<number>(functions).fill(0)]);
  const exp = section(7, [0x01, 0x02, 0x66, 0x30, 0x00, 0x00]);
  // No locals, local.get 0, then (i32.const 7, i32.add, i32.const 3, i32.xor) repeated, then
  // end. Written into a typed array: a plain array of a 5 MB body took over 100 MB of the heap,
  // whose collection then fell in the compile the tests measure.
  const step = [0x41, 0x07, 0x6a, 0x41, 0x03, 0x73];
  const steps = Math.max(0, Math.ceil((bodyBytes - 4) / step.length) - 1);
  const body = new Uint8Array(3 + steps * step.length + 1);
  body.set([0x00, 0x20, 0x00]);
  for (let i = 0; i < steps; i++) body.set(step, 3 + i * step.length);
  body[body.length - 1] = 0x0b;
  const bodySize = uleb(body.length);
  const oneBody = new Uint8Array(bodySize.length + body.length);
  oneBody.set(bodySize);
  oneBody.set(body, bodySize.length);
  const code: number[] = [...uleb(functions)];
  const out = new Uint8Array(HEADER.length + type.length + funcs.length + exp.length + 6 + code.length + functions * oneBody.length);
  let at = 0;
  for (const part of [HEADER, type, funcs, exp]) {
    out.set(part, at);
    at += part.length;
  }
  const codeContents = code.length + functions * oneBody.length;
  const header = [0x0a, ...uleb(codeContents)];
  out.set(header, at);
  at += header.length;
  out.set(code, at);
  at += code.length;
  for (let i = 0; i < functions; i++) {
    out.set(oneBody, at);
    at += oneBody.length;
  }
  return out.subarray(0, at);
}

/** What `measured` saw of a run. */
export interface Measured<T> {
  value?: T;
  error?: unknown;
  ms: number;
  /** The longest gap between two ticks of a 1 ms timer: how long the event loop waited at most. */
  longestGapMs: number;
  /** The same, less the pauses of V8's collector within each gap. */
  longestGapLessCollectorMs: number;
}

/** Gaps shorter than this cannot be the longest that matters; they are not kept. */
const KEPT_GAP_MS = 2;

/**
 * Runs `body` while a 1 ms interval timer measures the event loop: resolves with its outcome,
 * how long it took, and the longest gap between two ticks of the timer (a blocked loop), with
 * and without the pauses of V8's garbage collector inside it (perf_hooks' `gc` entries). The
 * collector stops the whole process when V8 decides, for garbage of the host's as much as the
 * guest's (a large buffer's allocation starts a collection, for wasm memories in Node too); the
 * engine's own work is what is left of the gap. What that does not see: collections the engine
 * causes by making garbage or large buffers. The raw gap's looser bound (fences.test.ts,
 * expectResponsive) is what catches those, in a test worker whose heap is small.
 */
export async function measured<T>(body: () => Promise<T>): Promise<Measured<T>> {
  const gaps: Array<[number, number]> = [];
  const collector = new CollectorPauses();
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    if (now - last >= KEPT_GAP_MS) gaps.push([last, now]);
    last = now;
  };
  const timer = setInterval(tick, 1);
  const start = performance.now();
  const outcome: { value?: T; error?: unknown } = {};
  try {
    outcome.value = await body();
  } catch (error) {
    outcome.error = error;
  }
  const ms = performance.now() - start;
  tick();
  clearInterval(timer);
  await collector.stop();
  let longestGapMs = 0;
  let longestGapLessCollectorMs = 0;
  for (const [from, to] of gaps) {
    longestGapMs = Math.max(longestGapMs, to - from);
    longestGapLessCollectorMs = Math.max(longestGapLessCollectorMs, to - from - collector.within(from, to));
  }
  return { ...outcome, ms, longestGapMs, longestGapLessCollectorMs };
}
