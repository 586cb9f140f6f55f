/**
 * sandboxd-ts: run untrusted WebAssembly under CPU (fuel), wall-clock (epoch deadline) and
 * memory limits with a deny-by-default host ABI, on a WebAssembly interpreter written in
 * TypeScript.
 *
 * ```ts
 * import { HostAbi, Limits, Sandbox, Value } from 'sandboxd-ts';
 *
 * const { host, logs } = HostAbi.denyAll().allowLog();
 * const sandbox = new Sandbox(host);
 * const out = await sandbox.run(bytes, 'run', [Value.i32(7)], new Limits({ fuel: 1_000_000, timeoutMs: 100 }));
 * ```
 */
export {
  CompiledModule,
  DEFAULT_FUEL,
  DEFAULT_INSTANCES,
  DEFAULT_MEMORY_BYTES,
  DEFAULT_TABLE_ELEMENTS,
  DEFAULT_TIMEOUT_MS,
  EXIT_CODES,
  Instance,
  Limits,
  RunOutput,
  Sandbox,
  SandboxError,
  Feature,
  type FeatureSet,
  type SandboxOptions,
  Value,
  formatFloatDebug,
  resultLine,
  isSandboxError,
  type LimitsOptions,
  type ModuleExport,
  type ModuleImport,
  type ModuleSource,
  type SandboxErrorKind,
  type ValueOf,
  type ValueType,
  formatBacktrace,
  type BacktraceFrame,
  type RunOptions,
  Profile,
  type FunctionProfile,
  formatDescription,
  type ModuleDescription,
  type FunctionCoverage,
  type TraceEntry,
  type InstanceOptions,
  Debugger,
  type BreakpointSpec,
  type DebugEvent,
  type DebugFrame,
  type DebugGlobal,
  type DebugValue,
  type RefValue,
} from './sandbox/index.js';
export {
  GuestExit,
  GuestMemory,
  GuestMemoryError,
  HostAbi,
  HostFunctionError,
  HostTrap,
  LogSink,
  DEFAULT_LOG_LIMIT_BYTES,
  type LogOptions,
  SplitMix64,
  type GrantInfo,
  type HostArg,
  type HostCall,
  type HostFunctionImpl,
  type HostFunctionSignature,
  type HostResult,
  type HostResultValue,
  type LogGrant,
  DEFAULT_OUTPUT_LIMIT_BYTES,
  Wasi,
  WasiFileSystem,
  type ClockMode,
  type PreopenSource,
  type StdinSource,
  type VirtualDirectory,
  type VirtualEntry,
  type WasiFileStat,
  type WasiGrant,
  type WasiOptions,
} from './host/index.js';
export { parseValueText, ValueTextError } from './sandbox/value-text.js';
export { Watchdog, arm, type EpochClock, type WatchdogClock } from './watchdog/index.js';
