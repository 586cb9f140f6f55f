/**
 * Tests of the binary decoder (src/interpreter/decoder.ts): hand-built byte arrays for every
 * edge case of the format, small .wat modules through wabt, and a walk over the official
 * test suite's binary modules (together with the module validator).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { decodeModule as decodeWith, MAX_FUNCTION_LOCALS, MAX_MODULE_LOCALS } from '../src/interpreter/decoder.js';
import { DecodeError, Feature, ValidationError } from '../src/interpreter/errors.js';
import { validateModule } from '../src/interpreter/module-validator.js';
import { WASM2_FEATURES, type FeatureSet } from '../src/interpreter/features.js';

/** WebAssembly 2.0 without SIMD: the refusals of everything else show. */
const NO_FEATURES: FeatureSet = new Set();

/**
 * These tests are about WebAssembly 2.0's binary format: they decode with its features unless
 * they say otherwise (later proposals give some of its malformations a meaning).
 */
function decodeModule(bytes: Uint8Array, features: FeatureSet = WASM2_FEATURES): ModuleIR {
  return decodeWith(bytes, features);
}
import { EXTERNREF, FUNCREF, I32, I64, F32, F64, type ModuleIR } from '../src/interpreter/types.js';
import { defaultSuiteDir, suiteAvailable, suitesRequired } from './spec/locate.js';
import { sleb, uleb } from './helpers/hostile.js';

// ---------------------------------------------------------------------------------------------
// Byte-building helpers
// ---------------------------------------------------------------------------------------------

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

function str(s: string): number[] {
  const b = [...Buffer.from(s, 'utf8')];
  return [...uleb(b.length), ...b];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function sec(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function mod(...parts: number[][]): Uint8Array {
  return new Uint8Array([...HEADER, ...parts.flat()]);
}

const TYPE_VOID = sec(1, vec([[0x60, 0x00, 0x00]]));
const ONE_FUNC = sec(3, vec([[0x00]]));
const EMPTY_BODY = sec(10, vec([[0x02, 0x00, 0x0b]]));
const TABLE = sec(4, vec([[0x70, 0x00, 0x01]]));
const MEMORY = sec(5, vec([[0x00, 0x01]]));

function globalI32(init: number[]): Uint8Array {
  return mod(sec(6, vec([[0x7f, 0x00, ...init, 0x0b]])));
}

function decodeError(bytes: Uint8Array): DecodeError {
  try {
    decodeModule(bytes);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw new Error(`expected a DecodeError, got ${String(e)}`);
  }
  throw new Error('expected a DecodeError, but the module decoded');
}

function expectMalformed(bytes: Uint8Array, message: string, offset?: number): void {
  const e = decodeError(bytes);
  expect(e.message).toContain(message);
  if (offset !== undefined) expect(e.offset).toBe(offset);
}

let W: Awaited<ReturnType<typeof wabt>>;
beforeAll(async () => {
  W = await wabt();
});

function wat(src: string, names = false): Uint8Array {
  const m = W.parseWat('test.wat', src);
  try {
    return m.toBinary({ write_debug_names: names }).buffer;
  } finally {
    m.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Header and section framing
// ---------------------------------------------------------------------------------------------

describe('header', () => {
  it('accepts the empty module', () => {
    const m = decodeModule(mod());
    expect(m.types).toEqual([]);
    expect(m.codes).toEqual([]);
    expect(m.start).toBeNull();
    expect(m.dataCount).toBeNull();
    expect(m.functionNames.size).toBe(0);
  });

  it('rejects truncated headers with "unexpected end"', () => {
    for (const b of [[], [0x00], [0x00, 0x61, 0x73], [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00]]) {
      expectMalformed(new Uint8Array(b), 'unexpected end');
    }
  });

  it('rejects a bad magic number at offset 0', () => {
    expectMalformed(new Uint8Array([0x00, 0x41, 0x53, 0x4d, 1, 0, 0, 0]), 'magic header not detected', 0);
    expectMalformed(new Uint8Array([0xef, 0xbb, 0xbf, 0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), 'magic header not detected');
  });

  it('rejects other versions at offset 4', () => {
    expectMalformed(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 2, 0, 0, 0]), 'unknown binary version', 4);
    expectMalformed(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0, 0, 0, 1]), 'unknown binary version', 4);
  });
});

describe('sections', () => {
  it('rejects unknown section ids', () => {
    expectMalformed(mod([0x0d, 0x00]), 'malformed section id', 8);
    expectMalformed(mod([0x80, 0x00, 0x01, 0x00]), 'malformed section id', 8);
  });

  it('rejects sections out of order or repeated', () => {
    expectMalformed(mod(ONE_FUNC, TYPE_VOID), 'unexpected content after last section');
    expectMalformed(mod(TYPE_VOID, TYPE_VOID), 'unexpected content after last section');
    // The data count section goes between element and code sections.
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, EMPTY_BODY, sec(12, [0])), 'unexpected content after last section');
    const ok = decodeModule(mod(TYPE_VOID, ONE_FUNC, sec(12, [0]), EMPTY_BODY));
    expect(ok.dataCount).toBe(0);
  });

  it('accepts custom sections anywhere and keeps them in order', () => {
    const c1 = sec(0, [...str('first'), 1, 2, 3]);
    const c2 = sec(0, [...str('second')]);
    const m = decodeModule(mod(c1, TYPE_VOID, c2, ONE_FUNC, c1, EMPTY_BODY, c2));
    expect(m.customSections.map((c) => c.name)).toEqual(['first', 'second', 'first', 'second']);
    expect([...m.customSections[0]!.bytes]).toEqual([1, 2, 3]);
    expect(m.customSections[1]!.bytes.length).toBe(0);
  });

  it('rejects a section whose content is shorter than its size', () => {
    // One type declared, two given.
    expectMalformed(mod(sec(1, vec([[0x60, 0, 0]]).concat([0x60, 0, 0]))), 'section size mismatch');
    // Start section with a padding byte.
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(8, [0, 0]), EMPTY_BODY), 'section size mismatch');
  });

  it('rejects a section whose size runs past the end', () => {
    expectMalformed(mod([0x01, 0x07, 0x02, 0x60, 0x00, 0x00]), 'length out of bounds', 9);
    expectMalformed(mod([0x00, 0x26, 0x10], [...Buffer.from('a custom section')]), 'length out of bounds');
  });

  it('rejects content that runs out', () => {
    expectMalformed(mod([0x04, 0x01, 0x01]), 'unexpected end');
    expectMalformed(mod([0x00]), 'unexpected end');
    // A custom section too small for its own name.
    expectMalformed(mod([0x00, 0x00], [0x00, 0x05, 0x01, 0x00, 0x07, 0x00, 0x00]), 'unexpected end');
  });

  it('rejects a bogus huge count without allocating', () => {
    expectMalformed(mod(sec(1, [0xff, 0xff, 0xff, 0xff, 0x0f])), 'length out of bounds');
    expectMalformed(mod(sec(3, [0xff, 0xff, 0xff, 0xff, 0x0f])), 'length out of bounds');
  });

  it('rejects concatenated modules', () => {
    expectMalformed(new Uint8Array([...HEADER, ...HEADER]), 'length out of bounds');
  });
});

// ---------------------------------------------------------------------------------------------
// LEB128
// ---------------------------------------------------------------------------------------------

describe('LEB128', () => {
  const memMin = (leb: number[]): Uint8Array => mod(sec(5, vec([[0x00, ...leb]])));

  it('decodes unsigned 32-bit values, minimal or not', () => {
    expect(decodeModule(memMin([0x02])).memories[0]!.limits.min).toBe(2);
    expect(decodeModule(memMin([0x82, 0x00])).memories[0]!.limits.min).toBe(2);
    expect(decodeModule(memMin([0x82, 0x80, 0x80, 0x80, 0x00])).memories[0]!.limits.min).toBe(2);
    expect(decodeModule(memMin([0xff, 0xff, 0xff, 0xff, 0x0f])).memories[0]!.limits.min).toBe(0xffffffff);
    expect(decodeModule(memMin(uleb(0x80000000))).memories[0]!.limits.min).toBe(0x80000000);
    for (let i = 0; i < 200; i++) {
      const v = Math.floor(Math.random() * 2 ** 32);
      expect(decodeModule(memMin(uleb(v))).memories[0]!.limits.min).toBe(v);
    }
  });

  it('rejects unsigned encodings that are too long or too large', () => {
    expectMalformed(memMin([0x82, 0x80, 0x80, 0x80, 0x80, 0x00]), 'integer representation too long');
    expectMalformed(memMin([0x82, 0x80, 0x80, 0x80, 0x70]), 'integer too large', 16);
    expectMalformed(memMin([0x82, 0x80, 0x80, 0x80, 0x40]), 'integer too large');
    expectMalformed(memMin([0x82, 0x80, 0x80, 0x80, 0x10]), 'integer too large');
    // A count encoded with one byte too many.
    expectMalformed(mod(sec(1, [0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0x60, 0, 0])), 'integer representation too long');
  });

  it('rejects truncated encodings', () => {
    expectMalformed(mod([0x05, 0x03, 0x01, 0x00, 0x82]), 'unexpected end');
    expectMalformed(mod([0x05]), 'unexpected end');
  });

  const i32Of = (bytes: Uint8Array): number => decodeModule(bytes).globals[0]!.init[0]!.a;

  it('decodes signed 32-bit values, minimal or not', () => {
    expect(i32Of(globalI32([0x41, 0x80, 0x00]))).toBe(0);
    expect(i32Of(globalI32([0x41, 0xff, 0x7f]))).toBe(-1);
    expect(i32Of(globalI32([0x41, 0x80, 0x80, 0x80, 0x80, 0x00]))).toBe(0);
    expect(i32Of(globalI32([0x41, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBe(-1);
    expect(i32Of(globalI32([0x41, 0x80, 0x80, 0x80, 0x80, 0x78]))).toBe(-0x80000000);
    expect(i32Of(globalI32([0x41, 0xff, 0xff, 0xff, 0xff, 0x07]))).toBe(0x7fffffff);
    expect(i32Of(globalI32([0x41, 0x3f]))).toBe(63);
    expect(i32Of(globalI32([0x41, 0x40]))).toBe(-64);
    for (let i = 0; i < 200; i++) {
      const v = (Math.random() * 2 ** 32) | 0;
      expect(i32Of(globalI32([0x41, ...sleb(v)]))).toBe(v);
    }
  });

  it('rejects signed 32-bit encodings that are too long or too large', () => {
    expectMalformed(globalI32([0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), 'integer representation too long');
    expectMalformed(globalI32([0x41, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), 'integer representation too long');
    expectMalformed(globalI32([0x41, 0x80, 0x80, 0x80, 0x80, 0x70]), 'integer too large');
    expectMalformed(globalI32([0x41, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'integer too large');
    expectMalformed(globalI32([0x41, 0x80, 0x80, 0x80, 0x80, 0x1f]), 'integer too large');
    expectMalformed(globalI32([0x41, 0xff, 0xff, 0xff, 0xff, 0x4f]), 'integer too large');
  });

  const globalI64 = (leb: number[]): Uint8Array => mod(sec(6, vec([[0x7e, 0x00, 0x42, ...leb, 0x0b]])));
  const i64Of = (bytes: Uint8Array): bigint => {
    const ins = decodeModule(bytes).globals[0]!.init[0]!;
    return BigInt.asIntN(64, (BigInt(ins.b >>> 0) << 32n) | BigInt(ins.a >>> 0));
  };

  it('decodes signed 64-bit values into 32-bit halves', () => {
    const cases: bigint[] = [
      0n, 1n, -1n, 63n, -64n, 64n, -65n, 0x7fffffffn, -0x80000000n, 0x80000000n, 0xffffffffn, 0x100000000n,
      -0x100000000n, -0x100000001n, 0x123456789abcdef0n, -0x123456789abcdef0n, 0x7fffffffffffffffn,
      -0x8000000000000000n, 1n << 34n, -(1n << 34n), (1n << 35n) - 1n, 1n << 62n, -(1n << 62n),
    ];
    for (let k = 0; k < 62; k++) cases.push(1n << BigInt(k), -(1n << BigInt(k)), (1n << BigInt(k)) - 1n);
    for (let i = 0; i < 300; i++) {
      const hi = BigInt((Math.random() * 2 ** 32) >>> 0);
      const lo = BigInt((Math.random() * 2 ** 32) >>> 0);
      const bits = BigInt(Math.floor(Math.random() * 64));
      cases.push(BigInt.asIntN(64, (hi << 32n) | lo) >> bits);
    }
    for (const v of cases) expect(i64Of(globalI64(sleb(v)))).toBe(v);
  });

  it('decodes non-minimal signed 64-bit values', () => {
    expect(i64Of(globalI64([0x80, 0x00]))).toBe(0n);
    expect(i64Of(globalI64([0xff, 0x7f]))).toBe(-1n);
    expect(i64Of(globalI64([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]))).toBe(0n);
    expect(i64Of(globalI64([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBe(-1n);
    expect(i64Of(globalI64([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]))).toBe(-(1n << 63n));
  });

  it('rejects signed 64-bit encodings that are too long or too large', () => {
    const zeros9 = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80];
    const ones9 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
    expectMalformed(globalI64([...zeros9, 0x80, 0x00]), 'integer representation too long');
    expectMalformed(globalI64([...ones9, 0xff, 0x7f]), 'integer representation too long');
    expectMalformed(globalI64([...zeros9, 0x7e]), 'integer too large');
    expectMalformed(globalI64([...ones9, 0x01]), 'integer too large');
    expectMalformed(globalI64([...zeros9, 0x02]), 'integer too large');
    expectMalformed(globalI64([...ones9, 0x41]), 'integer too large');
  });
});

// ---------------------------------------------------------------------------------------------
// Names (UTF-8)
// ---------------------------------------------------------------------------------------------

describe('names', () => {
  const importNamed = (name: number[]): Uint8Array =>
    mod(TYPE_VOID, sec(2, vec([[...str('m'), ...uleb(name.length), ...name, 0x00, 0x00]])));

  it('decodes UTF-8 names, keeping a leading BOM', () => {
    const name = 'h\u00e9llo \u{1f600} \u4e2d';
    const m = decodeModule(importNamed([...Buffer.from(name, 'utf8')]));
    expect(m.imports[0]!.name).toBe(name);
    const bom = decodeModule(importNamed([0xef, 0xbb, 0xbf, 0x61]));
    expect(bom.imports[0]!.name).toBe('\ufeffa');
    const long = 'x'.repeat(1000);
    expect(decodeModule(importNamed([...Buffer.from(long)])).imports[0]!.name).toBe(long);
  });

  it('rejects malformed UTF-8', () => {
    const bad = [
      [0x80], // lone continuation byte
      [0xc0, 0x80], // overlong NUL
      [0xc2], // truncated
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf8, 0x88, 0x80, 0x80, 0x80], // 5-byte form
      [0xfe],
      [0x61, 0xff],
    ];
    for (const b of bad) expectMalformed(importNamed(b), 'malformed UTF-8 encoding');
    // In a custom section's name, too.
    expectMalformed(mod(sec(0, [1, 0xff])), 'malformed UTF-8 encoding');
  });

  it('rejects a name running past the end', () => {
    expectMalformed(mod(sec(7, [0x01, 0x0a, 0x66])), 'length out of bounds');
  });
});

// ---------------------------------------------------------------------------------------------
// Types, imports, functions, tables, memories, globals, exports, start
// ---------------------------------------------------------------------------------------------

describe('type section', () => {
  it('decodes function types with every value type', () => {
    const m = decodeModule(
      mod(sec(1, vec([[0x60, 0x03, 0x7f, 0x7e, 0x7d, 0x00], [0x60, 0x00, 0x03, 0x7c, 0x70, 0x6f]]))),
    );
    expect(m.types).toEqual([
      { params: [I32, I64, F32], results: [] },
      { params: [], results: [F64, FUNCREF, EXTERNREF] },
    ]);
  });

  it('refuses v128 (SIMD) at its offset, once the whole module has decoded, when SIMD is off', () => {
    const types = sec(1, vec([[0x60, 0x00, 0x02, 0x7c, 0x7b]]));
    let err: unknown;
    try {
      decodeModule(mod(types), NO_FEATURES);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).feature).toBe(Feature.Simd);
    expect((err as Error).message).toBe('SIMD is not supported by this engine (value type v128, 0x7b) (at byte offset 15)');
    // A malformation later in the module still wins.
    expectMalformed(mod(types, [0x0e, 0x00]), 'malformed section id');
  });

  it('rejects bad forms and value types', () => {
    expectMalformed(mod(sec(1, vec([[0x61, 0x00, 0x00]]))), 'malformed function type');
    expectMalformed(mod(sec(1, [0x01, 0xe0, 0x7f, 0x00, 0x00])), 'integer representation too long');
    expectMalformed(mod(sec(1, vec([[0x60, 0x01, 0x7a, 0x00]]))), 'malformed value type');
    expectMalformed(mod(sec(1, vec([[0x60, 0x01, 0x40, 0x00]]))), 'malformed value type');
    expectMalformed(mod(sec(1, vec([[0x60, 0x01, 0xff, 0x7f, 0x00]]))), 'integer representation too long');
  });
});

describe('import section', () => {
  it('decodes the four kinds', () => {
    const m = decodeModule(
      mod(
        TYPE_VOID,
        sec(
          2,
          vec([
            [...str('env'), ...str('f'), 0x00, 0x00],
            [...str('env'), ...str('t'), 0x01, 0x6f, 0x01, 0x02, 0x03],
            [...str('env'), ...str('m'), 0x02, 0x00, 0x01],
            [...str('env'), ...str('g'), 0x03, 0x7e, 0x01],
          ]),
        ),
      ),
    );
    expect(m.imports).toEqual([
      { module: 'env', name: 'f', desc: { kind: 'func', typeIndex: 0 } },
      { module: 'env', name: 't', desc: { kind: 'table', type: { elemType: EXTERNREF, limits: { min: 2, max: 3 } } } },
      { module: 'env', name: 'm', desc: { kind: 'memory', type: { limits: { min: 1, max: null } } } },
      { module: 'env', name: 'g', desc: { kind: 'global', type: { valType: I64, mutable: true } } },
    ]);
  });

  it('rejects bad kinds and mutabilities', () => {
    for (const k of [0x04, 0x05, 0x80]) {
      expectMalformed(mod(sec(2, vec([[0x00, 0x00, k]]))), 'malformed import kind', 13);
    }
    expectMalformed(mod(sec(2, vec([[...str('a'), ...str('b'), 0x03, 0x7f, 0x02]]))), 'malformed mutability');
    expectMalformed(mod(sec(2, vec([[...str('a'), ...str('b'), 0x03, 0x7f, 0xff]]))), 'malformed mutability');
    expectMalformed(mod(sec(2, vec([[...str('a'), ...str('b'), 0x01, 0x7f, 0x00, 0x00]]))), 'malformed reference type');
  });

  it('rejects a missing import', () => {
    expectMalformed(mod(TYPE_VOID, sec(2, [0x02, ...str('a'), ...str('b'), 0x00, 0x00])), 'unexpected end');
  });
});

describe('limits', () => {
  it('decodes with and without a maximum', () => {
    const m = decodeModule(mod(sec(4, vec([[0x70, 0x00, 0x05], [0x6f, 0x01, 0x00, 0x80, 0x01]])), sec(5, vec([[0x01, 0x01, 0x02]]))));
    expect(m.tables).toEqual([
      { elemType: FUNCREF, limits: { min: 5, max: null } },
      { elemType: EXTERNREF, limits: { min: 0, max: 128 } },
    ]);
    expect(m.memories).toEqual([{ limits: { min: 1, max: 2 } }]);
  });

  it('accepts only flags 0 and 1', () => {
    expectMalformed(mod(sec(5, vec([[0x02, 0x00]]))), 'integer too large');
    expectMalformed(mod(sec(5, vec([[0x03, 0x00, 0x00]]))), 'integer too large');
    expectMalformed(mod(sec(5, [0x01, 0x81, 0x00, 0x00, 0x00])), 'integer representation too long');
    expectMalformed(mod(sec(4, vec([[0x70, 0x02, 0x00]]))), 'integer too large');
    expectMalformed(mod(sec(4, [0x01, 0x70, 0x81, 0x00, 0x00, 0x00])), 'integer representation too long');
    expectMalformed(mod(sec(4, vec([[0x7f, 0x00, 0x00]]))), 'malformed reference type');
  });
});

describe('globals and constant expressions', () => {
  const globalOf = (valType: number, init: number[]) => mod(sec(6, vec([[valType, 0x00, ...init, 0x0b]])));

  it('decodes every constant instruction', () => {
    const f32 = [0x00, 0x00, 0xc0, 0x7f]; // NaN 0x7fc00000
    const f64 = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0xf8, 0x7f];
    const m = decodeModule(
      mod(
        TYPE_VOID,
        sec(2, vec([[...str('a'), ...str('g'), 0x03, 0x7f, 0x00]])),
        ONE_FUNC,
        sec(
          6,
          vec([
            [0x7f, 0x01, 0x41, 0x2a, 0x0b],
            [0x7e, 0x00, 0x42, 0x7f, 0x0b],
            [0x7d, 0x00, 0x43, ...f32, 0x0b],
            [0x7c, 0x00, 0x44, ...f64, 0x0b],
            [0x70, 0x00, 0xd0, 0x70, 0x0b],
            [0x6f, 0x00, 0xd0, 0x6f, 0x0b],
            [0x70, 0x00, 0xd2, 0x01, 0x0b],
            [0x7f, 0x00, 0x23, 0x00, 0x0b],
          ]),
        ),
        sec(10, vec([[0x02, 0x00, 0x0b]])),
      ),
    );
    const inits = m.globals.map((g) => g.init.map((i) => [i.op, i.a, i.b]));
    expect(inits).toEqual([
      [[0x41, 42, 0]],
      [[0x42, -1, -1]],
      [[0x43, 0x7fc00000, 0]],
      [[0x44, 0x04030201, 0x7ff80605]],
      [[0xd0, FUNCREF, 0]],
      [[0xd0, EXTERNREF, 0]],
      [[0xd2, 1, 0]],
      [[0x23, 0, 0]],
    ]);
    expect(m.globals[0]!.type).toEqual({ valType: I32, mutable: true });
  });

  it('refuses v128.const (SIMD) at its offset, even in a global of another type, when SIMD is off', () => {
    const v128 = Array.from({ length: 16 }, (_, i) => i + 1);
    let err: unknown;
    try {
      decodeModule(globalOf(0x7f, [0xfd, 0x0c, ...v128]), NO_FEATURES);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).feature).toBe(Feature.Simd);
    expect((err as Error).message).toBe('SIMD is not supported by this engine (v128.const, opcode 0xfd 0x0c) (at byte offset 13)');
  });

  it('keeps multi-instruction expressions for the validator to reject', () => {
    const m = decodeModule(globalOf(0x7f, [0x41, 0x01, 0x41, 0x02]));
    expect(m.globals[0]!.init.length).toBe(2);
    expect(decodeModule(globalOf(0x7f, [])).globals[0]!.init.length).toBe(0);
  });

  it('reports a non-constant instruction as invalid (WebAssembly 2.0: i32.add too)', () => {
    for (const init of [
      [0x41, 0x00, 0x41, 0x00, 0x6a], // i32.add
      [0x01, 0x41, 0x00], // nop
      [0x02, 0x40, 0x0b, 0x41, 0x00], // block ... end
      [0x04, 0x7f, 0x41, 0x01, 0x05, 0x41, 0x02, 0x0b], // if/else
      [0x41, 0x00, 0x28, 0x02, 0x00], // i32.load
      [0xfc, 0x00], // i32.trunc_sat_f32_s
      [0xfd, 0x0f], // i8x16.splat
      [0x3f, 0x00], // memory.size
    ]) {
      let err: unknown;
      try {
        decodeModule(globalOf(0x7f, init), WASM2_FEATURES);
      } catch (e) {
        err = e;
      }
      expect(err, `init ${init.join(',')}`).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toContain('constant expression required');
    }
  });

  it('still reports a malformed expression as malformed', () => {
    expectMalformed(globalOf(0x7f, [0xf3, 0x00]), 'illegal opcode');
    expectMalformed(globalOf(0x7f, [0x41, 0x00, 0x27]), 'illegal opcode 0x27', 15);
    expectMalformed(globalOf(0x7f, [0xfc, 0x20]), 'illegal opcode 0xfc 0x20', 13);
    expectMalformed(globalOf(0x7f, [0x05]), 'END opcode expected');
    expectMalformed(globalOf(0x7f, [0x3f, 0x01]), 'zero byte expected');
    expectMalformed(mod(sec(6, vec([[0x7f, 0x00, 0x41, 0x00]]))), 'unexpected end');
    expectMalformed(mod(sec(6, vec([[0x7f, 0x00, 0x41, 0x00, 0x6a]]))), 'unexpected end');
    expectMalformed(mod(sec(6, vec([[0x7f, 0x00, 0xd0, 0x7f, 0x0b]]))), 'malformed reference type');
    expectMalformed(mod(sec(6, vec([[0x7f, 0x02, 0x41, 0x00, 0x0b]]))), 'malformed mutability');
    expectMalformed(mod(sec(6, vec([[0x7f, 0x00, 0x43, 0x00, 0x00]]))), 'unexpected end');
  });

  it('lets a later malformation win over a non-constant expression', () => {
    const bytes = mod(sec(6, vec([[0x7f, 0x00, 0x01, 0x0b]])), [0x0d, 0x00]);
    expectMalformed(bytes, 'malformed section id');
  });
});

describe('export and start sections', () => {
  it('decodes exports of every kind', () => {
    const m = decodeModule(
      mod(
        TYPE_VOID,
        ONE_FUNC,
        TABLE,
        MEMORY,
        sec(6, vec([[0x7f, 0x00, 0x41, 0x00, 0x0b]])),
        sec(7, vec([[...str('f'), 0, 0], [...str('t'), 1, 0], [...str('m'), 2, 0], [...str('g'), 3, 0]])),
        sec(8, [0x00]),
        EMPTY_BODY,
      ),
    );
    expect(m.exports).toEqual([
      { name: 'f', kind: 'func', index: 0 },
      { name: 't', kind: 'table', index: 0 },
      { name: 'm', kind: 'memory', index: 0 },
      { name: 'g', kind: 'global', index: 0 },
    ]);
    expect(m.start).toBe(0);
  });

  it('rejects a bad export kind', () => {
    expectMalformed(mod(sec(7, vec([[...str('x'), 0x04, 0x00]]))), 'malformed export kind');
  });

  it('rejects two start sections', () => {
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(8, [0]), sec(8, [0]), EMPTY_BODY), 'unexpected content after last section');
  });
});

// ---------------------------------------------------------------------------------------------
// Element and data segments
// ---------------------------------------------------------------------------------------------

describe('element segments', () => {
  const OFFSET = [0x41, 0x03, 0x0b];
  const elems = (...segs: number[][]): Uint8Array =>
    mod(TYPE_VOID, sec(3, vec([[0], [0]])), TABLE, sec(9, vec(segs)), sec(10, vec([[2, 0, 0x0b], [2, 0, 0x0b]])));

  it('decodes all eight encodings', () => {
    const m = decodeModule(
      elems(
        [0x00, ...OFFSET, ...vec([[0], [1]])],
        [0x01, 0x00, ...vec([[1]])],
        [0x02, 0x00, ...OFFSET, 0x00, ...vec([[0]])],
        [0x03, 0x00, ...vec([[1], [0]])],
        [0x04, ...OFFSET, ...vec([[0xd2, 0x00, 0x0b], [0xd0, 0x70, 0x0b]])],
        [0x05, 0x6f, ...vec([[0xd0, 0x6f, 0x0b]])],
        [0x06, 0x00, ...OFFSET, 0x70, ...vec([[0xd2, 0x01, 0x0b]])],
        [0x07, 0x70, ...vec([[0xd2, 0x00, 0x0b]])],
      ),
    );
    const simple = m.elements.map((e) => ({
      mode: e.mode,
      table: e.table,
      offset: e.offset?.map((i) => [i.op, i.a]) ?? null,
      elemType: e.elemType,
      init: e.init.map((x) => x.map((i) => [i.op, i.a])),
    }));
    const off = [[0x41, 3]];
    expect(simple).toEqual([
      { mode: 'active', table: 0, offset: off, elemType: FUNCREF, init: [[[0xd2, 0]], [[0xd2, 1]]] },
      { mode: 'passive', table: 0, offset: null, elemType: FUNCREF, init: [[[0xd2, 1]]] },
      { mode: 'active', table: 0, offset: off, elemType: FUNCREF, init: [[[0xd2, 0]]] },
      { mode: 'declarative', table: 0, offset: null, elemType: FUNCREF, init: [[[0xd2, 1]], [[0xd2, 0]]] },
      { mode: 'active', table: 0, offset: off, elemType: FUNCREF, init: [[[0xd2, 0]], [[0xd0, FUNCREF]]] },
      { mode: 'passive', table: 0, offset: null, elemType: EXTERNREF, init: [[[0xd0, EXTERNREF]]] },
      { mode: 'active', table: 0, offset: off, elemType: FUNCREF, init: [[[0xd2, 1]]] },
      { mode: 'declarative', table: 0, offset: null, elemType: FUNCREF, init: [[[0xd2, 0]]] },
    ]);
    validateModule(m);
  });

  it('accepts non-minimal flags and table indices', () => {
    const m = decodeModule(elems([0x82, 0x00, 0x80, 0x00, ...OFFSET, 0x00, 0x00]));
    expect(m.elements[0]!.mode).toBe('active');
  });

  it('rejects bad flags, element kinds and reference types', () => {
    expectMalformed(elems([0x08, 0x00]), 'malformed elements segment kind');
    expectMalformed(elems([0x01, 0x01, 0x00]), 'malformed element kind');
    expectMalformed(elems([0x05, 0x7f, 0x01, 0xd2, 0x00, 0x0b]), 'malformed reference type');
    expectMalformed(elems([0x05, 0x70, 0x01, 0xf3, 0x00, 0x0b]), 'illegal opcode');
  });

  it('reports a truncated segment list', () => {
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, TABLE, [0x09, 0x07, 0x02, 0x00, 0x41, 0x00, 0x0b, 0x01, 0x00]), 'unexpected end');
  });
});

describe('data segments and data count', () => {
  it('decodes the three forms', () => {
    const bytes = mod(
      MEMORY,
      sec(12, [0x03]),
      sec(11, vec([[0x00, 0x41, 0x08, 0x0b, ...str('ab')], [0x01, ...str('xyz')], [0x02, 0x00, 0x41, 0x10, 0x0b, 0x00]])),
    );
    const m = decodeModule(bytes);
    expect(m.dataCount).toBe(3);
    expect(m.data.map((d) => [d.mode, d.memory, d.offset?.[0]?.a ?? null, Buffer.from(d.bytes).toString()])).toEqual([
      ['active', 0, 8, 'ab'],
      ['passive', 0, null, 'xyz'],
      ['active', 0, 16, ''],
    ]);
    validateModule(m);
  });

  it('rejects a bad flag', () => {
    expectMalformed(mod(MEMORY, sec(11, vec([[0x03, 0x00]]))), 'malformed data segment kind');
  });

  it('checks the data count against the data section', () => {
    const msg = 'data count and data section have inconsistent lengths';
    expectMalformed(mod(sec(12, [0x03]), sec(11, vec([[0x01, 0x00], [0x01, 0x00]]))), msg);
    expectMalformed(mod(sec(12, [0x01]), sec(11, vec([[0x01, 0x00], [0x01, 0x00]]))), msg);
    expectMalformed(mod(sec(12, [0x01])), msg);
    expect(decodeModule(mod(sec(12, [0x00]))).data).toEqual([]);
  });

  it('rejects segment bytes running out or over', () => {
    const seg = (n: number) => mod(MEMORY, sec(11, [0x01, 0x00, 0x41, 0x00, 0x0b, n, 0x61, 0x62, 0x63]));
    expectMalformed(seg(4), 'unexpected end');
    expectMalformed(seg(2), 'section size mismatch');
  });
});

// ---------------------------------------------------------------------------------------------
// Code section
// ---------------------------------------------------------------------------------------------

describe('code section', () => {
  it('records expanded locals and the instruction range', () => {
    const body1 = [0x03, 0x02, 0x7f, 0x00, 0x7e, 0x01, 0x70, 0x41, 0x00, 0x1a, 0x0b];
    const body2 = [0x00, 0x0b];
    const bytes = mod(sec(1, vec([[0x60, 0, 0]])), sec(3, vec([[0], [0]])), sec(10, vec([[body1.length, ...body1], [2, ...body2]])));
    const m = decodeModule(bytes);
    expect(m.codes[0]!.locals).toEqual([I32, I32, FUNCREF]);
    expect(m.codes[1]!.locals).toEqual([]);
    const c0 = m.codes[0]!;
    expect([...bytes.subarray(c0.codeStart, c0.codeEnd)]).toEqual([0x41, 0x00, 0x1a, 0x0b]);
    const c1 = m.codes[1]!;
    expect([...bytes.subarray(c1.codeStart, c1.codeEnd)]).toEqual([0x0b]);
    expect(c1.codeEnd).toBe(bytes.length);
  });

  it('checks function and code counts', () => {
    const msg = 'function and code section have inconsistent lengths';
    expectMalformed(mod(TYPE_VOID, sec(3, vec([[0], [0]]))), msg);
    expectMalformed(mod(sec(10, vec([[0x02, 0x00, 0x0b]]))), msg);
    expectMalformed(mod(TYPE_VOID, sec(3, vec([[0], [0]])), EMPTY_BODY), msg);
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(10, vec([[2, 0, 0x0b], [2, 0, 0x0b]]))), msg);
    decodeModule(mod(sec(3, [0])));
    decodeModule(mod(sec(10, [0])));
  });

  it('limits the number of locals before expanding them', () => {
    const body = (groups: number[][]) => {
      const b = [...vec(groups), 0x0b];
      return mod(TYPE_VOID, ONE_FUNC, sec(10, vec([[...uleb(b.length), ...b]])));
    };
    expect(decodeModule(body([[...uleb(MAX_FUNCTION_LOCALS), 0x7f]])).codes[0]!.locals.length).toBe(MAX_FUNCTION_LOCALS);
    expectMalformed(body([[...uleb(MAX_FUNCTION_LOCALS), 0x7f], [0x01, 0x7e]]), 'too many locals');
    expectMalformed(body([[0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f], [0x02, 0x7e]]), 'too many locals');
    expectMalformed(body([[0x80, 0x80, 0x80, 0x80, 0x04, 0x7f], [0x80, 0x80, 0x80, 0x80, 0x04, 0x7e]]), 'too many locals');
    expectMalformed(body([[0x80, 0x80, 0x80, 0x80, 0x10, 0x7f]]), 'integer too large');
    expectMalformed(body([[0x01, 0x40]]), 'malformed value type');
    // Zero-count groups are fine.
    expect(decodeModule(body([[0x00, 0x7f], [0x00, 0x7e], [0x02, 0x7d]])).codes[0]!.locals).toEqual([F32, F32]);
  });

  it('rejects a body that does not end with `end`', () => {
    // Between two functions.
    expectMalformed(
      mod(TYPE_VOID, sec(3, vec([[0], [0]])), sec(10, vec([[0x04, 0x00, 0x41, 0x01, 0x1a], [0x05, 0x00, 0x41, 0x01, 0x1a, 0x0b]]))),
      'END opcode expected',
    );
    // At the end of the module.
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(10, vec([[0x04, 0x00, 0x41, 0x01, 0x1a]]))), 'unexpected end');
    // At the end of the code section.
    expectMalformed(
      mod(TYPE_VOID, ONE_FUNC, sec(10, vec([[0x04, 0x00, 0x41, 0x01, 0x1a]])), sec(11, [0x01, 0x01, 0x00])),
      'section size mismatch',
    );
    // Nothing after the locals.
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(10, vec([[0x01, 0x00]]))), 'unexpected end');
  });

  it('rejects a body size past the end of the module', () => {
    expectMalformed(mod(TYPE_VOID, ONE_FUNC, sec(10, [0x01, 0x7f, 0x00])), 'length out of bounds');
  });
});

// ---------------------------------------------------------------------------------------------
// The name section
// ---------------------------------------------------------------------------------------------

describe('name section', () => {
  it('reads function names from wabt output', () => {
    const m = decodeModule(
      wat(
        `(module
           (import "env" "imported" (func $imp))
           (func $first) (func $second (param i32)) (func $third))`,
        true,
      ),
    );
    expect([...m.functionNames]).toEqual([
      [0, 'imp'],
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
  });

  const withNames = (payload: number[]) =>
    mod(TYPE_VOID, sec(3, vec([[0], [0]])), sec(10, vec([[2, 0, 0x0b], [2, 0, 0x0b]])), sec(0, [...str('name'), ...payload]));

  it('decodes non-ASCII function names', () => {
    const fnames = vec([[0x00, ...str('caf\u00e9')], [0x01, ...str('\u{1f600}')]]);
    const m = decodeModule(withNames([0x01, ...uleb(fnames.length), ...fnames]));
    expect(m.functionNames.get(0)).toBe('caf\u00e9');
    expect(m.functionNames.get(1)).toBe('\u{1f600}');
  });

  it('skips other subsections', () => {
    const modName = [0x00, ...uleb(str('mod').length), ...str('mod')];
    const fnames = vec([[0x01, ...str('b')], [0x00, ...str('a')]]);
    const m = decodeModule(withNames([...modName, 0x01, ...uleb(fnames.length), ...fnames, 0x02, 0x01, 0x00]));
    expect(m.functionNames.get(0)).toBe('a');
    expect(m.functionNames.get(1)).toBe('b');
  });

  it('ignores a malformed name section without failing the module', () => {
    const bad: number[][] = [
      [0x01], // truncated subsection header
      [0x01, 0x10, 0x01], // subsection size past the end
      [0x01, 0x04, 0x01, 0x00, 0x01, 0xff], // bad UTF-8
      [0x01, 0x05, 0x02, 0x00, 0x01, 0x61, 0x01], // count larger than the content
      [0x01, 0x05, 0x01, 0x00, 0x01, 0x61, 0x00], // content larger than the subsection
      [0x01, 0x03, 0x01, 0x80, 0x80], // bad LEB
    ];
    for (const payload of bad) {
      const m = decodeModule(withNames(payload));
      expect(m.functionNames.size, payload.join(',')).toBe(0);
      expect(m.customSections[0]!.name).toBe('name');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Round trips through wabt
// ---------------------------------------------------------------------------------------------

describe('modules from wabt', () => {
  it('decodes a module using most of the format', () => {
    const bytes = wat(`(module
      (type $t (func (param i32 i64) (result f32)))
      (import "env" "f" (func $f (type $t)))
      (import "env" "g" (global $g i32))
      (import "env" "t" (table 2 externref))
      (memory (export "mem") 1 4)
      (table $ft 3 10 funcref)
      (global $m (mut i64) (i64.const -5))
      (global $r funcref (ref.func $h))
      (func $h (export "h") (param i32 i64) (result f32) (local f64 f64 i32) (f32.const 1.5))
      (func $s)
      (start $s)
      (elem (table $ft) (i32.const 1) func $h $s)
      (elem declare func $s)
      (elem $p funcref (ref.null func))
      (data (i32.const 4) "hello")
      (data $q "passive")
    )`);
    const m = decodeModule(bytes);
    validateModule(m);
    expect(m.types.length).toBeGreaterThanOrEqual(2);
    expect(m.imports.map((i) => i.desc.kind)).toEqual(['func', 'global', 'table']);
    expect(m.functions.length).toBe(2);
    expect(m.codes[0]!.locals).toEqual([F64, F64, I32]);
    expect(m.tables).toEqual([{ elemType: FUNCREF, limits: { min: 3, max: 10 } }]);
    expect(m.memories).toEqual([{ limits: { min: 1, max: 4 } }]);
    expect(m.globals[0]!.init[0]).toMatchObject({ op: 0x42, a: -5, b: -1 });
    expect(m.globals[1]!.init[0]).toMatchObject({ op: 0xd2, a: 1 });
    expect(m.start).toBe(2);
    expect(m.elements.map((e) => e.mode)).toEqual(['active', 'declarative', 'passive']);
    expect(m.elements[0]!.table).toBe(1);
    expect(m.data.map((d) => d.mode)).toEqual(['active', 'passive']);
    expect(m.dataCount).toBeNull(); // wabt writes it only when memory.init or data.drop needs it
    expect(m.exports.map((e) => [e.name, e.kind])).toEqual([
      ['mem', 'memory'],
      ['h', 'func'],
    ]);
  });

  it('decodes a large module quickly', () => {
    const funcs: string[] = [];
    for (let i = 0; i < 1000; i++) {
      funcs.push(`(func (export "f${i}") (param i32) (result i32) (local i64 f32) ${'(local.get 0) (i32.const 7) (i32.add) (local.set 0) '.repeat(20)} (local.get 0))`);
    }
    const bytes = wat(`(module (memory 1) ${funcs.join('\n')})`, true);
    for (let i = 0; i < 5; i++) validateModule(decodeModule(bytes)); // warm-up
    // Best of several rounds, so that a garbage collection or a busy machine does not count.
    let best = Infinity;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      validateModule(decodeModule(bytes));
      best = Math.min(best, performance.now() - t0);
    }
    const mbPerSecond = bytes.length / 1e6 / (best / 1000);
    expect(mbPerSecond).toBeGreaterThan(20);
  });
});

// ---------------------------------------------------------------------------------------------
// The official test suite
// ---------------------------------------------------------------------------------------------

// The suite the spec runner uses (test/spec/locate.ts): ../shared/wasm-testsuite or $SPEC_SUITE_DIR.
const SUITE = join(defaultSuiteDir(), 'json');
const suitePresent = suiteAvailable(defaultSuiteDir(), 'the WebAssembly core test suite');

interface Command {
  type: string;
  line: number;
  filename?: string;
  text?: string;
  module_type?: string;
}

function* suiteModules(): Generator<{ dir: string; cmd: Command; bytes: Uint8Array }> {
  for (const dir of readdirSync(SUITE).sort()) {
    const file = join(SUITE, dir, `${dir}.json`);
    if (!existsSync(file)) continue;
    const commands = (JSON.parse(readFileSync(file, 'utf8')) as { commands: Command[] }).commands;
    for (const cmd of commands) {
      if (cmd.filename === undefined || !cmd.filename.endsWith('.wasm')) continue;
      yield { dir, cmd, bytes: new Uint8Array(readFileSync(join(SUITE, dir, cmd.filename))) };
    }
  }
}

function attempt(bytes: Uint8Array): { ir: ModuleIR | null; error: unknown } {
  let ir: ModuleIR | null = null;
  try {
    ir = decodeModule(bytes, WASM2_FEATURES);
    validateModule(ir);
    return { ir, error: null };
  } catch (error) {
    return { ir, error };
  }
}

describe.skipIf(!suitePresent && !suitesRequired())('official test suite (binary modules)', () => {
  it('decodes and validates every valid module, rejects malformed and invalid ones', () => {
    expect(suitePresent, `the suite is missing at ${SUITE}, and CI=true requires it`).toBe(true);
    const failures: string[] = [];
    const newCounts = () => ({ valid: 0, malformedCaught: 0, malformedInBodies: 0, invalidCaught: 0, invalidInBodies: 0 });
    const byGroup = { core: newCounts(), simd: newCounts() };
    const VALID = new Set(['module', 'assert_trap', 'assert_unlinkable', 'assert_uninstantiable', 'assert_return', 'action']);
    for (const { dir, cmd, bytes } of suiteModules()) {
      const where = `${dir}/${cmd.filename} (line ${cmd.line})`;
      const counts = dir.startsWith('simd_') ? byGroup.simd : byGroup.core;
      const { ir, error } = attempt(bytes);
      const message = error instanceof Error ? error.message : String(error);
      if (VALID.has(cmd.type)) {
        counts.valid++;
        if (error !== null) failures.push(`${where}: valid module rejected: ${message}`);
      } else if (cmd.type === 'assert_malformed' && cmd.module_type === 'binary') {
        if (error instanceof DecodeError) {
          counts.malformedCaught++;
          if (!message.startsWith(cmd.text!)) failures.push(`${where}: expected "${cmd.text}", got "${message}"`);
        } else if (error === null && ir !== null && ir.codes.length > 0) {
          counts.malformedInBodies++; // inside a function body: the compiler's job
        } else {
          failures.push(`${where}: expected malformed "${cmd.text}", got ${error === null ? 'success' : message}`);
        }
      } else if (cmd.type === 'assert_invalid') {
        if (error instanceof ValidationError) {
          counts.invalidCaught++;
          if (!message.startsWith(cmd.text!)) failures.push(`${where}: expected "${cmd.text}", got "${message}"`);
        } else if (error === null && ir !== null && ir.codes.length > 0) {
          counts.invalidInBodies++; // a function-body rule: the compiler's job
        } else {
          failures.push(`${where}: expected invalid "${cmd.text}", got ${error === null ? 'success' : message}`);
        }
      }
    }
    for (const [group, counts] of Object.entries(byGroup)) {
      console.log(
        `wasm-testsuite (${group === 'simd' ? 'simd_* files' : 'files other than simd_*'}): ` +
          `${counts.valid} valid modules accepted; ` +
          `binary assert_malformed: ${counts.malformedCaught} caught by the decoder, ` +
          `${counts.malformedInBodies} left for the body compiler; ` +
          `assert_invalid: ${counts.invalidCaught} caught by the module validator, ` +
          `${counts.invalidInBodies} left for the body compiler`,
      );
    }
    expect(failures).toEqual([]);
    expect(byGroup.core.valid).toBeGreaterThan(1000);
    expect(byGroup.core.malformedCaught).toBeGreaterThan(600);
    expect(byGroup.simd.valid).toBeGreaterThan(400);
  });
});

describe('resource limits', () => {
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };

  it('rejects a module whose functions declare too many locals in all', () => {
    // Each body declares 50,000 i32 locals (within the per-function limit) in seven bytes;
    // enough of them pass the module-wide limit.
    const count = Math.ceil(MAX_MODULE_LOCALS / MAX_FUNCTION_LOCALS) + 1;
    const body = [0x01, ...leb(MAX_FUNCTION_LOCALS), 0x7f, 0x0b];
    const code = [...leb(count)];
    for (let i = 0; i < count; i++) code.push(body.length, ...body);
    const funcs = [...leb(count), ...Array<number>(count).fill(0)];
    const module = new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
      0x03, ...leb(funcs.length), ...funcs,
      0x0a, ...leb(code.length), ...code,
    ]);
    expect(() => decodeModule(module)).toThrow(/too many locals: the module declares more than/);
    // One function fewer than the limit allows decodes.
    const fewer = Math.floor(MAX_MODULE_LOCALS / MAX_FUNCTION_LOCALS);
    const code2 = [...leb(fewer)];
    for (let i = 0; i < fewer; i++) code2.push(body.length, ...body);
    const funcs2 = [...leb(fewer), ...Array<number>(fewer).fill(0)];
    const ok = new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
      0x03, ...leb(funcs2.length), ...funcs2,
      0x0a, ...leb(code2.length), ...code2,
    ]);
    expect(decodeModule(ok).codes).toHaveLength(fewer);
  });
});
