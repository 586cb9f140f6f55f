export { Sandbox, CompiledModule, Instance, RunOutput, type ModuleExport, type ModuleImport, type ModuleSource, type SandboxOptions } from './sandbox.js';
export { Feature, type FeatureSet } from '../interpreter/index.js';
export { Limits, type LimitsOptions, DEFAULT_FUEL, DEFAULT_TIMEOUT_MS, DEFAULT_MEMORY_BYTES, DEFAULT_TABLE_ELEMENTS, DEFAULT_INSTANCES } from './limits.js';
export { Value, formatFloatDebug, type ValueType, type ValueOf } from './value.js';
export { SandboxError, EXIT_CODES, isSandboxError, formatBacktrace, type SandboxErrorKind, type BacktraceFrame } from './errors.js';
export type { RunOptions } from './session.js';
export { Profile, type FunctionProfile } from '../inspect/profile.js';
export { formatDescription, type ModuleDescription } from '../inspect/describe.js';
