/**
 * The `sandboxd` command: run one module under limits and report as sandboxd does.
 *
 * stdout: `[guest log] LINE` for each logged line, then the returned values on one line as
 * sandboxd prints them, `result: I32(42)` or `result: I32(-5), I64(-5)` (or `ok (no return
 * value)`); a v128, which sandboxd cannot return, prints as `V128(0x…)` (32 hex digits, byte 15
 * first). stderr: `fuel consumed: N`, `peak linear memory: N bytes` when memory grew, or
 * `sandboxd: <error message>`. The exit code names the outcome: 0 success,
 * 1 host error (and bad command lines), 2 fuel, 3 timeout, 4 memory, 5 disallowed import,
 * 6 invalid module, 7 export error, 8 guest trap.
 *
 * With `--wasi` the program speaks for itself: its stdout and stderr go through as it writes
 * them, nothing else is printed unless the run fails (`sandboxd: <error message>`), and the
 * exit code is the program's own (an exit code above 255, which a process cannot have, is 255).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Profile } from '../inspect/profile.js';
import { formatDescription } from '../inspect/describe.js';
import { HostAbi, type LogSink } from '../host/abi.js';
import type { WasiOptions } from '../host/wasi/index.js';
import { SandboxError } from '../sandbox/errors.js';
import { Limits } from '../sandbox/limits.js';
import { resultLine } from '../sandbox/value.js';
import { type CompiledModule, type RunOutput, Sandbox } from '../sandbox/sandbox.js';
import { debugSession } from './debug.js';
import { HELP, USAGE, parseArgs, type CliOptions, type WasiCliOptions } from './args.js';

export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** A WASI program's stdout, as it writes it (default: through `stdout`, a line per write). */
  writeStdout?(bytes: Uint8Array): void;
  /** A WASI program's stderr, as it writes it (default: through `stderr`, a line per write). */
  writeStderr?(bytes: Uint8Array): void;
  /** All of our stdin, read when a WASI program first reads its own (default: nothing). */
  readStdin?(): Uint8Array;
  /** Our stdin a line at a time, for `--debug`'s commands (default: none). */
  readLines?(): AsyncIterable<string>;
}

export interface CliEnvironment {
  /** The version `--version` prints. */
  version: string;
}

/** Runs `sandboxd` with `argv` (without the node and script paths); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, env: CliEnvironment): Promise<number> {
  const parsed = parseArgs(argv);
  switch (parsed.kind) {
    case 'help':
      io.stdout(HELP.trimEnd());
      return 0;
    case 'version':
      io.stdout(`sandboxd ${env.version}`);
      return 0;
    case 'error':
      io.stderr(`sandboxd: error: ${parsed.message}`);
      io.stderr('');
      io.stderr(USAGE);
      io.stderr('');
      io.stderr("For more information, try '--help'.");
      return 1;
    case 'run':
      return runModule(parsed.options, io);
  }
}

async function runModule(options: CliOptions, io: CliIo): Promise<number> {
  let logs: LogSink | null = null;
  let module: CompiledModule | null = null;
  try {
    let bytes: Uint8Array;
    try {
      // Synchronous: the CLI has nothing else to do meanwhile, and node:fs/promises costs
      // its cold start a few milliseconds to load.
      bytes = readFileSync(options.module);
    } catch (e) {
      throw SandboxError.host(`cannot read ${options.module}: ${describeIoError(e)}`);
    }
    const limits = new Limits({
      fuel: options.fuel,
      timeoutMs: options.timeoutMs,
      memoryBytes: options.memoryMb * 1024 * 1024,
    });
    let host = HostAbi.denyAll();
    if (options.allowLog) ({ host, logs } = host.allowLog());
    if (options.seed !== null) host = host.allowRandom(options.seed);
    if (options.wasi !== null) host = host.allowWasi(wasiOptions(options, options.wasi, io)).host;

    const sandbox = new Sandbox(host);
    if (options.describe) {
      io.stdout(formatDescription((await sandbox.compile(bytes)).describe()));
      return 0;
    }
    if (options.debug) return await debugModule(sandbox, bytes, options, limits, io);
    module = await sandbox.compile(bytes);
    const output = await sandbox.run(module, options.invoke, options.args, limits, {
      profile: options.profile !== null,
      coverage: options.coverage !== null,
      ...(options.trace !== null ? { trace: { limit: options.trace } } : {}),
    });
    writeObservations(options, output, module, io);

    printLogs(logs, io);
    if (options.wasi !== null) {
      if (output.values.length > 0) io.stdout(resultLine(output.values));
      return Math.min(output.exitCode, 255);
    }
    io.stdout(resultLine(output.values));
    io.stderr(`fuel consumed: ${output.fuelConsumed}`);
    if (output.peakMemoryBytes > 0) io.stderr(`peak linear memory: ${output.peakMemoryBytes} bytes`);
    return 0;
  } catch (e) {
    const error = e instanceof SandboxError ? e : SandboxError.host(`internal error: ${e instanceof Error ? e.message : String(e)}`);
    writeObservations(options, error, module, io);
    printLogs(logs, io);
    io.stderr(`sandboxd: ${error.message}`);
    return error.exitCode;
  }
}

/** `--debug`: the debugger's session on stdin and stdout; the exit code is the run's, 0 when left unfinished. */
async function debugModule(sandbox: Sandbox, bytes: Uint8Array, options: CliOptions, limits: Limits, io: CliIo): Promise<number> {
  const debug = await sandbox.debug(bytes, options.invoke, options.args, limits);
  const lines = io.readLines ?? (async function* none(): AsyncIterable<string> {});
  const event = await debugSession(debug, { stdout: io.stdout, lines });
  if (event === null) return 0;
  if (event.kind === 'failed') return event.error.exitCode;
  return event.kind === 'finished' ? Math.min(event.output.exitCode, 255) : 0;
}

function wasiOptions(options: CliOptions, wasi: WasiCliOptions, io: CliIo): WasiOptions {
  const decoder = new TextDecoder();
  return {
    args: [options.module, ...wasi.args],
    env: Object.fromEntries(wasi.env),
    // Under --debug our stdin carries the debugger's commands, not the program's input.
    stdin: options.debug ? new Uint8Array(0) : io.readStdin ?? new Uint8Array(0),
    preopens: Object.fromEntries(wasi.dirs.map(({ host, guest }) => [guest, host])),
    onStdout: io.writeStdout ?? ((bytes) => io.stdout(decoder.decode(bytes))),
    onStderr: io.writeStderr ?? ((bytes) => io.stderr(decoder.decode(bytes))),
  };
}

/** What --profile, --coverage and --trace asked for, from a run's output or its error. */
function writeObservations(options: CliOptions, observed: RunOutput | SandboxError, module: CompiledModule | null, io: CliIo): void {
  writeProfile(options.profile, observed.profile, io);
  if (options.coverage !== null && observed.coverage !== undefined) {
    // A function a line: readable, and still one JSON array.
    if (options.coverage.endsWith('.json')) writeFileSync(options.coverage, `[\n${observed.coverage.map((f) => JSON.stringify(f)).join(',\n')}\n]\n`);
    else {
      const lcov = module?.lcov(observed.coverage) ?? null;
      if (lcov === null) io.stderr('sandboxd: no lcov written: the module has no DWARF line tables (.json works for any module)');
      else writeFileSync(options.coverage, lcov);
    }
  }
  for (const t of observed.trace ?? []) {
    const stack = t.stack.length > 0 ? `  [${t.stack.join(' ')}]` : '';
    io.stderr(`trace: 0x${t.offset.toString(16).padStart(6, '0')}  ${t.funcName}  ${t.instruction}${stack}`);
  }
}

/** `--profile FILE`: the profile in the format FILE's extension names; `-`: the top functions on stderr. */
function writeProfile(file: string | null, profile: Profile | undefined, io: CliIo): void {
  if (file === null || profile === undefined) return;
  if (file === '-') {
    io.stderr(`profile: ${profile.totalFuel} fuel`);
    io.stderr('    self fuel    total fuel     calls  function');
    for (const f of profile.functions.slice(0, 20)) {
      io.stderr(`${String(f.selfFuel).padStart(13)} ${String(f.totalFuel).padStart(13)} ${String(f.calls).padStart(9)}  ${f.funcName}`);
    }
    return;
  }
  const text = file.endsWith('.folded') ? `${profile.toFolded()}\n`
    : JSON.stringify(file.endsWith('.cpuprofile') ? profile.toCpuProfile() : profile.toSpeedscope());
  writeFileSync(file, text);
}

function printLogs(logs: LogSink | null, io: CliIo): void {
  if (logs === null) return;
  for (const line of logs.lines) io.stdout(`[guest log] ${line}`);
  logs.clear();
}

/** Node's "ENOENT: no such file or directory, open 'x'" as Rust prints it: "No such file or directory (os error 2)". */
function describeIoError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const err = e as NodeJS.ErrnoException;
  const m = /^[A-Z0-9_]+: ([^,]+)/.exec(err.message);
  if (m && typeof err.errno === 'number') {
    const text = m[1]!;
    return `${text[0]!.toUpperCase()}${text.slice(1)} (os error ${Math.abs(err.errno)})`;
  }
  return err.message;
}
