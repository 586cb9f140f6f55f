/**
 * The canonical-NaN mode (`new Sandbox(host, { canonicalNaNs: true })`): every NaN that
 * floating-point arithmetic produces, scalar or in a SIMD lane, is the canonical one, so a
 * module gives the same bits on every machine and engine. Off by default, as in wasmtime,
 * where NaN results follow x86-64 (docs/determinism.md).
 */
import { describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { HostAbi, Sandbox } from '../src/index.js';
import { ALL_FEATURES, compileModule } from '../src/interpreter/index.js';

const SRC = `(module
  (memory (export "memory") 1)
  ;; A NaN with a payload and the sign set, and one operations make from nothing (sqrt(-1), 0/0).
  (func (export "f32") (result i32 i32 i32)
    (i32.reinterpret_f32 (f32.add (f32.reinterpret_i32 (i32.const 0xffa00001)) (f32.const 1)))
    (i32.reinterpret_f32 (f32.sqrt (f32.const -1)))
    ;; abs, neg, copysign are bit operations: their NaN keeps its payload either way
    (i32.reinterpret_f32 (f32.neg (f32.reinterpret_i32 (i32.const 0x7fa00001)))))
  (func (export "f64") (result i64 i64)
    (i64.reinterpret_f64 (f64.mul (f64.reinterpret_i64 (i64.const 0xfff4000000000001)) (f64.const 2)))
    (i64.reinterpret_f64 (f64.div (f64.const 0) (f64.const 0))))
  (func (export "simd") (result v128)
    (f32x4.add (v128.const i32x4 0xffa00001 0x7fc00000 0x3f800000 0xff800001) (v128.const f32x4 1 2 3 4))))`;

async function run(canonicalNaNs: boolean, name: string): Promise<string> {
  const sandbox = new Sandbox(HostAbi.denyAll(), { canonicalNaNs });
  const out = await sandbox.run(SRC, name);
  return out.values.map((v) => (v.type === 'i32' ? `0x${((v.value as number) >>> 0).toString(16)}` : String(v))).join(' ');
}

describe('canonical NaNs', () => {
  it('makes scalar arithmetic NaNs canonical, leaving bit operations alone', async () => {
    expect(await run(true, 'f32')).toBe('0x7fc00000 0x7fc00000 0xffa00001');
    expect(await run(true, 'f64')).toBe('I64(9221120237041090560) I64(9221120237041090560)'); // 0x7ff8000000000000
  });

  it('makes SIMD lanes canonical, and only the NaN lanes', async () => {
    // Lanes, lowest first: NaN, NaN, 1 + 3 = 4, NaN.
    expect(await run(true, 'simd')).toBe('V128(0x7fc0000040800000' + '7fc000007fc00000)');
  });

  it('is off by default: NaNs follow wasmtime on x86-64 (payloads kept, sign included)', async () => {
    expect(await run(false, 'f32')).toBe('0xffe00001 0xffc00000 0xffa00001');
    expect(await run(false, 'simd')).not.toBe(await run(true, 'simd'));
  });

  it('costs nothing when off: the translated code is the default one', async () => {
    const w = await wabt();
    const text = w.parseWat('t.wat', SRC, { simd: true });
    const bytes = new Uint8Array(text.toBinary({}).buffer);
    text.destroy();
    // (Every function translated at compile time, to compare the code.)
    const plain = compileModule(bytes, ALL_FEATURES, { lazyTranslation: false }).functions.code;
    expect(compileModule(bytes, ALL_FEATURES, { canonicalNaNs: false, lazyTranslation: false }).functions.code).toEqual(plain);
    // On, one Canonicalize instruction (3 words) per NaN-producing instruction: 4 scalar, 1 SIMD.
    expect(compileModule(bytes, ALL_FEATURES, { canonicalNaNs: true, lazyTranslation: false }).functions.code.length).toBe(plain.length + 5 * 3);
  });
});
