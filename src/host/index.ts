export {
  GuestExit,
  HostAbi,
  HostFunctionError,
  HostTrap,
  LogSink,
  DEFAULT_LOG_LIMIT_BYTES,
  type LogOptions,
  type GrantInfo,
  type HostArg,
  type HostCall,
  type HostFunctionImpl,
  type HostFunctionSignature,
  type HostResult,
  type HostResultValue,
  type LogGrant,
  type WasiGrant,
} from './abi.js';
export { GuestMemory, GuestMemoryError, decodeUtf8Lossy } from './memory.js';
export { SplitMix64, splitmix64Reference } from './splitmix64.js';
export {
  DEFAULT_OUTPUT_LIMIT_BYTES,
  Wasi,
  WasiFileSystem,
  type ClockMode,
  type PreopenSource,
  type StdinSource,
  type VirtualDirectory,
  type VirtualEntry,
  type WasiFileStat,
  type WasiOptions,
} from './wasi/index.js';
