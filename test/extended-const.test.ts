/**
 * Extended constant expressions: i32/i64 add, sub and mul in global initialisers and segment
 * offsets (and, type permitting, element init expressions). The decoder reads them only when
 * the compile's feature set has Feature.ExtendedConst (refusing them otherwise, as before),
 * the module validator types a constant expression as a stack program, and instantiation
 * evaluates it on 32-bit halves (src/interpreter/instance.ts, evalConst).
 *
 * Modules come from wabt with its `extended_const` feature; wabt writes invalid modules
 * without complaint, so the type errors are built the same way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';

import {
  ALL_FEATURES, compileModule, type CompiledModule, type ExternVal, Feature, type FeatureSet, FuncRef, GlobalInst,
  instantiate, type Instance, invokeSync, MemoryInst, Store, TableInst, Trap, ValidationError, WASM2_FEATURES,
  WASMTIME_FEATURES, WasmValue,
} from '../src/interpreter/index.js';
import { decodeModule } from '../src/interpreter/decoder.js';
import { validateModule } from '../src/interpreter/module-validator.js';
import { formatOpcode } from '../src/interpreter/errors.js';
import { I32, I64, type ConstInstr, type GlobalType, type Import, type ModuleIR } from '../src/interpreter/types.js';

let W: Awaited<ReturnType<typeof wabt>>;
beforeAll(async () => {
  W = await wabt();
});

function assemble(text: string): Uint8Array {
  const m = W.parseWat('extended-const.wat', text, { extended_const: true });
  try {
    return new Uint8Array(m.toBinary({}).buffer);
  } finally {
    m.destroy();
  }
}

/** Host values for the imports `"env" NAME`, each an immutable global unless given as ExternVal. */
type Imports = Record<string, ExternVal | WasmValue>;

function run(text: string, imports: Imports = {}, features: FeatureSet = WASMTIME_FEATURES): Instance {
  const store = new Store();
  const module = compileModule(assemble(text), features);
  const values = new Map<string, ExternVal>();
  for (const [name, v] of Object.entries(imports)) {
    values.set(name, v instanceof WasmValue ? store.createGlobal({ valType: v.type, mutable: false }, v) : v);
  }
  return instantiate(store, module, (imp) => (imp.module === 'env' ? values.get(imp.name) : undefined));
}

function globalValue(inst: Instance, name: string): WasmValue {
  const g = inst.exports.get(name);
  expect(g).toBeInstanceOf(GlobalInst);
  return (g as GlobalInst).value;
}

function compileError(text: string, features: FeatureSet = WASMTIME_FEATURES): ValidationError {
  let err: unknown;
  try {
    compileModule(assemble(text), features);
  } catch (e) {
    err = e;
  }
  expect(err, text).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

function invalid(text: string, message: string): void {
  const err = compileError(text);
  expect(err.message, text).toMatch(new RegExp(`^${message} \\(at byte offset \\d+\\)$|^${message}$`));
  expect(err.feature).toBeNull();
}

/** The i64 `x` as an unsigned 64-bit BigInt (the ground truth of the wrapping tests). */
const u64 = (x: bigint): bigint => BigInt.asUintN(64, x);
const i64 = (x: bigint): WasmValue => WasmValue.i64(x);
/** `x` as a signed i64 literal for the text format. */
const lit64 = (x: bigint): string => BigInt.asIntN(64, x).toString();

// ---------------------------------------------------------------------------------------------

describe('global initialisers', () => {
  it('evaluates i32 and i64 add, sub and mul, nested, over constants and imported globals', () => {
    const inst = run(`(module
      (global (import "env" "a") i32)
      (global (import "env" "b") i64)
      (global (export "z3") i32 (i32.add (i32.sub (i32.mul (i32.const 20) (i32.const 2)) (i32.const 2)) (i32.const 4)))
      (global (export "z4") i64 (i64.add (i64.sub (i64.mul (i64.const 20) (i64.const 2)) (i64.const 2)) (i64.const 5)))
      (global (export "z5") i32 (i32.add (global.get 0) (i32.const 42)))
      (global (export "z6") i64 (i64.add (global.get 1) (i64.const 42)))
      (global (export "z7") i32 (i32.mul (global.get 0) (global.get 0)))
      (global (export "z8") i64 (i64.sub (i64.const 0) (global.get 1)))
      ;; operands first, then the operator (the stack form wabt writes the same way)
      (global (export "flat") i32 i32.const 7 global.get 0 i32.sub i32.const 3 i32.mul)
    )`, { a: WasmValue.i32(666), b: i64(666n) });
    expect(globalValue(inst, 'z3').asI32).toBe(42);
    expect(globalValue(inst, 'z4').asI64).toBe(43n);
    expect(globalValue(inst, 'z5').asI32).toBe(708);
    expect(globalValue(inst, 'z6').asI64).toBe(708n);
    expect(globalValue(inst, 'z7').asI32).toBe(666 * 666);
    expect(globalValue(inst, 'z8').asI64).toBe(-666n);
    expect(globalValue(inst, 'flat').asI32).toBe((7 - 666) * 3);
  });

  it('wraps i32 arithmetic modulo 2^32', () => {
    const inst = run(`(module
      (global (export "add") i32 (i32.add (i32.const 0x7fffffff) (i32.const 1)))
      (global (export "sub") i32 (i32.sub (i32.const 0x80000000) (i32.const 1)))
      (global (export "mul") i32 (i32.mul (i32.const 0x12345678) (i32.const 0x9abcdef1)))
      (global (export "neg") i32 (i32.sub (i32.const 0) (i32.const 1)))
    )`);
    expect(globalValue(inst, 'add').asI32).toBe(-0x80000000);
    expect(globalValue(inst, 'sub').asI32).toBe(0x7fffffff);
    expect(globalValue(inst, 'mul').asI32).toBe(Math.imul(0x12345678, 0x9abcdef1 | 0));
    expect(globalValue(inst, 'neg').asI32).toBe(-1);
  });

  it('carries and borrows between the halves of an i64', () => {
    const inst = run(`(module
      (global (export "carry") i64 (i64.add (i64.const 0xffffffff) (i64.const 1)))
      (global (export "borrow") i64 (i64.sub (i64.const 0x100000000) (i64.const 1)))
      (global (export "wrapAdd") i64 (i64.add (i64.const -1) (i64.const 2)))
      (global (export "wrapSub") i64 (i64.sub (i64.const 0x8000000000000000) (i64.const 1)))
      (global (export "cross") i64 (i64.mul (i64.const 0x100000000) (i64.const 0x100000000)))
      (global (export "hiLo") i64 (i64.mul (i64.const 0xffffffff) (i64.const 0xffffffff)))
    )`);
    expect(globalValue(inst, 'carry').asI64).toBe(0x100000000n);
    expect(globalValue(inst, 'borrow').asI64).toBe(0xffffffffn);
    expect(globalValue(inst, 'wrapAdd').asI64).toBe(1n);
    expect(globalValue(inst, 'wrapSub').asI64).toBe(0x7fffffffffffffffn);
    expect(globalValue(inst, 'cross').asI64).toBe(0n);
    expect(globalValue(inst, 'hiLo').asI64).toBe(BigInt.asIntN(64, 0xffffffffn * 0xffffffffn));
  });

  it('wraps i64 mul (and add, sub) modulo 2^64 exactly, against BigInt', () => {
    // Edge values and a fixed pseudo-random sample; each pair as constants and as imports.
    const edges = [0n, 1n, 2n, 3n, 0xffffn, 0x10000n, 0xffffffffn, 0x100000000n, 0x123456789abcdef0n,
      0xfedcba9876543210n, 0x7fffffffffffffffn, 0x8000000000000000n, 0xffffffffffffffffn, 0xdeadbeefcafebabfn];
    let seed = 0x2545f4914f6cdd1dn;
    const next = (): bigint => {
      seed = u64(seed * 6364136223846793005n + 1442695040888963407n);
      return seed;
    };
    const pairs: [bigint, bigint][] = [];
    for (const a of edges) for (const b of edges) pairs.push([a, b]);
    for (let i = 0; i < 200; i++) pairs.push([next(), next()]);

    const imports: Imports = {};
    const decls: string[] = [];
    const defs: string[] = [];
    pairs.forEach(([a, b], i) => {
      imports[`a${i}`] = i64(a);
      imports[`b${i}`] = i64(b);
      decls.push(`(global (import "env" "a${i}") i64) (global (import "env" "b${i}") i64)`);
      const ga = `(global.get ${2 * i})`;
      const gb = `(global.get ${2 * i + 1})`;
      defs.push(`(global (export "mul${i}") i64 (i64.mul (i64.const ${lit64(a)}) (i64.const ${lit64(b)})))`);
      defs.push(`(global (export "gmul${i}") i64 (i64.mul ${ga} ${gb}))`);
      defs.push(`(global (export "add${i}") i64 (i64.add ${ga} (i64.const ${lit64(b)})))`);
      defs.push(`(global (export "sub${i}") i64 (i64.sub (i64.const ${lit64(a)}) ${gb}))`);
      defs.push(`(global (export "mad${i}") i64 (i64.add (i64.mul ${ga} ${gb}) (i64.sub ${gb} ${ga})))`);
    });
    const inst = run(`(module ${decls.join('\n')} ${defs.join('\n')})`, imports);
    pairs.forEach(([a, b], i) => {
      const at = `${a} ${b}`;
      expect(globalValue(inst, `mul${i}`).bits64, `mul ${at}`).toBe(u64(a * b));
      expect(globalValue(inst, `gmul${i}`).bits64, `gmul ${at}`).toBe(u64(a * b));
      expect(globalValue(inst, `add${i}`).bits64, `add ${at}`).toBe(u64(a + b));
      expect(globalValue(inst, `sub${i}`).bits64, `sub ${at}`).toBe(u64(a - b));
      expect(globalValue(inst, `mad${i}`).bits64, `mad ${at}`).toBe(u64(a * b + (b - a)));
    });
  });

  it('gives the same values to code that reads the globals', () => {
    const inst = run(`(module
      (global (import "env" "g") i64)
      (global $m i64 (i64.mul (global.get 0) (i64.const 0x100000001)))
      (global $s i32 (i32.sub (i32.const 10) (i32.const 20)))
      (func (export "m") (result i64) (global.get $m))
      (func (export "s") (result i64) (i64.extend_i32_u (global.get $s)))
    )`, { g: i64(0x87654321n) });
    const call = (name: string): WasmValue => invokeSync(inst.store, inst.exports.get(name) as FuncRef, [])[0]!;
    expect(call('m').bits64).toBe(u64(0x87654321n * 0x100000001n));
    expect(call('s').bits64).toBe(0xfffffff6n);
  });
});

describe('segment offsets', () => {
  it('places data at an extended offset', () => {
    const inst = run(`(module
      (global (import "env" "base") i32)
      (memory (export "mem") 1)
      (data (i32.add (global.get 0) (i32.const 4)) "ab")
      (data (i32.sub (i32.const 100) (i32.const 1)) "c")
      (data (i32.mul (i32.add (global.get 0) (i32.const 1)) (i32.const 3)) "d")
    )`, { base: WasmValue.i32(16) });
    const mem = inst.exports.get('mem') as MemoryInst;
    expect([...mem.read(20, 2)]).toEqual([0x61, 0x62]);
    expect([...mem.read(99, 1)]).toEqual([0x63]);
    expect([...mem.read(51, 1)]).toEqual([0x64]);
    expect([...mem.read(19, 1)]).toEqual([0]);
  });

  it('places elements at an extended offset', () => {
    const inst = run(`(module
      (global (import "env" "base") i32)
      (table (export "t") 10 funcref)
      (func $f (result i32) (i32.const 1))
      (func $g (result i32) (i32.const 2))
      (elem (table 0) (offset (i32.mul (i32.const 2) (i32.const 3))) func $f)
      (elem (table 0) (offset (i32.sub (global.get 0) (i32.const 1))) funcref (ref.func $g) (ref.null func))
      (func (export "call") (param i32) (result i32) (call_indirect (result i32) (local.get 0)))
    )`, { base: WasmValue.i32(3) });
    const t = inst.exports.get('t') as TableInst;
    expect(t.get(6).ref).toBeInstanceOf(FuncRef);
    expect(t.get(2).ref).toBeInstanceOf(FuncRef);
    expect(t.get(3).ref).toBeNull();
    expect(t.get(5).ref).toBeNull();
    const call = (i: number): number => invokeSync(inst.store, inst.exports.get('call') as FuncRef, [WasmValue.i32(i)])[0]!.asI32;
    expect(call(6)).toBe(1);
    expect(call(2)).toBe(2);
  });

  it('reads an extended offset as unsigned, so a wrapped one is out of bounds', () => {
    const data = `(module (memory 1) (data (i32.sub (i32.const 0) (i32.const 1)) "x"))`;
    expect(() => run(data)).toThrow(Trap);
    expect(() => run(data)).toThrow('out of bounds memory access');
    const past = `(module (memory 1) (data (i32.add (i32.const 65535) (i32.const 1)) "x"))`;
    expect(() => run(past)).toThrow('out of bounds memory access');
    const elem = `(module (table 2 funcref) (func $f) (elem (i32.mul (i32.const 0x10000) (i32.const 0x10000)) $f)
      (elem (i32.sub (i32.const 0) (i32.const 1)) $f))`;
    // 0x10000 * 0x10000 wraps to 0 (in bounds); 0 - 1 is 2^32 - 1 (out of bounds).
    expect(() => run(elem)).toThrow('out of bounds table access');
  });
});

describe('validation', () => {
  it('types the expression as a stack program', () => {
    invalid('(module (global i32 (i32.add (i64.const 1) (i64.const 2))))', 'type mismatch');
    invalid('(module (global i64 (i64.mul (i32.const 1) (i64.const 2))))', 'type mismatch');
    invalid('(module (global i64 (i64.mul (i64.const 1) (i32.const 2))))', 'type mismatch');
    invalid('(module (global i32 (i32.add (i32.const 1))))', 'type mismatch');
    invalid('(module (global i32 i32.add))', 'type mismatch');
    invalid('(module (global i32 (i32.const 1) (i32.const 2) (i32.const 3) (i32.add)))', 'type mismatch');
    invalid('(module (global i64 (i32.add (i32.const 1) (i32.const 2))))', 'type mismatch');
    invalid('(module (global f32 (i32.sub (f32.const 1) (f32.const 2))))', 'type mismatch');
    invalid('(module (global (import "m" "g") f64) (global i64 (i64.add (global.get 0) (i64.const 1))))', 'type mismatch');
    invalid('(module (memory 1) (data (i64.add (i64.const 0) (i64.const 1)) ""))', 'type mismatch');
    invalid('(module (table 1 funcref) (func $f) (elem (i64.mul (i64.const 0) (i64.const 0)) $f))', 'type mismatch');
    // An element's init expression yields a reference: arithmetic leaves the wrong type.
    invalid('(module (table 1 funcref) (elem (i32.const 0) funcref (item (i32.add (i32.const 0) (i32.const 1)))))',
      'type mismatch');
    invalid('(module (table 1 funcref) (func $f) (elem (i32.const 0) funcref (item (i32.const 0) (ref.func $f))))',
      'type mismatch');
  });

  it('still requires every instruction to be constant, before typing', () => {
    invalid('(module (global (import "m" "g") (mut i32)) (global i32 (i32.add (global.get 0) (i32.const 1))))',
      'constant expression required');
    invalid('(module (global i32 (i32.add (i32.ctz (i32.const 0)) (i32.const 1))))', 'constant expression required');
    invalid('(module (global i32 (i32.div_s (i32.const 4) (i32.const 2))))', 'constant expression required');
    invalid('(module (global i64 (i64.and (i64.const 4) (i64.const 2))))', 'constant expression required');
    invalid('(module (global i32 (i32.add (i32.const 0) (global.get 0))))', 'unknown global 0');
    // A non-constant instruction after a type error is still reported as such.
    invalid('(module (global i32 (i64.add (i32.const 0) (i32.const 0)) (nop)))', 'constant expression required');
  });

  it('checks constness of the whole ConstExpr before its types (hand-made ModuleIR)', () => {
    const ins = (op: number, a = 0, b = 0): ConstInstr => ({ op, a, b });
    const mutableImport: Import = { module: 'm', name: 'g', desc: { kind: 'global', type: { valType: I32, mutable: true } } };
    const base: ModuleIR = decodeModule(assemble('(module)'));
    const withGlobal = (type: GlobalType, init: ConstInstr[], imports: Import[] = []): ModuleIR =>
      ({ ...base, imports, globals: [{ type, init }] });
    const fail = (m: ModuleIR, message: string): void => {
      expect(() => validateModule(m)).toThrow(ValidationError);
      expect(() => validateModule(m)).toThrow(message);
    };
    const i32g = { valType: I32, mutable: false };
    expect(() => validateModule(withGlobal(i32g, [ins(0x41, 1), ins(0x41, 2), ins(0x6a)]))).not.toThrow();
    expect(() => validateModule(withGlobal({ valType: I64, mutable: false }, [ins(0x42, 1), ins(0x42, 2), ins(0x7e)])))
      .not.toThrow();
    fail(withGlobal(i32g, [ins(0x6a)]), 'type mismatch');
    fail(withGlobal(i32g, [ins(0x6a), ins(0x23, 0)], [mutableImport]), 'constant expression required');
    fail(withGlobal(i32g, [ins(0x41, 1), ins(0x41, 2), ins(0x6a), ins(0x45)]), 'constant expression required');
  });

  it('decodes the operators into the ConstExpr in order', () => {
    const bytes = assemble('(module (global (import "m" "g") i32) (global i32 (i32.add (global.get 0) (i32.const 4))))');
    const init = decodeModule(bytes, WASMTIME_FEATURES).globals[0]!.init;
    expect(init.map((c) => [c.op, c.a, c.b])).toEqual([[0x23, 0, 0], [0x41, 4, 0], [0x6a, 0, 0]]);
  });
});

describe('the feature set', () => {
  const OPS: readonly [string, number, string][] = [
    ['i32.add', 0x6a, 'i32'], ['i32.sub', 0x6b, 'i32'], ['i32.mul', 0x6c, 'i32'],
    ['i64.add', 0x7c, 'i64'], ['i64.sub', 0x7d, 'i64'], ['i64.mul', 0x7e, 'i64'],
  ];

  for (const [name, op, t] of OPS) {
    it(`refuses ${name} without Feature.ExtendedConst, accepts it with`, () => {
      const text = `(module (global ${t} (${name} (${t}.const 6) (${t}.const 3))))`;
      const bytes = assemble(text);
      const err = compileError(text, WASM2_FEATURES);
      const at = bytes.lastIndexOf(op, bytes.length - 2);
      expect(bytes[at + 1]).toBe(0x0b);
      expect(err.message).toBe('constant expression required: extended constant expressions are not supported by this '
        + `engine (${name}, opcode ${formatOpcode(op)}, in a constant expression) (at byte offset ${at})`);
      expect(err.offset).toBe(at);
      expect(err.feature).toBe(Feature.ExtendedConst);
      for (const features of [WASMTIME_FEATURES, ALL_FEATURES]) {
        expect(features.has(Feature.ExtendedConst)).toBe(true);
        const m: CompiledModule = compileModule(bytes, features);
        expect(m.ir.globals[0]!.init.map((c) => c.op)).toEqual([t === 'i32' ? 0x41 : 0x42, t === 'i32' ? 0x41 : 0x42, op]);
      }
      expect(() => compileModule(bytes)).not.toThrow();
    });
  }

  it('refuses extended offsets and element items without the feature', () => {
    for (const text of [
      '(module (memory 1) (data (i32.add (i32.const 0) (i32.const 1)) "x"))',
      '(module (table 1 funcref) (func $f) (elem (i32.sub (i32.const 1) (i32.const 1)) $f))',
      '(module (table 1 funcref) (elem (i32.const 0) funcref (item (i32.add (i32.const 0) (i32.const 1)))))',
    ]) {
      const err = compileError(text, WASM2_FEATURES);
      expect(err.feature, text).toBe(Feature.ExtendedConst);
      expect(err.message).toMatch(/^constant expression required: extended constant expressions are not supported/);
    }
  });

  it('keeps 2.0\'s verdicts on 2.0 constant expressions either way', () => {
    for (const features of [WASM2_FEATURES, WASMTIME_FEATURES]) {
      expect(() => compileModule(assemble('(module (global i32 (i32.const 1) (i32.const 2)))'), features)).toThrow('type mismatch');
      expect(() => compileModule(assemble('(module (global i32 (i32.clz (i32.const 1))))'), features))
        .toThrow('constant expression required');
      const err = compileError('(module (global i32 (i32.clz (i32.const 1))))', features);
      expect(err.feature).toBeNull();
    }
  });
});
