/**
 * Values of the suites' JSON (the 2.0 suite's README, "The JSON commands", and the 3.0 suite's
 * additions): building arguments, matching results against expected values and patterns, and
 * printing both. Pure functions over `WasmValue`, so they can be tested without an engine that
 * runs the instructions behind them.
 *
 * Numbers are unsigned decimal strings of their bits; a float may instead be the pattern
 * `nan:canonical` or `nan:arithmetic`. A v128 is `{"type": "v128", "lane_type": "i8" | "i16" |
 * "i32" | "i64" | "f32" | "f64", "value": [lanes]}`, lane 0 first, each lane written as a number
 * of its type (float lanes may be NaN patterns). References: `"value": "null"` is a null, which
 * matches any null; a reference without `value` is any non-null one of its kind; `"N"` is host
 * reference N.
 */
import { EXTERNREF, F32, F64, FUNCREF, I32, I64, V128, type ValType, valTypeName } from '../../src/interpreter/types.js';
import { FuncRef, WasmValue } from '../../src/interpreter/values.js';

/** A value in the JSON. */
export interface SpecValue {
  readonly type: string;
  readonly value?: string | readonly string[];
  readonly lane_type?: string;
}

/** A value the JSON writes that this module cannot build or check: the command fails with it. */
export class SpecValueError extends Error {}

// ---------------------------------------------------------------------------------------------
// Host references.

/** The host value behind `ref.extern N`: one object per N per script, compared by identity. */
export class HostRef {
  constructor(readonly n: number) {}
  toString(): string {
    return `ref.extern ${this.n}`;
  }
}

/** The host references of one script. */
export class HostRefs {
  private readonly refs = new Map<number, HostRef>();

  get(n: number): HostRef {
    let ref = this.refs.get(n);
    if (ref === undefined) {
      ref = new HostRef(n);
      this.refs.set(n, ref);
    }
    return ref;
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers: scalars and v128 lanes alike are bit patterns of a width, integer or float.

interface NumberShape {
  readonly bits: 8 | 16 | 32 | 64;
  readonly float: boolean;
}

/** The numeric types, by name: their shape and their engine type. */
const SCALARS: ReadonlyMap<string, { readonly shape: NumberShape; readonly type: ValType }> = new Map([
  ['i32', { shape: { bits: 32, float: false }, type: I32 }],
  ['i64', { shape: { bits: 64, float: false }, type: I64 }],
  ['f32', { shape: { bits: 32, float: true }, type: F32 }],
  ['f64', { shape: { bits: 64, float: true }, type: F64 }],
] as const);

/** The lane shapes of a v128 (lane_type); a v128 has 128 / bits lanes. */
const LANE_SHAPES: ReadonlyMap<string, NumberShape> = new Map<string, NumberShape>([
  ['i8', { bits: 8, float: false }],
  ['i16', { bits: 16, float: false }],
  ...[...SCALARS].map(([name, s]) => [name, s.shape] as const),
]);

function laneShape(laneType: string | undefined): NumberShape {
  const shape = laneType !== undefined ? LANE_SHAPES.get(laneType) : undefined;
  if (shape === undefined) throw new SpecValueError(`unknown v128 lane_type "${laneType ?? ''}"`);
  return shape;
}

/** A number's bits from its unsigned decimal string, which must fit the width. */
function parseBits(text: string, shape: NumberShape): bigint {
  if (!/^\d+$/.test(text)) throw new SpecValueError(`"${text}" is not a ${shape.bits}-bit number`);
  const bits = BigInt(text);
  if (bits >> BigInt(shape.bits) !== 0n) throw new SpecValueError(`${text} does not fit in ${shape.bits} bits`);
  return bits;
}

/**
 * Whether a float's bits match a NaN pattern: `nan:canonical` is a quiet NaN with an all-zero
 * payload, either sign; `nan:arithmetic` any quiet NaN (the quiet bit, the payload's top, set).
 */
function matchesNanPattern(pattern: string, bits: bigint, width: 32 | 64): boolean {
  const exponentAndQuiet = width === 32 ? 0x7fc00000n : 0x7ff8000000000000n;
  const sign = 1n << BigInt(width - 1);
  if (pattern === 'nan:canonical') return (bits & ~sign) === exponentAndQuiet;
  if (pattern === 'nan:arithmetic') return (bits & exponentAndQuiet) === exponentAndQuiet;
  throw new SpecValueError(`unknown NaN pattern "${pattern}"`);
}

/** Whether bits of a shape match the JSON's number or NaN pattern. */
function matchesNumber(pattern: string, bits: bigint, shape: NumberShape): boolean {
  if (pattern.startsWith('nan:')) {
    if (!shape.float) throw new SpecValueError(`NaN pattern "${pattern}" for an integer`);
    return matchesNanPattern(pattern, bits, shape.bits as 32 | 64);
  }
  return bits === parseBits(pattern, shape);
}

/** The bits of a scalar result (i32/f32 unsigned 32-bit, i64/f64 unsigned 64-bit). */
function scalarBits(v: WasmValue): bigint {
  return v.type === I64 || v.type === F64 ? v.bits64 : BigInt(v.bits32);
}

/** A v128 as one unsigned 128-bit number, byte 0 lowest. */
function v128Bits(v: WasmValue): bigint {
  return v.v128Words.reduceRight((acc, w) => (acc << 32n) | BigInt(w >>> 0), 0n);
}

function lanesOfBits(bits: bigint, shape: NumberShape): bigint[] {
  const width = BigInt(shape.bits);
  const mask = (1n << width) - 1n;
  return Array.from({ length: 128 / shape.bits }, (_, i) => (bits >> (width * BigInt(i))) & mask);
}

function lanesOf(v: SpecValue, shape: NumberShape): readonly string[] {
  const lanes = v.value;
  if (!Array.isArray(lanes)) throw new SpecValueError('v128 value is not a list of lanes');
  if (lanes.length !== 128 / shape.bits) {
    throw new SpecValueError(`v128 of ${v.lane_type ?? '?'} lanes has ${lanes.length} lanes, not ${128 / shape.bits}`);
  }
  return lanes as readonly string[];
}

/** A v128 from its lanes (`lane_type` and decimal lane strings, lane 0 first). */
export function v128FromLanes(laneType: string, lanes: readonly string[]): WasmValue {
  const shape = laneShape(laneType);
  const bits = lanesOf({ type: 'v128', lane_type: laneType, value: lanes }, shape)
    .reduceRight((acc, lane) => (acc << BigInt(shape.bits)) | parseBits(lane, shape), 0n);
  const word = (i: number): number => Number((bits >> BigInt(32 * i)) & 0xffffffffn);
  return WasmValue.v128Words(word(0), word(1), word(2), word(3));
}

/** A v128's lanes of `laneType` as unsigned bit patterns, lane 0 first. */
export function v128Lanes(v: WasmValue, laneType: string): bigint[] {
  return lanesOfBits(v128Bits(v), laneShape(laneType));
}

// ---------------------------------------------------------------------------------------------
// References.

type Hierarchy = 'func' | 'extern' | 'exn' | 'any';

interface RefType {
  /** The type's binary code, as the engine's ValType numbers are. */
  readonly code: ValType;
  readonly hierarchy: Hierarchy;
  /** Whether the type has non-null values (the bottom types `null*ref` do not). */
  readonly nonNull: boolean;
}

/** The reference types the JSON names: the abstract heap types' nullable shorthands. */
const REF_TYPES: ReadonlyMap<string, RefType> = new Map<string, RefType>([
  ['funcref', { code: FUNCREF, hierarchy: 'func', nonNull: true }],
  ['externref', { code: EXTERNREF, hierarchy: 'extern', nonNull: true }],
  ['exnref', { code: 0x69, hierarchy: 'exn', nonNull: true }],
  ['anyref', { code: 0x6e, hierarchy: 'any', nonNull: true }],
  ['eqref', { code: 0x6d, hierarchy: 'any', nonNull: true }],
  ['i31ref', { code: 0x6c, hierarchy: 'any', nonNull: true }],
  ['structref', { code: 0x6b, hierarchy: 'any', nonNull: true }],
  ['arrayref', { code: 0x6a, hierarchy: 'any', nonNull: true }],
  ['nullref', { code: 0x71, hierarchy: 'any', nonNull: false }],
  ['nullexternref', { code: 0x72, hierarchy: 'extern', nonNull: false }],
  ['nullfuncref', { code: 0x73, hierarchy: 'func', nonNull: false }],
  ['nullexnref', { code: 0x74, hierarchy: 'exn', nonNull: false }],
]);

const REF_TYPE_BY_CODE: ReadonlyMap<ValType, readonly [string, RefType]> = new Map(
  [...REF_TYPES].map(([name, t]) => [t.code, [name, t] as const]),
);

function refType(name: string): RefType {
  const t = REF_TYPES.get(name);
  if (t === undefined) throw new SpecValueError(`unknown value type "${name}"`);
  return t;
}

/** The GC hierarchy: its non-null values have no representation at the engine's boundary. */
function noGcValues(type: string): never {
  throw new SpecValueError(`a non-null ${type} is a GC value, which the engine's WasmValue cannot carry`);
}

function hostRefNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new SpecValueError(`"${text}" is not a host reference number`);
  return Number(text);
}

/** Whether a reference result matches: a null any null, no value any non-null of the kind. */
function matchesRef(exp: SpecValue, got: WasmValue, hostRefs: HostRefs): boolean {
  const expected = refType(exp.type);
  const actual = REF_TYPE_BY_CODE.get(got.type)?.[1];
  if (actual === undefined) return false;
  const value = exp.value;
  if (value === 'null') return got.ref === null;
  if (typeof value !== 'string' && value !== undefined) throw new SpecValueError(`${exp.type} value is not a string`);
  if (!expected.nonNull) throw new SpecValueError(`${exp.type} has no non-null values`);
  if (expected.hierarchy === 'any') noGcValues(exp.type);
  if (actual.hierarchy !== expected.hierarchy || got.ref === null) return false;
  if (value === undefined) return expected.hierarchy !== 'func' || got.ref instanceof FuncRef;
  if (expected.hierarchy !== 'extern') throw new SpecValueError(`cannot name a ${exp.type} by number ("${value}")`);
  return got.ref === hostRefs.get(hostRefNumber(value));
}

// ---------------------------------------------------------------------------------------------
// Arguments and results.

/** An argument of an `invoke`. */
export function argumentValue(v: SpecValue, hostRefs: HostRefs): WasmValue {
  const value = v.value;
  if (v.type === 'v128') {
    if (!Array.isArray(value)) throw new SpecValueError('v128 argument is not a list of lanes');
    return v128FromLanes(v.lane_type ?? '', value as readonly string[]);
  }
  if (typeof value !== 'string') throw new SpecValueError(`argument of type ${v.type} has no value`);
  const scalar = SCALARS.get(v.type);
  if (scalar !== undefined) {
    const bits = parseBits(value, scalar.shape);
    switch (scalar.type) {
      case I32: return WasmValue.i32(Number(bits));
      case F32: return WasmValue.f32Bits(Number(bits));
      case I64: return WasmValue.i64(bits);
      default: return WasmValue.f64Bits(bits);
    }
  }
  const type = refType(v.type);
  if (value === 'null') return WasmValue.zero(type.code);
  if (type.hierarchy === 'extern') return WasmValue.externref(hostRefs.get(hostRefNumber(value)));
  if (type.hierarchy === 'any') noGcValues(v.type);
  throw new SpecValueError(`cannot build a ${v.type} argument "${value}"`);
}

/** Whether one result matches one expected value or pattern. Throws SpecValueError for a value it cannot check. */
export function matchesExpected(exp: SpecValue, got: unknown, hostRefs: HostRefs): boolean {
  if (!(got instanceof WasmValue)) return false;
  const value = exp.value;
  if (exp.type === 'v128') {
    const shape = laneShape(exp.lane_type);
    const expectedLanes = lanesOf(exp, shape);
    if (got.type !== V128) return false;
    const lanes = lanesOfBits(v128Bits(got), shape);
    return expectedLanes.every((pattern, i) => matchesNumber(pattern, lanes[i]!, shape));
  }
  const scalar = SCALARS.get(exp.type);
  if (scalar !== undefined) {
    if (typeof value !== 'string') throw new SpecValueError(`expected ${exp.type} has no value`);
    return got.type === scalar.type && matchesNumber(value, scalarBits(got), scalar.shape);
  }
  return matchesRef(exp, got, hostRefs);
}

/** What `assert_return` expects: each result in turn, or (`either`) one result matching one of several. */
export type ResultPattern =
  | { readonly kind: 'results'; readonly values: readonly SpecValue[] }
  | { readonly kind: 'either'; readonly alternatives: readonly SpecValue[] };

export function matchesResults(pattern: ResultPattern, results: unknown, hostRefs: HostRefs): boolean {
  if (!Array.isArray(results)) return false;
  if (pattern.kind === 'either') {
    return results.length === 1 && pattern.alternatives.some((alt) => matchesExpected(alt, results[0], hostRefs));
  }
  return results.length === pattern.values.length
    && pattern.values.every((exp, i) => matchesExpected(exp, results[i], hostRefs));
}

// ---------------------------------------------------------------------------------------------
// Printing.

function formatFloat(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

const F32_VIEW = new Float32Array(1);
const F32_BITS = new Uint32Array(F32_VIEW.buffer);
const F64_VIEW = new Float64Array(1);
const F64_BITS = new BigUint64Array(F64_VIEW.buffer);

/** A number of a shape from its bits: an integer unsigned, a float as its value and its bits in hex. */
function formatNumber(bits: bigint, shape: NumberShape): string {
  if (!shape.float) return String(bits);
  let x: number;
  if (shape.bits === 32) {
    F32_BITS[0] = Number(bits);
    x = F32_VIEW[0]!;
  } else {
    F64_BITS[0] = bits;
    x = F64_VIEW[0]!;
  }
  return `${formatFloat(x)} (0x${bits.toString(16).padStart(shape.bits / 4, '0')})`;
}

function formatLanes(lanes: readonly string[]): string {
  return `[${lanes.join(' ')}]`;
}

/**
 * A result, e.g. `i32:-1`, `f32:1.5 (0x3fc00000)`, `externref:ref.extern 1`, `v128:i32x4[1 2 3 4]`
 * (a v128 in the lanes of `laneType`, or i32x4 when none is given).
 */
export function formatValue(v: unknown, laneType?: string): string {
  if (!(v instanceof WasmValue)) return `<not a WasmValue: ${safeString(v)}>`;
  switch (v.type) {
    case I32: return `i32:${v.asI32}`;
    case I64: return `i64:${v.asI64}`;
    case F32: return `f32:${formatNumber(BigInt(v.bits32), { bits: 32, float: true })}`;
    case F64: return `f64:${formatNumber(v.bits64, { bits: 64, float: true })}`;
    case V128: {
      const lanesType = laneType !== undefined && LANE_SHAPES.has(laneType) ? laneType : 'i32';
      const shape = laneShape(lanesType);
      const lanes = lanesOfBits(v128Bits(v), shape).map((l) => (shape.float ? formatNumber(l, shape) : String(l)));
      return `v128:${lanesType}x${lanes.length}${formatLanes(lanes)}`;
    }
  }
  const name = REF_TYPE_BY_CODE.get(v.type)?.[0] ?? valTypeName(v.type);
  if (v.ref === null) return `${name}:null`;
  if (v.ref instanceof FuncRef) return `${name}:#${v.ref.id}`;
  if (v.ref instanceof HostRef) return `${name}:${v.ref.n}`;
  return `${name}:<${safeString(v.ref)}>`;
}

/** An expected value or pattern, printed as results are. */
export function formatExpected(v: SpecValue): string {
  const value = v.value;
  if (Array.isArray(value)) {
    const shape = LANE_SHAPES.get(v.lane_type ?? '');
    const lanes = (value as readonly string[]).map((lane) => {
      if (shape === undefined || !/^\d+$/.test(lane)) return lane;
      return shape.float ? formatNumber(BigInt(lane), shape) : lane;
    });
    return `v128:${v.lane_type ?? '?'}x${value.length}${formatLanes(lanes)}`;
  }
  if (value === undefined) return `${v.type}:${REF_TYPES.has(v.type) ? 'non-null' : '?'}`;
  const text = value as string;
  const shape = SCALARS.get(v.type)?.shape;
  if (shape === undefined || !/^\d+$/.test(text)) return `${v.type}:${text}`;
  const bits = BigInt(text);
  if (shape.float) return `${v.type}:${formatNumber(bits, shape)}`;
  return `${v.type}:${BigInt.asIntN(shape.bits, bits)}`;
}

/** The results of an action, v128s in the lanes the expected values use. */
export function formatResults(values: unknown, expected: readonly SpecValue[] = []): string {
  if (!Array.isArray(values)) return `<results not an array: ${safeString(values)}>`;
  return `[${values.map((v, i) => formatValue(v, expected[i]?.lane_type)).join(', ')}]`;
}

export function formatPattern(pattern: ResultPattern): string {
  if (pattern.kind === 'either') return `either ${pattern.alternatives.map(formatExpected).join(' | ')}`;
  return `[${pattern.values.map(formatExpected).join(', ')}]`;
}

export function safeString(x: unknown): string {
  try {
    return typeof x === 'bigint' ? `${x}n` : String(x);
  } catch {
    return typeof x;
  }
}
