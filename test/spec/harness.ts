/**
 * Runs the WebAssembly core test suite (the `wast2json` form in `../shared/wasm-testsuite`)
 * against the engine's embedding API (docs/engine-api.md). One Engine and one Store per
 * script; every command is wrapped so that no engine failure can stop a script or the run.
 *
 * Strict, as the reference interpreter is (its `script/run.ml`): `assert_malformed` wants a
 * DecodeError, `assert_invalid` a ValidationError, `assert_unlinkable` a LinkError, each
 * message beginning with the script's text; `assert_trap` wants the trap the text names, and
 * `assert_exhaustion` call stack exhaustion. Anything else fails the command. The latitude
 * the suite itself gives, and the one defect of its conversion, are under "What the suite
 * allows" below. Only the text-format `assert_malformed` commands are skipped.
 *
 * Used by `test/spec/run-spec.ts` (the `npm run spec` CLI) and `test/spec.test.ts` (vitest).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { compileModule, Engine, instantiate, invokeSync, Store } from '../../src/interpreter/index.js';
import { DecodeError, LinkError, Trap, TrapKind, ValidationError } from '../../src/interpreter/errors.js';
import { EXTERNREF, F32, F64, FUNCREF, I32, I64, V128, type ValType, valTypeName } from '../../src/interpreter/types.js';
import { FuncRef, WasmValue } from '../../src/interpreter/values.js';
import { repoRoot, type SpecFile } from './locate.js';
import { createSpectest, type ExternVal } from './spectest.js';

export { defaultSuiteDir, findSpecFile, listSpecFiles, repoRoot, type SpecFile } from './locate.js';

// ---------------------------------------------------------------------------------------------
// Types: the engine's (derived from its functions, so only the documented names are relied on)
// and the suite's JSON.

type CompiledModule = ReturnType<typeof compileModule>;
type Instance = ReturnType<typeof instantiate>;
type GlobalInst = ReturnType<Store['createGlobal']>;

/** A value in the JSON: numbers as unsigned decimal bit strings, v128 as a list of lanes. */
export interface SpecValue {
  readonly type: string;
  readonly value?: string | readonly string[];
  readonly lane_type?: string;
}

export type SpecAction =
  | { readonly type: 'invoke'; readonly module?: string; readonly field: string; readonly args: readonly SpecValue[] }
  | { readonly type: 'get'; readonly module?: string; readonly field: string };

export interface SpecCommand {
  readonly type: string;
  readonly line: number;
  readonly filename?: string;
  readonly name?: string;
  readonly as?: string;
  readonly action?: SpecAction;
  readonly expected?: readonly SpecValue[];
  readonly text?: string;
  readonly module_type?: string;
}

interface SpecScript {
  readonly source_filename?: string;
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
  passed: number;
  failed: number;
  skipped: number;
  readonly failures: CommandFailure[];
  durationMs: number;
}

export interface SuiteResult {
  passed: number;
  failed: number;
  skipped: number;
  readonly files: FileResult[];
}

export interface RunOptions {
  /** Fuel given to the store before every invocation (a guard against runaway loops). */
  readonly fuel?: number;
}

export const DEFAULT_FUEL = 1e10;

/** How many failures per file are printed unless verbose. */
export const FAILURES_SHOWN = 10;

// ---------------------------------------------------------------------------------------------
// Running.

/** A command failed for a reason the runner itself determined. */
class Fail extends Error {}

/** The host value behind `ref.extern N`: one object per N per script, compared by identity. */
class HostRef {
  constructor(readonly n: number) {}
  toString(): string {
    return `ref.extern ${this.n}`;
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
  private readonly store = new Store(this.engine);
  /** Module name (`spectest`, or a `register`'s `as`) -> exports. */
  private readonly registry = new Map<string, ReadonlyMap<string, ExternVal>>();
  /** `$name` -> instance, for modules given a name. */
  private readonly named = new Map<string, Loaded>();
  private current: Loaded | null = null;
  private readonly hostRefs = new Map<number, HostRef>();
  private readonly fuel: number;

  constructor(
    private readonly dir: string,
    private readonly scriptName: string,
    options: RunOptions,
  ) {
    this.fuel = options.fuel ?? DEFAULT_FUEL;
    this.registry.set('spectest', createSpectest(this.store));
  }

  run(command: SpecCommand): 'pass' | 'skip' {
    switch (command.type) {
      case 'module': return this.module(command);
      case 'register': return this.register(command);
      case 'action': return this.action(command);
      case 'assert_return': return this.assertReturn(command);
      case 'assert_trap': return this.assertTrap(command);
      case 'assert_exhaustion': return this.assertExhaustion(command);
      case 'assert_invalid': return this.assertInvalid(command);
      case 'assert_malformed': return this.assertMalformed(command);
      case 'assert_unlinkable': return this.assertUnlinkable(command);
      case 'assert_uninstantiable': return this.assertUninstantiable(command);
      default: throw new Fail(`unknown command type "${command.type}"`);
    }
  }

  // --- commands -------------------------------------------------------------------------------

  private module(command: SpecCommand): 'pass' {
    const module = this.compile(command);
    const instance = this.stage('instantiate', () => this.link(module));
    this.stage('start function', () => this.runStart(instance));
    const loaded = { module, instance };
    this.current = loaded;
    if (command.name !== undefined) this.named.set(command.name, loaded);
    return 'pass';
  }

  private register(command: SpecCommand): 'pass' {
    const target = command.name !== undefined ? this.named.get(command.name) : this.current;
    if (target === undefined || target === null) {
      throw new Fail(command.name !== undefined ? `no module named ${command.name}` : 'no module to register');
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
    const expected = command.expected ?? [];
    if (expected.some((v) => v.type === 'v128')) throw new Fail('v128 unsupported');
    const outcome = capture(this.prepareAction(command));
    if (!outcome.ok) {
      throw new Fail(`expected ${formatExpectedList(expected)}, got ${describeError(outcome.error, this.fuel)}`);
    }
    const results = outcome.value;
    const ok = Array.isArray(results) && results.length === expected.length
      && expected.every((exp, i) => this.matches(exp, results[i]));
    if (!ok) throw new Fail(`expected ${formatExpectedList(expected)}, got ${formatResults(results)}`);
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

  private assertInvalid(command: SpecCommand): 'pass' {
    const bytes = this.readModule(command);
    const outcome = capture(() => compileModule(bytes));
    if (outcome.ok) throw new Fail(`expected ValidationError "${command.text}", but the module compiled`);
    this.expectError(command, outcome.error, ValidationError, bytes);
    return 'pass';
  }

  private assertMalformed(command: SpecCommand): 'pass' | 'skip' {
    // The text-format ones test a text parser; this engine reads binary modules only.
    if (command.module_type === 'text') return 'skip';
    const bytes = this.readModule(command);
    const outcome = capture(() => compileModule(bytes));
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
    return this.stage('compile', () => compileModule(bytes));
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
    this.store.fuel = this.fuel;
    return instantiate(this.store, module, (imp) => this.registry.get(imp.module)?.get(imp.name));
  }

  private runStart(instance: Instance): void {
    const start = instance.startFunction;
    if (start === null || start === undefined) return;
    this.store.fuel = this.fuel;
    invokeSync(this.store, start, []);
  }

  /**
   * Resolves the action's target (throwing `Fail` when the script's setup is wrong or a
   * value cannot be built) and returns the engine call to make.
   */
  private prepareAction(command: SpecCommand): () => WasmValue[] {
    const action = command.action;
    if (action === undefined) throw new Fail('command has no action');
    const target = action.module !== undefined ? this.named.get(action.module) : this.current;
    if (target === undefined || target === null) {
      throw new Fail(action.module !== undefined ? `no module named ${action.module}` : 'no module instantiated');
    }
    const ext = target.instance.exports.get(action.field);
    if (ext === undefined) throw new Fail(`no export "${action.field}"`);
    if (action.type === 'invoke') {
      if (!(ext instanceof FuncRef)) throw new Fail(`export "${action.field}" is not a function`);
      const args = action.args.map((v) => this.toWasm(v));
      return () => {
        this.store.fuel = this.fuel;
        return invokeSync(this.store, ext, args);
      };
    }
    if (action.type === 'get') {
      const kind = target.module.ir.exports.find((e) => e.name === action.field)?.kind;
      if (kind !== 'global') throw new Fail(`export "${action.field}" is a ${kind ?? 'unknown'}, not a global`);
      const global = ext as GlobalInst;
      return () => [global.value];
    }
    throw new Fail(`unknown action type "${(action as { type: string }).type}"`);
  }

  private hostRef(n: number): HostRef {
    let ref = this.hostRefs.get(n);
    if (ref === undefined) {
      ref = new HostRef(n);
      this.hostRefs.set(n, ref);
    }
    return ref;
  }

  /** An argument value. */
  private toWasm(v: SpecValue): WasmValue {
    const value = v.value;
    if (v.type === 'v128') throw new Fail('v128 unsupported');
    if (typeof value !== 'string') throw new Fail(`argument of type ${v.type} has no value`);
    switch (v.type) {
      case 'i32': return WasmValue.i32(Number(value));
      case 'i64': return WasmValue.i64(BigInt(value));
      case 'f32': return WasmValue.f32Bits(Number(value));
      case 'f64': return WasmValue.f64Bits(BigInt(value));
      case 'funcref':
        if (value === 'null') return WasmValue.funcref(null);
        throw new Fail(`cannot build funcref argument ${value}`);
      case 'externref':
        return WasmValue.externref(value === 'null' ? null : this.hostRef(Number(value)));
      default: throw new Fail(`unknown value type "${v.type}"`);
    }
  }

  /** Whether a result matches an expected value. */
  private matches(exp: SpecValue, got: unknown): boolean {
    if (!(got instanceof WasmValue) || got.type !== typeCode(exp.type)) return false;
    const value = exp.value;
    if (Array.isArray(value)) return false; // v128, rejected earlier
    switch (exp.type) {
      case 'i32': return value === undefined || got.bits32 === Number(value);
      case 'i64': return value === undefined || got.bits64 === BigInt(value as string);
      case 'f32': {
        const bits = got.bits32;
        if (value === 'nan:canonical') return (bits & 0x7fffffff) === 0x7fc00000;
        if (value === 'nan:arithmetic') return (bits & 0x7fc00000) === 0x7fc00000;
        return value === undefined || bits === Number(value);
      }
      case 'f64': {
        const bits = got.bits64;
        if (value === 'nan:canonical') return (bits & 0x7fffffffffffffffn) === 0x7ff8000000000000n;
        if (value === 'nan:arithmetic') return (bits & 0x7ff8000000000000n) === 0x7ff8000000000000n;
        return value === undefined || bits === BigInt(value as string);
      }
      case 'funcref':
        if (value === 'null') return got.ref === null;
        return got.ref instanceof FuncRef;
      case 'externref':
        if (value === 'null') return got.ref === null;
        if (value === undefined) return got.ref !== null;
        return got.ref === this.hostRef(Number(value));
      default: return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting.

function typeCode(name: string): ValType | -1 {
  switch (name) {
    case 'i32': return I32;
    case 'i64': return I64;
    case 'f32': return F32;
    case 'f64': return F64;
    case 'v128': return V128;
    case 'funcref': return FUNCREF;
    case 'externref': return EXTERNREF;
    default: return -1;
  }
}

function formatFloat(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

/** A result value, e.g. `i32:-1`, `f32:1.5 (0x3fc00000)`, `externref:ref.extern 1`. */
export function formatValue(v: unknown): string {
  if (!(v instanceof WasmValue)) return `<not a WasmValue: ${safeString(v)}>`;
  switch (v.type) {
    case I32: return `i32:${v.asI32}`;
    case I64: return `i64:${v.asI64}`;
    case F32: return `f32:${formatFloat(v.asF32)} (0x${v.bits32.toString(16).padStart(8, '0')})`;
    case F64: return `f64:${formatFloat(v.asF64)} (0x${v.bits64.toString(16).padStart(16, '0')})`;
    case FUNCREF:
      if (v.ref === null) return 'funcref:null';
      return v.ref instanceof FuncRef ? `funcref:#${v.ref.id}` : `funcref:<not a FuncRef: ${safeString(v.ref)}>`;
    case EXTERNREF:
      if (v.ref === null) return 'externref:null';
      return v.ref instanceof HostRef ? `externref:${v.ref.n}` : `externref:<${safeString(v.ref)}>`;
    default: return `${valTypeName(v.type)}:?`;
  }
}

function formatExpected(v: SpecValue): string {
  const value = v.value;
  if (value === undefined) return `${v.type}:*`;
  if (Array.isArray(value)) return `v128:${v.lane_type ?? '?'}[${value.join(' ')}]`;
  const text = value as string;
  if (text.startsWith('nan:')) return `${v.type}:${text}`;
  try {
    switch (v.type) {
      case 'i32': return formatValue(WasmValue.i32(Number(text)));
      case 'i64': return formatValue(WasmValue.i64(BigInt(text)));
      case 'f32': return formatValue(WasmValue.f32Bits(Number(text)));
      case 'f64': return formatValue(WasmValue.f64Bits(BigInt(text)));
      case 'funcref': return text === 'null' ? 'funcref:null' : 'funcref:non-null';
      default: return `${v.type}:${text}`;
    }
  } catch {
    return `${v.type}:${text}`;
  }
}

function formatExpectedList(values: readonly SpecValue[]): string {
  return `[${values.map(formatExpected).join(', ')}]`;
}

function formatResults(values: unknown): string {
  if (!Array.isArray(values)) return `<results not an array: ${safeString(values)}>`;
  return `[${values.map(formatValue).join(', ')}]`;
}

function safeString(x: unknown): string {
  try {
    return typeof x === 'bigint' ? `${x}n` : String(x);
  } catch {
    return typeof x;
  }
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

/** Runs one script; never throws for anything the engine does. */
export function runSpecFile(file: SpecFile, options: RunOptions = {}): FileResult {
  const result: FileResult = {
    name: file.name, passed: 0, failed: 0, skipped: 0, failures: [], durationMs: 0,
  };
  const started = performance.now();
  let script: SpecScript;
  try {
    script = JSON.parse(readFileSync(file.path, 'utf8')) as SpecScript;
    if (!Array.isArray(script.commands)) throw new Error('no "commands" array');
  } catch (error) {
    result.failed++;
    result.failures.push({ line: 0, command: 'script', reason: `cannot read ${file.path}: ${describeError(error)}` });
    return result;
  }

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

/** Runs scripts in order; `onFile` sees each result as soon as it is known. */
export function runSpecFiles(
  files: readonly SpecFile[],
  options: RunOptions = {},
  onFile?: (result: FileResult) => void,
): SuiteResult {
  const suite: SuiteResult = { passed: 0, failed: 0, skipped: 0, files: [] };
  for (const file of files) {
    const result = runSpecFile(file, options);
    suite.passed += result.passed;
    suite.failed += result.failed;
    suite.skipped += result.skipped;
    suite.files.push(result);
    onFile?.(result);
  }
  return suite;
}

/** `NAME: P passed, F failed, S skipped`, then the failures (capped unless verbose). */
export function formatFileResult(result: FileResult, verbose = false): string[] {
  const lines = [`${result.name}: ${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`
    + (verbose ? ` (${Math.round(result.durationMs)} ms)` : '')];
  const shown = verbose ? result.failures : result.failures.slice(0, FAILURES_SHOWN);
  for (const f of shown) lines.push(`  line ${f.line} ${f.command}: ${f.reason}`);
  if (shown.length < result.failures.length) {
    lines.push(`  ... and ${result.failures.length - shown.length} more failures (--verbose shows all)`);
  }
  return lines;
}

export function formatTotals(suite: SuiteResult): string {
  return `${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped`;
}

/** The `--json` summary. */
export function summaryJson(suite: SuiteResult): {
  passed: number; failed: number; skipped: number;
  files: Record<string, { passed: number; failed: number; skipped: number }>;
} {
  const files: Record<string, { passed: number; failed: number; skipped: number }> = {};
  for (const f of suite.files) files[f.name] = { passed: f.passed, failed: f.failed, skipped: f.skipped };
  return { passed: suite.passed, failed: suite.failed, skipped: suite.skipped, files };
}
