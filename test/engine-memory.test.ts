/**
 * Memory, bulk memory, globals and tables, differentially against Node's WebAssembly where the
 * oracle can see the same state, plus direct checks of the embedding API (imported globals,
 * host-visible tables and memories).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Pair, Rng, f32, f64, i32, i64, load, pair, trapOf } from './helpers/engine-oracle.js';
import { FuncRef, GlobalInst, invokeSync, TableInst, TrapKind, WasmValue } from '../src/interpreter/index.js';
import { EXTERNREF, FUNCREF, I32, I64 } from '../src/interpreter/types.js';

const PAGE = 65536;

describe('an address computed as x + constant, folded into the access', () => {
  // The translator folds `i32.add (x, C)` into the load or store that uses it; the addition
  // must still wrap at 2^32 before the offset is added (which does not wrap).
  let p: Pair;
  const constants = [0, 4, 65532, 0x7fffffff, -4, -65536, -1];
  const fns: string[] = [];
  for (const c of constants) {
    for (const off of [0, 8, 0xfffffff0]) {
      fns.push(`(func (export "load${c}@${off}") (param i32) (result i32) local.get 0 i32.const ${c} i32.add i32.load offset=${off})`);
      fns.push(`(func (export "load64_${c}@${off}") (param i32) (result i64) local.get 0 i32.const ${c} i32.add i64.load8_s offset=${off})`);
      fns.push(`(func (export "store${c}@${off}") (param i32 i32) (result i32)
        local.get 0 i32.const ${c} i32.add local.get 1 i32.store16 offset=${off}
        i32.const 0 i32.load offset=8)`);
    }
  }
  beforeAll(async () => {
    p = await pair(`(module (memory 1)
      (data (i32.const 0) "\\01\\82\\03\\f4\\85\\06\\87\\08\\09\\8a\\0b\\fc\\0d\\0e\\ff\\80")
      ${fns.join('\n')})`);
  });

  it('matches Node on wrapping, in-bounds and out-of-bounds addresses', () => {
    const xs = [0, 4, 8, 12, -4, -8, -65532, 65520, 65532, 65536, 0x7fffffff, -0x7fffffff, 1 - 0x7fffffff];
    for (const c of constants) {
      for (const off of [0, 8, 0xfffffff0]) {
        p.checkAll(`load${c}@${off}`, xs.map((x) => [i32(x)]));
        p.checkAll(`load64_${c}@${off}`, xs.map((x) => [i32(x)]));
        p.checkAll(`store${c}@${off}`, xs.map((x) => [i32(x), i32(0x1234)]));
      }
    }
  });
});

describe('loads and stores of every width', () => {
  let p: Pair;
  const loads = [
    ['i32.load', 'i32', 4], ['i64.load', 'i64', 8], ['f32.load', 'f32', 4], ['f64.load', 'f64', 8],
    ['i32.load8_s', 'i32', 1], ['i32.load8_u', 'i32', 1], ['i32.load16_s', 'i32', 2], ['i32.load16_u', 'i32', 2],
    ['i64.load8_s', 'i64', 1], ['i64.load8_u', 'i64', 1], ['i64.load16_s', 'i64', 2], ['i64.load16_u', 'i64', 2],
    ['i64.load32_s', 'i64', 4], ['i64.load32_u', 'i64', 4],
  ] as const;
  const stores = [
    ['i32.store', 'i32'], ['i64.store', 'i64'], ['f32.store', 'f32'], ['f64.store', 'f64'], ['i32.store8', 'i32'],
    ['i32.store16', 'i32'], ['i64.store8', 'i64'], ['i64.store16', 'i64'], ['i64.store32', 'i64'],
  ] as const;
  const fns: string[] = [];
  for (const [op, t] of loads) {
    for (const off of [0, 1, 3, 65535, 65536, 0xffffffff]) {
      fns.push(`(func (export "${op}@${off}") (param i32) (result ${t}) local.get 0 ${op} offset=${off})`);
    }
    // the loaded value written straight into a local that was the address
    if (t === 'i32') fns.push(`(func (export "${op}@self") (param i32) (result i32) local.get 0 ${op} offset=2 local.set 0 local.get 0)`);
  }
  for (const [op, t] of stores) {
    for (const off of [0, 5, 65535, 0xffffffff]) {
      fns.push(`(func (export "${op}@${off}") (param i32 ${t}) local.get 0 local.get 1 ${op} offset=${off})`);
    }
  }
  const src = `(module
    (memory 1 3)
    (data (i32.const 0) "\\01\\82\\03\\f4\\85\\06\\87\\08\\09\\8a\\0b\\fc\\0d\\0e\\ff\\80")
    (data (i32.const 65520) "\\f1\\f2\\f3\\f4\\f5\\f6\\f7\\f8\\f9\\fa\\fb\\fc\\fd\\fe\\ff\\7f")
    (func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
    (func (export "size") (result i32) memory.size)
    (func (export "sum") (result i64) (local $i i32) (local $acc i64)
      (block $d (loop $l
        local.get $i memory.size i32.const 16 i32.shl i32.ge_u br_if $d
        local.get $acc local.get $i i64.load8_u i64.add local.get $i i64.extend_i32_u i64.xor local.set $acc
        local.get $i i32.const 1 i32.add local.set $i br $l))
      local.get $acc)
    ${fns.join('\n')})`;
  beforeAll(async () => {
    p = await pair(src);
  });

  const addrsFor = (size: number, memBytes: number): number[] => {
    const xs = [0, 1, 2, 7, 15, 100, memBytes - size - 1, memBytes - size, memBytes - size + 1, memBytes - 1, memBytes, memBytes + 1,
      0x7fffffff, -1, -size, -65536];
    return xs;
  };

  it('loads at offsets and near the end of memory (out of bounds traps)', () => {
    for (const [op, , size] of loads) {
      for (const off of [0, 1, 3, 65535, 65536, 0xffffffff]) {
        const tuples = addrsFor(size, PAGE).flatMap((a) => [a, a - off]).map((a) => [i32(a)]);
        p.checkAll(`${op}@${off}`, tuples);
      }
      if (op.startsWith('i32')) p.checkAll(`${op}@self`, addrsFor(size, PAGE).map((a) => [i32(a)]));
    }
  });

  it('the exact last in-bounds byte loads, one past traps', () => {
    expect(p.check('i32.load@0', [i32(PAGE - 4)])).toEqual({ ok: true, values: [i32(0x7ffffefd)] });
    expect(p.check('i32.load@0', [i32(PAGE - 3)])).toMatchObject({ ok: false, trap: TrapKind.MemoryOutOfBounds });
    expect(p.check('i32.load8_u@65535', [i32(0)])).toEqual({ ok: true, values: [i32(0x7f)] });
    expect(p.check('i32.load8_u@65535', [i32(1)]).ok).toBe(false);
    expect(p.check('i64.load@65535', [i32(0)]).ok).toBe(false);
    expect(p.check('i32.load8_u@0', [i32(PAGE - 1)])).toEqual({ ok: true, values: [i32(0x7f)] });
    expect(p.check('i64.load8_s@1', [i32(PAGE - 2)])).toEqual({ ok: true, values: [i64(0x7f)] });
    expect(p.check('i64.load8_s@1', [i32(PAGE - 1)]).ok).toBe(false);
    expect(p.check('i32.load@4294967295', [i32(0)]).ok).toBe(false);
  });

  it('sign and zero extension of narrow loads', () => {
    expect(p.check('i32.load8_s@0', [i32(1)])).toEqual({ ok: true, values: [i32(-126)] });
    expect(p.check('i32.load8_u@0', [i32(1)])).toEqual({ ok: true, values: [i32(0x82)] });
    expect(p.check('i32.load16_s@0', [i32(2)])).toEqual({ ok: true, values: [i32(0xfffff403 | 0)] });
    expect(p.check('i64.load32_s@0', [i32(12)])).toEqual({ ok: true, values: [i64(BigInt.asIntN(32, 0x80ff0e0dn))] });
    expect(p.check('i64.load32_u@0', [i32(12)])).toEqual({ ok: true, values: [i64(0x80ff0e0dn)] });
    expect(p.check('i64.load16_s@0', [i32(14)])).toEqual({ ok: true, values: [i64(-0x7f01)] });
  });

  it('stores of every width then loads, compared with the whole memory', () => {
    const rng = new Rng(77);
    for (const [op, t] of stores) {
      for (const off of [0, 5, 65535, 0xffffffff]) {
        for (let k = 0; k < 12; k++) {
          const addr = rng.pick([0, 3, 17, PAGE - 8, PAGE - 4, PAGE - 2, PAGE - 1, PAGE, -1, -5, PAGE - 65535 - 8, PAGE - 65535 - 1]);
          const v = t === 'i32' ? i32(rng.i32()) : t === 'i64' ? i64(rng.i64()) : t === 'f32' ? f32(rng.i32() / 7) : f64(rng.i32() / 3);
          p.check(`${op}@${off}`, [i32(addr), v]);
        }
      }
    }
    p.check('sum');
    for (const [op] of loads) p.checkAll(`${op}@0`, [0, 3, 17, PAGE - 8, PAGE - 4].map((a) => [i32(a)]));
  });

  it('memory.grow and memory.size (max 3 pages)', () => {
    p.check('size');
    p.check('grow', [i32(0)]);
    p.check('grow', [i32(1)]);
    p.check('size');
    p.check('i32.load@0', [i32(2 * PAGE - 4)]);
    p.check('i32.load@0', [i32(2 * PAGE - 3)]);
    p.check('i32.store@0', [i32(2 * PAGE - 4), i32(-123)]);
    p.check('grow', [i32(2)]); // would exceed the maximum: -1
    p.check('grow', [i32(-1)]);
    p.check('grow', [i32(1)]);
    p.check('size');
    p.check('sum');
    expect(p.check('grow', [i32(1)])).toEqual({ ok: true, values: [i32(-1)] });
    expect(p.check('size')).toEqual({ ok: true, values: [i32(3)] });
    expect(p.check('i64.load@0', [i32(3 * PAGE - 8)]).ok).toBe(true);
    expect(p.check('i64.load@0', [i32(3 * PAGE - 7)]).ok).toBe(false);
    expect((p.instance.memory!).byteLength).toBe(3 * PAGE);
    expect(p.store.peakMemoryBytes).toBe(3 * PAGE);
  });
});

describe('store options around memory', () => {
  it('maxMemoryBytes refuses growth past the cap and reports it', async () => {
    const refused: Array<[string, number]> = [];
    const m = await load('(module (memory 1) (func (export "grow") (param i32) (result i32) local.get 0 memory.grow))', undefined, {
      maxMemoryBytes: 3 * PAGE,
      onGrowRefused: (what, n) => refused.push([what, n]),
    });
    expect(m.call('grow', [i32(2)])).toEqual([i32(1)]);
    expect(m.call('grow', [i32(1)])).toEqual([i32(-1)]);
    expect(refused).toEqual([['memory', 4 * PAGE]]);
    expect(m.call('grow', [i32(0)])).toEqual([i32(3)]);
    expect(m.store.peakMemoryBytes).toBe(3 * PAGE);
  });

  it('refusals by the type\'s own maximum are not reported; an initial size over the cap is', async () => {
    const refused: Array<[string, number]> = [];
    const opts = { maxMemoryBytes: 4 * PAGE, onGrowRefused: (what: string, n: number) => refused.push([what, n]) };
    const m = await load('(module (memory 1 2) (func (export "grow") (param i32) (result i32) local.get 0 memory.grow))', undefined, opts);
    expect(m.call('grow', [i32(2)])).toEqual([i32(-1)]);
    expect(m.call('grow', [i32(1)])).toEqual([i32(1)]);
    expect(refused).toEqual([]);
    await expect(load('(module (memory 5))', undefined, opts)).rejects.toThrow();
    expect(refused).toEqual([['memory', 5 * PAGE]]);
  });

  it('a memory grown by the host is seen by running code', async () => {
    const m = await load(`(module (import "env" "grow" (func $grow)) (memory (export "mem") 1)
      (func (export "f") (result i32 i32) call $grow memory.size i32.const 131068 i32.load))`, (store) => ({
      'env.grow': store.createHostFunction({ params: [], results: [] }, () => {
        const mem = m.instance.exports.get('mem') as ReturnType<typeof store.createMemory>;
        mem.grow(1);
        mem.write(2 * PAGE - 4, new Uint8Array([1, 2, 3, 4]));
        return [];
      }),
    }));
    expect(m.call('f')).toEqual([i32(2), i32(0x04030201)]);
  });
});

describe('bulk memory', () => {
  let p: Pair;
  const src = `(module
    (memory 1)
    (data $d0 "hello, bulk memory!")
    (data $d1 "\\00\\01\\02\\03\\04\\05\\06\\07")
    (data (i32.const 1000) "active")
    (func (export "fill") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.fill)
    (func (export "copy") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.copy)
    (func (export "init0") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.init $d0)
    (func (export "init1") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.init $d1)
    (func (export "drop0") data.drop $d0)
    (func (export "drop_active") data.drop 2)
    (func (export "init_active") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.init 2)
    (func (export "hash") (param $from i32) (param $to i32) (result i64) (local $acc i64)
      (block $d (loop $l
        local.get $from local.get $to i32.ge_u br_if $d
        local.get $acc i64.const 31 i64.mul local.get $from i64.load8_u i64.add local.set $acc
        local.get $from i32.const 1 i32.add local.set $from br $l))
      local.get $acc)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  const h = (): void => {
    p.check('hash', [i32(0), i32(2048)]);
    p.check('hash', [i32(PAGE - 64), i32(PAGE)]);
  };

  it('fill, including the value truncated to a byte and the last bytes', () => {
    p.check('fill', [i32(10), i32(0x1ab), i32(20)]);
    p.check('fill', [i32(PAGE - 5), i32(-1), i32(5)]);
    h();
    p.check('fill', [i32(PAGE - 5), i32(7), i32(6)]); // out of bounds: traps, writes nothing
    p.check('fill', [i32(PAGE), i32(7), i32(0)]); // zero length at the end: fine
    p.check('fill', [i32(PAGE + 1), i32(7), i32(0)]); // zero length past the end: traps
    p.check('fill', [i32(-1), i32(7), i32(2)]);
    h();
  });

  it('copy, overlapping both ways', () => {
    p.check('init0', [i32(100), i32(0), i32(19)]);
    p.check('copy', [i32(105), i32(100), i32(10)]); // forward overlap
    h();
    p.check('copy', [i32(95), i32(100), i32(15)]); // backward overlap
    h();
    p.check('copy', [i32(100), i32(100), i32(19)]);
    p.check('copy', [i32(PAGE - 3), i32(100), i32(3)]);
    p.check('copy', [i32(PAGE - 3), i32(100), i32(4)]); // traps
    p.check('copy', [i32(100), i32(PAGE - 3), i32(4)]); // traps
    p.check('copy', [i32(PAGE), i32(PAGE), i32(0)]);
    p.check('copy', [i32(PAGE + 1), i32(0), i32(0)]);
    p.check('copy', [i32(0), i32(-1), i32(2)]);
    h();
  });

  it('init and drop', () => {
    p.check('init1', [i32(500), i32(2), i32(6)]);
    p.check('init1', [i32(500), i32(2), i32(7)]); // past the segment: traps
    p.check('init1', [i32(PAGE - 2), i32(0), i32(3)]); // past memory: traps
    p.check('init1', [i32(PAGE), i32(8), i32(0)]); // both at their ends, empty: fine
    p.check('init1', [i32(PAGE), i32(9), i32(0)]); // source past its end: traps
    p.check('init_active', [i32(0), i32(0), i32(0)]); // active segments are dropped after instantiation
    p.check('init_active', [i32(0), i32(0), i32(1)]);
    p.check('drop0');
    p.check('drop0'); // dropping twice is fine
    p.check('init0', [i32(0), i32(0), i32(0)]);
    p.check('init0', [i32(0), i32(0), i32(1)]); // dropped: traps
    p.check('drop_active');
    h();
  });
});

describe('globals', () => {
  it('mutable, immutable and imported globals, shared with the host', async () => {
    let gi!: GlobalInst;
    let gi64!: GlobalInst;
    const src = `(module
      (import "env" "g" (global $g (mut i32)))
      (import "env" "c" (global $c i64))
      (global $m (mut i64) (global.get $c))
      (global $f (mut f64) (f64.const 1.5))
      (global $k i32 (i32.const 42))
      (func (export "bump") (result i32) global.get $g i32.const 1 i32.add global.set $g global.get $g)
      (func (export "mix") (param i64) (result i64)
        global.get $m local.get 0 i64.add global.set $m
        global.get $m global.get $c i64.mul)
      (func (export "f") (param f64) (result f64) global.get $f local.get 0 f64.mul global.set $f global.get $f)
      (func (export "k") (result i32) global.get $k)
      (func (export "tee_global") (param i32) (result i32) (local i32)
        local.get 0 global.set $g global.get $g local.tee 1 local.get 1 i32.add))`;
    const m = await load(src, (store) => {
      gi = store.createGlobal({ valType: I32, mutable: true }, i32(10));
      gi64 = store.createGlobal({ valType: I64, mutable: false }, i64(-3n));
      return { 'env.g': gi, 'env.c': gi64 };
    });
    const native = new WebAssembly.Instance(new WebAssembly.Module(await (await import('./helpers/engine-oracle.js')).assemble(src)), {
      env: { g: new WebAssembly.Global({ value: 'i32', mutable: true }, 10), c: new WebAssembly.Global({ value: 'i64' }, -3n) },
    });
    const nx = native.exports as Record<string, (...a: unknown[]) => unknown>;
    expect(m.call('bump')).toEqual([i32(nx.bump!() as number)]);
    expect(gi.value).toEqual(i32(11));
    gi.value = i32(100);
    expect(m.call('bump')).toEqual([i32(101)]);
    for (const x of [5n, -(1n << 62n), 7n]) expect(m.call('mix', [i64(x)])).toEqual([i64(nx.mix!(x) as bigint)]);
    for (const x of [2, -0.25, NaN]) {
      const ours = m.call('f', [f64(x)])[0]!.asF64;
      const theirs = nx.f!(x) as number;
      expect(Object.is(ours, theirs) || (Number.isNaN(ours) && Number.isNaN(theirs))).toBe(true);
    }
    expect(m.call('k')).toEqual([i32(42)]);
    expect(m.call('tee_global', [i32(21)])).toEqual([i32(42)]);
    expect(gi.value).toEqual(i32(21));
    expect(() => { gi64.value = i64(1n); }).toThrow(TypeError);
  });
});

describe('tables and call_indirect', () => {
  let p: Pair;
  const src = `(module
    (type $ii_i (func (param i32 i32) (result i32)))
    (type $i_i (func (param i32) (result i32)))
    (type $v_i64 (func (result i64)))
    (table $t 6 10 funcref)
    (table $e 2 externref)
    (func $add (type $ii_i) local.get 0 local.get 1 i32.add)
    (func $sub (type $ii_i) local.get 0 local.get 1 i32.sub)
    (func $neg (type $i_i) i32.const 0 local.get 0 i32.sub)
    (func $big (type $v_i64) i64.const 0x123456789)
    (elem (table $t) (i32.const 0) func $add $sub $neg)
    (elem $passive func $big $sub $add $neg)
    (elem declare func $neg)
    (func (export "call2") (param $i i32) (param $a i32) (param $b i32) (result i32)
      local.get $a local.get $b local.get $i call_indirect $t (type $ii_i))
    (func (export "call1") (param $i i32) (param $a i32) (result i32)
      local.get $a local.get $i call_indirect $t (type $i_i))
    (func (export "call0") (param $i i32) (result i64) local.get $i call_indirect $t (type $v_i64))
    (func (export "size") (result i32) table.size $t)
    (func (export "grow") (param i32 i32) (result i32) local.get 0 table.get $t local.get 1 table.grow $t)
    (func (export "grow_null") (param i32) (result i32) ref.null func local.get 0 table.grow $t)
    (func (export "is_null") (param i32) (result i32) local.get 0 table.get $t ref.is_null)
    (func (export "set") (param i32 i32) local.get 0 local.get 1 table.get $t table.set $t)
    (func (export "set_neg") (param i32) local.get 0 ref.func $neg table.set $t)
    (func (export "fill") (param i32 i32 i32) local.get 0 local.get 1 table.get $t local.get 2 table.fill $t)
    (func (export "fill_null") (param i32 i32) local.get 0 ref.null func local.get 1 table.fill $t)
    (func (export "copy") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 table.copy $t $t)
    (func (export "init") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 table.init $t $passive)
    (func (export "edrop") elem.drop $passive)
    (func (export "ext_null") (param i32) (result i32) local.get 0 table.get $e ref.is_null)
    (func (export "ext_grow") (param i32) (result i32) ref.null extern local.get 0 table.grow $e)
    (func (export "ext_size") (result i32) table.size $e)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  const probe = (): void => {
    p.check('size');
    for (let k = -1; k < 11; k++) {
      p.check('call2', [i32(k), i32(10), i32(3)]);
      p.check('call1', [i32(k), i32(10)]);
      p.check('call0', [i32(k)]);
      p.check('is_null', [i32(k)]);
    }
  };

  it('call_indirect: good calls, type mismatches, null entries, out of bounds', () => {
    probe();
    expect(p.check('call2', [i32(1), i32(10), i32(3)])).toEqual({ ok: true, values: [i32(7)] });
    expect(p.check('call1', [i32(0), i32(1)])).toMatchObject({ ok: false, trap: TrapKind.IndirectCallTypeMismatch });
    expect(p.check('call1', [i32(4), i32(1)])).toMatchObject({ ok: false, trap: TrapKind.UninitializedElement });
    expect(p.check('call1', [i32(6), i32(1)])).toMatchObject({ ok: false, trap: TrapKind.TableOutOfBounds });
  });

  it('get/set/grow/fill/copy/init/drop', () => {
    p.check('set', [i32(5), i32(2)]);
    p.check('set_neg', [i32(3)]);
    p.check('set', [i32(6), i32(0)]); // out of bounds
    p.check('set', [i32(0), i32(6)]); // get out of bounds
    probe();
    p.check('grow', [i32(1), i32(2)]);
    p.check('grow_null', [i32(1)]);
    p.check('grow', [i32(0), i32(2)]); // past the maximum of 10: -1
    probe();
    p.check('fill', [i32(7), i32(0), i32(2)]);
    p.check('fill', [i32(8), i32(0), i32(2)]); // out of bounds
    p.check('fill', [i32(9), i32(2), i32(0)]);
    p.check('fill_null', [i32(9), i32(0)]);
    p.check('fill_null', [i32(10), i32(0)]); // out of bounds even when empty
    probe();
    p.check('copy', [i32(1), i32(0), i32(4)]); // overlapping forwards
    probe();
    p.check('copy', [i32(0), i32(2), i32(5)]); // overlapping backwards
    probe();
    p.check('copy', [i32(6), i32(0), i32(3)]); // out of bounds
    p.check('init', [i32(4), i32(0), i32(4)]);
    probe();
    p.check('init', [i32(0), i32(1), i32(4)]); // past the segment
    p.check('init', [i32(7), i32(0), i32(2)]); // past the table
    p.check('edrop');
    p.check('init', [i32(0), i32(0), i32(0)]);
    p.check('init', [i32(0), i32(0), i32(1)]);
    probe();
    p.checkAll('ext_null', [[i32(0)], [i32(1)], [i32(2)]]);
    p.check('ext_grow', [i32(3)]);
    p.check('ext_size');
    p.check('ext_null', [i32(4)]);
  });

  it('maxTableElements refuses growth and reports it', async () => {
    const refused: Array<[string, number]> = [];
    const m = await load('(module (table 2 funcref) (func (export "grow") (param i32) (result i32) ref.null func local.get 0 table.grow 0))',
      undefined, { maxTableElements: 5, onGrowRefused: (what, n) => refused.push([what, n]) });
    expect(m.call('grow', [i32(3)])).toEqual([i32(2)]);
    expect(m.call('grow', [i32(1)])).toEqual([i32(-1)]);
    expect(refused).toEqual([['table', 6]]);
  });

  it('an imported table shared with the host and another instance', async () => {
    let table!: TableInst;
    let hostFn!: FuncRef;
    const m = await load(`(module
        (type $v_i (func (result i32)))
        (import "env" "t" (table $t 2 funcref))
        (import "env" "t2" (table $x 1 externref))
        (func $seven (type $v_i) i32.const 7)
        (elem (i32.const 1) func $seven)
        (func (export "call") (param i32) (result i32) local.get 0 call_indirect (type $v_i))
        (func (export "ext") (param i32) (result externref) local.get 0 table.get $x))`, (store) => {
      table = store.createTable({ elemType: FUNCREF, limits: { min: 3, max: null } }, WasmValue.funcref(null));
      hostFn = store.createHostFunction({ params: [], results: [I32] }, () => [i32(99)]);
      const ext = store.createTable({ elemType: EXTERNREF, limits: { min: 1, max: null } }, WasmValue.externref({ tag: 'x' }));
      return { 'env.t': table, 'env.t2': ext };
    });
    table.set(0, WasmValue.funcref(hostFn));
    expect(m.call('call', [i32(0)])).toEqual([i32(99)]);
    expect(m.call('call', [i32(1)])).toEqual([i32(7)]);
    expect(trapOf(() => m.call('call', [i32(2)])).kind).toBe(TrapKind.UninitializedElement);
    expect(trapOf(() => m.call('call', [i32(3)])).kind).toBe(TrapKind.TableOutOfBounds);
    table.grow(1, WasmValue.funcref(hostFn));
    expect(m.call('call', [i32(3)])).toEqual([i32(99)]);
    expect(m.call('ext', [i32(0)])[0]!.ref).toEqual({ tag: 'x' });
    expect(table.get(1).ref).toBeInstanceOf(FuncRef);
  });
});

describe('calls across instances', () => {
  it('an instance calls another instance\'s exports and shares its memory', async () => {
    const a = await load(`(module (memory (export "mem") 1)
      (func (export "peek") (param i32) (result i32) local.get 0 i32.load)
      (func (export "grow") (result i32) i32.const 1 memory.grow))`);
    const bBytes = await (await import('./helpers/engine-oracle.js')).assemble(`(module
      (import "a" "peek" (func $peek (param i32) (result i32)))
      (import "a" "grow" (func $grow (result i32)))
      (import "a" "mem" (memory 1))
      (func (export "run") (result i32 i32 i32)
        i32.const 8 i32.const 1234 i32.store
        i32.const 8 call $peek
        call $grow
        i32.const 70000 i32.const 55 i32.store
        i32.const 70000 call $peek))`);
    const { compileModule, instantiate } = await import('../src/interpreter/index.js');
    const b = instantiate(a.store, compileModule(bBytes), (imp) => a.instance.exports.get(imp.name));
    const run = b.exports.get('run') as FuncRef;
    expect(invokeSync(a.store, run, [])).toEqual([i32(1234), i32(1), i32(55)]);
  });

  it('cross-instance calls paused at every check point, and an async host call in the callee', async () => {
    const { compileModule, instantiate, invoke } = await import('../src/interpreter/index.js');
    const { assemble } = await import('./helpers/engine-oracle.js');
    const a = await load(`(module (import "env" "slow" (func $slow (param i32) (result i32)))
      (func $f (export "f") (param i32) (result i32) (local i32)
        (loop $l local.get 1 i32.const 1 i32.add local.tee 1 i32.const 5 i32.lt_u br_if $l)
        local.get 0 call $slow local.get 1 i32.add))`, (store) => ({
      'env.slow': store.createHostFunction({ params: [I32], results: [I32] }, ([x]) => Promise.resolve([i32(x!.asI32 * 2)])),
    }));
    const b = instantiate(a.store, compileModule(await assemble(`(module
      (import "a" "f" (func $f (param i32) (result i32)))
      (func $g (export "g") (param $n i32) (result i32)
        local.get $n i32.eqz
        (if (result i32) (then i32.const 0)
          (else local.get $n call $f local.get $n i32.const 1 i32.sub call $g i32.add))))`)),
    (imp) => a.instance.exports.get(imp.name));
    const ex = invoke(a.store, b.exports.get('g') as FuncRef, [i32(6)]);
    ex.sliceFuel = 1;
    let pending = 0;
    for (;;) {
      const s = ex.resume();
      if (s === 'done') break;
      if (s === 'pending') {
        pending++;
        await ex.pending;
      }
    }
    // g(n) = sum over k = 1..n of (2k + 5)
    expect(ex.results).toEqual([i32(2 * 21 + 5 * 6)]);
    expect(pending).toBe(6);
  });
});

describe('reference values', () => {
  let p: Pair;
  const src = `(module
    (type $v_i (func (result i32)))
    (table $t 4 funcref)
    (func $one (type $v_i) i32.const 1)
    (func $two (type $v_i) i32.const 2)
    (elem declare func $one $two)
    (func (export "through_blocks") (param $c i32) (result i32) (local $f funcref)
      ref.func $one local.set $f
      (block $b (result funcref)
        ref.func $two
        local.get $c br_if $b
        drop local.get $f)
      local.set $f
      i32.const 0 local.get $f table.set $t
      i32.const 0 call_indirect $t (type $v_i))
    (func (export "select_ref") (param $c i32) (result i32)
      i32.const 1
      ref.func $one ref.null func local.get $c select (result funcref)
      table.set $t
      i32.const 1 table.get $t ref.is_null)
    (func (export "if_ref") (param $c i32) (result i32)
      (if (result funcref) (local.get $c) (then ref.func $two) (else ref.null func))
      ref.is_null)
    (func (export "grow_with_ref") (param $n i32) (result i32)
      ref.func $two local.get $n table.grow $t drop
      table.size $t i32.const 1 i32.sub call_indirect $t (type $v_i))
    (func (export "null_local") (result i32) (local externref) local.get 0 ref.is_null)
  )`;
  beforeAll(async () => {
    p = await pair(src);
  });
  it('funcrefs through locals, blocks, br_if, select and if', () => {
    p.checkAll('through_blocks', [[i32(0)], [i32(1)], [i32(0)]]);
    p.checkAll('select_ref', [[i32(0)], [i32(1)]]);
    p.checkAll('if_ref', [[i32(0)], [i32(1)]]);
    p.checkAll('grow_with_ref', [[i32(1)], [i32(2)]]);
  });

  it('reference-typed locals start as null (in the invoked function and in callees)', async () => {
    // Bug: locals are zero-filled, and 0 is not null (-1) inside the engine but a reference to
    // the store's function 0 (or externref 0), so a fresh funcref local can be called.
    const q = await pair(`(module (type $v (func (result i32))) (table 1 funcref)
      (func $zero (result i32) i32.const 12345)
      (func (export "is_null_entry") (result i32) (local funcref) local.get 0 ref.is_null)
      (func $inner (result i32) (local externref) local.get 0 ref.is_null)
      (func (export "is_null_callee") (result i32) call $inner)
      (func (export "call_null_local") (result i32) (local funcref)
        i32.const 0 local.get 0 table.set 0
        i32.const 0 call_indirect (type $v)))`);
    expect(q.check('is_null_entry')).toEqual({ ok: true, values: [i32(1)] });
    expect(q.check('is_null_callee')).toEqual({ ok: true, values: [i32(1)] });
    expect(q.check('call_null_local')).toMatchObject({ ok: false, trap: TrapKind.UninitializedElement });
    expect(p.check('null_local')).toEqual({ ok: true, values: [i32(1)] });
  });

  it('externref values keep their identity across the boundary', async () => {
    const m = await load(`(module
      (table $t 2 externref)
      (func (export "put") (param i32 externref) local.get 0 local.get 1 table.set $t)
      (func (export "get") (param i32) (result externref) local.get 0 table.get $t)
      (func (export "pass") (param externref) (result externref externref) local.get 0 ref.null extern))`);
    const obj = { hello: 'world' };
    m.call('put', [i32(1), WasmValue.externref(obj)]);
    expect(m.call('get', [i32(1)])[0]!.ref).toBe(obj);
    expect(m.call('get', [i32(0)])[0]!.ref).toBeNull();
    const [a, b] = m.call('pass', [WasmValue.externref(obj)]);
    expect(a!.ref).toBe(obj);
    expect(a!.type).toBe(EXTERNREF);
    expect(b!.ref).toBeNull();
    // A funcref returned to the host can be called and stored again.
    const n = await load(`(module (func $f (result i32) i32.const 9) (elem declare func $f)
      (func (export "ref") (result funcref) ref.func $f))`);
    const ref = n.call('ref')[0]!.ref as FuncRef;
    expect(invokeSync(n.store, ref, [])).toEqual([i32(9)]);
  });
});

describe('instantiation', () => {
  it('active data segments apply in order; an out-of-bounds one traps and earlier ones stay', async () => {
    const { compileModule, instantiate, Store, Engine, Trap: T } = await import('../src/interpreter/index.js');
    const { assemble } = await import('./helpers/engine-oracle.js');
    const store = new Store(new Engine());
    const mem = store.createMemory({ limits: { min: 1, max: null } });
    const bytes = await assemble(`(module (import "env" "mem" (memory 1))
      (data (i32.const 10) "abc")
      (data (i32.const 65534) "xyz"))`);
    let caught: unknown;
    try {
      instantiate(store, compileModule(bytes), () => mem);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(T);
    expect((caught as InstanceType<typeof T>).kind).toBe(TrapKind.MemoryOutOfBounds);
    expect(Array.from(mem.read(10, 3))).toEqual([97, 98, 99]);
    expect(Array.from(mem.read(65534, 2))).toEqual([0, 0]);
  });

  it('the start function is reported, not run', async () => {
    const m = await load(`(module (global $g (export "g") (mut i32) (i32.const 0))
      (func $s i32.const 5 global.set $g) (start $s))`);
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(0));
    expect(m.instance.startFunction).toBeInstanceOf(FuncRef);
    invokeSync(m.store, m.instance.startFunction!, []);
    expect((m.instance.exports.get('g') as GlobalInst).value).toEqual(i32(5));
  });

  it('a callee that grows the memory: the caller sees the new pages after the call', async () => {
    const p = await pair(`(module (memory 1)
      (func $grow (result i32) i32.const 2 memory.grow)
      (func (export "f") (result i32 i32 i32)
        call $grow
        i32.const 196604 i32.const 77 i32.store
        i32.const 196604 i32.load
        memory.size))`);
    p.check('f');
    p.check('f');
  });

  it('host functions in a table are called by call_indirect', async () => {
    let hostFn!: FuncRef;
    const m = await load(`(module (type $t (func (param i32) (result i32)))
      (import "env" "tbl" (table 1 funcref))
      (func (export "call") (param i32) (result i32) local.get 0 i32.const 0 call_indirect (type $t)))`, (store) => {
      hostFn = store.createHostFunction({ params: [I32], results: [I32] }, ([x]) => [i32(x!.asI32 * 3)]);
      const t = store.createTable({ elemType: FUNCREF, limits: { min: 1, max: null } }, WasmValue.funcref(hostFn));
      return { 'env.tbl': t };
    });
    expect(m.call('call', [i32(14)])).toEqual([i32(42)]);
  });
});
