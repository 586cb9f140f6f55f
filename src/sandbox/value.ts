/**
 * `Value`: the values that cross the sandbox boundary (arguments and results), and the way
 * sandboxd prints them — Rust's `Debug` formatting of its `Value` enum: `I32(42)`,
 * `I64(-1)`, `F32(1.5)`, `F64(0.1)`. Beyond sandboxd, a v128 (SIMD) value, printed as the
 * 128-bit number whose little-endian bytes it holds: `V128(0x00000004000000030000000200000001)`.
 *
 * References are deliberately not representable: the public surface stays small.
 */

export type ValueType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128';

/**
 * The JavaScript carrier of each value type: i64 is a bigint, v128 its 16 bytes (a
 * `Uint8Array`, byte 0 the lowest — memory order), everything else a number.
 */
export type ValueOf<T extends ValueType> = T extends 'i64' ? bigint : T extends 'v128' ? Uint8Array : number;

const I32_MIN = -(2 ** 31);
const U32_MAX = 2 ** 32 - 1;
const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;

export class Value<T extends ValueType = ValueType> {
  private constructor(
    /** `'i32' | 'i64' | 'f32' | 'f64' | 'v128'`. */
    readonly type: T,
    /**
     * A number (i32 as a signed integer, f32 already rounded to single precision), for i64 a
     * signed bigint, for v128 the value's own copy of its 16 bytes (do not modify it: a
     * `Uint8Array` cannot be frozen).
     */
    readonly value: ValueOf<T>,
  ) {
    Object.freeze(this);
  }

  /**
   * A 32-bit integer. Accepts any integer in [-2^31, 2^32 - 1]; values of 2^31 and above are
   * taken as unsigned bit patterns and stored signed (`Value.i32(0xffffffff).value === -1`).
   */
  static i32(n: number): Value<'i32'> {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < I32_MIN || n > U32_MAX) {
      throw new RangeError(`Value.i32: ${String(n)} is not a 32-bit integer`);
    }
    return new Value('i32', n | 0);
  }

  /**
   * A 64-bit integer from a bigint (or a safe integer number). Accepts [-2^63, 2^64 - 1];
   * values of 2^63 and above are taken as unsigned bit patterns and stored signed.
   */
  static i64(n: bigint | number): Value<'i64'> {
    let b: bigint;
    if (typeof n === 'bigint') b = n;
    else if (typeof n === 'number' && Number.isSafeInteger(n)) b = BigInt(n);
    else throw new RangeError(`Value.i64: ${String(n)} is not a 64-bit integer`);
    if (b < I64_MIN || b > U64_MAX) throw new RangeError(`Value.i64: ${b} is not a 64-bit integer`);
    return new Value('i64', BigInt.asIntN(64, b));
  }

  /** A single-precision float; the number is rounded to the nearest f32 (`Math.fround`). */
  static f32(x: number): Value<'f32'> {
    if (typeof x !== 'number') throw new TypeError(`Value.f32: ${String(x)} is not a number`);
    return new Value('f32', Math.fround(x));
  }

  /** A double-precision float. */
  static f64(x: number): Value<'f64'> {
    if (typeof x !== 'number') throw new TypeError(`Value.f64: ${String(x)} is not a number`);
    return new Value('f64', x);
  }

  /**
   * A 128-bit SIMD value from its 16 bytes in memory order (byte 0 is the lowest, as
   * `v128.store` writes it). The bytes are copied. Throws `TypeError` for anything but a
   * `Uint8Array` (a Node `Buffer` is one), `RangeError` unless it holds exactly 16 bytes.
   */
  static v128(bytes: Uint8Array): Value<'v128'> {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`Value.v128: ${describe(bytes)} is not a Uint8Array`);
    if (bytes.length !== 16) throw new RangeError(`Value.v128: a v128 is 16 bytes, got ${bytes.length}`);
    return new Value('v128', Uint8Array.from(bytes));
  }

  /** Whether `other` is a value of the same type with the same payload (NaN equals NaN; v128 byte by byte). */
  equals(other: Value): boolean {
    if (!(other instanceof Value) || other.type !== this.type) return false;
    if (this.value instanceof Uint8Array) {
      const a = this.value;
      const b = other.value as Uint8Array;
      return a.length === b.length && a.every((x, i) => x === b[i]);
    }
    return Object.is(other.value, this.value);
  }

  /**
   * sandboxd's rendering: `I32(42)`, `I64(-1)`, `F32(1.5)`, `F64(0.1)`, `F64(NaN)`, `F32(inf)`;
   * a v128 as `V128(0x…)`, 32 hex digits of the little-endian 128-bit number (byte 15 first).
   */
  toString(): string {
    switch (this.type) {
      case 'i32': return `I32(${this.value})`;
      case 'i64': return `I64(${this.value})`;
      case 'f32': return `F32(${formatFloatDebug(this.value as number, 'f32')})`;
      case 'f64': return `F64(${formatFloatDebug(this.value as number, 'f64')})`;
      default: return `V128(${v128Hex(this.value as Uint8Array)})`;
    }
  }

  /** JSON has no bigint or bytes: i64 values serialise as decimal strings, v128 values as `0x` and 32 hex digits. */
  toJSON(): { type: ValueType; value: number | string } {
    const v = this.value;
    return { type: this.type, value: typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? v128Hex(v) : (v as number) };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}

/** `0x` and 32 hex digits: the 128-bit number whose little-endian bytes are `bytes` (byte 15 first). */
function v128Hex(bytes: Uint8Array): string {
  let hex = '0x';
  for (let i = 15; i >= 0; i--) hex += bytes[i]!.toString(16).padStart(2, '0');
  return hex;
}

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object' || typeof x === 'function') return (x as object).constructor?.name ?? typeof x;
  return typeof x === 'bigint' ? `${x}n` : String(x);
}

const F32_EXP_HIGH = Math.fround(1e16);
const F32_EXP_LOW = Math.fround(1e-4);

/** A run's results as sandboxd prints them: `result: I32(-5), I64(-5)`, or `ok (no return value)`. */
export function resultLine(values: readonly Value[]): string {
  return values.length === 0 ? 'ok (no return value)' : `result: ${values.map(String).join(', ')}`;
}

/**
 * Rust's `{:?}` for `f32`/`f64`: the shortest decimal that reads back as the same float, in
 * plain notation with at least one fractional digit (`1.0`, `0.1`, `1000000000000000.0`)
 * when 1e-4 <= |x| < 1e16 or x is zero, and in exponent notation (`1e16`, `9.9e-5`,
 * `2.2250738585072014e-308`) otherwise. NaN is `NaN` whatever its sign, infinities `inf`/`-inf`,
 * negative zero `-0.0`.
 */
export function formatFloatDebug(x: number, type: 'f32' | 'f64'): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  const sign = negative ? '-' : '';
  if (abs === 0) return `${sign}0.0`;

  const { digits, exponent } = shortestDigits(abs, type);
  const high = type === 'f32' ? F32_EXP_HIGH : 1e16;
  const low = type === 'f32' ? F32_EXP_LOW : 1e-4;
  if (abs < low || abs >= high) {
    // d.ddd e exp, where value = 0.digits × 10^exponent = d.ddd × 10^(exponent - 1)
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exponent - 1}`;
  }
  if (exponent <= 0) return `${sign}0.${'0'.repeat(-exponent)}${digits}`;
  if (exponent < digits.length) return `${sign}${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
  return `${sign}${digits}${'0'.repeat(exponent - digits.length)}.0`;
}

/**
 * The shortest round-tripping significant digits of a positive finite float, and the decimal
 * exponent such that the value is 0.DIGITS × 10^exponent.
 */
function shortestDigits(abs: number, type: 'f32' | 'f64'): { digits: string; exponent: number } {
  let repr: number = abs;
  if (type === 'f32') {
    // The fewest significant digits whose nearest f32 is this f32. Each candidate has at most
    // nine digits, so it also round-trips through a double and `toExponential` below gives
    // back exactly its digits.
    for (let p = 1; p <= 9; p++) {
      const candidate = Number(abs.toPrecision(p));
      if (Math.fround(candidate) === abs) {
        repr = candidate;
        break;
      }
    }
  }
  // For a double, JavaScript's number-to-string is already the shortest round trip.
  const [mant, exp] = repr.toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return { digits, exponent: Number(exp) + 1 };
}
