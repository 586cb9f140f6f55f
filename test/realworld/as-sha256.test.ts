/**
 * A real-world SIMD module: @chainsafe/as-sha256 1.2.5, ChainSafe's AssemblyScript SHA-256
 * (its build/optimized.simd.wasm, built with `asc --enable simd`), as its own JavaScript
 * (lib/index.js) drives it: digests of whole messages, the streaming init/update/final API, the
 * 64-byte digest, and the two four-way SIMD batch hashes (batchHash4UintArray64s,
 * batchHash4HashObjectInputs: four SHA-256 compressions side by side in i32x4 lanes).
 *
 * The same workload runs in Node's WebAssembly and in our engine; every digest, and the whole
 * linear memory afterwards, must be the same; Node's digests are checked against node:crypto
 * first, so the workload itself is known to be right.
 *
 * PENDING: the engine refuses SIMD today (the module has v128 globals and 802 SIMD
 * instructions). Rename to as-sha256.test.ts once it runs SIMD. fixtures/realworld/README.md
 * says where the .wasm comes from.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { bothGuests, fixture, hex, pattern, type Guest, type HostImports } from './harness.js';

const WASM = fixture('as-sha256.simd.wasm');
/** Generous: an interpreter on a loaded 2-core machine. */
const SLOW = 120_000;

/** lib/wasm.js: AssemblyScript's abort(msg, file, line, col) throws. */
const IMPORTS: HostImports = {
  env: {
    abort: (_g, msg, file, line, col) => {
      throw new Error(`as-sha256 abort: ${msg}:${file}:${line}:${col}`);
    },
  },
};

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Little-endian u32 words, as lib/hashObject.js lays a HashObject out. */
const words = (b: Uint8Array): number[] => Array.from({ length: b.length / 4 }, (_, i) =>
  (b[4 * i]! | (b[4 * i + 1]! << 8) | (b[4 * i + 2]! << 16) | (b[4 * i + 3]! << 24)) >>> 0);
const leBytes = (ws: number[]): Uint8Array => {
  const out = new Uint8Array(ws.length * 4);
  ws.forEach((w, i) => { out[4 * i] = w & 0xff; out[4 * i + 1] = (w >>> 8) & 0xff; out[4 * i + 2] = (w >>> 16) & 0xff; out[4 * i + 3] = w >>> 24; });
  return out;
};

interface Outcome {
  digests: [string, string][];
  streamed: [string, string][];
  digest64: string[];
  batch64: string[];
  batchObjects: string[];
  memory: string;
}

/** What lib/index.js does, call for call. */
function workload(g: Guest): Outcome {
  const input = Number(g.global('input'));
  const output = Number(g.global('output'));
  const inputLength = Number(g.global('INPUT_LENGTH'));
  expect(inputLength).toBe(512);
  expect(Number(g.global('PARALLEL_FACTOR'))).toBe(4);
  expect(Number(g.global('HAS_SIMD'))).toBe(1);

  // digest(data) for data.length <= INPUT_LENGTH: the message in the input buffer, ctx.digest(length)
  const digests: [string, string][] = [];
  const messages = [new Uint8Array(0), new TextEncoder().encode('abc'), ...[1, 55, 56, 63, 64, 65, 119, 200, 511, 512].map((n) => pattern(n, n))];
  for (const m of messages) {
    g.write(input, m);
    g.call('digest', m.length);
    digests.push([`${m.length}`, hex(g.read(output, 32))]);
  }

  // Longer messages: ctx.init(), update() in INPUT_LENGTH pieces, ctx.final(output)
  const streamed: [string, string][] = [];
  for (const n of [513, 4096, 20_000]) {
    const m = pattern(n, 7 * n);
    g.call('init');
    for (let i = 0; i < n; i += inputLength) {
      const piece = m.subarray(i, i + inputLength);
      g.write(input, piece);
      g.call('update', input, piece.length);
    }
    g.call('final', output);
    streamed.push([`${n}`, hex(g.read(output, 32))]);
  }

  // digest64(input, output): one 64-byte message
  const digest64: string[] = [];
  for (let k = 0; k < 8; k++) {
    g.write(input, pattern(64, 1000 + k));
    g.call('digest64', input, output);
    digest64.push(hex(g.read(output, 32)));
  }

  // batchHash4UintArray64s(output): four 64-byte messages at input, four digests at output (hashInto)
  const batch64: string[] = [];
  const block = pattern(16 * 256, 4242);
  for (let b = 0; b < 16; b++) {
    g.write(input, block.subarray(b * 256, (b + 1) * 256));
    g.call('batchHash4UintArray64s', output);
    const out = g.read(output, 128);
    for (let i = 0; i < 4; i++) batch64.push(hex(out.subarray(32 * i, 32 * i + 32)));
  }

  // batchHash4HashObjectInputs(output): eight HashObjects (32 bytes each), transposed into lanes
  const batchObjects: string[] = [];
  for (let b = 0; b < 4; b++) {
    const objs = Array.from({ length: 8 }, (_, j) => words(pattern(32, 77 + 8 * b + j)));
    const lanes: number[] = [];
    for (let half = 0; half < 2; half++)
      for (let k = 0; k < 8; k++)
        for (let j = 0; j < 4; j++) lanes.push(objs[2 * j + half]![k]!);
    g.write(input, leBytes(lanes));
    g.call('batchHash4HashObjectInputs', output);
    const out = g.read(output, 128);
    for (let i = 0; i < 4; i++) batchObjects.push(hex(out.subarray(32 * i, 32 * i + 32)));
  }

  return { digests, streamed, digest64, batch64, batchObjects, memory: g.memoryDigest() };
}

describe('real-world SIMD: @chainsafe/as-sha256 1.2.5 (AssemblyScript, optimized.simd.wasm)', () => {
  it('hashes the same in our engine as in Node, and as node:crypto', () => {
    const [node, ours] = bothGuests(WASM, IMPORTS);
    const expected = workload(node);

    // The workload is right: Node's run agrees with node:crypto.
    const messages = [new Uint8Array(0), new TextEncoder().encode('abc'), ...[1, 55, 56, 63, 64, 65, 119, 200, 511, 512].map((n) => pattern(n, n))];
    expect(expected.digests.map(([, d]) => d)).toEqual(messages.map(sha256));
    expect(expected.digests[1]![1]).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(expected.streamed.map(([, d]) => d)).toEqual([513, 4096, 20_000].map((n) => sha256(pattern(n, 7 * n))));
    expect(expected.digest64).toEqual(Array.from({ length: 8 }, (_, k) => sha256(pattern(64, 1000 + k))));
    const block = pattern(16 * 256, 4242);
    expect(expected.batch64).toEqual(Array.from({ length: 64 }, (_, i) => sha256(block.subarray(64 * i, 64 * i + 64))));
    expect(expected.batchObjects).toEqual(Array.from({ length: 16 }, (_, i) => {
      const b = i >> 2, j = i & 3;
      return sha256(Buffer.concat([pattern(32, 77 + 8 * b + 2 * j), pattern(32, 77 + 8 * b + 2 * j + 1)]));
    }));

    expect(workload(ours)).toEqual(expected);
  }, SLOW);
});
