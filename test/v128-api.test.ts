/**
 * v128 at the public surface: `Value.v128`, its printed and JSON forms, and v128 parameters
 * and results through `Sandbox.run` and `Instance.call` (the CLI's `--arg v128:0x…` is in
 * cli.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { HostAbi, Sandbox, Value } from '../src/index.js';
import { failure } from './helpers/sandbox.js';

/** A v128 from its four i32x4 lanes, lane 0 first (lane 0 is bytes 0..3, little-endian). */
function lanes(l0: number, l1: number, l2: number, l3: number): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  [l0, l1, l2, l3].forEach((l, i) => view.setUint32(i * 4, l >>> 0, true));
  return bytes;
}

const SIMD = `(module
  (global $acc (mut v128) (v128.const i32x4 0 0 0 0))
  (func (export "add") (param v128 v128) (result v128) (i32x4.add (local.get 0) (local.get 1)))
  (func (export "splat") (param i32) (result v128 i32) (i32x4.splat (local.get 0)) (local.get 0))
  (func (export "lane3") (param v128) (result i32) (i32x4.extract_lane 3 (local.get 0)))
  (func (export "nans") (result v128) (v128.const i32x4 0x7fc00001 0xffc00000 0x7f800001 0xffffffff))
  (func (export "accumulate") (param v128) (result v128)
    (global.set $acc (i32x4.add (global.get $acc) (local.get 0)))
    (global.get $acc)))`;

describe('Value.v128', () => {
  it('holds its own copy of 16 bytes, in memory order', () => {
    const bytes = Uint8Array.from({ length: 16 }, (_, i) => i);
    const v = Value.v128(bytes);
    expect(v.type).toBe('v128');
    expect(v.value).toBeInstanceOf(Uint8Array);
    expect(Array.from(v.value)).toEqual(Array.from(bytes));
    bytes[0] = 0xff;
    expect(v.value[0]).toBe(0);
    expect(Object.isFrozen(v)).toBe(true);
    // A Node Buffer is a Uint8Array.
    expect(Value.v128(Buffer.alloc(16, 0xab)).equals(Value.v128(new Uint8Array(16).fill(0xab)))).toBe(true);
  });

  it('rejects anything but exactly 16 bytes in a Uint8Array', () => {
    expect(() => Value.v128(new Uint8Array(15))).toThrow(RangeError);
    expect(() => Value.v128(new Uint8Array(17))).toThrow(RangeError);
    expect(() => Value.v128(new Uint8Array(0))).toThrow('Value.v128: a v128 is 16 bytes, got 0');
    expect(() => Value.v128(new Array(16).fill(0) as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => Value.v128(new Uint32Array(4) as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => Value.v128(0n as unknown as Uint8Array)).toThrow('Value.v128: 0n is not a Uint8Array');
    expect(() => Value.v128(null as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('prints the little-endian 128-bit number: byte 15 first, 32 hex digits', () => {
    expect(String(Value.v128(Uint8Array.from({ length: 16 }, (_, i) => i)))).toBe('V128(0x0f0e0d0c0b0a09080706050403020100)');
    expect(String(Value.v128(new Uint8Array(16)))).toBe('V128(0x00000000000000000000000000000000)');
    expect(String(Value.v128(lanes(1, 2, 3, 4)))).toBe('V128(0x00000004000000030000000200000001)');
    expect(String(Value.v128(lanes(-1, 0, 0, 0x80000000)))).toBe('V128(0x800000000000000000000000ffffffff)');
    expect(JSON.stringify(Value.v128(lanes(1, 2, 3, 4)))).toBe('{"type":"v128","value":"0x00000004000000030000000200000001"}');
  });

  it('compares byte by byte, and never equals a scalar', () => {
    expect(Value.v128(lanes(1, 2, 3, 4)).equals(Value.v128(lanes(1, 2, 3, 4)))).toBe(true);
    expect(Value.v128(lanes(1, 2, 3, 4)).equals(Value.v128(lanes(1, 2, 3, 5)))).toBe(false);
    expect(Value.v128(new Uint8Array(16)).equals(Value.i32(0))).toBe(false);
    expect(Value.i32(0).equals(Value.v128(new Uint8Array(16)))).toBe(false);
  });
});

describe('v128 parameters and results', () => {
  it('through Sandbox.run: i32x4.add of two v128 arguments', async () => {
    const sandbox = Sandbox.denyAll();
    const out = await sandbox.run(SIMD, 'add', [Value.v128(lanes(1, 2, 3, 4)), Value.v128(lanes(10, 20, 30, 0xffffffff))]);
    expect(out.values.map(String)).toEqual(['V128(0x0000000300000021000000160000000b)']);
    expect(out.values[0]!.equals(Value.v128(lanes(11, 22, 33, 3)))).toBe(true);
  });

  it('a v128 among several results, and the byte order the guest sees', async () => {
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(SIMD);
    expect((await sandbox.run(module, 'splat', [Value.i32(-2)])).values.map(String)).toEqual([
      'V128(0xfffffffefffffffefffffffefffffffe)',
      'I32(-2)',
    ]);
    // Bytes 12..15 are lane 3, little-endian.
    const bytes = new Uint8Array(16);
    bytes.set([0x78, 0x56, 0x34, 0x12], 12);
    expect((await sandbox.run(module, 'lane3', [Value.v128(bytes)])).values.map(String)).toEqual(['I32(305419896)']);
  });

  it('keeps every bit: NaN lanes come back as they were made', async () => {
    const out = await Sandbox.denyAll().run(SIMD, 'nans', []);
    expect(String(out.values[0])).toBe('V128(0xffffffff7f800001ffc000007fc00001)');
    expect(Array.from(out.values[0]!.value as Uint8Array)).toEqual(Array.from(lanes(0x7fc00001, 0xffc00000, 0x7f800001, 0xffffffff)));
  });

  it('through Instance.call, with state kept in a v128 global', async () => {
    const instance = await Sandbox.denyAll().instantiate(SIMD);
    await instance.call('accumulate', [Value.v128(lanes(1, 1, 1, 1))]);
    const out = await instance.call('accumulate', [Value.v128(lanes(1, 2, 3, -1))]);
    expect(out.values.map(String)).toEqual(['V128(0x00000000000000040000000300000002)']);
  });

  it('checks a v128 parameter’s type both ways', async () => {
    const sandbox = Sandbox.denyAll();
    const scalar = await failure(sandbox.run(SIMD, 'add', [Value.i32(1), Value.v128(new Uint8Array(16))]));
    expect(scalar.message).toBe('export error: function `add` parameter 0 has type V128 but the supplied value does not match');
    const vector = await failure(sandbox.run(SIMD, 'splat', [Value.v128(new Uint8Array(16))]));
    expect(vector.message).toBe('export error: function `splat` parameter 0 has type I32 but the supplied value does not match');
  });

  it('host functions stay scalar: a v128 in a signature is refused', () => {
    expect(() => HostAbi.denyAll().allowFunction('env', 'f', { params: ['v128' as never], results: [] }, () => undefined)).toThrow(TypeError);
  });
});
