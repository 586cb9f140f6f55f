/**
 * The instruction table of WebAssembly's 0xFD prefix: fixed-width SIMD (WebAssembly 2.0,
 * sub-opcodes 0x00-0xFF) and relaxed SIMD (0x100-0x113). One row per instruction, so the
 * decoder, the validator and the translator can treat every SIMD instruction the same way:
 * read `imm`, check `params`/`results` (and `lanes`, `accessBytes` for the alignment), then
 * emit one internal instruction that calls the entry point `entry` of simd.ts with the
 * sub-opcode. See docs/simd.md.
 */
import { F32, F64, I32, I64, V128, type ValType } from './types.js';

/** Which entry point of simd.ts executes the instruction. */
export type SimdEntry =
  | 'load' // simdLoad(op, s32, view, d, ea)
  | 'store' // simdStore(s32, view, ea, a)
  | 'loadLane' // simdLoadLane(op, s32, view, d, a, lane, ea)
  | 'storeLane' // simdStoreLane(op, s32, view, ea, a, lane)
  | 'const' // simdConst(s32, d, imm, at)
  | 'shuffle' // simdShuffle(s32, d, a, b, imm, at)
  | 'unary' // simdUnary(op, s32, f32, f64, d, a)
  | 'binary' // simdBinary(op, s32, f32, f64, d, a, b)
  | 'ternary' // simdTernary(op, s32, f32, f64, d, a, b, c)
  | 'shift' // simdShift(op, s32, d, a, count)
  | 'splat' // simdSplat(op, s32, d, x)
  | 'extractLane' // simdExtractLane(op, s32, d, a, lane)
  | 'replaceLane' // simdReplaceLane(op, s32, d, a, lane, x)
  | 'reduce'; // simdReduce(op, s32, a): number (an i32)

/**
 * The immediates that follow the sub-opcode in the binary format:
 * - `memarg`: alignment exponent and offset (u32 LEBs);
 * - `memargLane`: a memarg, then one lane index byte;
 * - `lane`: one lane index byte;
 * - `bytes16`: 16 bytes (v128.const: the value; i8x16.shuffle: 16 lane indices, each < 32).
 */
export type SimdImmediate = 'none' | 'memarg' | 'memargLane' | 'lane' | 'bytes16';

export interface SimdOpInfo {
  /** The sub-opcode after 0xFD (a u32 LEB in the binary). */
  readonly op: number;
  /** The text-format name. */
  readonly name: string;
  readonly entry: SimdEntry;
  readonly imm: SimdImmediate;
  /** Operand types, bottom of the stack first. */
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  /** For `lane` and `memargLane`: the lane index must be below this. 0 otherwise. */
  readonly lanes: number;
  /** For memory instructions: the bytes accessed (the alignment exponent must not exceed log2 of it). 0 otherwise. */
  readonly accessBytes: number;
  /** A relaxed-SIMD instruction (0x100-0x113). */
  readonly relaxed: boolean;
  /**
   * 32 or 64 when the result lanes are f32 or f64 values computed by floating-point arithmetic
   * (the lanes a NaN-canonicalising mode rewrites, as Cranelift's `is_fp_arith` does); 0 for
   * everything else (bit operations such as abs, neg, pmin, pmax, loads, lane moves).
   */
  readonly nanLanes: 0 | 32 | 64;
}

const T: Record<string, ValType> = { i: I32, I: I64, f: F32, F: F64, v: V128 };

function types(s: string): ValType[] {
  return [...s].map((c) => T[c]!);
}

const table: SimdOpInfo[] = [];
const byOp = new Map<number, SimdOpInfo>();

/**
 * Adds a row. `sig` is `params:results` with one letter per type (i i32, I i64, f f32,
 * F f64, v v128), e.g. `vv:v`.
 */
function def(
  op: number, name: string, entry: SimdEntry, sig: string,
  extra: { imm?: SimdImmediate; lanes?: number; bytes?: number; nan?: 0 | 32 | 64 } = {},
): void {
  const [p, r] = sig.split(':') as [string, string];
  const info: SimdOpInfo = {
    op, name, entry,
    imm: extra.imm ?? 'none',
    params: types(p), results: types(r),
    lanes: extra.lanes ?? 0,
    accessBytes: extra.bytes ?? 0,
    relaxed: op >= 0x100,
    nanLanes: extra.nan ?? 0,
  };
  table.push(info);
  byOp.set(op, info);
}

const mem = (bytes: number) => ({ imm: 'memarg' as const, bytes });
const memLane = (bytes: number) => ({ imm: 'memargLane' as const, bytes, lanes: 16 / bytes });
const lane = (lanes: number) => ({ imm: 'lane' as const, lanes });
const F32N = { nan: 32 as const };
const F64N = { nan: 64 as const };

// ---- memory ------------------------------------------------------------------------------
def(0x00, 'v128.load', 'load', 'i:v', mem(16));
def(0x01, 'v128.load8x8_s', 'load', 'i:v', mem(8));
def(0x02, 'v128.load8x8_u', 'load', 'i:v', mem(8));
def(0x03, 'v128.load16x4_s', 'load', 'i:v', mem(8));
def(0x04, 'v128.load16x4_u', 'load', 'i:v', mem(8));
def(0x05, 'v128.load32x2_s', 'load', 'i:v', mem(8));
def(0x06, 'v128.load32x2_u', 'load', 'i:v', mem(8));
def(0x07, 'v128.load8_splat', 'load', 'i:v', mem(1));
def(0x08, 'v128.load16_splat', 'load', 'i:v', mem(2));
def(0x09, 'v128.load32_splat', 'load', 'i:v', mem(4));
def(0x0a, 'v128.load64_splat', 'load', 'i:v', mem(8));
def(0x0b, 'v128.store', 'store', 'iv:', mem(16));
def(0x0c, 'v128.const', 'const', ':v', { imm: 'bytes16' });
def(0x0d, 'i8x16.shuffle', 'shuffle', 'vv:v', { imm: 'bytes16' });
def(0x0e, 'i8x16.swizzle', 'binary', 'vv:v');
def(0x0f, 'i8x16.splat', 'splat', 'i:v');
def(0x10, 'i16x8.splat', 'splat', 'i:v');
def(0x11, 'i32x4.splat', 'splat', 'i:v');
def(0x12, 'i64x2.splat', 'splat', 'I:v');
def(0x13, 'f32x4.splat', 'splat', 'f:v');
def(0x14, 'f64x2.splat', 'splat', 'F:v');
def(0x15, 'i8x16.extract_lane_s', 'extractLane', 'v:i', lane(16));
def(0x16, 'i8x16.extract_lane_u', 'extractLane', 'v:i', lane(16));
def(0x17, 'i8x16.replace_lane', 'replaceLane', 'vi:v', lane(16));
def(0x18, 'i16x8.extract_lane_s', 'extractLane', 'v:i', lane(8));
def(0x19, 'i16x8.extract_lane_u', 'extractLane', 'v:i', lane(8));
def(0x1a, 'i16x8.replace_lane', 'replaceLane', 'vi:v', lane(8));
def(0x1b, 'i32x4.extract_lane', 'extractLane', 'v:i', lane(4));
def(0x1c, 'i32x4.replace_lane', 'replaceLane', 'vi:v', lane(4));
def(0x1d, 'i64x2.extract_lane', 'extractLane', 'v:I', lane(2));
def(0x1e, 'i64x2.replace_lane', 'replaceLane', 'vI:v', lane(2));
def(0x1f, 'f32x4.extract_lane', 'extractLane', 'v:f', lane(4));
def(0x20, 'f32x4.replace_lane', 'replaceLane', 'vf:v', lane(4));
def(0x21, 'f64x2.extract_lane', 'extractLane', 'v:F', lane(2));
def(0x22, 'f64x2.replace_lane', 'replaceLane', 'vF:v', lane(2));

// ---- comparisons ---------------------------------------------------------------------------
const CMP = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u'];
CMP.forEach((c, i) => def(0x23 + i, `i8x16.${c}`, 'binary', 'vv:v'));
CMP.forEach((c, i) => def(0x2d + i, `i16x8.${c}`, 'binary', 'vv:v'));
CMP.forEach((c, i) => def(0x37 + i, `i32x4.${c}`, 'binary', 'vv:v'));
const FCMP = ['eq', 'ne', 'lt', 'gt', 'le', 'ge'];
FCMP.forEach((c, i) => def(0x41 + i, `f32x4.${c}`, 'binary', 'vv:v'));
FCMP.forEach((c, i) => def(0x47 + i, `f64x2.${c}`, 'binary', 'vv:v'));

// ---- bitwise, lane loads and stores ------------------------------------------------------
def(0x4d, 'v128.not', 'unary', 'v:v');
def(0x4e, 'v128.and', 'binary', 'vv:v');
def(0x4f, 'v128.andnot', 'binary', 'vv:v');
def(0x50, 'v128.or', 'binary', 'vv:v');
def(0x51, 'v128.xor', 'binary', 'vv:v');
def(0x52, 'v128.bitselect', 'ternary', 'vvv:v');
def(0x53, 'v128.any_true', 'reduce', 'v:i');
def(0x54, 'v128.load8_lane', 'loadLane', 'iv:v', memLane(1));
def(0x55, 'v128.load16_lane', 'loadLane', 'iv:v', memLane(2));
def(0x56, 'v128.load32_lane', 'loadLane', 'iv:v', memLane(4));
def(0x57, 'v128.load64_lane', 'loadLane', 'iv:v', memLane(8));
def(0x58, 'v128.store8_lane', 'storeLane', 'iv:', memLane(1));
def(0x59, 'v128.store16_lane', 'storeLane', 'iv:', memLane(2));
def(0x5a, 'v128.store32_lane', 'storeLane', 'iv:', memLane(4));
def(0x5b, 'v128.store64_lane', 'storeLane', 'iv:', memLane(8));
def(0x5c, 'v128.load32_zero', 'load', 'i:v', mem(4));
def(0x5d, 'v128.load64_zero', 'load', 'i:v', mem(8));
def(0x5e, 'f32x4.demote_f64x2_zero', 'unary', 'v:v', F32N);
def(0x5f, 'f64x2.promote_low_f32x4', 'unary', 'v:v', F64N);

// ---- i8x16 (with some f32x4 / f64x2 rounding in the gaps) ----------------------------------
def(0x60, 'i8x16.abs', 'unary', 'v:v');
def(0x61, 'i8x16.neg', 'unary', 'v:v');
def(0x62, 'i8x16.popcnt', 'unary', 'v:v');
def(0x63, 'i8x16.all_true', 'reduce', 'v:i');
def(0x64, 'i8x16.bitmask', 'reduce', 'v:i');
def(0x65, 'i8x16.narrow_i16x8_s', 'binary', 'vv:v');
def(0x66, 'i8x16.narrow_i16x8_u', 'binary', 'vv:v');
def(0x67, 'f32x4.ceil', 'unary', 'v:v', F32N);
def(0x68, 'f32x4.floor', 'unary', 'v:v', F32N);
def(0x69, 'f32x4.trunc', 'unary', 'v:v', F32N);
def(0x6a, 'f32x4.nearest', 'unary', 'v:v', F32N);
def(0x6b, 'i8x16.shl', 'shift', 'vi:v');
def(0x6c, 'i8x16.shr_s', 'shift', 'vi:v');
def(0x6d, 'i8x16.shr_u', 'shift', 'vi:v');
def(0x6e, 'i8x16.add', 'binary', 'vv:v');
def(0x6f, 'i8x16.add_sat_s', 'binary', 'vv:v');
def(0x70, 'i8x16.add_sat_u', 'binary', 'vv:v');
def(0x71, 'i8x16.sub', 'binary', 'vv:v');
def(0x72, 'i8x16.sub_sat_s', 'binary', 'vv:v');
def(0x73, 'i8x16.sub_sat_u', 'binary', 'vv:v');
def(0x74, 'f64x2.ceil', 'unary', 'v:v', F64N);
def(0x75, 'f64x2.floor', 'unary', 'v:v', F64N);
def(0x76, 'i8x16.min_s', 'binary', 'vv:v');
def(0x77, 'i8x16.min_u', 'binary', 'vv:v');
def(0x78, 'i8x16.max_s', 'binary', 'vv:v');
def(0x79, 'i8x16.max_u', 'binary', 'vv:v');
def(0x7a, 'f64x2.trunc', 'unary', 'v:v', F64N);
def(0x7b, 'i8x16.avgr_u', 'binary', 'vv:v');
def(0x7c, 'i16x8.extadd_pairwise_i8x16_s', 'unary', 'v:v');
def(0x7d, 'i16x8.extadd_pairwise_i8x16_u', 'unary', 'v:v');
def(0x7e, 'i32x4.extadd_pairwise_i16x8_s', 'unary', 'v:v');
def(0x7f, 'i32x4.extadd_pairwise_i16x8_u', 'unary', 'v:v');

// ---- i16x8 ---------------------------------------------------------------------------------
def(0x80, 'i16x8.abs', 'unary', 'v:v');
def(0x81, 'i16x8.neg', 'unary', 'v:v');
def(0x82, 'i16x8.q15mulr_sat_s', 'binary', 'vv:v');
def(0x83, 'i16x8.all_true', 'reduce', 'v:i');
def(0x84, 'i16x8.bitmask', 'reduce', 'v:i');
def(0x85, 'i16x8.narrow_i32x4_s', 'binary', 'vv:v');
def(0x86, 'i16x8.narrow_i32x4_u', 'binary', 'vv:v');
def(0x87, 'i16x8.extend_low_i8x16_s', 'unary', 'v:v');
def(0x88, 'i16x8.extend_high_i8x16_s', 'unary', 'v:v');
def(0x89, 'i16x8.extend_low_i8x16_u', 'unary', 'v:v');
def(0x8a, 'i16x8.extend_high_i8x16_u', 'unary', 'v:v');
def(0x8b, 'i16x8.shl', 'shift', 'vi:v');
def(0x8c, 'i16x8.shr_s', 'shift', 'vi:v');
def(0x8d, 'i16x8.shr_u', 'shift', 'vi:v');
def(0x8e, 'i16x8.add', 'binary', 'vv:v');
def(0x8f, 'i16x8.add_sat_s', 'binary', 'vv:v');
def(0x90, 'i16x8.add_sat_u', 'binary', 'vv:v');
def(0x91, 'i16x8.sub', 'binary', 'vv:v');
def(0x92, 'i16x8.sub_sat_s', 'binary', 'vv:v');
def(0x93, 'i16x8.sub_sat_u', 'binary', 'vv:v');
def(0x94, 'f64x2.nearest', 'unary', 'v:v', F64N);
def(0x95, 'i16x8.mul', 'binary', 'vv:v');
def(0x96, 'i16x8.min_s', 'binary', 'vv:v');
def(0x97, 'i16x8.min_u', 'binary', 'vv:v');
def(0x98, 'i16x8.max_s', 'binary', 'vv:v');
def(0x99, 'i16x8.max_u', 'binary', 'vv:v');
def(0x9b, 'i16x8.avgr_u', 'binary', 'vv:v');
def(0x9c, 'i16x8.extmul_low_i8x16_s', 'binary', 'vv:v');
def(0x9d, 'i16x8.extmul_high_i8x16_s', 'binary', 'vv:v');
def(0x9e, 'i16x8.extmul_low_i8x16_u', 'binary', 'vv:v');
def(0x9f, 'i16x8.extmul_high_i8x16_u', 'binary', 'vv:v');

// ---- i32x4 ---------------------------------------------------------------------------------
def(0xa0, 'i32x4.abs', 'unary', 'v:v');
def(0xa1, 'i32x4.neg', 'unary', 'v:v');
def(0xa3, 'i32x4.all_true', 'reduce', 'v:i');
def(0xa4, 'i32x4.bitmask', 'reduce', 'v:i');
def(0xa7, 'i32x4.extend_low_i16x8_s', 'unary', 'v:v');
def(0xa8, 'i32x4.extend_high_i16x8_s', 'unary', 'v:v');
def(0xa9, 'i32x4.extend_low_i16x8_u', 'unary', 'v:v');
def(0xaa, 'i32x4.extend_high_i16x8_u', 'unary', 'v:v');
def(0xab, 'i32x4.shl', 'shift', 'vi:v');
def(0xac, 'i32x4.shr_s', 'shift', 'vi:v');
def(0xad, 'i32x4.shr_u', 'shift', 'vi:v');
def(0xae, 'i32x4.add', 'binary', 'vv:v');
def(0xb1, 'i32x4.sub', 'binary', 'vv:v');
def(0xb5, 'i32x4.mul', 'binary', 'vv:v');
def(0xb6, 'i32x4.min_s', 'binary', 'vv:v');
def(0xb7, 'i32x4.min_u', 'binary', 'vv:v');
def(0xb8, 'i32x4.max_s', 'binary', 'vv:v');
def(0xb9, 'i32x4.max_u', 'binary', 'vv:v');
def(0xba, 'i32x4.dot_i16x8_s', 'binary', 'vv:v');
def(0xbc, 'i32x4.extmul_low_i16x8_s', 'binary', 'vv:v');
def(0xbd, 'i32x4.extmul_high_i16x8_s', 'binary', 'vv:v');
def(0xbe, 'i32x4.extmul_low_i16x8_u', 'binary', 'vv:v');
def(0xbf, 'i32x4.extmul_high_i16x8_u', 'binary', 'vv:v');

// ---- i64x2 ---------------------------------------------------------------------------------
def(0xc0, 'i64x2.abs', 'unary', 'v:v');
def(0xc1, 'i64x2.neg', 'unary', 'v:v');
def(0xc3, 'i64x2.all_true', 'reduce', 'v:i');
def(0xc4, 'i64x2.bitmask', 'reduce', 'v:i');
def(0xc7, 'i64x2.extend_low_i32x4_s', 'unary', 'v:v');
def(0xc8, 'i64x2.extend_high_i32x4_s', 'unary', 'v:v');
def(0xc9, 'i64x2.extend_low_i32x4_u', 'unary', 'v:v');
def(0xca, 'i64x2.extend_high_i32x4_u', 'unary', 'v:v');
def(0xcb, 'i64x2.shl', 'shift', 'vi:v');
def(0xcc, 'i64x2.shr_s', 'shift', 'vi:v');
def(0xcd, 'i64x2.shr_u', 'shift', 'vi:v');
def(0xce, 'i64x2.add', 'binary', 'vv:v');
def(0xd1, 'i64x2.sub', 'binary', 'vv:v');
def(0xd5, 'i64x2.mul', 'binary', 'vv:v');
def(0xd6, 'i64x2.eq', 'binary', 'vv:v');
def(0xd7, 'i64x2.ne', 'binary', 'vv:v');
def(0xd8, 'i64x2.lt_s', 'binary', 'vv:v');
def(0xd9, 'i64x2.gt_s', 'binary', 'vv:v');
def(0xda, 'i64x2.le_s', 'binary', 'vv:v');
def(0xdb, 'i64x2.ge_s', 'binary', 'vv:v');
def(0xdc, 'i64x2.extmul_low_i32x4_s', 'binary', 'vv:v');
def(0xdd, 'i64x2.extmul_high_i32x4_s', 'binary', 'vv:v');
def(0xde, 'i64x2.extmul_low_i32x4_u', 'binary', 'vv:v');
def(0xdf, 'i64x2.extmul_high_i32x4_u', 'binary', 'vv:v');

// ---- f32x4, f64x2 ------------------------------------------------------------------------
def(0xe0, 'f32x4.abs', 'unary', 'v:v');
def(0xe1, 'f32x4.neg', 'unary', 'v:v');
def(0xe3, 'f32x4.sqrt', 'unary', 'v:v', F32N);
def(0xe4, 'f32x4.add', 'binary', 'vv:v', F32N);
def(0xe5, 'f32x4.sub', 'binary', 'vv:v', F32N);
def(0xe6, 'f32x4.mul', 'binary', 'vv:v', F32N);
def(0xe7, 'f32x4.div', 'binary', 'vv:v', F32N);
def(0xe8, 'f32x4.min', 'binary', 'vv:v', F32N);
def(0xe9, 'f32x4.max', 'binary', 'vv:v', F32N);
def(0xea, 'f32x4.pmin', 'binary', 'vv:v');
def(0xeb, 'f32x4.pmax', 'binary', 'vv:v');
def(0xec, 'f64x2.abs', 'unary', 'v:v');
def(0xed, 'f64x2.neg', 'unary', 'v:v');
def(0xef, 'f64x2.sqrt', 'unary', 'v:v', F64N);
def(0xf0, 'f64x2.add', 'binary', 'vv:v', F64N);
def(0xf1, 'f64x2.sub', 'binary', 'vv:v', F64N);
def(0xf2, 'f64x2.mul', 'binary', 'vv:v', F64N);
def(0xf3, 'f64x2.div', 'binary', 'vv:v', F64N);
def(0xf4, 'f64x2.min', 'binary', 'vv:v', F64N);
def(0xf5, 'f64x2.max', 'binary', 'vv:v', F64N);
def(0xf6, 'f64x2.pmin', 'binary', 'vv:v');
def(0xf7, 'f64x2.pmax', 'binary', 'vv:v');

// ---- conversions ---------------------------------------------------------------------------
def(0xf8, 'i32x4.trunc_sat_f32x4_s', 'unary', 'v:v');
def(0xf9, 'i32x4.trunc_sat_f32x4_u', 'unary', 'v:v');
def(0xfa, 'f32x4.convert_i32x4_s', 'unary', 'v:v');
def(0xfb, 'f32x4.convert_i32x4_u', 'unary', 'v:v');
def(0xfc, 'i32x4.trunc_sat_f64x2_s_zero', 'unary', 'v:v');
def(0xfd, 'i32x4.trunc_sat_f64x2_u_zero', 'unary', 'v:v');
def(0xfe, 'f64x2.convert_low_i32x4_s', 'unary', 'v:v');
def(0xff, 'f64x2.convert_low_i32x4_u', 'unary', 'v:v');

// ---- relaxed SIMD ----------------------------------------------------------------------------
def(0x100, 'i8x16.relaxed_swizzle', 'binary', 'vv:v');
def(0x101, 'i32x4.relaxed_trunc_f32x4_s', 'unary', 'v:v');
def(0x102, 'i32x4.relaxed_trunc_f32x4_u', 'unary', 'v:v');
def(0x103, 'i32x4.relaxed_trunc_f64x2_s_zero', 'unary', 'v:v');
def(0x104, 'i32x4.relaxed_trunc_f64x2_u_zero', 'unary', 'v:v');
def(0x105, 'f32x4.relaxed_madd', 'ternary', 'vvv:v', F32N);
def(0x106, 'f32x4.relaxed_nmadd', 'ternary', 'vvv:v', F32N);
def(0x107, 'f64x2.relaxed_madd', 'ternary', 'vvv:v', F64N);
def(0x108, 'f64x2.relaxed_nmadd', 'ternary', 'vvv:v', F64N);
def(0x109, 'i8x16.relaxed_laneselect', 'ternary', 'vvv:v');
def(0x10a, 'i16x8.relaxed_laneselect', 'ternary', 'vvv:v');
def(0x10b, 'i32x4.relaxed_laneselect', 'ternary', 'vvv:v');
def(0x10c, 'i64x2.relaxed_laneselect', 'ternary', 'vvv:v');
def(0x10d, 'f32x4.relaxed_min', 'binary', 'vv:v', F32N);
def(0x10e, 'f32x4.relaxed_max', 'binary', 'vv:v', F32N);
def(0x10f, 'f64x2.relaxed_min', 'binary', 'vv:v', F64N);
def(0x110, 'f64x2.relaxed_max', 'binary', 'vv:v', F64N);
def(0x111, 'i16x8.relaxed_q15mulr_s', 'binary', 'vv:v');
def(0x112, 'i16x8.relaxed_dot_i8x16_i7x16_s', 'binary', 'vv:v');
def(0x113, 'i32x4.relaxed_dot_i8x16_i7x16_add_s', 'ternary', 'vvv:v');

/** Every SIMD instruction, in sub-opcode order. */
export const SIMD_OPS: readonly SimdOpInfo[] = table;

/** The row of a sub-opcode, or undefined for an unassigned one (a malformed or invalid module). */
export function simdOpInfo(op: number): SimdOpInfo | undefined {
  return byOp.get(op);
}
