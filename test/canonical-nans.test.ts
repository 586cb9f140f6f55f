/**
 * The canonical-NaN mode (`new Sandbox(host, { canonicalNaNs: true })`): every NaN that
 * floating-point arithmetic produces, scalar or in a SIMD lane, is the canonical one, so a
 * module gives the same bits on every machine and engine. Off by default, as in wasmtime,
 * where NaN results follow x86-64 (docs/determinism.md).
 */
import { describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { HostAbi, Sandbox, Value } from '../src/index.js';
import { ALL_FEATURES, compileModule } from '../src/interpreter/index.js';
import { functionSource } from '../src/jit/translate.js';

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

/**
 * f64.load and f64.store move a double as a double (interpreter.ts says why), which keeps its
 * bits only if nothing on the way — V8's interpreter, its optimised code, the DataView and
 * typed-array accesses — quiets or canonicalises a NaN. Each tier copies NaNs of every kind
 * often enough that V8 optimises the copy (the translated loop, or the interpreter's cases),
 * and then checks every word in wasm itself.
 */
describe('f64 loads and stores keep NaN bits', () => {
  // Signalling NaNs with the smallest and largest payloads, either sign; quiet ones with a
  // payload; V8's own "hole" pattern for double arrays (0xfff7fffffff7ffff); infinities and a
  // negative zero for contrast.
  const PATTERNS = [
    0x7ff0000000000001n, 0xfff0000000000001n, 0x7ff7ffffffffffffn, 0xfff4000000000abcn,
    0x7ff8000000000001n, 0xfffc00000000cafen, 0xfff7fffffff7ffffn, 0x7ff0000000000000n,
    0x8000000000000000n,
  ];
  const data = PATTERNS.map((p) => `(i64.store (i32.const ${PATTERNS.indexOf(p) * 8}) (i64.const ${BigInt.asIntN(64, p)}))`).join(' ');
  const end = PATTERNS.length * 8;
  const next = `(br_if $copy (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (i32.const ${end})))`;
  const rounds = (copies: string): string => `(loop $round
        (local.set $i (i32.const 0))
        (loop $copy ${copies} ${next})
        (br_if $round (local.tee $rounds (i32.sub (local.get $rounds) (i32.const 1)))))`;
  // Every word copied there (at 0.. and 1024..) against the patterns as the data segment wrote them (2048..).
  const check = `(local.set $i (i32.const 0))
      (loop $check
        (local.set $bad (i32.add (local.get $bad)
          (i32.add (i64.ne (i64.load (local.get $i)) (i64.load offset=1024 (local.get $i)))
                   (i64.ne (i64.load (local.get $i)) (i64.load offset=2048 (local.get $i))))))
        (br_if $check (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (i32.const ${end}))))
      (local.get $bad)`;
  const segment = `(data (i32.const 2048) "${PATTERNS.map((p) => Array.from({ length: 8 }, (_, k) => `\\${((p >> BigInt(8 * k)) & 0xffn).toString(16).padStart(2, '0')}`).join('')).join('')}")`;
  // f64 from 0.. to 1024.. and back, through operand slots that also hold the i64 constants
  // (so the translation keeps them in the frame's array)...
  const GUEST = `(module (memory 1)
    (func (export "run") (param $rounds i32) (result i32) (local $i i32) (local $bad i32)
      ${data}
      ${rounds('(f64.store offset=1024 (local.get $i) (f64.load (local.get $i))) (f64.store (local.get $i) (f64.load offset=1024 (local.get $i)))')}
      ${check})
    ${segment})`;
  // ...and through an f64 local, which the translation keeps in a JavaScript variable (a
  // double), the setup and the check in another function.
  const THROUGH_A_LOCAL = `(module (memory 1)
    (func $copy (param $rounds i32) (local $i i32) (local $x f64)
      ${rounds(`(local.set $x (f64.load (local.get $i))) (f64.store offset=1024 (local.get $i) (local.get $x))
          (local.set $x (f64.load offset=1024 (local.get $i))) (f64.store (local.get $i) (local.get $x))`)})
    (func (export "run") (param $rounds i32) (result i32) (local $i i32) (local $bad i32)
      ${data}
      (call $copy (local.get $rounds))
      ${check})
    ${segment})`;

  it('the translated copy through an f64 local reads and writes a double variable', async () => {
    const w = await wabt();
    const text = w.parseWat('t.wat', THROUGH_A_LOCAL, {});
    const bytes = new Uint8Array(text.toBinary({}).buffer);
    text.destroy();
    const module = compileModule(bytes, ALL_FEATURES, { lazyTranslation: false });
    const copy = functionSource(module.functions, 0)!;
    expect(copy).toMatch(/\bd\d+ = view\.getFloat64\(ea, true\);/);
    expect(copy).toMatch(/view\.setFloat64\(ea, d\d+, true\);/);
  });

  for (const [what, guest] of [['through operand slots', GUEST], ['through an f64 local', THROUGH_A_LOCAL]] as const) {
    for (const tier of ['interpreter', 'auto', 'eager'] as const) {
      it(`${what}, in the ${tier} tier`, async () => {
        const sandbox = new Sandbox(HostAbi.denyAll(), { tier });
        const out = await sandbox.run(guest, 'run', [Value.i32(200_000)]);
        expect(out.values[0]).toEqual(Value.i32(0));
      });
    }
  }
});
