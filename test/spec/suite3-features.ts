/**
 * What each script of the WebAssembly 3.0 suite (`../shared/wasm-testsuite-3`) uses beyond
 * WebAssembly 2.0, copied from that suite's README ("Per script", the features column, which
 * its `tools/features.mjs` detected by printing every module of a script back to text). The
 * names are the README's: simd, relaxed (relaxed SIMD), tail (tail calls), multi-mem,
 * ext-const (extended constant expressions), mem64 (an i64 memory or table), func-refs
 * (typed function references), gc, exn (exception handling: tags, throw, try_table, exnref).
 * A script listed under none of them is WebAssembly 2.0 only.
 *
 * `harness.test.ts` checks this table against the README whenever the suite is present.
 */

/** The README's feature names, in its order. */
export const SUITE3_FEATURE_NAMES = [
  'simd', 'relaxed', 'tail', 'multi-mem', 'ext-const', 'mem64', 'func-refs', 'gc', 'exn',
] as const;

export type Suite3Feature = (typeof SUITE3_FEATURE_NAMES)[number];

/** Feature -> the scripts that use it. */
export const SUITE3_SCRIPTS_BY_FEATURE: ReadonlyMap<Suite3Feature, readonly string[]> = new Map<Suite3Feature, readonly string[]>([
  ['simd', [
    'i16x8_relaxed_q15mulr_s', 'i32x4_relaxed_trunc', 'i8x16_relaxed_swizzle', 'obsolete-keywords',
    'relaxed_dot_product', 'relaxed_laneselect', 'relaxed_madd_nmadd', 'relaxed_min_max',
    'simd_address', 'simd_align', 'simd_bit_shift', 'simd_bitwise', 'simd_boolean', 'simd_const',
    'simd_conversions', 'simd_f32x4', 'simd_f32x4_arith', 'simd_f32x4_cmp', 'simd_f32x4_pmin_pmax',
    'simd_f32x4_rounding', 'simd_f64x2', 'simd_f64x2_arith', 'simd_f64x2_cmp',
    'simd_f64x2_pmin_pmax', 'simd_f64x2_rounding', 'simd_i16x8_arith', 'simd_i16x8_arith2',
    'simd_i16x8_cmp', 'simd_i16x8_extadd_pairwise_i8x16', 'simd_i16x8_extmul_i8x16',
    'simd_i16x8_q15mulr_sat_s', 'simd_i16x8_sat_arith', 'simd_i32x4_arith', 'simd_i32x4_arith2',
    'simd_i32x4_cmp', 'simd_i32x4_dot_i16x8', 'simd_i32x4_extadd_pairwise_i16x8',
    'simd_i32x4_extmul_i16x8', 'simd_i32x4_trunc_sat_f32x4', 'simd_i32x4_trunc_sat_f64x2',
    'simd_i64x2_arith', 'simd_i64x2_arith2', 'simd_i64x2_cmp', 'simd_i64x2_extmul_i32x4',
    'simd_i8x16_arith', 'simd_i8x16_arith2', 'simd_i8x16_cmp', 'simd_i8x16_sat_arith',
    'simd_int_to_int_extend', 'simd_lane', 'simd_linking', 'simd_load', 'simd_load16_lane',
    'simd_load32_lane', 'simd_load64_lane', 'simd_load8_lane', 'simd_load_extend',
    'simd_load_splat', 'simd_load_zero', 'simd_memory-multi', 'simd_select', 'simd_splat',
    'simd_store', 'simd_store16_lane', 'simd_store32_lane', 'simd_store64_lane', 'simd_store8_lane',
  ]],
  ['relaxed', [
    'i16x8_relaxed_q15mulr_s', 'i32x4_relaxed_trunc', 'i8x16_relaxed_swizzle',
    'relaxed_dot_product', 'relaxed_laneselect', 'relaxed_madd_nmadd', 'relaxed_min_max',
  ]],
  ['tail', [
    'return_call', 'return_call_indirect', 'return_call_ref', 'try_table',
  ]],
  ['multi-mem', [
    'address0', 'address1', 'align0', 'binary0', 'data0', 'data1', 'data_drop0', 'exports0',
    'float_exprs0', 'float_exprs1', 'float_memory0', 'imports0', 'imports1', 'imports2', 'imports3',
    'imports4', 'instance', 'linking0', 'linking1', 'linking2', 'linking3', 'load0', 'load1',
    'load2', 'memory-multi', 'memory_copy0', 'memory_copy1', 'memory_fill0', 'memory_grow',
    'memory_init0', 'memory_size0', 'memory_size1', 'memory_size2', 'memory_size3',
    'memory_size_import', 'memory_trap0', 'memory_trap1', 'simd_memory-multi', 'start0', 'store0',
    'store1', 'store2', 'traps0',
  ]],
  ['ext-const', [
    'data', 'elem', 'global',
  ]],
  ['mem64', [
    'address64', 'align64', 'binary_leb128_64', 'bulk64', 'call_indirect64', 'endianness64',
    'float_memory64', 'load64', 'memory64', 'memory64-imports', 'memory_copy64', 'memory_fill64',
    'memory_grow64', 'memory_init64', 'memory_redundancy64', 'memory_trap64', 'table64',
    'table_copy64', 'table_copy_mixed', 'table_fill64', 'table_get64', 'table_grow64',
    'table_init64', 'table_set64', 'table_size64',
  ]],
  ['func-refs', [
    'array', 'array_copy', 'array_fill', 'array_init_data', 'array_init_elem', 'array_new_data',
    'array_new_elem', 'br_if', 'br_on_cast', 'br_on_cast_fail', 'br_on_non_null', 'br_on_null',
    'br_table', 'call_ref', 'elem', 'func', 'linking', 'local_init', 'local_tee', 'ref',
    'ref_as_non_null', 'ref_cast', 'ref_eq', 'ref_is_null', 'ref_null', 'ref_test',
    'return_call_ref', 'select', 'struct', 'table', 'table-sub', 'try_table', 'type-canon',
    'type-equivalence', 'type-rec', 'type-subtyping', 'unreached-invalid', 'unreached-valid',
  ]],
  ['gc', [
    'array', 'array_copy', 'array_fill', 'array_init_data', 'array_init_elem', 'array_new_data',
    'array_new_elem', 'br_on_cast', 'br_on_cast_fail', 'br_table', 'extern', 'i31', 'ref_cast',
    'ref_eq', 'ref_null', 'ref_test', 'struct', 'table_init', 'table_init64', 'tag', 'type-canon',
    'type-equivalence', 'type-rec', 'type-subtyping',
  ]],
  ['exn', [
    'exports', 'imports', 'instance', 'ref_null', 'tag', 'throw', 'throw_ref', 'try_table',
  ]],
]);
