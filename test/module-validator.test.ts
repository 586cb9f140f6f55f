/**
 * Tests of the module-level validator (src/interpreter/module-validator.ts): hand-made
 * ModuleIR values for each rule, and .wat modules through wabt (which writes invalid modules
 * without complaint) through the whole decode + validate path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import wabt from 'wabt';
import { decodeModule } from '../src/interpreter/decoder.js';
import { ValidationError } from '../src/interpreter/errors.js';
import { declaredFunctionRefs, validateModule } from '../src/interpreter/module-validator.js';
import { ALL_FEATURES, type FeatureSet, WASM2_FEATURES } from '../src/interpreter/features.js';
import {
  EXTERNREF,
  F32,
  FUNCREF,
  I32,
  I64,
  V128,
  V128_CONST_OP,
  type ConstExpr,
  type ConstInstr,
  type ElemSegment,
  type Import,
  type ModuleIR,
} from '../src/interpreter/types.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function ir(parts: Partial<Mutable<ModuleIR>> = {}): ModuleIR {
  const functions = parts.functions ?? [];
  return {
    moduleName: null,
    bytes: new Uint8Array(0),
    types: [{ params: [], results: [] }],
    imports: [],
    functions,
    tables: [],
    memories: [],
    tags: [],
    globals: [],
    exports: [],
    start: null,
    elements: [],
    data: [],
    dataCount: null,
    codes: parts.codes ?? functions.map(() => ({ locals: [], codeStart: 0, codeEnd: 0 })),
    customSections: [],
    functionNames: new Map(),
    ...parts,
  };
}

const ins = (op: number, a = 0, b = 0): ConstInstr => ({ op, a, b });
const i32c = (v: number): ConstExpr => [ins(0x41, v)];
const i64c = (v: number): ConstExpr => [ins(0x42, v, v < 0 ? -1 : 0)];
const f32c: ConstExpr = [ins(0x43, 0x3f800000)];
const refNull = (t: number): ConstExpr => [ins(0xd0, t)];
const refFunc = (f: number): ConstExpr => [ins(0xd2, f)];
const globalGet = (g: number): ConstExpr => [ins(0x23, g)];

const importGlobal = (valType: number, mutable = false): Import => ({
  module: 'm',
  name: 'g',
  desc: { kind: 'global', type: { valType, mutable } },
});
const importFunc = (typeIndex = 0): Import => ({ module: 'm', name: 'f', desc: { kind: 'func', typeIndex } });
const importMemory = (min = 1, max: number | null = null): Import => ({
  module: 'm',
  name: 'mem',
  desc: { kind: 'memory', type: { limits: { min, max } } },
});
const importTable = (elemType = FUNCREF): Import => ({
  module: 'm',
  name: 't',
  desc: { kind: 'table', type: { elemType, limits: { min: 1, max: null } } },
});

function invalid(m: ModuleIR | (() => ModuleIR), message: string, features: FeatureSet = ALL_FEATURES): void {
  let err: unknown;
  try {
    validateModule(typeof m === 'function' ? m() : m, features);
  } catch (e) {
    err = e;
  }
  expect(err, `expected "${message}"`).toBeInstanceOf(ValidationError);
  expect((err as Error).message).toContain(message);
}

function valid(m: ModuleIR): void {
  expect(() => validateModule(m)).not.toThrow();
}

let W: Awaited<ReturnType<typeof wabt>>;
beforeAll(async () => {
  W = await wabt();
});

function watModule(src: string): ModuleIR {
  const m = W.parseWat('test.wat', src);
  try {
    return decodeModule(m.toBinary({}).buffer);
  } finally {
    m.destroy();
  }
}

/** Decoding already reports a non-constant instruction in a constant expression. */
/** wabt's own validation is WebAssembly 2.0's: these check under its features. */
function watInvalid(src: string, message: string): void {
  invalid(() => watModule(src), message, WASM2_FEATURES);
}

function watValid(src: string): void {
  valid(watModule(src));
}

// ---------------------------------------------------------------------------------------------
// Types, functions, tables, memories
// ---------------------------------------------------------------------------------------------

describe('type indices', () => {
  it('checks imported and defined functions', () => {
    valid(ir({ imports: [importFunc(0)], functions: [0] }));
    invalid(ir({ imports: [importFunc(1)] }), 'unknown type');
    invalid(ir({ functions: [0, 1] }), 'unknown type');
    invalid(ir({ types: [], functions: [0] }), 'unknown type');
  });
});

describe('limits', () => {
  it('checks table limits', () => {
    valid(ir({ tables: [{ elemType: FUNCREF, limits: { min: 0xffffffff, max: 0xffffffff } }] }));
    invalid(ir({ tables: [{ elemType: FUNCREF, limits: { min: 2, max: 1 } }] }), 'size minimum must not be greater than maximum');
    invalid(
      ir({ imports: [{ module: 'm', name: 't', desc: { kind: 'table', type: { elemType: FUNCREF, limits: { min: 5, max: 4 } } } }] }),
      'size minimum must not be greater than maximum',
    );
  });

  it('checks memory limits', () => {
    valid(ir({ memories: [{ limits: { min: 65536, max: 65536 } }] }));
    invalid(ir({ memories: [{ limits: { min: 65537, max: null } }] }), 'memory size must be at most 65536 pages (4GiB)');
    invalid(ir({ memories: [{ limits: { min: 0, max: 65537 } }] }), 'memory size must be at most 65536 pages (4GiB)');
    invalid(ir({ memories: [{ limits: { min: 0xffffffff, max: 0xffffffff } }] }), 'memory size must be at most 65536 pages (4GiB)');
    invalid(ir({ memories: [{ limits: { min: 2, max: 1 } }] }), 'size minimum must not be greater than maximum');
    invalid(ir({ imports: [importMemory(1, 0)] }), 'size minimum must not be greater than maximum');
    invalid(ir({ imports: [importMemory(70000)] }), 'memory size must be at most 65536 pages (4GiB)');
  });

  it('allows at most one memory, imports included, without multi-memory', () => {
    valid(ir({ imports: [importMemory()] }));
    invalid(ir({ memories: [{ limits: { min: 0, max: null } }, { limits: { min: 0, max: null } }] }), 'multiple memories', WASM2_FEATURES);
    invalid(ir({ imports: [importMemory()], memories: [{ limits: { min: 0, max: null } }] }), 'multiple memories', WASM2_FEATURES);
    invalid(ir({ imports: [importMemory(), importMemory()] }), 'multiple memories', WASM2_FEATURES);
    valid(ir({ imports: [importMemory(), importMemory()], memories: [{ limits: { min: 0, max: null } }] }));
  });

  it('allows several tables', () => {
    valid(ir({ imports: [importTable()], tables: [{ elemType: EXTERNREF, limits: { min: 0, max: null } }] }));
  });
});

// ---------------------------------------------------------------------------------------------
// Globals and constant expressions
// ---------------------------------------------------------------------------------------------

describe('global initialisers', () => {
  const g = (valType: number, init: ConstExpr, mutable = false) => ({ type: { valType, mutable }, init });

  it('accepts every constant instruction of the right type', () => {
    valid(
      ir({
        imports: [importGlobal(I32), importFunc()],
        functions: [0],
        globals: [
          g(I32, i32c(1), true),
          g(I64, i64c(-1)),
          g(F32, f32c),
          g(FUNCREF, refNull(FUNCREF)),
          g(EXTERNREF, refNull(EXTERNREF)),
          g(FUNCREF, refFunc(0)),
          g(FUNCREF, refFunc(1)),
          g(I32, globalGet(0)),
          g(V128, [{ op: V128_CONST_OP, a: 1, b: 2, c: 3, d: 4 }]),
        ],
      }),
    );
  });

  it('requires exactly one value of the global type', () => {
    invalid(ir({ globals: [g(I32, i64c(0))] }), 'type mismatch');
    invalid(ir({ globals: [g(I32, [])] }), 'type mismatch');
    invalid(ir({ globals: [g(I32, [ins(0x41, 0), ins(0x41, 1)])] }), 'type mismatch');
    invalid(ir({ globals: [g(FUNCREF, refNull(EXTERNREF))] }), 'type mismatch');
    invalid(ir({ globals: [g(EXTERNREF, refFunc(0))], functions: [0] }), 'type mismatch');
    invalid(ir({ imports: [importGlobal(I64)], globals: [g(I32, globalGet(0))] }), 'type mismatch');
  });

  it('lets global.get read only immutable imported globals (2.0), and earlier defined ones (3.0)', () => {
    invalid(ir({ globals: [g(I32, globalGet(0))] }), 'unknown global 0');
    invalid(ir({ globals: [g(I32, i32c(0)), g(I32, globalGet(0))] }), 'unknown global 0', WASM2_FEATURES);
    invalid(ir({ imports: [importGlobal(I32)], globals: [g(I32, i32c(0)), g(I32, globalGet(1))] }), 'unknown global 1', WASM2_FEATURES);
    invalid(ir({ imports: [importGlobal(I32, true)], globals: [g(I32, globalGet(0))] }), 'constant expression required');
    valid(ir({ globals: [g(I32, i32c(0)), g(I32, globalGet(0))] }));
    invalid(ir({ globals: [g(I32, globalGet(1)), g(I32, i32c(0))] }), 'unknown global 1');
  });

  it('checks ref.func indices', () => {
    invalid(ir({ globals: [g(FUNCREF, refFunc(0))] }), 'unknown function 0');
    invalid(ir({ imports: [importFunc()], functions: [0], globals: [g(FUNCREF, refFunc(2))] }), 'unknown function 2');
  });

  it('rejects opcodes that are not constant', () => {
    invalid(ir({ globals: [g(I32, [ins(0x45)])] }), 'constant expression required');
  });

  it('agrees with wabt-built modules', () => {
    watValid('(module (global (import "m" "g") i32) (global i32 (global.get 0)))');
    watInvalid('(module (global i32 (i64.const 0)))', 'type mismatch');
    watInvalid('(module (global (import "m" "g") (mut i32)) (global i32 (global.get 0)))', 'constant expression required');
    watInvalid('(module (global i32 (i32.const 0)) (global i32 (global.get 0)))', 'unknown global 0');
    watInvalid('(module (global i32 (i32.ctz (i32.const 0))))', 'constant expression required');
    watInvalid('(module (global i32 (nop)))', 'constant expression required');
  });
});

// ---------------------------------------------------------------------------------------------
// Element and data segments
// ---------------------------------------------------------------------------------------------

describe('element segments', () => {
  const table = { elemType: FUNCREF, limits: { min: 1, max: null } };
  const seg = (s: Partial<Mutable<ElemSegment>>): ElemSegment => ({
    mode: 'active',
    table: 0,
    offset: i32c(0),
    elemType: FUNCREF,
    init: [],
    ...s,
  });

  it('accepts well-typed segments of every mode', () => {
    valid(
      ir({
        imports: [importGlobal(I32), { module: 'm', name: 'r', desc: { kind: 'global', type: { valType: FUNCREF, mutable: false } } }],
        functions: [0],
        tables: [table, { elemType: EXTERNREF, limits: { min: 1, max: null } }],
        elements: [
          seg({ init: [refFunc(0), refNull(FUNCREF), globalGet(1)] }),
          seg({ offset: globalGet(0) }),
          seg({ table: 1, elemType: EXTERNREF, init: [refNull(EXTERNREF)] }),
          seg({ mode: 'passive', offset: null, init: [refFunc(0)] }),
          seg({ mode: 'declarative', offset: null, init: [refFunc(0)] }),
          seg({ mode: 'passive', offset: null, elemType: EXTERNREF, init: [refNull(EXTERNREF)] }),
        ],
      }),
    );
  });

  it('checks the table', () => {
    invalid(ir({ elements: [seg({})] }), 'unknown table 0');
    invalid(ir({ tables: [table], elements: [seg({ table: 1 })] }), 'unknown table 1');
    invalid(ir({ tables: [{ ...table, elemType: EXTERNREF }], elements: [seg({})] }), 'type mismatch');
    // Passive and declarative segments need no table.
    valid(ir({ elements: [seg({ mode: 'passive', offset: null }), seg({ mode: 'declarative', offset: null })] }));
  });

  it('checks the offset', () => {
    invalid(ir({ tables: [table], elements: [seg({ offset: i64c(0) })] }), 'type mismatch');
    invalid(ir({ tables: [table], elements: [seg({ offset: [] })] }), 'type mismatch');
    invalid(ir({ tables: [table], elements: [seg({ offset: [ins(0x41), ins(0x41)] })] }), 'type mismatch');
    invalid(ir({ tables: [table], elements: [seg({ offset: globalGet(0) })] }), 'unknown global 0');
    invalid(ir({ imports: [importGlobal(I32, true)], tables: [table], elements: [seg({ offset: globalGet(0) })] }), 'constant expression required');
  });

  it('checks the element expressions', () => {
    invalid(ir({ tables: [table], elements: [seg({ init: [refFunc(0)] })] }), 'unknown function 0');
    invalid(ir({ functions: [0], elements: [seg({ mode: 'passive', offset: null, init: [refNull(EXTERNREF)] })] }), 'type mismatch');
    invalid(
      ir({ functions: [0], elements: [seg({ mode: 'passive', offset: null, elemType: EXTERNREF, init: [refFunc(0)] })] }),
      'type mismatch',
    );
    invalid(ir({ elements: [seg({ mode: 'declarative', offset: null, init: [i32c(0)] })] }), 'type mismatch');
  });

  it('agrees with wabt-built modules', () => {
    watValid('(module (table 1 funcref) (func $f) (elem (i32.const 0) $f))');
    watValid('(module (global (import "m" "g") i32) (table 1 funcref) (func $f) (elem (global.get 0) $f))');
    watInvalid('(module (table 1 funcref) (elem (i64.const 0)))', 'type mismatch');
    watInvalid('(module (table 1 funcref) (elem (i32.ctz (i32.const 0))))', 'constant expression required');
    watInvalid('(module (func $f) (elem (i32.const 0) $f))', 'unknown table 0');
    watInvalid('(module (table 1 externref) (func $f) (elem (i32.const 0) $f))', 'type mismatch');
  });
});

describe('data segments', () => {
  const mem = { limits: { min: 1, max: null } };
  const seg = (offset: ConstExpr | null, memory = 0) => ({
    mode: offset === null ? ('passive' as const) : ('active' as const),
    memory,
    offset,
    bytes: new Uint8Array(0),
  });

  it('checks the memory and the offset', () => {
    valid(ir({ memories: [mem], data: [seg(i32c(0)), seg(null)] }));
    valid(ir({ data: [seg(null)] }));
    valid(ir({ imports: [importMemory(), importGlobal(I32)], data: [seg(globalGet(0))] }));
    invalid(ir({ data: [seg(i32c(0))] }), 'unknown memory 0');
    invalid(ir({ memories: [mem], data: [seg(i32c(0), 1)] }), 'unknown memory 1');
    invalid(ir({ memories: [mem], data: [seg(i64c(0))] }), 'type mismatch');
    invalid(ir({ memories: [mem], data: [seg([])] }), 'type mismatch');
    invalid(ir({ memories: [mem], data: [seg(globalGet(0))] }), 'unknown global 0');
  });

  it('agrees with wabt-built modules', () => {
    watValid('(module (memory 1) (data (i32.const 0) "x") (data "passive"))');
    watInvalid('(module (data (i32.const 0) "x"))', 'unknown memory');
    watInvalid('(module (memory 1) (data (offset (i32.const 0) (i32.const 0))))', 'type mismatch');
    watInvalid('(module (memory 1) (data (offset (nop) (i32.const 0))))', 'constant expression required');
  });
});

// ---------------------------------------------------------------------------------------------
// Exports and start
// ---------------------------------------------------------------------------------------------

describe('exports', () => {
  it('checks every index space, imports included', () => {
    const m = ir({
      imports: [importFunc(), importTable(), importMemory(), importGlobal(I32)],
      functions: [0],
      globals: [{ type: { valType: I32, mutable: true }, init: i32c(0) }],
      exports: [
        { name: 'f0', kind: 'func', index: 0 },
        { name: 'f1', kind: 'func', index: 1 },
        { name: 't', kind: 'table', index: 0 },
        { name: 'm', kind: 'memory', index: 0 },
        { name: 'g0', kind: 'global', index: 0 },
        { name: 'g1', kind: 'global', index: 1 },
      ],
    });
    valid(m);
    invalid(ir({ functions: [0], exports: [{ name: 'f', kind: 'func', index: 1 }] }), 'unknown function 1');
    invalid(ir({ exports: [{ name: 't', kind: 'table', index: 0 }] }), 'unknown table 0');
    invalid(ir({ exports: [{ name: 'm', kind: 'memory', index: 0 }] }), 'unknown memory 0');
    invalid(ir({ exports: [{ name: 'g', kind: 'global', index: 0 }] }), 'unknown global 0');
  });

  it('requires distinct names', () => {
    invalid(
      ir({
        functions: [0],
        exports: [
          { name: 'a', kind: 'func', index: 0 },
          { name: 'a', kind: 'func', index: 0 },
        ],
      }),
      'duplicate export name',
    );
    watInvalid('(module (func (export "a")) (global (export "a") i32 (i32.const 0)))', 'duplicate export name');
    watValid('(module (func (export "a")) (func (export "A")) (func (export "a ")))');
  });
});

describe('start function', () => {
  it('must exist and have type [] -> []', () => {
    valid(ir({ functions: [0], start: 0 }));
    valid(ir({ imports: [importFunc()], start: 0 }));
    invalid(ir({ functions: [0], start: 1 }), 'unknown function 1');
    invalid(ir({ types: [{ params: [I32], results: [] }], functions: [0], start: 0 }), 'start function');
    invalid(ir({ types: [{ params: [], results: [I32] }], functions: [0], start: 0 }), 'start function');
    watInvalid('(module (func $f (result i32) (i32.const 0)) (start $f))', 'start function');
  });
});

// ---------------------------------------------------------------------------------------------
// C.refs
// ---------------------------------------------------------------------------------------------

describe('declaredFunctionRefs', () => {
  it('collects functions named by segments, globals and exports, not by start or bodies', () => {
    const m = watModule(`(module
      (import "m" "f" (func $imp))
      (func $a) (func $b) (func $c) (func $d) (func $e) (func $unused (drop (ref.func $a)))
      (table 1 funcref)
      (elem (i32.const 0) $a)
      (elem declare func $b)
      (elem $p funcref (ref.func $c))
      (global funcref (ref.func $d))
      (export "e" (func $e))
      (start $imp))`);
    validateModule(m);
    expect([...declaredFunctionRefs(m)].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('is empty for a module without references', () => {
    expect(declaredFunctionRefs(ir({ functions: [0] })).size).toBe(0);
  });
});
