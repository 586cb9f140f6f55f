/** The engine's embedding API; see docs/engine-api.md. */
export { compileModule, compileModuleInSteps, CompiledModule, type CompileOptions } from './module.js';
export { runSteps, type Steps } from './steps.js';
export { ALL_FEATURES, THREADS_FEATURES, WASM2_FEATURES, WASMTIME_FEATURES, type FeatureSet } from './features.js';
export { Feature } from './errors.js';
export { Engine, Store, FuncInst, MemoryInst, TableInst, GlobalInst, PAGE_SIZE } from './store.js';
export type { Caller, ExternVal, HostFunction, Resource, StoreOptions } from './store.js';
export { instantiate, instantiateInSteps, Instance } from './instance.js';
export type { ImportResolver } from './instance.js';
export { Execution, invoke, invokeSync } from './execution.js';
export type { Status } from './execution.js';
export { FuncRef, WasmValue } from './values.js';
export { DecodeError, ValidationError, LinkError, Trap, TrapKind, WasmError } from './errors.js';
export * from './types.js';
