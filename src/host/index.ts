export {
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
} from './abi.js';
export { GuestMemory, GuestMemoryError, decodeUtf8Lossy } from './memory.js';
export { SplitMix64, splitmix64Reference } from './splitmix64.js';
