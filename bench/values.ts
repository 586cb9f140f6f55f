/** Canonical, bit-exact renderings of results so both engines can be compared as strings. */

export type ResultType = 'i32' | 'i64' | 'f32' | 'f64';

const buf = new ArrayBuffer(8);
const f32 = new Float32Array(buf);
const f64 = new Float64Array(buf);
const u32 = new Uint32Array(buf);
const u64 = new BigUint64Array(buf);

/** `i32:-5`, `i64:123`, `f32:0x3fc00000`, `f64:0x3ff8000000000000` (floats by bit pattern). */
export function canonical(type: ResultType, raw: unknown): string {
  switch (type) {
    case 'i32':
      return `i32:${Number(raw) | 0}`;
    case 'i64':
      return `i64:${BigInt.asIntN(64, BigInt(raw as bigint | number))}`;
    case 'f32':
      f32[0] = Number(raw);
      return `f32:0x${u32[0]!.toString(16).padStart(8, '0')}`;
    case 'f64':
      f64[0] = Number(raw);
      return `f64:0x${u64[0]!.toString(16).padStart(16, '0')}`;
  }
}

/** Engine-internal numeric type codes, in case a value carries one instead of a name. */
const CODES: Record<number, ResultType> = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64' };

export function typeName(t: unknown): ResultType | undefined {
  if (t === 'i32' || t === 'i64' || t === 'f32' || t === 'f64') return t;
  if (typeof t === 'number') return CODES[t];
  return undefined;
}
