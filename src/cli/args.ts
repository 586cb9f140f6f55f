/**
 * Command-line parsing for `sandboxd`, with sandboxd's flags and defaults:
 *
 *     sandboxd <MODULE> [--invoke NAME] [--fuel N] [--timeout-ms MS] [--memory-mb MB]
 *              [--arg V]... [--allow-log] [--seed SEED]
 *              [--wasi [--dir HOST[::GUEST]]... [--env K=V]... [-- ARGS...]]
 *              [--describe] [--profile FILE] [--coverage FILE] [--trace N] [--debug]
 *
 * Beyond sandboxd, `--arg` takes typed values: `i32:N`, `i64:N`, `f32:X`, `f64:X`, and
 * `v128:0x` with exactly 32 hex digits (a plain value is an i32). Options may be written
 * `--flag value` or `--flag=value`; `--` ends them. `--wasi` runs a WASI program (`_start`
 * unless `--invoke` says otherwise); what follows its module after `--` are its arguments.
 */
import type { Value } from '../sandbox/value.js';
import { parseValueText, ValueTextError } from '../sandbox/value-text.js';

export interface CliOptions {
  module: string;
  invoke: string;
  fuel: bigint;
  timeoutMs: number;
  memoryMb: number;
  args: Value[];
  allowLog: boolean;
  seed: bigint | null;
  /** With `--wasi`: what the program gets; null without. */
  wasi: WasiCliOptions | null;
  /** `--describe`: print the module's summary and exit without running it. */
  describe: boolean;
  /** `--profile FILE`: write the run's fuel profile (by FILE's extension; `-`: the top functions to stderr). */
  profile: string | null;
  /** `--coverage FILE`: write which instructions ran (`.json`, or `.lcov` from DWARF line tables). */
  coverage: string | null;
  /** `--trace N`: print the first N instructions run to stderr. */
  trace: number | null;
  /** `--debug`: the interactive debugger, its commands from stdin. */
  debug: boolean;
}

export interface WasiCliOptions {
  /** `--dir HOST[::GUEST]`: host directories to preopen (as in-memory copies) under guest paths. */
  dirs: { host: string; guest: string }[];
  /** `--env K=V`, in order. */
  env: [string, string][];
  /** The program's arguments after its name (what follows the module after `--`). */
  args: string[];
}

export type ParsedArgs =
  | { kind: 'run'; options: CliOptions }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

export const USAGE = 'Usage: sandboxd [OPTIONS] <MODULE>';

export const HELP = `Run untrusted WebAssembly under CPU, wall-clock and memory limits with a deny-by-default host ABI.

${USAGE}

Arguments:
  <MODULE>  Path to the \`.wasm\` or \`.wat\` module to run

Options:
  -i, --invoke <NAME>    Name of the exported function to invoke [default: run]
      --fuel <N>         Fuel budget: the maximum number of WebAssembly instructions executed [default: 100000000]
      --timeout-ms <MS>  Wall-clock timeout in milliseconds [default: 1000]
      --memory-mb <MB>   Linear memory cap in mebibytes [default: 16]
      --arg <V>          An argument to pass to the function, in order; repeat for several. A plain
                         integer is an i32; typed values are i32:N, i64:N, f32:X, f64:X and
                         v128:0xH (H: exactly 32 hex digits, byte 15 first, as a V128 result prints)
      --allow-log        Grant the audited \`host::log\` capability so the guest can emit log lines.
                         Off by default: the host denies everything unless asked
      --seed <SEED>      Grant the audited \`host::random\` capability, seeded with SEED, so the guest
                         can draw reproducible 64-bit numbers. Off by default. Not cryptographic
      --wasi             Run a WASI program: grant wasi_snapshot_preview1 and invoke \`_start\` (unless
                         --invoke says otherwise), its stdin ours, its stdout and stderr passed through,
                         the exit code its own. Time is virtual (from fuel) and random_get seeded
      --dir <HOST[::GUEST]>
                         With --wasi: preopen a copy in memory of the host directory HOST, as GUEST
                         (default: HOST as written). The program never writes the host's files
      --env <K=V>        With --wasi: set an environment variable of the program
      --describe         Print what the module imports, exports, defines and uses, and exit without running it
      --profile <FILE>   Write the run's deterministic fuel profile to FILE: .folded (flame graphs),
                         .cpuprofile (Chrome DevTools) or .speedscope.json; - prints the top functions
      --coverage <FILE>  Write which instructions ran to FILE: .json, or .lcov (source lines, from the
                         module's DWARF line tables)
      --trace <N>        Print the first N instructions run to stderr, with the top of the operand stack
      --debug            Run under the stepping debugger: commands from stdin, a line each (help lists them)
  -- <ARGS>...           With --wasi: the program's arguments (after its module)
  -h, --help             Print help
  -V, --version          Print version

Exit codes: 0 success, 1 host error, 2 fuel exhausted, 3 timeout, 4 memory limit exceeded,
5 disallowed import, 6 invalid module, 7 export error, 8 guest trap.
`;

const U64_MAX = 2n ** 64n - 1n;

type ValueFlag = 'invoke' | 'fuel' | 'timeout-ms' | 'memory-mb' | 'arg' | 'seed' | 'dir' | 'env' | 'profile' | 'coverage' | 'trace';

const LONG_VALUE_FLAGS: ReadonlySet<string> = new Set<ValueFlag>(['invoke', 'fuel', 'timeout-ms', 'memory-mb', 'arg', 'seed', 'dir', 'env', 'profile', 'coverage', 'trace']);
/** The flags that take no value. */
const SWITCHES: ReadonlySet<string> = new Set(['allow-log', 'wasi', 'describe', 'debug']);
/** The flags that only mean something with `--wasi`. */
const WASI_FLAGS: readonly ValueFlag[] = ['dir', 'env'];

class ArgError extends Error {}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  try {
    return parse(argv);
  } catch (e) {
    if (e instanceof ArgError) return { kind: 'error', message: e.message };
    throw e;
  }
}

function parse(argv: readonly string[]): ParsedArgs {
  const options: Omit<CliOptions, 'module'> & { module: string | null } = {
    module: null,
    invoke: 'run',
    fuel: 100_000_000n,
    timeoutMs: 1000,
    memoryMb: 16,
    args: [],
    allowLog: false,
    seed: null,
    wasi: null,
    describe: false,
    profile: null,
    coverage: null,
    trace: null,
    debug: false,
  };
  const wasi: WasiCliOptions = { dirs: [], env: [], args: [] };
  let wasiRequested = false;
  let invokeGiven = false;
  const wasiFlagsSeen: string[] = [];
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (onlyPositionals || token === '-' || !token.startsWith('-')) {
      if (options.module === null) {
        options.module = token;
      } else if (onlyPositionals) {
        // The program's arguments, if this is a WASI run (checked at the end).
        wasi.args.push(token);
      } else {
        throw new ArgError(`unexpected argument '${token}' (the module is already '${options.module}')`);
      }
      continue;
    }
    if (token === '--') {
      onlyPositionals = true;
      continue;
    }
    if (token === '-h' || token === '--help') return { kind: 'help' };
    if (token === '-V' || token === '--version') return { kind: 'version' };
    if (token === '--allow-log') {
      options.allowLog = true;
      continue;
    }
    if (token === '--wasi') {
      wasiRequested = true;
      continue;
    }
    if (token === '--describe') {
      options.describe = true;
      continue;
    }
    if (token === '--debug') {
      options.debug = true;
      continue;
    }

    let flag: string;
    let inline: string | null = null;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      flag = eq >= 0 ? token.slice(2, eq) : token.slice(2);
      if (eq >= 0) inline = token.slice(eq + 1);
      if (SWITCHES.has(flag)) throw new ArgError(`'--${flag}' takes no value`);
      if (!LONG_VALUE_FLAGS.has(flag)) throw new ArgError(`unexpected argument '${token}'`);
    } else if (token.startsWith('-i')) {
      flag = 'invoke';
      if (token.length > 2) inline = token.slice(2).replace(/^=/, '');
    } else {
      throw new ArgError(`unexpected argument '${token}'`);
    }
    let value: string;
    if (inline !== null) {
      value = inline;
    } else {
      if (i + 1 >= argv.length) throw new ArgError(`a value is required for '--${flag} <${valueName(flag as ValueFlag)}>' but none was supplied`);
      value = argv[++i]!;
    }
    if (flag === 'invoke') invokeGiven = true;
    if ((WASI_FLAGS as readonly string[]).includes(flag)) wasiFlagsSeen.push(flag);
    applyFlag(options, wasi, flag as ValueFlag, value);
  }
  if (options.module === null) throw new ArgError('the following required arguments were not provided: <MODULE>');
  if (options.debug && (options.profile !== null || options.coverage !== null || options.trace !== null)) {
    throw new ArgError("'--debug' cannot be used with '--profile', '--coverage' or '--trace'");
  }
  if (!wasiRequested) {
    if (wasi.args.length > 0) throw new ArgError(`unexpected argument '${wasi.args[0]}' (the module is already '${options.module}')`);
    if (wasiFlagsSeen.length > 0) throw new ArgError(`'--${wasiFlagsSeen[0]}' requires '--wasi'`);
  } else {
    options.wasi = wasi;
    if (!invokeGiven) options.invoke = '_start';
  }
  return { kind: 'run', options: { ...options, module: options.module } };
}

function valueName(flag: ValueFlag): string {
  switch (flag) {
    case 'invoke': return 'NAME';
    case 'fuel': return 'N';
    case 'timeout-ms': return 'MS';
    case 'memory-mb': return 'MB';
    case 'arg': return 'V';
    case 'seed': return 'SEED';
    case 'dir': return 'HOST[::GUEST]';
    case 'env': return 'K=V';
    case 'profile': return 'FILE';
    case 'coverage': return 'FILE';
    case 'trace': return 'N';
  }
}

function applyFlag(options: Omit<CliOptions, 'module'>, wasi: WasiCliOptions, flag: ValueFlag, value: string): void {
  const where = `for '--${flag} <${valueName(flag)}>'`;
  switch (flag) {
    case 'invoke':
      if (value === '') throw new ArgError(`invalid value '' ${where}: the export name must not be empty`);
      options.invoke = value;
      return;
    case 'fuel':
      options.fuel = parseUnsigned(value, U64_MAX, where);
      return;
    case 'timeout-ms':
      options.timeoutMs = Number(parseUnsigned(value, BigInt(Number.MAX_SAFE_INTEGER), where));
      return;
    case 'memory-mb': {
      // The cap in bytes must stay a safe integer.
      const mb = parseUnsigned(value, BigInt(Math.floor(Number.MAX_SAFE_INTEGER / (1024 * 1024))), where);
      options.memoryMb = Number(mb);
      return;
    }
    case 'seed':
      options.seed = parseUnsigned(value, U64_MAX, where);
      return;
    case 'arg':
      options.args.push(parseValue(value, where));
      return;
    case 'dir': {
      const split = value.indexOf('::');
      const host = split >= 0 ? value.slice(0, split) : value;
      const guest = split >= 0 ? value.slice(split + 2) : value;
      if (host === '' || guest === '') throw new ArgError(`invalid value '${value}' ${where}: expected a host directory, optionally followed by ::GUEST`);
      wasi.dirs.push({ host, guest });
      return;
    }
    case 'env': {
      const eq = value.indexOf('=');
      if (eq <= 0) throw new ArgError(`invalid value '${value}' ${where}: expected NAME=VALUE`);
      wasi.env.push([value.slice(0, eq), value.slice(eq + 1)]);
      return;
    }
    case 'profile':
      if (!/(\.folded|\.cpuprofile|\.speedscope\.json)$/.test(value) && value !== '-') {
        throw new ArgError(`invalid value '${value}' ${where}: the file must end in .folded, .cpuprofile or .speedscope.json (or be -)`);
      }
      options.profile = value;
      return;
    case 'coverage':
      if (!/\.(json|lcov)$/.test(value)) throw new ArgError(`invalid value '${value}' ${where}: the file must end in .json or .lcov`);
      options.coverage = value;
      return;
    case 'trace':
      options.trace = Number(parseUnsigned(value, 10_000_000n, where));
      return;
  }
}

function parseUnsigned(text: string, max: bigint, where: string): bigint {
  if (!/^\+?[0-9]+$/.test(text)) throw new ArgError(`invalid value '${text}' ${where}: expected a non-negative integer`);
  const n = BigInt(text);
  if (n > max) throw new ArgError(`invalid value '${text}' ${where}: the number is too large (at most ${max})`);
  return n;
}

/** An `--arg` value (src/sandbox/value-text.ts says how it reads). */
export function parseValue(text: string, where = `for '--arg <V>'`): Value {
  try {
    return parseValueText(text);
  } catch (e) {
    if (e instanceof ValueTextError) throw new ArgError(`invalid value '${text}' ${where}: ${e.message}`);
    throw e;
  }
}
