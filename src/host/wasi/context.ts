/**
 * The state of WASI for one instance: its filesystem, descriptors, clock, random stream,
 * arguments, environment and standard streams. Made when the instance is created, from the
 * options of the grant, so every run starts from the same state.
 */
import { SandboxError } from '../../sandbox/errors.js';
import type { HostBinding } from '../abi.js';
import { HostTrap } from '../host-errors.js';
import type { GuestMemory } from '../memory.js';
import { SplitMix64 } from '../splitmix64.js';
import { CLOCK, DIRECTORY_RIGHTS, FILE_RIGHTS, STDIN_RIGHTS, STDOUT_RIGHTS } from './abi.js';
import { WasiClock, type ClockMode } from './clock.js';
import { Descriptor, DescriptorTable } from './descriptors.js';
import { MemoryFileSystem, type DirectoryNode } from './fs.js';
import { WasiMemory } from './guest-memory.js';
import { populate, type PreopenSource } from './preopen.js';
import { InputStream, OutputStream, type StdinSource } from './streams.js';

/** The options of `allowWasi`, checked and with their defaults. */
export interface WasiConfig {
  readonly args: readonly string[];
  readonly env: readonly (readonly [string, string])[];
  readonly stdin: StdinSource;
  readonly preopens: readonly (readonly [string, PreopenSource])[];
  readonly clock: ClockMode;
  readonly randomSeed: bigint;
  readonly maxOutputBytes: number;
  readonly onStdout: ((bytes: Uint8Array) => void) | null;
  readonly onStderr: ((bytes: Uint8Array) => void) | null;
}

export class WasiContext {
  readonly clock: WasiClock;
  readonly fs: MemoryFileSystem;
  readonly fds: DescriptorTable;
  readonly random: SplitMix64;
  /** argv, each string UTF-8 with its terminating NUL. */
  readonly args: readonly Uint8Array[];
  /** The environment as `KEY=value` strings, UTF-8 with their terminating NUL. */
  readonly environ: readonly Uint8Array[];
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** The preopened directories' roots, by guest path. */
  readonly preopens = new Map<string, DirectoryNode>();
  /** The calling instance's memory, for the system call under way. */
  private callerMemory: GuestMemory | null = null;

  constructor(config: WasiConfig, private readonly binding: HostBinding) {
    const limits = binding.limits;
    const standing = 3 + config.preopens.length;
    if (standing > limits.fsDescriptors) throw SandboxError.limitExceeded('fsDescriptors', limits.fsDescriptors);
    this.clock = new WasiClock(config.clock, () => binding.totalFuelConsumed());
    this.fs = new MemoryFileSystem({ bytes: limits.fsBytes, files: limits.fsFiles }, () => this.clock.now(CLOCK.REALTIME));
    this.fds = new DescriptorTable(this.fs, limits.fsDescriptors);
    this.random = new SplitMix64(config.randomSeed);
    this.args = config.args.map(nulTerminated);
    this.environ = config.env.map(([key, value]) => nulTerminated(`${key}=${value}`));
    this.stdout = new OutputStream(config.maxOutputBytes, config.onStdout);
    this.stderr = new OutputStream(config.maxOutputBytes, config.onStderr);
    this.fds.add(new Descriptor({ kind: 'stdin', stream: new InputStream(config.stdin) }, STDIN_RIGHTS, 0n, 0));
    this.fds.add(new Descriptor({ kind: 'output', stream: this.stdout }, STDOUT_RIGHTS, 0n, 0));
    this.fds.add(new Descriptor({ kind: 'output', stream: this.stderr }, STDOUT_RIGHTS, 0n, 0));
    for (const [guestPath, source] of config.preopens) {
      const root = this.fs.createRoot();
      populate(this.fs, root, source, config.clock === 'host');
      this.preopens.set(guestPath, root);
      this.fds.add(new Descriptor({ kind: 'directory', node: root }, DIRECTORY_RIGHTS, DIRECTORY_RIGHTS | FILE_RIGHTS, 0, guestPath));
    }
  }

  /** Starts a system call made by the instance whose exported memory is `memory`. */
  enter(memory: GuestMemory | null): void {
    this.callerMemory = memory;
  }

  /** The caller's memory; a guest that exports none cannot use the calls that need it (a trap). */
  get memory(): WasiMemory {
    if (this.callerMemory === null) throw new HostTrap('WASI needs the guest to export its linear memory as `memory`');
    return new WasiMemory(this.callerMemory);
  }

  /** Aborted when the run ends. */
  get signal(): AbortSignal {
    return this.binding.signal;
  }
}

function nulTerminated(text: string): Uint8Array {
  return new TextEncoder().encode(`${text}\0`);
}
