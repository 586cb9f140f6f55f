/**
 * Control flow and the register-style translation (compiler.ts), differentially against
 * Node's WebAssembly: local.get read in place, producers retargeted by local.set/local.tee,
 * locals overwritten while an older local.get of them is still on the stack, blocks, loops and
 * ifs with parameters and results, branches carrying values out of nested blocks, multi-value
 * returns, calls with many parameters, recursion.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { I32_EDGES, I64_EDGES, Pair, f32, f64, i32, i64, pair } from './helpers/engine-oracle.js';
import type { WasmValue } from '../src/interpreter/index.js';

const SMALL = [0, 1, 2, 3, 5, 7, -1, -7, 100, 0x7fffffff, -0x80000000];
const grid2 = (xs: readonly number[]): WasmValue[][] => xs.flatMap((a) => xs.map((b) => [i32(a), i32(b)]));
const grid3 = (xs: readonly number[]): WasmValue[][] => xs.flatMap((a) => xs.flatMap((b) => xs.map((c) => [i32(a), i32(b), i32(c)])));

describe('locals read in place and written by producers', () => {
  let p: Pair;
  const src = `(module
    (memory 1)
    (global $g (mut i32) (i32.const 11))
    (func $id (param i32) (result i32) local.get 0)

    ;; An older local.get of $x still on the stack when $x is overwritten.
    (func (export "stale_set") (param $x i32) (param $y i32) (result i32)
      local.get $x
      local.get $y local.set $x
      local.get $x
      i32.sub)
    (func (export "stale_tee") (param $x i32) (param $y i32) (result i32)
      local.get $x
      local.get $x local.get $y i32.mul local.tee $x
      i32.sub
      local.get $x i32.add)
    (func (export "stale_producer_set") (param $x i32) (param $y i32) (result i32)
      ;; old x, then x := x + y written by the add straight into $x
      local.get $x
      local.get $x local.get $y i32.add local.set $x
      local.get $x
      i32.const 1000 i32.mul i32.add)
    (func (export "stale_twice") (param $x i32) (param $y i32) (result i32)
      local.get $x
      local.get $x
      local.get $y local.set $x
      local.get $x i32.const 3 i32.shl local.set $x
      i32.const 10 i32.mul i32.add
      local.get $x i32.add)
    (func (export "stale_deep") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y local.get $x local.get $y
      local.get $y local.set $x
      local.get $x local.set $y
      i32.const 2 local.set $x
      i32.sub i32.mul i32.add
      local.get $x i32.add local.get $y i32.add)
    (func (export "swap") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y local.set $x local.set $y
      local.get $x i32.const 16 i32.shl local.get $y i32.or)
    (func (export "rotate3") (param $a i32) (param $b i32) (param $c i32) (result i32)
      local.get $a local.get $b local.get $c
      local.set $a local.set $c local.set $b
      local.get $a i32.const 100 i32.mul local.get $b i32.const 10 i32.mul i32.add local.get $c i32.add)
    (func (export "tee_chain") (param $x i32) (param $y i32) (result i32) (local $a i32) (local $b i32)
      local.get $x local.get $y i32.add local.tee $a local.tee $b
      local.get $a i32.mul local.set $a
      local.get $b local.get $a i32.sub)
    (func (export "tee_self") (param $x i32) (result i32)
      local.get $x local.get $x local.get $x i32.const 1 i32.add local.tee $x i32.mul i32.add local.get $x i32.add)
    (func (export "set_from_each_producer") (param $x i32) (param $y i32) (result i32) (local $t i32) (local $acc i32)
      i32.const 5 local.set $t                                    local.get $t local.set $acc
      global.get $g local.set $t                                  local.get $acc local.get $t i32.add local.set $acc
      local.get $x local.get $y local.get $x select local.set $t  local.get $acc local.get $t i32.add local.set $acc
      i32.const 8 i32.load local.set $t                           local.get $acc local.get $t i32.add local.set $acc
      memory.size local.set $t                                    local.get $acc local.get $t i32.add local.set $acc
      local.get $x i32.eqz local.set $t                           local.get $acc local.get $t i32.add local.set $acc
      local.get $x local.get $y i32.lt_s local.set $t             local.get $acc local.get $t i32.add local.set $acc
      local.get $x call $id local.set $t                          local.get $acc local.get $t i32.add local.set $acc
      (block (result i32) local.get $y) local.set $t              local.get $acc local.get $t i32.add local.set $acc
      (if (result i32) (local.get $x) (then local.get $y) (else i32.const 3)) local.set $t
      local.get $acc local.get $t i32.add local.set $acc
      i32.const 0 memory.grow local.set $t                        local.get $acc local.get $t i32.add local.set $acc
      local.get $y i32.clz local.set $t                           local.get $acc local.get $t i32.add local.set $acc
      local.get $y i64.extend_i32_s i64.const 33 i64.rotl i32.wrap_i64 local.set $t
      local.get $acc local.get $t i32.add local.set $acc
      local.get $x f32.convert_i32_s i32.reinterpret_f32 local.set $t
      local.get $acc local.get $t i32.xor local.set $acc
      local.get $acc)
    (func (export "tee_from_each_producer") (param $x i32) (param $y i32) (result i32) (local $t i32)
      i32.const 5 local.tee $t
      global.get $g local.tee $t i32.add
      local.get $x local.get $y local.get $x select local.tee $t i32.add
      i32.const 8 i32.load local.tee $t i32.add
      local.get $x call $id local.tee $t i32.add
      local.get $x local.get $y i32.rem_u local.tee $t i32.add
      local.get $t i32.mul)
    (func (export "producer_writes_operand_local") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y i32.sub local.set $y
      local.get $y local.get $x i32.mul local.set $x
      local.get $x local.get $x i32.add local.set $x
      local.get $x local.get $y i32.xor)
    (func (export "i64_self") (param $x i64) (param $y i64) (result i64)
      local.get $x local.get $y i64.add local.set $x
      local.get $x local.get $y i64.sub local.set $y
      local.get $y local.get $x i64.mul local.set $x
      local.get $x local.get $y i64.rotl local.set $y
      local.get $y local.get $x i64.xor)
    (func (export "dead_code_after_br") (param $x i32) (result i32) (local $y i32)
      (block
        local.get $x local.set $y
        br 0
        local.get $x i32.const 1 i32.add local.set $y
        local.get $y drop)
      local.get $y)
    (func (export "drop_then_set") (param $x i32) (param $y i32) (result i32) (local $t i32)
      local.get $x local.get $y i32.add
      i32.const 77 drop
      local.set $t
      local.get $x i32.const 3 i32.mul
      local.get $y drop
      local.set $x
      local.get $t local.get $x i32.sub)
    (func (export "store_then_reuse") (param $x i32) (param $y i32) (result i32)
      i32.const 16 local.get $x i32.store
      local.get $x local.get $y local.set $x
      i32.const 16 i32.load i32.add local.get $x i32.add)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  for (const name of ['stale_set', 'stale_tee', 'stale_producer_set', 'stale_twice', 'stale_deep', 'swap', 'tee_chain',
    'set_from_each_producer', 'tee_from_each_producer', 'producer_writes_operand_local', 'drop_then_set', 'store_then_reuse']) {
    it(name, () => p.checkAll(name, grid2(SMALL)));
  }
  it('rotate3', () => p.checkAll('rotate3', grid3([0, 1, 2, 9])));
  it('tee_self', () => p.checkAll('tee_self', SMALL.map((x) => [i32(x)])));
  it('dead_code_after_br', () => p.checkAll('dead_code_after_br', SMALL.map((x) => [i32(x)])));
  it('i64_self', () => p.checkAll('i64_self', I64_EDGES.slice(0, 14).flatMap((a) => I64_EDGES.slice(10).map((b) => [i64(a), i64(b)]))));
  it('a concrete case: stale_set(10, 3) = 7', () => {
    expect(p.check('stale_set', [i32(10), i32(3)])).toEqual({ ok: true, values: [i32(7)] });
  });
});

describe('blocks, loops and ifs with parameters and results', () => {
  let p: Pair;
  const src = `(module
    (type $i_i (func (param i32) (result i32)))
    (type $ii_i (func (param i32 i32) (result i32)))
    (type $ii_ii (func (param i32 i32) (result i32 i32)))
    (type $i_ii (func (param i32) (result i32 i32)))
    (func (export "nested_results") (param $x i32) (result i32)
      (block (result i32)
        (block (result i32)
          (block (result i32) local.get $x i32.const 1 i32.add)
          i32.const 2 i32.mul)
        (block (result i32) local.get $x)
        i32.sub))
    (func (export "block_params") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y
      (block (type $ii_i) i32.sub)
      local.get $x
      (block (param i32 i32) (result i32) local.set $x local.get $x i32.mul))
    (func (export "block_params_swap") (param $x i32) (param $y i32) (result i32 i32)
      local.get $x local.get $y
      (block (type $ii_ii) local.set $x local.set $y local.get $x local.get $y))
    (func (export "block_param_local_overwritten") (param $x i32) (param $y i32) (result i32)
      ;; the block's parameter is local.get $x, and $x is overwritten inside the block
      local.get $x
      (block (param i32) (result i32)
        local.get $y local.set $x
        local.get $x i32.const 100 i32.mul i32.add))
    (func (export "if_params") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y
      local.get $x i32.const 5 i32.gt_s
      (if (type $ii_i) (then i32.add) (else i32.sub)))
    (func (export "if_params_multi") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y
      local.get $x local.get $y i32.lt_u
      (if (type $ii_ii)
        (then local.set $x i32.const 1000 i32.add local.get $x)
        (else i32.const 2 i32.mul))
      i32.const 65536 i32.mul i32.add)
    (func (export "if_no_else_param") (param $x i32) (param $y i32) (result i32)
      local.get $x
      local.get $y
      (if (param i32) (result i32) (then i32.const 7 i32.mul)))
    (func (export "if_param_cond_local_overwritten") (param $x i32) (param $y i32) (result i32)
      local.get $y local.get $x
      (if (param i32) (result i32)
        (then local.get $y i32.const 1 i32.add local.set $y local.get $y i32.add)
        (else local.get $x i32.sub)))
    (func (export "loop_params_sum") (param $n i32) (result i32)
      ;; sum 1..n with the accumulator and counter carried as loop parameters
      i32.const 0 local.get $n
      (loop $l (param i32 i32) (result i32 i32)
        local.set $n
        local.get $n i32.add
        local.get $n i32.const 1 i32.sub
        local.get $n i32.const 1 i32.gt_s
        br_if $l)
      drop)
    (func (export "loop_sum") (param $n i32) (result i32) (local $acc i32) (local $i i32)
      (block $done
        (loop $l
          local.get $i local.get $n i32.ge_s br_if $done
          local.get $acc local.get $i i32.add local.set $acc
          local.get $i i32.const 1 i32.add local.set $i
          br $l))
      local.get $acc)
    (func (export "loop_result") (param $n i32) (result i32) (local $i i32)
      (loop $l (result i32)
        local.get $i i32.const 3 i32.add local.tee $i
        local.get $i local.get $n i32.lt_s br_if $l))
    (func (export "if_results_from_locals") (param $x i32) (param $y i32) (result i32 i32)
      (if (result i32 i32) (local.get $x)
        (then local.get $y local.get $x)
        (else local.get $x local.get $y)))
    (func (export "unreachable_then") (param $x i32) (result i32)
      (if (result i32) (local.get $x) (then unreachable) (else i32.const 9)))
    (func (export "br_from_then") (param $x i32) (param $y i32) (result i32)
      (block $b (result i32)
        (if (result i32) (local.get $x)
          (then local.get $y br $b)
          (else local.get $y i32.const 2 i32.mul))
        i32.const 1 i32.add))
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  for (const name of ['nested_results', 'loop_sum', 'loop_params_sum', 'loop_result', 'unreachable_then']) {
    it(name, () => p.checkAll(name, [0, 1, 2, 3, 10, 100, -5].map((x) => [i32(x)])));
  }
  for (const name of ['block_params', 'block_params_swap', 'block_param_local_overwritten', 'if_params', 'if_params_multi',
    'if_no_else_param', 'if_param_cond_local_overwritten', 'if_results_from_locals', 'br_from_then']) {
    it(name, () => p.checkAll(name, grid2(SMALL)));
  }
  it('loop_sum(100) = 4950', () => {
    expect(p.check('loop_sum', [i32(100)])).toEqual({ ok: true, values: [i32(4950)] });
  });
});

describe('branches carrying values', () => {
  let p: Pair;
  const src = `(module
    (func (export "br_out_of_nested") (param $x i32) (result i32)
      (block $outer (result i32)
        (block $mid (result i32)
          (block $inner (result i32)
            local.get $x i32.const 7
            local.get $x i32.const 1 i32.eq br_if $outer
            drop
            local.get $x i32.const 2 i32.eq br_if $mid
            i32.const 100 local.get $x i32.const 3 i32.eq br_if $inner
            drop drop i32.const 5)
          i32.const 10 i32.add)
        i32.const 1000 i32.add))
    (func (export "br_if_keeps_stack_below") (param $x i32) (param $y i32) (result i32)
      local.get $y i32.const 3 i32.mul
      (block $b (result i32)
        local.get $x
        local.get $x i32.const 1 i32.add local.set $x
        local.get $y br_if $b
        local.get $x i32.add)
      i32.add local.get $x i32.add)
    (func (export "br_if_value_from_local_then_overwritten") (param $x i32) (param $y i32) (result i32)
      (block $b (result i32)
        local.get $x
        local.get $y br_if $b
        local.get $y local.set $x
        local.get $x i32.add)
      local.get $x i32.const 100 i32.mul i32.add)
    (func (export "br_multi") (param $x i32) (param $y i32) (result i32)
      (block $b (result i32 i32 i32)
        local.get $y local.get $x local.get $y i32.add local.get $x
        local.get $x br_if $b
        drop drop drop
        local.get $x local.get $y local.get $y)
      i32.const 7 i32.mul i32.add i32.const 7 i32.mul i32.add)
    (func (export "br_table_many") (param $i i32) (result i32)
      (block $d (result i32)
        (block $c (result i32)
          (block $b (result i32)
            (block $a (result i32)
              local.get $i i32.const 10 i32.mul
              local.get $i
              br_table $a $b $c $a $c $b $d $b $a $c $d $d $a $b)
            i32.const 1 i32.add)
          i32.const 20 i32.add)
        i32.const 300 i32.add)
      i32.const 4000 i32.add)
    (func (export "br_table_loop") (param $n i32) (result i32) (local $acc i32)
      (block $exit
        (loop $top
          local.get $acc i32.const 3 i32.add local.set $acc
          local.get $n i32.const 1 i32.sub local.tee $n
          br_table $exit $top $top $top $top $top))
      local.get $acc)
    (func (export "br_table_multi") (param $i i32) (param $v i32) (result i32)
      (block $b (result i32 i32)
        (block $a (result i32 i32)
          local.get $v local.get $i
          local.get $i
          br_table $a $b $a)
        i32.add
        i32.const 2 i32.mul
        local.get $i)
      i32.sub)
    (func (export "br_table_to_function") (param $i i32) (result i32)
      (block $a (result i32)
        local.get $i i32.const 5 i32.add
        local.get $i
        br_table 1 $a 1)
      i32.const -1 i32.mul)
    (func (export "br_if_to_function") (param $x i32) (param $y i32) (result i32)
      local.get $x local.get $y br_if 0
      local.get $y local.set $x drop local.get $x i32.const 3 i32.mul)
    (func (export "early_return_nested_loops") (param $n i32) (result i32) (local $i i32) (local $j i32)
      (loop $outer
        i32.const 0 local.set $j
        (loop $inner
          local.get $i local.get $j i32.mul local.get $n i32.gt_s
          (if (then local.get $i i32.const 1000 i32.mul local.get $j i32.add return))
          local.get $j i32.const 1 i32.add local.tee $j
          i32.const 10 i32.lt_s br_if $inner)
        local.get $i i32.const 1 i32.add local.tee $i
        i32.const 10 i32.lt_s br_if $outer)
      i32.const -1)
    (func (export "return_multi_from_loop") (param $n i32) (result i32 i64) (local $i i32)
      (loop $l
        local.get $i local.get $n i32.ge_s
        (if (then local.get $i local.get $i i64.extend_i32_u i64.const 40 i64.shl return))
        local.get $i i32.const 1 i32.add local.set $i
        br $l)
      unreachable)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  const xs = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100, 0x7fffffff, -0x80000000];
  for (const name of ['br_out_of_nested', 'br_table_many', 'br_table_to_function', 'early_return_nested_loops']) {
    it(name, () => p.checkAll(name, xs.map((x) => [i32(x)])));
  }
  it('br_table_loop', () => p.checkAll('br_table_loop', [1, 2, 3, 5, 6, 7, 50].map((x) => [i32(x)])));
  it('return_multi_from_loop', () => p.checkAll('return_multi_from_loop', [0, 1, 5, 33].map((x) => [i32(x)])));
  for (const name of ['br_if_keeps_stack_below', 'br_if_value_from_local_then_overwritten', 'br_multi', 'br_table_multi', 'br_if_to_function']) {
    it(name, () => p.checkAll(name, grid2([0, 1, 2, 3, -1, 9])));
  }
});

describe('calls', () => {
  let p: Pair;
  const params = Array.from({ length: 12 }, (_, k) => (k % 3 === 0 ? 'i64' : k % 3 === 1 ? 'i32' : 'f64'));
  const many = `(func $many (param ${params.join(' ')}) (result i64)
      ${params.map((t, k) => `local.get ${k} ${t === 'i64' ? '' : t === 'i32' ? 'i64.extend_i32_s' : 'i64.trunc_sat_f64_s'} i64.const ${k + 1} i64.mul ${k > 0 ? 'i64.add' : ''}`).join('\n')})`;
  const src = `(module
    (type $v_i (func (result i32)))
    ${many}
    (func (export "call_many") (param $a i32) (param $b i64) (result i64) (local $f f64)
      local.get $a f64.convert_i32_s local.set $f
      ${params.map((t, k) => (t === 'i64' ? `local.get $b i64.const ${k} i64.add` : t === 'i32' ? `local.get $a i32.const ${k} i32.xor` : `local.get $f f64.const ${k}.5 f64.mul`)).join('\n')}
      call $many)
    (func (export "call_args_are_same_local") (param $a i32) (result i32)
      local.get $a local.get $a local.get $a local.get $a call $sub4)
    (func $sub4 (param i32 i32 i32 i32) (result i32)
      local.get 0 local.get 1 i32.sub local.get 2 i32.sub local.get 3 i32.const 3 i32.mul i32.add)
    (func (export "call_arg_local_overwritten_after") (param $a i32) (param $b i32) (result i32)
      local.get $a
      local.get $b local.get $a call $sub2
      local.get $b local.set $a
      local.get $a call $sub3)
    (func $sub2 (param i32 i32) (result i32) local.get 0 local.get 1 i32.sub)
    (func $sub3 (param i32 i32 i32) (result i32) local.get 0 local.get 1 i32.sub local.get 2 i32.const 7 i32.mul i32.sub)
    (func $multi (param i32 i32) (result i32 i32 i32) local.get 1 local.get 0 local.get 0 local.get 1 i32.add)
    (func (export "call_multi_result") (param $a i32) (param $b i32) (result i32)
      local.get $a local.get $b call $multi
      local.set $a i32.const 100 i32.mul i32.add local.get $a i32.const 10000 i32.mul i32.add)
    (func (export "call_multi_passthrough") (param $a i32) (param $b i32) (result i32 i32 i32)
      local.get $b local.get $a call $multi)
    (func $fib (export "fib") (param $n i32) (result i32)
      local.get $n i32.const 2 i32.lt_u
      (if (result i32) (then local.get $n)
        (else local.get $n i32.const 1 i32.sub call $fib local.get $n i32.const 2 i32.sub call $fib i32.add)))
    (func $ack (export "ack") (param $m i32) (param $n i32) (result i32)
      local.get $m i32.eqz (if (then local.get $n i32.const 1 i32.add return))
      local.get $n i32.eqz (if (then local.get $m i32.const 1 i32.sub i32.const 1 call $ack return))
      local.get $m i32.const 1 i32.sub
      local.get $m local.get $n i32.const 1 i32.sub call $ack
      call $ack)
    (func $even (export "even") (param $n i64) (result i32)
      local.get $n i64.eqz (if (result i32) (then i32.const 1) (else local.get $n i64.const 1 i64.sub call $odd)))
    (func $odd (param $n i64) (result i32)
      local.get $n i64.eqz (if (result i32) (then i32.const 0) (else local.get $n i64.const 1 i64.sub call $even)))
    (func $fact64 (export "fact64") (param $n i64) (result i64)
      local.get $n i64.const 1 i64.le_u
      (if (result i64) (then i64.const 1) (else local.get $n local.get $n i64.const 1 i64.sub call $fact64 i64.mul)))
    (func (export "float_args") (param f32 f64) (result f64)
      local.get 0 local.get 1 local.get 0 call $fmix)
    (func $fmix (param f32 f64 f32) (result f64)
      local.get 0 f64.promote_f32 local.get 1 f64.mul local.get 2 f64.promote_f32 f64.sub)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('call_many (12 mixed parameters)', () => {
    p.checkAll('call_many', I32_EDGES.slice(0, 10).flatMap((a) => I64_EDGES.slice(0, 10).map((b) => [i32(a), i64(b)])));
  });
  it('call_args_are_same_local', () => p.checkAll('call_args_are_same_local', SMALL.map((x) => [i32(x)])));
  for (const name of ['call_arg_local_overwritten_after', 'call_multi_result', 'call_multi_passthrough']) {
    it(name, () => p.checkAll(name, grid2(SMALL)));
  }
  it('fib', () => {
    p.checkAll('fib', [0, 1, 2, 3, 10, 20].map((x) => [i32(x)]));
    expect(p.check('fib', [i32(20)])).toEqual({ ok: true, values: [i32(6765)] });
  });
  it('ackermann (small)', () => {
    p.checkAll('ack', [[0, 0], [1, 1], [2, 3], [3, 3], [2, 10]].map(([m, n]) => [i32(m!), i32(n!)]));
    expect(p.check('ack', [i32(3), i32(3)])).toEqual({ ok: true, values: [i32(61)] });
  });
  it('mutual recursion', () => {
    p.checkAll('even', [0, 1, 2, 7, 100, 1001].map((x) => [i64(x)]));
    expect(p.check('even', [i64(1000)])).toEqual({ ok: true, values: [i32(1)] });
  });
  it('fact64', () => p.checkAll('fact64', [0, 1, 5, 20, 21, 25].map((x) => [i64(x)])));
  it('float_args', () => p.checkAll('float_args', [[1.5, 2], [-0, 3], [NaN, 1], [3e38, 1e300]].map(([a, b]) => [f32(a!), f64(b!)])));
});

describe('select', () => {
  let p: Pair;
  const src = `(module
    (func (export "sel_i32") (param i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 select)
    (func (export "sel_i64") (param i64 i64 i32) (result i64) local.get 0 local.get 1 local.get 2 select)
    (func (export "sel_f32") (param f32 f32 i32) (result f32) local.get 0 local.get 1 local.get 2 select)
    (func (export "sel_f64_typed") (param f64 f64 i32) (result f64) local.get 0 local.get 1 local.get 2 select (result f64))
    (func (export "sel_i64_typed_into_operand") (param i64 i64 i32) (result i64)
      local.get 0 local.get 1 local.get 2 select (result i64) local.set 1 local.get 1)
    (func (export "sel_into_cond_local") (param i32 i32 i32) (result i32)
      local.get 0 local.get 1 local.get 2 select local.tee 2 local.get 2 i32.add)
    (func (export "sel_ref") (param i32) (result i32)
      ref.null extern ref.null extern local.get 0 select (result externref) ref.is_null)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('untyped and typed select of every numeric type', () => {
    const conds = [0, 1, -1, 0x80000000];
    for (const c of conds) {
      p.check('sel_i32', [i32(5), i32(9), i32(c)]);
      p.check('sel_i64', [i64(-5n), i64(1n << 40n), i32(c)]);
      p.check('sel_f32', [f32(-0), f32(1.5), i32(c)]);
      p.check('sel_f64_typed', [f64(-0), f64(NaN), i32(c)]);
      p.check('sel_i64_typed_into_operand', [i64(7n), i64(-(1n << 50n)), i32(c)]);
      p.check('sel_into_cond_local', [i32(7), i32(-3), i32(c)]);
      p.check('sel_ref', [i32(c)]);
    }
  });
});

describe('traps inside control flow', () => {
  let p: Pair;
  const src = `(module
    (func (export "trap_in_loop") (param $n i32) (result i32) (local $i i32)
      (loop $l
        local.get $i i32.const 1 i32.add local.set $i
        i32.const 100 local.get $n local.get $i i32.sub i32.div_s drop
        local.get $i i32.const 50 i32.lt_s br_if $l)
      local.get $i)
    (func (export "unreachable_in_nested") (param $x i32) (result i32)
      (block (result i32)
        (block (result i32)
          i32.const 42 local.get $x br_if 1
          drop unreachable)))
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('division by zero in the 10th iteration traps', () => {
    p.checkAll('trap_in_loop', [10, 60, 0, -3].map((x) => [i32(x)]));
    expect(p.check('trap_in_loop', [i32(10)]).ok).toBe(false);
  });
  it('unreachable reached or skipped', () => p.checkAll('unreachable_in_nested', [0, 1].map((x) => [i32(x)])));
});

describe('comparisons fused with br_if / if', () => {
  const CMPS = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u'];
  // Operand shapes: two locals, a constant on the right, a constant on the left, a computed value.
  const SHAPES: Record<string, string> = {
    ll: 'local.get 0 local.get 1',
    lc: 'local.get 0 i32.const 5',
    cl: 'i32.const -3 local.get 1',
    lm: 'local.get 0 i32.const 0x7fffffff',
    cm: 'i32.const 0x80000000 local.get 0',
    ee: 'local.get 0 i32.const 1 i32.add local.get 1 i32.const 2 i32.mul',
  };
  const fns: string[] = [];
  const names: string[] = [];
  const add = (name: string, body: string): void => {
    names.push(name);
    fns.push(`(func (export "${name}") (param i32 i32) (result i32) ${body})`);
  };
  for (const c of [...CMPS, 'eqz']) {
    for (const [sk, shape] of Object.entries(SHAPES)) {
      const cmp = c === 'eqz' ? `${shape} i32.sub i32.eqz` : `${shape} i32.${c}`;
      // br_if carrying a value out of a block
      add(`${c}/${sk}/br_if`, `(block (result i32) i32.const 111 ${cmp} br_if 0 drop i32.const 222)`);
      // br_if without a value
      add(`${c}/${sk}/br_if0`, `(block ${cmp} br_if 0 i32.const 5 local.set 0) local.get 0`);
      // if / else
      add(`${c}/${sk}/if`, `${cmp} (if (result i32) (then i32.const 1) (else i32.const 2))`);
      // if without else, with a parameter
      add(`${c}/${sk}/ifp`, `local.get 1 ${cmp} (if (param i32) (result i32) (then i32.const 100 i32.add))`);
      // the comparison's value used as well as branched on
      add(`${c}/${sk}/tee`, `(block (result i32) ${cmp} local.tee 1 local.get 1 br_if 0 i32.const 10 i32.add)`);
      // the comparison is the branch's value, not its condition
      add(`${c}/${sk}/val`, `(block (result i32) ${cmp} local.get 1 br_if 0 i32.const 10 i32.add)`);
      // a constant pushed (and dropped) between the comparison and the branch
      add(`${c}/${sk}/gap`, `(block (result i32) i32.const 7 ${cmp} i32.const 9 drop br_if 0 drop i32.const 8)`);
      // loop exit on the comparison
      add(`${c}/${sk}/loop`, `(local i32) (block (loop $l local.get 2 i32.const 1 i32.add local.tee 2 i32.const 4 i32.ge_u br_if 1 ${cmp} br_if $l)) local.get 2`);
      // select on the comparison
      add(`${c}/${sk}/select`, `i32.const 3 i32.const 4 ${cmp} select`);
    }
  }
  let p: Pair;
  beforeAll(async () => {
    p = await pair(`(module ${fns.join('\n')})`);
  });
  const vals = [0, 1, 4, 5, 6, -3, -4, -1, 0x7fffffff, -0x80000000, 0x7ffffffe];
  it(`${fns.length} fused branch shapes agree with the native engine`, () => {
    const tuples = grid2(vals);
    for (const name of names) p.checkAll(name, tuples, 5);
  });
});

describe('constants inside loops (constant slots in the frame)', () => {
  let p: Pair;
  const src = `(module
    (memory 1)
    (func $callee (param i32) (result i32) (local i32)
      (loop $l
        local.get 1 i32.const 3 i32.add local.set 1
        local.get 1 i32.const 30 i32.lt_s br_if $l)
      local.get 1 local.get 0 i32.const -7 i32.mul i32.add)
    (func $rec (export "rec") (param $n i32) (result i64) (local $i i32) (local $acc i64)
      (loop $l
        local.get $acc i64.const 0x100000001 i64.add local.set $acc
        local.get $i i32.const 1 i32.add local.tee $i
        i32.const 3 i32.lt_u br_if $l)
      local.get $n i32.eqz
      (if (result i64) (then local.get $acc)
        (else local.get $n i32.const 1 i32.sub call $rec local.get $acc i64.const 5 i64.mul i64.add)))
    (func (export "mixed") (param $n i32) (result i64) (local $i i32) (local $acc i64) (local $f f64) (local $g f32)
      (loop $l
        ;; the same bits as constants of four types
        local.get $acc i64.const 5 i64.add local.set $acc
        local.get $f f64.const 0x0.0000000000005p-1022 f64.add local.set $f
        local.get $g f32.const 0x1.4p-147 f32.add local.set $g
        i32.const 5 local.get $i i32.add i32.const 8 i32.store
        local.get $i i32.const 5 i32.add call $callee drop
        i32.const 5 i32.const 0 i32.const 5 select local.get $i i32.add local.set $i
        local.get $i local.get $n i32.lt_s br_if $l)
      local.get $acc
      local.get $f i64.reinterpret_f64 i64.add
      local.get $g i32.reinterpret_f32 i64.extend_i32_u i64.add
      i32.const 8 i64.load32_u i64.add)
    (func (export "nested_loops") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
      (loop $outer
        i32.const 0 local.set $j
        (loop $inner
          local.get $acc i32.const 7 i32.xor i32.const 3 i32.rotl i32.const -1 i32.add local.set $acc
          local.get $j i32.const 1 i32.add local.tee $j i32.const 4 i32.lt_s br_if $inner)
        local.get $acc i32.const 1000003 i32.mul local.set $acc
        local.get $i i32.const 1 i32.add local.tee $i local.get $n i32.lt_s br_if $outer)
      local.get $acc)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('recursion re-writes the constants of every frame', () => p.checkAll('rec', [0, 1, 5, 50].map((x) => [i32(x)])));
  it('constants of several types with equal bits, calls in the loop', () => p.checkAll('mixed', [1, 2, 10, 100].map((x) => [i32(x)])));
  it('nested loops', () => p.checkAll('nested_loops', [1, 2, 7].map((x) => [i32(x)])));
});

describe('frames: fresh locals, stack growth, wide br_table', () => {
  let p: Pair;
  const targets = Array.from({ length: 300 }, (_, k) => (k * 7) % 4);
  const src = `(module
    (func $dirty (param i32) (result i32) (local i32 i64 f64 f32 i32 i32)
      local.get 0 local.set 1
      i64.const -1 local.set 2
      f64.const -1.5 local.set 3
      f32.const 2.5 local.set 4
      i32.const 77 local.set 5 i32.const 88 local.set 6
      local.get 1)
    (func $clean (result i64) (local i32 i64 f64 f32 i32 i32)
      local.get 0 i64.extend_i32_u
      local.get 1 i64.add
      local.get 2 i64.reinterpret_f64 i64.add
      local.get 3 i32.reinterpret_f32 i64.extend_i32_u i64.add
      local.get 4 i64.extend_i32_u i64.add
      local.get 5 i64.extend_i32_u i64.add)
    (func (export "locals_start_at_zero") (param i32) (result i64)
      local.get 0 call $dirty drop
      call $clean
      local.get 0 call $dirty drop
      call $clean i64.add)
    (func $fsum (export "fsum") (param $n i32) (result f64) (local $x f64)
      local.get $n f64.convert_i32_s local.set $x
      local.get $n i32.eqz
      (if (result f64) (then f64.const 0.5)
        (else local.get $n i32.const 1 i32.sub call $fsum f64.const 1.0001 f64.mul local.get $x f64.add)))
    (func $isum (export "isum") (param $n i32) (param $k i64) (result i64 i32)
      local.get $n i32.eqz
      (if (result i64 i32) (then local.get $k i32.const 0)
        (else local.get $n i32.const 1 i32.sub local.get $k i64.const 3 i64.mul i64.const 1 i64.add call $isum
          i32.const 1 i32.add)))
    (func (export "wide_br_table") (param $i i32) (result i32)
      (block $b3 (result i32)
        (block $b2 (result i32)
          (block $b1 (result i32)
            (block $b0 (result i32)
              local.get $i i32.const 3 i32.mul
              local.get $i
              br_table ${targets.join(' ')} 3)
            i32.const 1000 i32.add)
          i32.const 2000 i32.add)
        i32.const 3000 i32.add))
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('locals are zero on every entry, whatever the frame held before', () => {
    p.checkAll('locals_start_at_zero', [0, 5, -1].map((x) => [i32(x)]));
  });
  it('f64 and multi-value recursion deep enough to grow the value stack several times', () => {
    p.checkAll('fsum', [0, 1, 100, 3000].map((x) => [i32(x)]));
    p.checkAll('isum', [[0, 1], [10, 2], [3000, -5]].map(([n, k]) => [i32(n!), i64(k!)]));
  });
  it('br_table with 300 targets', () => {
    p.checkAll('wide_br_table', [-1, 0, 1, 2, 3, 4, 150, 298, 299, 300, 301, 100000].map((x) => [i32(x)]));
  });
});

describe('dead code after br/return/unreachable leaves the live code alone', () => {
  let p: Pair;
  const src = `(module
    (func $id (param i32) (result i32) local.get 0)
    (func (export "after_br") (param i32 i32) (result i32) (local i32)
      local.get 0
      (block (result i32)
        local.get 1
        br 0
        local.get 0 local.set 0
        i32.const 5 local.set 0
        local.get 1 local.tee 2 drop
        (block (result i32) i32.const 1 local.get 0 br_if 0)
        (loop (result i32) i32.const 2)
        i32.add call $id
        select
        (if (result i32) (then i32.const 3) (else i32.const 4))
        br_table 0 0)
      i32.add
      local.get 0 i32.const 100 i32.mul i32.add
      local.get 2 i32.add)
    (func (export "polymorphic") (param i32) (result i32)
      (block (result i32)
        (block (result i64)
          local.get 0 i32.eqz
          (if (then unreachable i64.add i64.const 3 i64.mul drop select drop i32.const 9 br 2))
          i64.const 7
          br 0
          i64.add)
        i32.wrap_i64
        (block (result i32) unreachable)
        drop))
    (func (export "return_then_dead") (param i32) (result i32 i64)
      (if (local.get 0) (then local.get 0 i64.const -1 return i32.const 1 local.set 0 i64.add drop))
      local.get 0 i32.const 1 i32.add i64.const 5)
    (func (export "unreachable_tail") (param i32) (result i32 i64)
      local.get 0 (if (then i32.const 1 i64.const 2 return))
      unreachable)
    (func (export "else_after_dead_then") (param i32) (result i32) (local i32)
      i32.const 10 local.set 1
      local.get 1
      local.get 0
      (if (param i32) (result i32)
        (then drop i32.const 42 br 0 (block local.get 1 local.set 1) i32.const 99)
        (else local.get 1 i32.add))
      local.get 1 i32.add)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('after br', () => p.checkAll('after_br', grid2([0, 1, 7, -3])));
  it('polymorphic stack in dead code', () => p.checkAll('polymorphic', [[i32(0)], [i32(1)]]));
  it('return then dead code', () => p.checkAll('return_then_dead', [[i32(0)], [i32(3)]]));
  it('unreachable at the tail', () => p.checkAll('unreachable_tail', [[i32(0)], [i32(3)]]));
  it('else after a dead then', () => p.checkAll('else_after_dead_then', [[i32(0)], [i32(3)]]));
});

describe('a call with 60 parameters, inside a loop, with constant and local arguments', () => {
  const types = Array.from({ length: 60 }, (_, k) => ['i32', 'i64', 'f64', 'f32'][k % 4]!);
  const toI64 = (t: string): string => (t === 'i32' ? 'i64.extend_i32_s' : t === 'i64' ? '' : t === 'f64' ? 'i64.trunc_sat_f64_s' : 'i64.trunc_sat_f32_s');
  const callee = `(func $wide (param ${types.join(' ')}) (result i64 i32)
    i64.const 0
    ${types.map((t, k) => `local.get ${k} ${toI64(t)} i64.const ${k + 3} i64.mul i64.xor i64.const 1 i64.rotl`).join('\n    ')}
    local.get 0 local.get 4 i32.add)`;
  const args = types.map((t, k) => {
    if (k % 3 === 0) return `local.get $i ${t === 'i32' ? '' : t === 'i64' ? 'i64.extend_i32_u' : `${t}.convert_i32_s`}`;
    return `${t}.const ${k * 11 - 300}`;
  });
  const src = `(module ${callee}
    (func (export "run") (param $n i32) (result i64) (local $i i32) (local $acc i64)
      (loop $l
        ${args.join('\n        ')}
        call $wide
        i64.extend_i32_u i64.add local.get $acc i64.xor local.set $acc
        local.get $i i32.const 1 i32.add local.tee $i
        local.get $n i32.lt_u br_if $l)
      local.get $acc))`;
  it('agrees with the native engine', async () => {
    const p = await pair(src);
    p.checkAll('run', [1, 2, 17].map((x) => [i32(x)]));
  });
});
