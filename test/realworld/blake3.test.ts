/**
 * A real-world SIMD module: blake3-wasm 3.0.0, the official BLAKE3 C implementation built by
 * Emscripten with its wasm32 SIMD backend (dist/wasm/blake3.wasm: 2,982 SIMD instructions;
 * BLAKE3 hashes four 1 KiB chunks at once in i32x4 lanes). Driven as the package's glue
 * (@c4312/blake3-internal) drives it: one-shot hashes, keyed hashing, key derivation, streaming
 * updates and extended output read at an offset, with Emscripten's three imports (minified to
 * a.a, a.b, a.c) written by hand.
 *
 * The same workload runs in Node's WebAssembly and in our engine; every output, and the whole
 * linear memory afterwards, must be the same. Node's run is first checked against BLAKE3's
 * published digests of "" and "abc".
 *
 * PENDING: the engine refuses SIMD today. Rename to blake3.test.ts once it runs SIMD.
 */
import { describe, expect, it } from 'vitest';

import { bothGuests, fixture, hex, pattern, type Guest, type HostImports } from './harness.js';

const WASM = fixture('blake3.wasm');
const SLOW = 120_000;

/**
 * dist/wasm/blake3.js's asmLibraryArg: { a: _emscripten_resize_heap, b: _emscripten_memcpy_big,
 * c: ___assert_fail }. The memory is fixed (256 pages), so growing aborts ("OOM").
 */
const IMPORTS: HostImports = {
  a: {
    a: () => {
      throw new Error('blake3: emscripten_resize_heap: OOM');
    },
    b: (g, dest, src, num) => {
      g.write(Number(dest) >>> 0, g.read(Number(src) >>> 0, Number(num) >>> 0));
    },
    c: (_g, cond, file, line, fn) => {
      throw new Error(`blake3: __assert_fail(${cond}, ${file}, ${line}, ${fn})`);
    },
  },
};

/** The minified export names (dist/wasm/blake3.js). */
const X = {
  ctors: 'e', hashOneshot: 'f', cloneHasher: 'g', malloc: 'h', hasherInit: 'i', hasherInitKeyed: 'j',
  hasherInitDerive: 'k', hasherUpdate: 'l', hasherRead: 'm', free: 'o',
} as const;

function put(g: Guest, data: Uint8Array): number {
  const p = Number(g.call(X.malloc, Math.max(1, data.length))) >>> 0;
  g.write(p, data);
  return p;
}

/** hash_oneshot(input, inputLen, out, outLen). */
function oneshot(g: Guest, data: Uint8Array, outLen = 32): string {
  const inp = put(g, data);
  const out = Number(g.call(X.malloc, outLen)) >>> 0;
  g.call(X.hashOneshot, inp, data.length, out, outLen);
  const d = hex(g.read(out, outLen));
  g.call(X.free, out);
  g.call(X.free, inp);
  return d;
}

/** hasher_read(hasher, seekHigh, seekLow, out, outLen): finalize_seek at (high << 32) | low. */
function read(g: Guest, hasher: number, seek: number, outLen: number): string {
  const out = Number(g.call(X.malloc, outLen)) >>> 0;
  g.call(X.hasherRead, hasher, Math.floor(seek / 2 ** 32), seek >>> 0, out, outLen);
  const d = hex(g.read(out, outLen));
  g.call(X.free, out);
  return d;
}

function update(g: Guest, hasher: number, data: Uint8Array, piece: number): void {
  const buf = Number(g.call(X.malloc, piece)) >>> 0;
  for (let i = 0; i < data.length; i += piece) {
    const p = data.subarray(i, i + piece);
    g.write(buf, p);
    g.call(X.hasherUpdate, hasher, buf, p.length);
  }
  g.call(X.free, buf);
}

interface Outcome {
  oneshot: [number, string][];
  keyed: string;
  derived: string;
  streamed: string[];
  xof: string[];
  cloned: string[];
  memory: string;
}

/** BLAKE3's test-vector input: byte i is i % 251. */
const vectorInput = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i % 251);
const LENGTHS = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 3072, 3073, 4096, 4097, 8193, 16384, 31744, 65536];

function workload(g: Guest): Outcome {
  g.call(X.ctors);
  const out: Outcome = { oneshot: [], keyed: '', derived: '', streamed: [], xof: [], cloned: [], memory: '' };

  for (const n of LENGTHS) out.oneshot.push([n, oneshot(g, vectorInput(n), 64)]);
  out.oneshot.push([-1, oneshot(g, new TextEncoder().encode('abc'))]);

  // keyed hash: hasher_init_keyed(key) with the test vectors' key
  const key = put(g, new TextEncoder().encode('whats the Elvish word for friend'));
  const keyed = Number(g.call(X.hasherInitKeyed, key)) >>> 0;
  update(g, keyed, vectorInput(5000), 5000);
  out.keyed = read(g, keyed, 0, 32);
  g.call(X.free, keyed);

  // derive_key: hasher_init_derive(context, contextLen)
  const context = new TextEncoder().encode('BLAKE3 2019-12-27 16:29:52 test vectors context');
  const ctx = put(g, context);
  const derive = Number(g.call(X.hasherInitDerive, ctx, context.length)) >>> 0;
  update(g, derive, vectorInput(7000), 7000);
  out.derived = read(g, derive, 0, 32);
  g.call(X.free, derive);

  // streaming: one message fed in pieces of several sizes must give one digest
  const message = pattern(100_000, 31337);
  for (const piece of [1000, 4096, 65_536, 100_000]) {
    const h = Number(g.call(X.hasherInit, 0)) >>> 0;
    update(g, h, message, piece);
    out.streamed.push(read(g, h, 0, 32));
    // extended output, read at offsets (the XOF's seek)
    if (piece === 4096) for (const seek of [0, 32, 1000, 2 ** 32 + 5]) out.xof.push(read(g, h, seek, 96));
    // clone_hasher: a copy continues on its own
    if (piece === 1000) {
      const c = Number(g.call(X.cloneHasher, h)) >>> 0;
      update(g, c, pattern(3000, 5), 3000);
      out.cloned.push(read(g, c, 0, 32), read(g, h, 0, 32));
      g.call(X.free, c);
    }
    g.call(X.free, h);
  }
  out.memory = g.memoryDigest();
  return out;
}

describe('real-world SIMD: blake3-wasm 3.0.0 (BLAKE3 C, Emscripten, wasm SIMD)', () => {
  it('hashes the same in our engine as in Node', () => {
    const [node, ours] = bothGuests(WASM, IMPORTS);
    const expected = workload(node);

    // The workload is right: BLAKE3's digests of "" and "abc", and streaming = one-shot.
    expect(expected.oneshot[0]![1].slice(0, 64)).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(expected.oneshot.at(-1)![1]).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect(new Set(expected.streamed).size).toBe(1);
    expect(expected.xof[0]!.slice(0, 64)).toBe(expected.streamed[0]);
    expect(expected.xof[1]!.slice(0, 128)).toBe(expected.xof[0]!.slice(64, 192));
    expect(expected.cloned[1]).toBe(expected.streamed[0]);
    expect(expected.cloned[0]).not.toBe(expected.streamed[0]);

    expect(workload(ours)).toEqual(expected);
  }, SLOW);
});
