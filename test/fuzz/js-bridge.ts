/**
 * Small WebAssembly modules that let the differential runner see every value of Node's engine
 * bit for bit.
 *
 * Between JavaScript and V8's WebAssembly, floats and v128s do not cross intact: an f32 NaN
 * that becomes a JavaScript number gets its quiet bit set, `WebAssembly.Global.prototype.value`
 * canonicalises NaNs, and a v128 does not cross at all — calling an exported function with a
 * v128 parameter or result from JavaScript, or an imported JavaScript function with one,
 * throws a TypeError ("type incompatibility when transforming from/to JS"), and so does
 * reading a v128 global. Between two WebAssembly instances every value passes as it is, so a
 * bridge module sits between the fuzzer's module and JavaScript and carries each such value
 * in integers: an f32 as its bits in an i32, an f64 as its bits in an i64 (a BigInt), a v128
 * as four i32s (lane 0 first). Integers and references cross as they are.
 *
 * - `callBridge(params, results)`: imports `bridge.f` of that type and exports `f`, the same
 *   function with its parameters and results carried;
 * - `importBridge(params)`: imports `bridge.f` taking the carried parameters and exports `f`
 *   of `params → ()`, given to the fuzzer's module as a logging import;
 * - `globalBridge(globals)`: imports globals `bridge.g0`, `g1`, ... and exports functions of
 *   the same names returning each one's value carried.
 *
 * The modules are encoded here by hand: they are tiny, and the runner is synchronous.
 */
import { uleb } from '../helpers/hostile.js';
import { F32, F64, I32, I64, V128, type ValType } from '../../src/interpreter/types.js';

const SIMD = 0xfd;
const I32X4_SPLAT = 0x11;
const I32X4_EXTRACT_LANE = 0x1b;
const I32X4_REPLACE_LANE = 0x1c;
const I32_REINTERPRET_F32 = 0xbc;
const I64_REINTERPRET_F64 = 0xbd;
const F32_REINTERPRET_I32 = 0xbe;
const F64_REINTERPRET_I64 = 0xbf;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const GLOBAL_GET = 0x23;
const CALL = 0x10;
const END = 0x0b;

/** Whether a value of this type needs carrying (it does not cross to JavaScript intact). */
export function needsCarrying(t: ValType): boolean {
  return t === F32 || t === F64 || t === V128;
}

/** The types that carry a value of type `t`. */
function carriers(t: ValType): ValType[] {
  switch (t) {
    case F32: return [I32];
    case F64: return [I64];
    case V128: return [I32, I32, I32, I32];
    default: return [t];
  }
}

/** The types that carry a row of values. */
export function carried(types: readonly ValType[]): ValType[] {
  return types.flatMap(carriers);
}

function name(s: string): number[] {
  const bytes = Buffer.from(s, 'utf8');
  return [...uleb(bytes.length), ...bytes];
}

function vec(items: readonly number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function section(id: number, payload: number[]): number[] {
  return [id, ...uleb(payload.length), ...payload];
}

function funcType(params: readonly ValType[], results: readonly ValType[]): number[] {
  return [0x60, ...uleb(params.length), ...params, ...uleb(results.length), ...results];
}

interface Parts {
  types: number[][];
  imports: number[][];
  /** Type index of each defined function. */
  funcs: number[];
  exports: number[][];
  /** Each defined function's body: its local declarations, then its code (without `end`). */
  bodies: Array<{ locals: ValType[]; code: number[] }>;
}

function encode(p: Parts): Uint8Array {
  const bodies = p.bodies.map(({ locals, code }) => {
    const body = [...vec(locals.map((t) => [1, t])), ...code, END];
    return [...uleb(body.length), ...body];
  });
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(p.types)),
    ...section(2, vec(p.imports)),
    ...section(3, vec(p.funcs.map((t) => uleb(t)))),
    ...section(7, vec(p.exports)),
    ...section(10, vec(bodies)),
  ]);
}

/** Pushes the carriers of the value of type `t` that `push` puts on the stack (`push` may run four times). */
function carry(t: ValType, push: number[]): number[] {
  switch (t) {
    case F32: return [...push, I32_REINTERPRET_F32];
    case F64: return [...push, I64_REINTERPRET_F64];
    case V128: return [0, 1, 2, 3].flatMap((lane) => [...push, SIMD, I32X4_EXTRACT_LANE, lane]);
    default: return push;
  }
}

/** Pushes the value of type `t` whose carriers are in locals from `local` on. */
function uncarry(t: ValType, local: number): number[] {
  const get = (k: number): number[] => [LOCAL_GET, ...uleb(local + k)];
  switch (t) {
    case F32: return [...get(0), F32_REINTERPRET_I32];
    case F64: return [...get(0), F64_REINTERPRET_I64];
    case V128: return [...get(0), SIMD, I32X4_SPLAT, ...[1, 2, 3].flatMap((lane) => [...get(lane), SIMD, I32X4_REPLACE_LANE, lane])];
    default: return get(0);
  }
}

/** The bridge for calling an exported function of `params → results` from JavaScript. */
export function callBridge(params: readonly ValType[], results: readonly ValType[]): Uint8Array {
  const code: number[] = [];
  let j = 0;
  for (const t of params) {
    code.push(...uncarry(t, j));
    j += carriers(t).length;
  }
  code.push(CALL, 0);
  // The results, last first, into locals of their own; then out again, carried.
  const first = j;
  for (let r = results.length - 1; r >= 0; r--) code.push(LOCAL_SET, ...uleb(first + r));
  results.forEach((t, r) => code.push(...carry(t, [LOCAL_GET, ...uleb(first + r)])));
  return encode({
    types: [funcType(params, results), funcType(carried(params), carried(results))],
    imports: [[...name('bridge'), ...name('f'), 0x00, 0]],
    funcs: [1],
    exports: [[...name('f'), 0x00, 1]],
    bodies: [{ locals: [...results], code }],
  });
}

/** The bridge for an imported function of `params → ()` (a logging import). */
export function importBridge(params: readonly ValType[]): Uint8Array {
  return encode({
    types: [funcType(carried(params), []), funcType(params, [])],
    imports: [[...name('bridge'), ...name('f'), 0x00, 0]],
    funcs: [1],
    exports: [[...name('f'), 0x00, 1]],
    bodies: [{ locals: [], code: [...params.flatMap((t, k) => carry(t, [LOCAL_GET, ...uleb(k)])), CALL, 0] }],
  });
}

/** The bridge that reads globals (imports `bridge.g0`, ...; exports functions `g0`, ...). */
export function globalBridge(globals: ReadonlyArray<{ type: ValType; mutable: boolean }>): Uint8Array {
  return encode({
    types: globals.map(({ type }) => funcType([], carriers(type))),
    imports: globals.map(({ type, mutable }, k) => [...name('bridge'), ...name(`g${k}`), 0x03, type, mutable ? 1 : 0]),
    funcs: globals.map((_, k) => k),
    exports: globals.map((_, k) => [...name(`g${k}`), 0x00, k]),
    bodies: globals.map(({ type }, k) => ({ locals: [], code: carry(type, [GLOBAL_GET, ...uleb(k)]) })),
  });
}

/** Four i32 lanes (lane 0 first) as one unsigned 128-bit value. */
export function lanesToBits(lanes: readonly number[]): bigint {
  let bits = 0n;
  for (let i = 3; i >= 0; i--) bits = (bits << 32n) | BigInt(lanes[i]! >>> 0);
  return bits;
}

/** An unsigned 128-bit value as four i32 lanes (lane 0 first). */
export function bitsToLanes(bits: bigint): number[] {
  return [0, 1, 2, 3].map((i) => Number(BigInt.asIntN(32, bits >> BigInt(32 * i))));
}

/**
 * The bits of a value of type `t` from its carriers as JavaScript gives them (numbers for
 * i32s, BigInts for i64s), taken from `values` at `at`; returns the bits and the next index.
 */
export function bitsFromCarriers(t: ValType, values: readonly unknown[], at: number): [bits: bigint, next: number] {
  switch (t) {
    case F32: return [BigInt((values[at] as number) >>> 0), at + 1];
    case F64: return [BigInt.asUintN(64, values[at] as bigint), at + 1];
    case V128: return [lanesToBits(values.slice(at, at + 4) as number[]), at + 4];
    default: throw new TypeError(`no carriers for type ${t}`);
  }
}

/** The carriers of bits of type `t`, as JavaScript passes them. */
export function carriersOfBits(t: ValType, bits: bigint): Array<number | bigint> {
  switch (t) {
    case F32: return [Number(BigInt.asIntN(32, bits))];
    case F64: return [BigInt.asIntN(64, bits)];
    case V128: return bitsToLanes(bits);
    default: throw new TypeError(`no carriers for type ${t}`);
  }
}
