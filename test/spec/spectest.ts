/**
 * The `spectest` host module the core test suite imports from (see the suite's README):
 * four immutable globals, a funcref table, a memory and a family of `print*` functions that
 * do nothing. A fresh one is created in each script's store.
 */
import type { instantiate, Store } from '../../src/interpreter/index.js';
import { F32, F64, FUNCREF, I32, I64, type FuncType, type ValType } from '../../src/interpreter/types.js';
import { WasmValue } from '../../src/interpreter/values.js';

/** Whatever `instantiate`'s resolver may hand back (FuncRef | MemoryInst | TableInst | GlobalInst). */
export type ExternVal = NonNullable<ReturnType<Parameters<typeof instantiate>[2]>>;

const PRINT_FUNCTIONS: ReadonlyArray<readonly [string, readonly ValType[]]> = [
  ['print', []],
  ['print_i32', [I32]],
  ['print_i64', [I64]],
  ['print_f32', [F32]],
  ['print_f64', [F64]],
  ['print_i32_f32', [I32, F32]],
  ['print_f64_f64', [F64, F64]],
];

/** Builds the spectest exports in `store`, keyed by export name. */
export function createSpectest(store: Store): Map<string, ExternVal> {
  const exports = new Map<string, ExternVal>();

  exports.set('global_i32', store.createGlobal({ valType: I32, mutable: false }, WasmValue.i32(666)));
  exports.set('global_i64', store.createGlobal({ valType: I64, mutable: false }, WasmValue.i64(666n)));
  exports.set('global_f32', store.createGlobal({ valType: F32, mutable: false }, WasmValue.f32(666.6)));
  exports.set('global_f64', store.createGlobal({ valType: F64, mutable: false }, WasmValue.f64(666.6)));

  exports.set('table', store.createTable(
    { elemType: FUNCREF, limits: { min: 10, max: 20 } },
    WasmValue.funcref(null),
  ));
  exports.set('table64', store.createTable(
    { elemType: FUNCREF, limits: { min: 10, max: 20 }, is64: true },
    WasmValue.funcref(null),
  ));
  exports.set('memory', store.createMemory({ limits: { min: 1, max: 2 } }));
  exports.set('shared_memory', store.createMemory({ limits: { min: 1, max: 2 }, shared: true }));

  for (const [name, params] of PRINT_FUNCTIONS) {
    const type: FuncType = { params, results: [] };
    exports.set(name, store.createHostFunction(type, () => []));
  }
  return exports;
}
