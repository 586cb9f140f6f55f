/**
 * A value from text, as the CLI's `--arg` reads it (and the playground's arguments field): a
 * plain integer is an i32 (as in sandboxd); `i32:N`, `i64:N`, `f32:X`, `f64:X`, `v128:0xH…` give
 * the type. Integers are decimal; floats take Rust's syntax (`1.5`, `-2e10`, `inf`, `-infinity`,
 * `NaN`). A v128 is `0x` and exactly 32 hex digits — no shorter form — read as the 128-bit number
 * whose little-endian bytes are the value's 16 bytes (byte 15 first), the form a v128 result
 * prints in: `V128(0x…)`.
 */
import { Value } from './value.js';

/** Why a text is not a value: the message says it, for the caller to put in its own words. */
export class ValueTextError extends Error {
  override readonly name = 'ValueTextError';
}

export function parseValueText(text: string): Value {
  const m = /^(i32|i64|f32|f64|v128):(.*)$/i.exec(text);
  const type = (m ? m[1]!.toLowerCase() : 'i32') as 'i32' | 'i64' | 'f32' | 'f64' | 'v128';
  const body = m ? m[2]! : text;
  const fail = (why: string): never => {
    throw new ValueTextError(why);
  };
  if (type === 'v128') {
    if (!/^0x[0-9a-f]{32}$/i.test(body)) return fail('expected a v128 as 0x and exactly 32 hex digits (byte 15 first)');
    const bytes = new Uint8Array(16);
    for (let i = 0; i < 16; i++) bytes[i] = parseInt(body.slice(2 + (15 - i) * 2, 4 + (15 - i) * 2), 16);
    return Value.v128(bytes);
  }
  if (type === 'i32' || type === 'i64') {
    if (!/^[+-]?[0-9]+$/.test(body)) {
      return fail(m ? `expected a decimal ${type}` : 'expected an i32 (or a typed value i64:N, f32:X, f64:X, v128:0xH)');
    }
    const n = BigInt(body);
    const bits = type === 'i32' ? 32n : 64n;
    if (n < -(2n ** (bits - 1n)) || n > 2n ** (bits - 1n) - 1n) fail(`the number is out of range for ${type}`);
    return type === 'i32' ? Value.i32(Number(n)) : Value.i64(n);
  }
  const x = parseFloatText(body);
  if (x === null) return fail(`expected a decimal ${type} (e.g. 1.5, -2e10, inf, NaN)`);
  return type === 'f32' ? Value.f32(x) : Value.f64(x);
}

function parseFloatText(text: string): number | null {
  const t = text.trim() === text ? text : '';
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(t)) return null;
  return Number(t);
}
