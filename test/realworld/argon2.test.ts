/**
 * A real-world SIMD module: argon2-browser 1.18.0's dist/argon2-simd.wasm, the reference Argon2
 * implementation (its SSE code path ported to wasm SIMD) built by Emscripten. Driven as the
 * package's lib/argon2.js drives it: argon2_hash_ext with password, salt, secret and associated
 * data, then the encoded string, with Emscripten's two imports (minified to a.a, a.b) written by
 * hand.
 *
 * The same workload runs in Node's WebAssembly and in our engine; every tag, every encoded
 * string, and the whole linear memory afterwards, must be the same. Node's run is first checked
 * against the test vectors of RFC 9106 (section 5) for Argon2d, Argon2i and Argon2id.
 *
 * PENDING: the engine refuses SIMD today. Rename to argon2.test.ts once it runs SIMD.
 */
import { describe, expect, it } from 'vitest';

import { engineGuest, fixture, hex, nodeGuest, pattern, type Guest, type HostImports } from './harness.js';

const WASM = fixture('argon2-simd.wasm');
const SLOW = 300_000;

/** dist/argon2.js's asmLibraryArg: { a: _emscripten_memcpy_big, b: _emscripten_resize_heap }. */
const IMPORTS: HostImports = {
  a: {
    a: (g, dest, src, num) => {
      g.write(Number(dest) >>> 0, g.read(Number(src) >>> 0, Number(num) >>> 0));
    },
    // The glue grows to at least the requested size (overgrowing by up to 20%), up to 2 GiB.
    b: (g, requested) => {
      const req = Number(requested) >>> 0;
      const old = g.memoryBytes();
      if (req > 2147418112) return 0;
      const target = Math.min(2147418112, Math.max(req, old + Math.floor(old / 5)));
      return g.grow(Math.ceil((target - old) / 65536)) >= 0 ? 1 : 0;
    },
  },
};

/** The minified export names (dist/argon2.js). */
const X = { ctors: 'd', malloc: 'f', free: 'g', errorMessage: 'i', encodedLen: 'j', hashExt: 'l' } as const;

const ARGON2D = 0, ARGON2I = 1, ARGON2ID = 2;

interface Params {
  type: number;
  time: number;
  mem: number;
  parallelism: number;
  pass: Uint8Array;
  salt: Uint8Array;
  secret?: Uint8Array;
  ad?: Uint8Array;
  hashLen: number;
}

function put(g: Guest, data: Uint8Array | undefined): number {
  if (!data) return 0;
  const p = Number(g.call(X.malloc, Math.max(1, data.length))) >>> 0;
  g.write(p, data);
  return p;
}

/** lib/argon2.js's argon2Hash: the tag, and the encoded string ($argon2id$v=19$m=...). */
function argon2(g: Guest, p: Params): { tag: string; encoded: string } {
  const pwd = put(g, p.pass), salt = put(g, p.salt), secret = put(g, p.secret), ad = put(g, p.ad);
  const hash = Number(g.call(X.malloc, p.hashLen)) >>> 0;
  const encodedLen = Number(g.call(X.encodedLen, p.time, p.mem, p.parallelism, p.salt.length, p.hashLen, p.type));
  const encoded = Number(g.call(X.malloc, encodedLen + 1)) >>> 0;
  const res = Number(g.call(X.hashExt, p.time, p.mem, p.parallelism, pwd, p.pass.length, salt, p.salt.length,
    hash, p.hashLen, encoded, encodedLen, p.type, secret, p.secret?.length ?? 0, ad, p.ad?.length ?? 0, 0x13));
  if (res !== 0) {
    const msg = Number(g.call(X.errorMessage, res)) >>> 0;
    throw new Error(`argon2_hash_ext: ${res} ${Buffer.from(g.read(msg, 64)).toString('latin1').split('\0')[0]}`);
  }
  const tag = hex(g.read(hash, p.hashLen));
  const text = Buffer.from(g.read(encoded, encodedLen)).toString('latin1').split('\0')[0]!;
  for (const q of [pwd, salt, secret, ad, hash, encoded]) if (q) g.call(X.free, q);
  return { tag, encoded: text };
}

/** RFC 9106, section 5: 32 KiB, 3 passes, 4 lanes, a 32-byte tag. */
const rfc = (type: number): Params => ({
  type, time: 3, mem: 32, parallelism: 4, hashLen: 32,
  pass: new Uint8Array(32).fill(1), salt: new Uint8Array(16).fill(2), secret: new Uint8Array(8).fill(3), ad: new Uint8Array(12).fill(4),
});

const RFC_TAGS: Record<number, string> = {
  [ARGON2D]: '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb',
  [ARGON2I]: 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8',
  [ARGON2ID]: '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659',
};

interface Outcome { results: { tag: string; encoded: string }[]; memory: string }

function workload(g: Guest): Outcome {
  g.call(X.ctors);
  const results = [ARGON2D, ARGON2I, ARGON2ID].map((t) => argon2(g, rfc(t)));
  // argon2-browser's defaults (Argon2d, one pass, one lane) on 256 KiB, and Argon2id on two lanes
  results.push(argon2(g, { type: ARGON2D, time: 1, mem: 256, parallelism: 1, hashLen: 24, pass: new TextEncoder().encode('password'), salt: new TextEncoder().encode('somesalt') }));
  results.push(argon2(g, { type: ARGON2ID, time: 2, mem: 128, parallelism: 2, hashLen: 64, pass: pattern(100, 1), salt: pattern(32, 2), ad: pattern(7, 3) }));
  return { results, memory: g.memoryDigest() };
}

describe('real-world SIMD: argon2-browser 1.18.0 (Argon2 reference C, Emscripten, wasm SIMD)', () => {
  it('derives the same tags in our engine as in Node, and as RFC 9106', () => {
    const expected = workload(nodeGuest(WASM, IMPORTS));

    // The workload is right: RFC 9106's tags, and the encoded strings carry the parameters.
    expect(expected.results.slice(0, 3).map((r) => r.tag)).toEqual([RFC_TAGS[ARGON2D], RFC_TAGS[ARGON2I], RFC_TAGS[ARGON2ID]]);
    expect(expected.results[2]!.encoded.startsWith('$argon2id$v=19$m=32,t=3,p=4$')).toBe(true);
    expect(expected.results[3]!.encoded.startsWith('$argon2d$v=19$m=256,t=1,p=1$c29tZXNhbHQ$')).toBe(true);
    // ...and deterministic: a second run in Node leaves the same results and memory.
    expect(workload(nodeGuest(WASM, IMPORTS))).toEqual(expected);

    expect(workload(engineGuest(WASM, IMPORTS))).toEqual(expected);
  }, SLOW);
});
