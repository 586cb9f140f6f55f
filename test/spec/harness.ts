/**
 * Runs the WebAssembly core test suites (the `wast2json` form: `../shared/wasm-testsuite`,
 * `../shared/wasm-testsuite-3` and its `legacy/`, `extra/` and `proposals/threads/`) against the
 * engine's embedding API (docs/engine-api.md), compiling every module with the feature set of
 * the suite's profile (suites.ts). One Engine and one Store per script; every command is
 * wrapped so that no engine failure can stop a script or the run.
 *
 * Strict, as the reference interpreter is (its `script/run.ml`): `assert_malformed` wants a
 * DecodeError, `assert_invalid` a ValidationError, `assert_unlinkable` a LinkError, each
 * message beginning with the script's text; `assert_trap` wants the trap the text names, and
 * `assert_exhaustion` call stack exhaustion. Anything else fails the command. The latitude
 * the suite itself gives, and the one defect of its conversion, are under "What the suite
 * allows" below. Only the text-format modules (`module_type` `text`, for a text parser) are
 * skipped; whole scripts are left out only by suites.ts's NOT_RUN, and reported as not run.
 *
 * Used by `test/spec/run-spec.ts` (the `npm run spec` CLI) and `test/spec.test.ts` (vitest);
 * report.ts prints the results.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { compileModule, Engine, instantiate, invokeSync, Store, type FeatureSet } from '../../src/interpreter/index.js';
import type { CompileOptions } from '../../src/interpreter/module.js';
import type { Execution, InstructionMonitor } from '../../src/interpreter/execution.js';
import { ProbedModule } from '../../src/inspect/probes.js';
import { DecodeError, LinkError, Trap, TrapKind, UncaughtException, ValidationError } from '../../src/interpreter/errors.js';
import { FuncRef, type WasmValue } from '../../src/interpreter/values.js';
import { repoRoot, type SpecFile } from './locate.js';
import { createSpectest, type ExternVal } from './spectest.js';
import { notRunReason, type ProfileId, type SuiteProfile } from './suites.js';
import {
  argumentValue, formatPattern, formatResults, HostRefs, matchesResults, safeString, SpecValueError,
  type ResultPattern, type SpecValue,
} from './values.js';

// ---------------------------------------------------------------------------------------------
// Types: the engine's (derived from its functions, so only the documented names are relied on)
// and the suite's JSON.

type CompiledModule = ReturnType<typeof compileModule>;
type Instance = ReturnType<typeof instantiate>;
type GlobalInst = ReturnType<Store['createGlobal']>;

export type SpecAction =
  | { readonly type: 'invoke'; readonly module?: string; readonly field: string; readonly args: readonly SpecValue[] }
  | { readonly type: 'get'; readonly module?: string; readonly field: string };

export interface SpecCommand {
  readonly type: string;
  readonly line: number;
  readonly filename?: string;
  /** A module's name (`module`), or the instance to register (`register`). */
  readonly name?: string;
  readonly as?: string;
  readonly action?: SpecAction;
  readonly expected?: readonly SpecValue[];
  /** assert_return: the single result matches one of these (relaxed SIMD). */
  readonly either?: readonly SpecValue[];
  readonly text?: string;
  readonly module_type?: string;
  /** `module`: "true" for `(module definition ...)`, decoded and validated, not instantiated. */
  readonly definition?: string | boolean;
  /** module_instance: the instance's name, and the definition it instantiates (default: the last module). */
  readonly instance?: string;
  readonly module?: string;
}

interface SpecScript {
  readonly commands: readonly SpecCommand[];
}

// ---------------------------------------------------------------------------------------------
// Results.

export interface CommandFailure {
  readonly line: number;
  readonly command: string;
  readonly reason: string;
}

export interface FileResult {
  readonly name: string;
  /** The features the script uses beyond WebAssembly 2.0 (its profile's names). */
  readonly features: readonly string[];
  /** Why the script was not run (suites.ts's NOT_RUN), or null when it ran. */
  readonly notRun: string | null;
  /** Commands in the script. */
  commands: number;
  passed: number;
  failed: number;
  skipped: number;
  readonly failures: CommandFailure[];
  durationMs: number;
}

export interface SuiteResult {
  readonly profile: ProfileId;
  passed: number;
  failed: number;
  skipped: number;
  /** Commands of the scripts not run. */
  notRun: number;
  readonly files: FileResult[];
}

export interface RunOptions {
  /** What every module is compiled with: the suite profile's feature set. */
  readonly features: FeatureSet;
  /** Fuel given to the store before every invocation (a guard against runaway loops). */
  readonly fuel?: number;
  /** The stores' StoreOptions.jitThreshold: 0 runs every function in the JavaScript tier, Infinity none. */
  readonly jitThreshold?: number;
  /**
   * Compile with a probe before every instruction (the debugger's translation) and read the
   * whole operand stack and the locals at every one (src/inspect/probes.ts).
   */
  readonly probes?: boolean;
  /** Where to append the fuel each instantiation, start function and invocation consumed, in order. */
  readonly fuelLog?: number[];
}

export const DEFAULT_FUEL = 1e10;

// ---------------------------------------------------------------------------------------------
// Running.

/** A command failed for a reason the runner itself determined. */
class Fail extends Error {}

/** A value the JSON writes that cannot be built or checked fails the command, saying why. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof SpecValueError) throw new Fail(error.message);
    throw error;
  }
}

interface Loaded {
  readonly module: CompiledModule;
  readonly instance: Instance;
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

function capture<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

class ScriptRunner {
  private readonly engine = new Engine();
  private readonly store: Store;
  /** Module name (`spectest`, or a `register`'s `as`) -> exports. */
  private readonly registry = new Map<string, ReadonlyMap<string, ExternVal>>();
  /** `$name` -> instance: a named `module`, or a `module_instance`. */
  private readonly instances = new Map<string, Loaded>();
  /** `$name` -> compiled module: a named `module` (definitions included), for `module_instance`. */
  private readonly definitions = new Map<string, CompiledModule>();
  /** The instance actions and `register` refer to by default: the last one made. */
  private current: Loaded | null = null;
  /** The module `module_instance` instantiates by default: the last one compiled. */
  private lastModule: CompiledModule | null = null;
  /**
   * The last `module` or `module_instance` command when it failed, and by name the named ones
   * that failed: later commands that need what they would have made say why they cannot run.
   */
  private failedLoad: SpecCommand | null = null;
  private readonly failedNames = new Map<string, SpecCommand>();
  private readonly hostRefs = new HostRefs();
  private readonly fuel: number;
  private readonly features: FeatureSet;
  private readonly compileOptions: CompileOptions;
  private readonly fuelLog: number[] | undefined;

  constructor(
    private readonly dir: string,
    private readonly scriptName: string,
    options: RunOptions,
  ) {
    this.fuel = options.fuel ?? DEFAULT_FUEL;
    this.features = options.features;
    this.compileOptions = { probes: options.probes === true };
    this.fuelLog = options.fuelLog;
    this.store = new Store(this.engine, options.jitThreshold === undefined ? {} : { jitThreshold: options.jitThreshold });
    if (options.probes === true) this.store.monitor = new StackReader();
    this.registry.set('spectest', createSpectest(this.store));
  }

  run(command: SpecCommand): 'pass' | 'skip' {
    switch (command.type) {
      case 'module': return this.module(command);
      case 'module_instance': return this.moduleInstance(command);
      case 'register': return this.register(command);
      case 'action': return this.action(command);
      case 'assert_return': return this.assertReturn(command);
      case 'assert_trap': return this.assertTrap(command);
      case 'assert_exhaustion': return this.assertExhaustion(command);
      case 'assert_exception': return this.assertException(command);
      case 'assert_invalid': return this.assertInvalid(command);
      case 'assert_malformed': return this.assertMalformed(command);
      case 'assert_unlinkable': return this.assertUnlinkable(command);
      case 'assert_uninstantiable': return this.assertUninstantiable(command);
      default: throw new Fail(`unknown command type "${command.type}"`);
    }
  }

  // --- commands -------------------------------------------------------------------------------

  /** Compiles the module, and (unless it is a definition) instantiates it and runs its start function. */
  private module(command: SpecCommand): 'pass' {
    const definition = command.definition === 'true' || command.definition === true;
    // Until this one loads, nothing refers to an earlier module by default.
    this.lastModule = null;
    if (!definition) this.current = null;
    this.loading(command, command.name, () => {
      const module = this.compile(command);
      this.lastModule = module;
      if (command.name !== undefined) this.definitions.set(command.name, module);
      if (!definition) this.instantiateAs(module, command.name);
    });
    return 'pass';
  }

  private moduleInstance(command: SpecCommand): 'pass' {
    this.current = null;
    this.loading(command, command.instance, () => {
      const module = command.module !== undefined ? this.definitions.get(command.module) : this.lastModule;
      if (module === undefined || module === null) throw new Fail(this.missing('module', command.module));
      this.instantiateAs(module, command.instance);
    });
    return 'pass';
  }

  private register(command: SpecCommand): 'pass' {
    const target = command.name !== undefined ? this.instances.get(command.name) : this.current;
    if (target === undefined || target === null) {
      throw new Fail(this.missing('instance', command.name));
    }
    if (command.as === undefined) throw new Fail('register without "as"');
    this.registry.set(command.as, target.instance.exports);
    return 'pass';
  }

  private action(command: SpecCommand): 'pass' {
    const outcome = capture(this.prepareAction(command));
    if (!outcome.ok) throw new Fail(`${describeAction(command.action)} failed: ${describeError(outcome.error, this.fuel)}`);
    return 'pass';
  }

  private assertReturn(command: SpecCommand): 'pass' {
    const pattern: ResultPattern = command.either !== undefined
      ? { kind: 'either', alternatives: command.either }
      : { kind: 'results', values: command.expected ?? [] };
    const outcome = capture(this.prepareAction(command));
    if (!outcome.ok) throw new Fail(`expected ${formatPattern(pattern)}, got ${describeError(outcome.error, this.fuel)}`);
    if (!checked(() => matchesResults(pattern, outcome.value, this.hostRefs))) {
      const shown = pattern.kind === 'either' ? pattern.alternatives : pattern.values;
      throw new Fail(`expected ${formatPattern(pattern)}, got ${formatResults(outcome.value, shown)}`);
    }
    return 'pass';
  }

  private assertTrap(command: SpecCommand): 'pass' {
    if (command.action === undefined) return this.assertUninstantiable(command);
    const text = command.text ?? '';
    const outcome = capture(this.prepareAction(command));
    if (outcome.ok) throw new Fail(`expected trap "${text}", got ${formatResults(outcome.value)}`);
    this.expectTrap(command, outcome.error);
    return 'pass';
  }

  private assertExhaustion(command: SpecCommand): 'pass' {
    const outcome = capture(this.prepareAction(command));
    if (outcome.ok) throw new Fail(`expected stack exhaustion, got ${formatResults(outcome.value)}`);
    const error = outcome.error;
    const text = command.text ?? '';
    // The reference interpreter's exhaustion message is this engine's: the prefix rule applies.
    if (!(error instanceof Trap && error.kind === TrapKind.StackOverflow && error.kind.startsWith(text))) {
      throw new Fail(`expected stack exhaustion "${text}", got ${describeError(error, this.fuel)}`);
    }
    return 'pass';
  }

  /**
   * The action must end in an uncaught WebAssembly exception (`throw`, `throw_ref`), not a trap.
   * The engine throws no such thing yet, nor has a class to tell one by, so every outcome fails
   * the command, saying what it was.
   */
  private assertException(command: SpecCommand): 'pass' {
    const outcome = capture(this.prepareAction(command));
    if (outcome.ok) throw new Fail(`expected an uncaught exception, got ${formatResults(outcome.value)}`);
    if (outcome.error instanceof UncaughtException) return 'pass';
    throw new Fail(`expected an uncaught exception, got ${describeError(outcome.error, this.fuel)}`);
  }

  private assertInvalid(command: SpecCommand): 'pass' | 'skip' {
    if (isTextModule(command)) return 'skip';
    const bytes = this.readModule(command);
    const outcome = capture(() => compileModule(bytes, this.features, this.compileOptions));
    if (outcome.ok) throw new Fail(`expected ValidationError "${command.text}", but the module compiled`);
    this.expectError(command, outcome.error, ValidationError, bytes);
    return 'pass';
  }

  private assertMalformed(command: SpecCommand): 'pass' | 'skip' {
    if (isTextModule(command)) return 'skip';
    const bytes = this.readModule(command);
    const outcome = capture(() => compileModule(bytes, this.features, this.compileOptions));
    if (outcome.ok) throw new Fail(`expected DecodeError "${command.text}", but the module compiled`);
    this.expectError(command, outcome.error, DecodeError, bytes);
    return 'pass';
  }

  private assertUnlinkable(command: SpecCommand): 'pass' {
    const module = this.compile(command);
    const outcome = capture(() => this.link(module));
    if (outcome.ok) throw new Fail(`expected LinkError "${command.text}", but the module instantiated`);
    this.expectError(command, outcome.error, LinkError);
    return 'pass';
  }

  private assertUninstantiable(command: SpecCommand): 'pass' {
    const module = this.compile(command);
    const linked = capture(() => this.link(module));
    if (!linked.ok) {
      this.expectTrap(command, linked.error);
      return 'pass';
    }
    const started = capture(() => this.runStart(linked.value));
    if (started.ok) {
      throw new Fail(`expected trap "${command.text}", but the module instantiated`
        + (linked.value.startFunction ? ' and its start function returned' : ' (no start function)'));
    }
    this.expectTrap(command, started.error);
    return 'pass';
  }

  // --- helpers --------------------------------------------------------------------------------

  /** Instantiates `module` and runs its start function; the instance becomes the current one, and `name`'s. */
  private instantiateAs(module: CompiledModule, name: string | undefined): void {
    const instance = this.stage('instantiate', () => this.link(module));
    this.stage('start function', () => this.runStart(instance));
    const loaded = { module, instance };
    this.current = loaded;
    if (name !== undefined) this.instances.set(name, loaded);
  }

  /**
   * Runs `load` for a command that makes a module or an instance (under `name`), remembering
   * the command for as long as it has failed.
   */
  private loading(command: SpecCommand, name: string | undefined, load: () => void): void {
    this.failedLoad = command;
    if (name !== undefined) this.failedNames.set(name, command);
    load();
    this.failedLoad = null;
    if (name !== undefined) this.failedNames.delete(name);
  }

  /**
   * Why there is no instance (or module) named `name`, or no current one: none was made, or
   * the command that would have made it failed.
   */
  private missing(what: 'instance' | 'module', name: string | undefined): string {
    const failed = name !== undefined ? this.failedNames.get(name) : this.failedLoad;
    const because = failed !== undefined && failed !== null ? `: the ${failed.type} of line ${failed.line} failed` : '';
    if (name !== undefined) return `no ${what} named ${name}${because}`;
    return because !== '' ? `no ${what}${because}` : `no ${what} yet`;
  }

  /**
   * The trap must be the one the script names (`trapAnswers`). Running out of fuel, an
   * interrupt or call stack exhaustion (the suite's `assert_exhaustion`, not a trap) never
   * answers `assert_trap`.
   */
  private expectTrap(command: SpecCommand, error: unknown): void {
    const text = command.text ?? '';
    if (!(error instanceof Trap) || !trapAnswers(error.kind, text)) {
      throw new Fail(`expected trap "${text}", got ${describeError(error, this.fuel)}`);
    }
  }

  /**
   * The module must fail with exactly this class of error, and its message must begin with
   * the script's text: the rule of the reference interpreter (`assert_message` in its
   * `script/run.ml`: the expected text is a prefix of the message, and a decoding error
   * never answers `assert_invalid` nor a validation error `assert_malformed`). The engine's
   * messages are the reference interpreter's, followed by details and the byte offset.
   */
  private expectError(
    command: SpecCommand,
    error: unknown,
    expected: typeof DecodeError | typeof ValidationError | typeof LinkError,
    bytes?: Uint8Array,
  ): void {
    if (error instanceof Fail) throw error;
    const text = command.text ?? '';
    if (error instanceof expected && error.message.startsWith(text)) return;
    const defect = bytes !== undefined ? conversionDefect(this.scriptName, command, bytes) : undefined;
    if (defect !== undefined && error instanceof defect.errorClass && error.message.startsWith(defect.text)) return;
    throw new Fail(`expected ${expected.name} "${text}", got ${describeError(error, this.fuel)}`);
  }

  private readModule(command: SpecCommand): Uint8Array {
    if (command.filename === undefined) throw new Fail('command has no filename');
    try {
      return new Uint8Array(readFileSync(join(this.dir, command.filename)));
    } catch (error) {
      throw new Fail(`cannot read ${command.filename}: ${describeError(error, this.fuel)}`);
    }
  }

  private compile(command: SpecCommand): CompiledModule {
    const bytes = this.readModule(command);
    return this.stage('compile', () => compileModule(bytes, this.features, this.compileOptions));
  }

  /** Runs one step of loading a module; any exception becomes a failure naming the step. */
  private stage<T>(what: string, fn: () => T): T {
    const outcome = capture(fn);
    if (!outcome.ok) {
      if (outcome.error instanceof Fail) throw outcome.error;
      throw new Fail(`${what}: ${describeError(outcome.error, this.fuel)}`);
    }
    return outcome.value;
  }

  private link(module: CompiledModule): Instance {
    return this.metered(() => instantiate(this.store, module, (imp) => this.registry.get(imp.module)?.get(imp.name)));
  }

  private runStart(instance: Instance): void {
    const start = instance.startFunction;
    if (start === null || start === undefined) return;
    this.metered(() => invokeSync(this.store, start, []));
  }

  /** Runs `fn` with the store's fuel set, and logs what it consumed (RunOptions.fuelLog), whatever the outcome. */
  private metered<T>(fn: () => T): T {
    this.store.fuel = this.fuel;
    try {
      return fn();
    } finally {
      this.fuelLog?.push(this.fuel - this.store.fuel);
    }
  }

  /**
   * Resolves the action's target (throwing `Fail` when the script's setup is wrong or a
   * value cannot be built) and returns the engine call to make.
   */
  private prepareAction(command: SpecCommand): () => WasmValue[] {
    const action = command.action;
    if (action === undefined) throw new Fail('command has no action');
    const target = action.module !== undefined ? this.instances.get(action.module) : this.current;
    if (target === undefined || target === null) {
      throw new Fail(this.missing('instance', action.module));
    }
    const ext = target.instance.exports.get(action.field);
    if (ext === undefined) throw new Fail(`no export "${action.field}"`);
    if (action.type === 'invoke') {
      if (!(ext instanceof FuncRef)) throw new Fail(`export "${action.field}" is not a function`);
      const args = checked(() => action.args.map((v) => argumentValue(v, this.hostRefs)));
      return () => this.metered(() => invokeSync(this.store, ext, args));
    }
    if (action.type === 'get') {
      const kind = target.module.ir.exports.find((e) => e.name === action.field)?.kind;
      if (kind !== 'global') throw new Fail(`export "${action.field}" is a ${kind ?? 'unknown'}, not a global`);
      const global = ext as GlobalInst;
      return () => [global.value];
    }
    throw new Fail(`unknown action type "${(action as { type: string }).type}"`);
  }
}

/** A module given as text (`module quote`): for a text parser; this engine reads binary modules only. */
function isTextModule(command: SpecCommand): boolean {
  return command.module_type === 'text';
}

function describeAction(action: SpecAction | undefined): string {
  if (action === undefined) return 'action';
  return `${action.type} "${action.field}"`;
}

/** An exception as one line: `trap "…"`, `LinkError: …`, or a JS error with where it came from. */
export function describeError(error: unknown, fuel = DEFAULT_FUEL): string {
  if (error instanceof Fail) return error.message;
  if (error instanceof Trap) {
    if (error.kind === TrapKind.OutOfFuel) return `ran out of fuel (${fuel}): runaway execution?`;
    return `trap "${error.message}"`;
  }
  if (error instanceof DecodeError || error instanceof ValidationError || error instanceof LinkError) {
    return `${error.name}: ${error.message}`;
  }
  if (error instanceof Error) {
    const frame = error.stack?.split('\n').find((l) => l.trimStart().startsWith('at '))?.trim();
    const where = frame !== undefined ? ` (${shortenFrame(frame)})` : '';
    return `${error.name}: ${error.message}${where}`;
  }
  return `thrown ${typeof error}: ${safeString(error)}`;
}

function shortenFrame(frame: string): string {
  return frame.replace(/^at /, '').replace(`file://${repoRoot}/`, '').replace(`${repoRoot}/`, '');
}

// ---------------------------------------------------------------------------------------------
// What the suite allows.

/**
 * The reference interpreter's message for each trap kind of this engine. The suite's rule is
 * the reference interpreter's (`assert_message` in its `script/run.ml`): the trap's message
 * must begin with the script's text. This engine words its traps as wasmtime does (`TrapKind`
 * in src/interpreter/errors.ts), so the rule is applied to the message the reference
 * interpreter gives for the same trap: a trap of the wrong kind fails. (`undefined element`
 * is the reference interpreter's word for call_indirect past the end of the table; wasmtime,
 * and this engine, report every table access past the end as one trap.)
 */
const REFERENCE_TRAP_MESSAGES: ReadonlyMap<TrapKind, readonly string[]> = new Map<TrapKind, readonly string[]>([
  [TrapKind.Unreachable, ['unreachable executed']],
  [TrapKind.IntegerDivideByZero, ['integer divide by zero']],
  [TrapKind.IntegerOverflow, ['integer overflow']],
  [TrapKind.BadConversionToInteger, ['invalid conversion to integer']],
  [TrapKind.MemoryOutOfBounds, ['out of bounds memory access']],
  [TrapKind.TableOutOfBounds, ['out of bounds table access', 'undefined element <index>']],
  [TrapKind.UninitializedElement, ['uninitialized element <index>']],
  [TrapKind.IndirectCallTypeMismatch, ['indirect call type mismatch']],
  [TrapKind.UnalignedAtomic, ['unaligned atomic memory access']],
  [TrapKind.AtomicWaitNonSharedMemory, ['expected shared memory']],
]);

const INDEX = ' <index>';

/**
 * Whether a trap of `kind` answers the script's `text`. The one latitude beyond the prefix
 * rule: the reference interpreter ends two messages with the element's index (`uninitialized
 * element 2`), and a script may give it, as bulk.wast does once; this engine's traps carry
 * no index, so any decimal index is taken to match.
 */
function trapAnswers(kind: TrapKind, text: string): boolean {
  for (const message of REFERENCE_TRAP_MESSAGES.get(kind) ?? []) {
    if (!message.endsWith(INDEX)) {
      if (message.startsWith(text)) return true;
      continue;
    }
    const base = message.slice(0, -INDEX.length);
    if (base.startsWith(text) || new RegExp(`^${base} \\d*$`).test(text)) return true;
  }
  return false;
}

interface ConversionDefect {
  readonly script: string;
  readonly line: number;
  /** The whole module, hex: the exception holds for these bytes only. */
  readonly moduleHex: string;
  readonly errorClass: typeof DecodeError | typeof ValidationError;
  /** The error the reference interpreter gives for these bytes. */
  readonly text: string;
}

/**
 * Commands whose module file does not hold what the script's text says, because of the tool
 * that converted the suite (the suite's README: WABT 1.0.32 `wast2json`). For exactly those
 * bytes, the error the reference interpreter reports for them is accepted instead.
 */
const CONVERSION_DEFECTS: readonly ConversionDefect[] = [
  // select.wast: `(select (result) (nop) (nop) (i32.const 1))` must be a typed select with an
  // empty result list (0x1c 0x00), "invalid result arity". WABT 1.0.32 wrote the untyped
  // `select` (0x1b) instead, which has a single operand here: "type mismatch". WABT 1.0.41
  // writes 0x1c 0x00 (../wasm-testsuite-3/json/select/select.2.wasm, line 368).
  {
    script: 'select',
    line: 324,
    moduleHex: '0061736d01000000010401600000030201000a09010700010141011b0b',
    errorClass: ValidationError,
    text: 'type mismatch',
  },
];

function conversionDefect(script: string, command: SpecCommand, bytes: Uint8Array): ConversionDefect | undefined {
  const hex = Buffer.from(bytes).toString('hex');
  return CONVERSION_DEFECTS.find((d) => d.script === script && d.line === command.line && d.moduleHex === hex);
}

// ---------------------------------------------------------------------------------------------
// Entry points.

function readScript(path: string): SpecScript {
  const script = JSON.parse(readFileSync(path, 'utf8')) as SpecScript;
  if (!Array.isArray(script.commands)) throw new Error('no "commands" array');
  return script;
}

function emptyResult(file: SpecFile, features: readonly string[], notRun: string | null): FileResult {
  return { name: file.name, features, notRun, commands: 0, passed: 0, failed: 0, skipped: 0, failures: [], durationMs: 0 };
}

/** Runs one script; never throws for anything the engine does. */
export function runSpecFile(file: SpecFile, options: RunOptions, features: readonly string[] = []): FileResult {
  const result = emptyResult(file, features, null);
  const started = performance.now();
  let script: SpecScript;
  try {
    script = readScript(file.path);
  } catch (error) {
    result.failed++;
    result.failures.push({ line: 0, command: 'script', reason: `cannot read ${file.path}: ${describeError(error)}` });
    return result;
  }
  result.commands = script.commands.length;

  let runner: ScriptRunner | null = null;
  try {
    runner = new ScriptRunner(dirname(file.path), file.name, options);
  } catch (error) {
    // Without a store (or spectest) nothing can run: every command fails for that reason.
    const reason = `cannot set up the store and spectest: ${describeError(error, options.fuel)}`;
    result.failed += script.commands.length;
    result.failures.push({ line: 0, command: 'setup', reason });
  }

  if (runner !== null) {
    for (const command of script.commands) {
      let status: 'pass' | 'skip' | 'fail';
      let reason = '';
      try {
        status = runner.run(command);
      } catch (error) {
        status = 'fail';
        reason = error instanceof Fail ? error.message : `unexpected ${describeError(error, options.fuel)}`;
      }
      if (status === 'pass') result.passed++;
      else if (status === 'skip') result.skipped++;
      else {
        result.failed++;
        result.failures.push({ line: command.line, command: command.type, reason });
      }
    }
  }
  result.durationMs = performance.now() - started;
  return result;
}

/** A script NOT_RUN leaves out: its reason and how many commands it holds. */
function notRunFile(file: SpecFile, features: readonly string[], reason: string): FileResult {
  const result = emptyResult(file, features, reason);
  try {
    result.commands = readScript(file.path).commands.length;
  } catch (error) {
    result.failed++;
    result.failures.push({ line: 0, command: 'script', reason: `cannot read ${file.path}: ${describeError(error)}` });
  }
  return result;
}

export interface SuiteOptions {
  /** Fuel given to the store before every invocation. */
  readonly fuel?: number;
  /** Run the scripts NOT_RUN leaves out too. */
  readonly all?: boolean;
  /** RunOptions.jitThreshold. */
  readonly jitThreshold?: number;
  /** RunOptions.probes. */
  readonly probes?: boolean;
  /** RunOptions.fuelLog. */
  readonly fuelLog?: number[];
}

/**
 * Runs scripts of a suite in order under its profile: its feature set, and NOT_RUN (unless
 * `all`). `onFile` sees each result as soon as it is known.
 */
export function runSuite(
  profile: SuiteProfile,
  files: readonly SpecFile[],
  options: SuiteOptions = {},
  onFile?: (result: FileResult) => void,
): SuiteResult {
  const suite: SuiteResult = { profile: profile.id, passed: 0, failed: 0, skipped: 0, notRun: 0, files: [] };
  const runOptions: RunOptions = {
    features: profile.features,
    ...(options.fuel !== undefined ? { fuel: options.fuel } : {}),
    ...(options.jitThreshold !== undefined ? { jitThreshold: options.jitThreshold } : {}),
    ...(options.probes !== undefined ? { probes: options.probes } : {}),
    ...(options.fuelLog !== undefined ? { fuelLog: options.fuelLog } : {}),
  };
  for (const file of files) {
    const features = profile.scriptFeatures(file.name);
    const reason = options.all === true ? null : notRunReason(profile, file.name);
    const result = reason !== null ? notRunFile(file, features, reason) : runSpecFile(file, runOptions, features);
    suite.passed += result.passed;
    suite.failed += result.failed;
    suite.skipped += result.skipped;
    if (result.notRun !== null) suite.notRun += result.commands;
    suite.files.push(result);
    onFile?.(result);
  }
  return suite;
}

/**
 * RunOptions.probes' monitor: reads the whole operand stack and every local at every
 * instruction, so that a wrong stack record (a slot out of the frame, a type read wrongly)
 * throws or shows, and sums them so the reads cannot be skipped.
 */
class StackReader implements InstructionMonitor {
  private readonly probed = new WeakMap<object, ProbedModule>();
  checksum = 0;

  probe(site: number, ex: Execution, base: number): null {
    const inst = ex.inst!;
    const s32 = ex.s32;
    let probed = this.probed.get(inst.module);
    if (probed === undefined) this.probed.set(inst.module, (probed = new ProbedModule(inst.module)));
    const stack = probed.stack(site, inst.store, s32, base);
    if (stack.length !== probed.stackDepth(site)) throw new Error(`probe ${site}: read ${stack.length} of ${probed.stackDepth(site)} entries`);
    const locals = probed.locals(probed.sites[site]!.funcIndex, inst.store, s32, base);
    for (const v of [...stack, ...locals]) this.checksum = (this.checksum + v.lo) | 0;
    return null;
  }
}
