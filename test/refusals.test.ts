/**
 * What the engine refuses: a module that uses a feature outside the compile's feature set
 * (features.ts), or one the engine does not run at all, is rejected with a message naming the
 * feature and the byte offset, worded once (`refusal` in src/interpreter/errors.ts), and the
 * sandbox reports it as InvalidModule.
 *
 * Hand-assembled modules for each encoding, then every module of the newer test suite
 * (../shared/wasm-testsuite-3) against the features its README lists per script.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { compileModule } from '../src/interpreter/module.js';
import { DecodeError, Feature, formatOpcode, refusal, ValidationError } from '../src/interpreter/errors.js';
import { HostAbi, Sandbox, SandboxError, type FeatureSet } from '../src/index.js';
import { ALL_FEATURES, WASMTIME_FEATURES } from '../src/interpreter/features.js';
import { suite3Dir, suiteAvailable, suitesRequired } from './spec/locate.js';

// ---------------------------------------------------------------------------------------------
// Byte building

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function sec(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function str(s: string): number[] {
  const b = [...Buffer.from(s, 'utf8')];
  return [...uleb(b.length), ...b];
}

/** A module from sections. */
function mod(...parts: number[][]): Uint8Array {
  return new Uint8Array([...HEADER, ...parts.flat()]);
}

const TYPE_VOID = sec(1, vec([[0x60, 0x00, 0x00]]));
const ONE_FUNC = sec(3, vec([[0x00]]));
const MEMORY = sec(5, vec([[0x00, 0x01]]));

/**
 * One function `() -> ()` whose body is `instrs` (its `end` added), after `before` (sections
 * between the function and code sections, a memory say). Returns the module and the offset
 * of the body's first instruction.
 */
function withBody(instrs: number[], before: number[][] = []): { bytes: Uint8Array; at: number } {
  const body = [0x00, ...instrs, 0x0b];
  const head = [...HEADER, ...TYPE_VOID, ...ONE_FUNC, ...before.flat()];
  const code = vec([[...uleb(body.length), ...body]]);
  const bytes = new Uint8Array([...head, 0x0a, ...uleb(code.length), ...code]);
  return { bytes, at: bytes.length - instrs.length - 1 };
}

/** The offset where `needle` first occurs in `bytes` at or after `from`. */
function find(bytes: Uint8Array, needle: number[], from = 8): number {
  for (let i = from; i + needle.length <= bytes.length; i++) {
    if (needle.every((b, k) => bytes[i + k] === b)) return i;
  }
  throw new Error(`bytes ${needle} not found`);
}

// ---------------------------------------------------------------------------------------------
// The cases

interface Case {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly feature: Feature;
  readonly error: typeof DecodeError | typeof ValidationError;
  /** The whole message, without the offset that the error appends. */
  readonly message: string;
  readonly offset: number;
}

function cases(): Case[] {
  const out: Case[] = [];
  const add = (c: Case): void => {
    out.push(c);
  };
  const body = (
    name: string, instrs: number[], feature: Feature, error: Case['error'], message: string,
    opIndex = 0, before: number[][] = [],
  ): void => {
    const { bytes, at } = withBody(instrs, before);
    add({ name, bytes, feature, error, message, offset: at + opIndex });
  };

  // SIMD (2.0's, left out) and relaxed SIMD.
  const v128 = Array<number>(16).fill(0);
  body('SIMD instruction', [0xfd, 0x0c, ...v128, 0x1a], Feature.Simd, ValidationError,
    'SIMD is not supported by this engine (opcode 0xfd 0x0c)');
  {
    const bytes = mod(sec(1, vec([[0x60, 0x01, 0x7b, 0x00]])));
    add({ name: 'SIMD value type', bytes, feature: Feature.Simd, error: ValidationError,
      message: 'SIMD is not supported by this engine (value type v128, 0x7b)', offset: find(bytes, [0x7b]) });
  }
  body('SIMD block type', [0x02, 0x7b, 0xfd, 0x0c, ...v128, 0x0b, 0x1a], Feature.Simd, ValidationError,
    'SIMD is not supported by this engine (block type v128, 0x7b)', 1);
  body('relaxed SIMD', [0xfd, 0x80, 0x02], Feature.RelaxedSimd, DecodeError,
    'relaxed SIMD is not supported by this engine (opcode 0xfd 0x100)');

  // Threads.
  {
    const bytes = mod(sec(5, vec([[0x03, 0x01, 0x02]])));
    add({ name: 'shared memory', bytes, feature: Feature.SharedMemory, error: DecodeError,
      message: 'integer too large: shared memory (threads) is not supported by this engine (memory limits flags 0x03)',
      offset: 11 });
  }
  body('atomic instruction', [0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x1a], Feature.Atomics, DecodeError,
    'atomic instructions (threads) are not supported by this engine (an atomic instruction, opcode 0xfe 0x10)', 2);

  // Exception handling.
  {
    const bytes = mod(TYPE_VOID, sec(13, vec([[0x00, 0x00]])));
    add({ name: 'tag section', bytes, feature: Feature.ExceptionHandling, error: DecodeError,
      message: 'malformed section id: exception handling is not supported by this engine (section id 13, the tag section)',
      offset: 14 });
  }
  {
    const bytes = mod(TYPE_VOID, sec(2, vec([[...str('m'), ...str('e'), 0x04, 0x00, 0x00]])));
    add({ name: 'tag import', bytes, feature: Feature.ExceptionHandling, error: DecodeError,
      message: 'malformed import kind: exception handling is not supported by this engine (import kind 4, a tag)',
      offset: find(bytes, [0x04, 0x00, 0x00], 14) });
  }
  {
    const bytes = mod(sec(7, vec([[...str('e'), 0x04, 0x00]])));
    add({ name: 'tag export', bytes, feature: Feature.ExceptionHandling, error: DecodeError,
      message: 'malformed export kind: exception handling is not supported by this engine (export kind 4, a tag)',
      offset: 13 });
  }
  body('try (legacy)', [0x06, 0x40, 0x0b], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (try, legacy exception handling, opcode 0x06)');
  body('throw', [0x08, 0x00], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (throw, opcode 0x08)');
  body('throw_ref', [0x0a], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (throw_ref, opcode 0x0a)');
  body('ref.null exn', [0xd0, 0x69, 0x1a], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (ref.null exn, heap type 0x69)', 1);
  body('delegate (legacy)', [0x18, 0x00], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (delegate, legacy exception handling, opcode 0x18)');
  body('catch_all (legacy)', [0x19], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (catch_all, legacy exception handling, opcode 0x19)');
  body('try_table', [0x1f, 0x40, 0x00, 0x0b], Feature.ExceptionHandling, DecodeError,
    'exception handling is not supported by this engine (try_table, opcode 0x1f)');
  {
    const bytes = mod(sec(1, vec([[0x60, 0x01, 0x69, 0x00]])));
    add({ name: 'exnref', bytes, feature: Feature.ExceptionHandling, error: DecodeError,
      message: 'exception handling is not supported by this engine (value type exnref, 0x69)', offset: find(bytes, [0x69]) });
  }

  // memory64, table64, custom page sizes.
  {
    const bytes = mod(sec(5, vec([[0x04, 0x01]])));
    add({ name: 'memory64', bytes, feature: Feature.Memory64, error: DecodeError,
      message: 'integer too large: memory64 is not supported by this engine (memory limits flags 0x04)', offset: 11 });
  }
  {
    const bytes = mod(sec(4, vec([[0x70, 0x05, 0x01, 0x02]])));
    add({ name: 'table64', bytes, feature: Feature.Table64, error: DecodeError,
      message: 'integer too large: table64 (memory64) is not supported by this engine (table limits flags 0x05)', offset: 12 });
  }
  {
    const bytes = mod(sec(2, vec([[...str('m'), ...str('m'), 0x02, 0x08, 0x01, 0x10]])));
    add({ name: 'custom page sizes', bytes, feature: Feature.CustomPageSizes, error: DecodeError,
      message: 'integer too large: custom page sizes are not supported by this engine (memory limits flags 0x08)',
      offset: find(bytes, [0x08, 0x01, 0x10]) });
  }

  // Tail calls.
  body('return_call', [0x12, 0x00], Feature.TailCalls, DecodeError,
    'tail calls are not supported by this engine (return_call, opcode 0x12)');
  body('return_call_indirect', [0x41, 0x00, 0x13, 0x00, 0x00], Feature.TailCalls, DecodeError,
    'tail calls are not supported by this engine (return_call_indirect, opcode 0x13)', 2);
  body('return_call_ref', [0x15, 0x00], Feature.TailCalls, DecodeError,
    'tail calls are not supported by this engine (return_call_ref, opcode 0x15)');

  // Function references.
  body('call_ref', [0x14, 0x00], Feature.FunctionReferences, DecodeError,
    'function references are not supported by this engine (call_ref, opcode 0x14)');
  body('ref.as_non_null', [0xd0, 0x70, 0xd4, 0x1a], Feature.FunctionReferences, DecodeError,
    'function references are not supported by this engine (ref.as_non_null, opcode 0xd4)', 2);
  body('br_on_null', [0xd0, 0x70, 0xd5, 0x00, 0x1a], Feature.FunctionReferences, DecodeError,
    'function references are not supported by this engine (br_on_null, opcode 0xd5)', 2);
  body('br_on_non_null', [0xd0, 0x70, 0xd6, 0x00, 0x1a], Feature.FunctionReferences, DecodeError,
    'function references are not supported by this engine (br_on_non_null, opcode 0xd6)', 2);
  body('ref.null of a type index', [0xd0, 0x00, 0x1a], Feature.FunctionReferences, DecodeError,
    'function references are not supported by this engine (ref.null of type 0)', 1);
  {
    const bytes = mod(sec(1, vec([[0x60, 0x01, 0x64, 0x70, 0x00]])));
    add({ name: '(ref func)', bytes, feature: Feature.FunctionReferences, error: DecodeError,
      message: 'function references are not supported by this engine (value type (ref func), 0x64)', offset: find(bytes, [0x64]) });
  }
  {
    const bytes = mod(sec(1, vec([[0x60, 0x00, 0x00], [0x60, 0x01, 0x63, 0x00, 0x00]])));
    add({ name: '(ref null $t)', bytes, feature: Feature.FunctionReferences, error: DecodeError,
      message: 'function references are not supported by this engine (value type (ref null type 0), 0x63)',
      offset: find(bytes, [0x63]) });
  }
  {
    const bytes = mod(sec(4, vec([[0x40, 0x00, 0x70, 0x00, 0x01, 0xd0, 0x70, 0x0b]])));
    add({ name: 'table initializer', bytes, feature: Feature.TableInitializers, error: DecodeError,
      message: 'table initializer expressions are not supported by this engine (a table with an initializer expression, 0x40)',
      offset: 11 });
  }

  // GC.
  body('GC instruction', [0x41, 0x00, 0xfb, 0x1c, 0x1a], Feature.Gc, DecodeError,
    'GC is not supported by this engine (a GC instruction, opcode 0xfb 0x1c)', 2);
  body('ref.eq', [0xd0, 0x70, 0xd0, 0x70, 0xd3, 0x1a], Feature.Gc, DecodeError,
    'GC is not supported by this engine (ref.eq, opcode 0xd3)', 4);
  body('ref.null any', [0xd0, 0x6e, 0x1a], Feature.Gc, DecodeError,
    'GC is not supported by this engine (ref.null any, heap type 0x6e)', 1);
  {
    const bytes = mod(sec(1, vec([[0x5f, 0x01, 0x7f, 0x00]])));
    add({ name: 'struct type', bytes, feature: Feature.Gc, error: DecodeError,
      message: 'GC is not supported by this engine (struct type, 0x5f)', offset: 11 });
  }
  {
    const bytes = mod(sec(1, vec([[0x4e, 0x01, 0x60, 0x00, 0x00]])));
    add({ name: 'recursive type group', bytes, feature: Feature.Gc, error: DecodeError,
      message: 'GC is not supported by this engine (recursive type group, 0x4e)', offset: 11 });
  }
  {
    const bytes = mod(sec(1, vec([[0x60, 0x01, 0x6e, 0x00]])));
    add({ name: 'anyref', bytes, feature: Feature.Gc, error: DecodeError,
      message: 'GC is not supported by this engine (value type anyref, 0x6e)', offset: find(bytes, [0x6e]) });
  }
  {
    const bytes = mod(sec(6, vec([[0x7f, 0x00, 0x41, 0x01, 0x0b], [0x7f, 0x00, 0x23, 0x00, 0x0b]])));
    add({ name: 'global.get of a module global in a constant expression', bytes, feature: Feature.ConstantGlobals,
      error: ValidationError,
      message: 'unknown global 0: global.get of a module-defined global in a constant expression is not supported by this engine (global.get 0)',
      offset: find(bytes, [0x23, 0x00]) });
  }

  // Multi-memory.
  {
    const bytes = mod(sec(5, vec([[0x00, 0x01], [0x00, 0x01]])));
    add({ name: 'two memories', bytes, feature: Feature.MultiMemory, error: ValidationError,
      message: 'multiple memories: multi-memory is not supported by this engine (a second memory)', offset: 13 });
  }
  {
    const bytes = mod(sec(2, vec([[...str('m'), ...str('m'), 0x02, 0x00, 0x01]])), sec(5, vec([[0x00, 0x01]])));
    add({ name: 'an imported and a defined memory', bytes, feature: Feature.MultiMemory, error: ValidationError,
      message: 'multiple memories: multi-memory is not supported by this engine (a second memory)', offset: bytes.length - 2 });
  }
  body('memory.size of memory 1', [0x3f, 0x01, 0x1a], Feature.MultiMemory, DecodeError,
    'zero byte expected: multi-memory is not supported by this engine (memory index 1 in memory.size)', 1, [MEMORY]);
  body('memory.copy between memories', [0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xfc, 0x0a, 0x01, 0x00], Feature.MultiMemory,
    DecodeError, 'zero byte expected: multi-memory is not supported by this engine (memory index 1 in memory.copy)', 8, [MEMORY]);
  body('a load from memory 1', [0x41, 0x00, 0x28, 0x42, 0x01, 0x00, 0x1a], Feature.MultiMemory, ValidationError,
    'alignment must not be larger than natural: multi-memory is not supported by this engine '
    + '(memory index 1 in the memarg of opcode 0x28)', 2, [MEMORY]);

  // Extended constant expressions.
  {
    const bytes = mod(sec(6, vec([[0x7f, 0x00, 0x41, 0x01, 0x41, 0x02, 0x6a, 0x0b]])));
    add({ name: 'i32.add in a constant expression', bytes, feature: Feature.ExtendedConst, error: ValidationError,
      message: 'constant expression required: extended constant expressions are not supported by this engine '
        + '(i32.add, opcode 0x6a, in a constant expression)',
      offset: find(bytes, [0x6a]) });
  }
  {
    const bytes = mod(sec(6, vec([[0x7e, 0x00, 0x42, 0x01, 0x42, 0x02, 0x7e, 0x0b]])));
    add({ name: 'i64.mul in a constant expression', bytes, feature: Feature.ExtendedConst, error: ValidationError,
      message: 'constant expression required: extended constant expressions are not supported by this engine '
        + '(i64.mul, opcode 0x7e, in a constant expression)',
      offset: bytes.length - 2 });
  }

  // Wide arithmetic.
  body('i64.add128', [0xfc, 0x13], Feature.WideArithmetic, DecodeError,
    'wide arithmetic is not supported by this engine (opcode 0xfc 0x13)');
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('the wording of refusals', () => {
  it('prints opcodes one way', () => {
    expect(formatOpcode(0x12)).toBe('0x12');
    expect(formatOpcode(0x06)).toBe('0x06');
    expect(formatOpcode(0xfc, 19)).toBe('0xfc 0x13');
    expect(formatOpcode(0xfd, 0x100)).toBe('0xfd 0x100');
  });

  it('names the feature, then the detail; the suite\'s text goes first where it has one', () => {
    expect(refusal(Feature.TailCalls, 'return_call, opcode 0x12'))
      .toBe('tail calls are not supported by this engine (return_call, opcode 0x12)');
    expect(refusal(Feature.Gc, 'x')).toBe('GC is not supported by this engine (x)');
    expect(refusal(Feature.SharedMemory, 'memory limits flags 0x03', 'integer too large'))
      .toBe('integer too large: shared memory (threads) is not supported by this engine (memory limits flags 0x03)');
  });

  it('keeps WebAssembly 2.0\'s own errors for the rest', () => {
    const illegal = withBody([0x27]);
    expect(() => compileModule(illegal.bytes)).toThrow(`illegal opcode 0x27 (at byte offset ${illegal.at})`);
    const fc = withBody([0xfc, 0x17]);
    expect(() => compileModule(fc.bytes)).toThrow(`illegal opcode 0xfc 0x17 (at byte offset ${fc.at})`);
    const fd = withBody([0xfd, 0x80, 0x04]);
    expect(() => compileModule(fd.bytes)).toThrow(`illegal opcode 0xfd 0x200 (at byte offset ${fd.at})`);
    expect(() => compileModule(mod(sec(5, vec([[0x10, 0x00]]))), NO_FEATURES)).toThrow(/^integer too large \(at byte offset 11\)$/);
    // The 3.0 binary format, which memory64 brings, words it differently.
    expect(() => compileModule(mod(sec(5, vec([[0x10, 0x00]]))))).toThrow(/^malformed limits flags \(at byte offset 11\)$/);
    expect(() => compileModule(mod(sec(4, vec([[0x70, 0x02, 0x00]]))), NO_FEATURES)).toThrow(/^integer too large: shared tables/);
    const zero = withBody([0x3f, 0x80, 0x00, 0x1a], [MEMORY]);
    expect(() => compileModule(zero.bytes, NO_FEATURES)).toThrow(`zero byte expected (at byte offset ${zero.at + 1})`);
    // Multi-memory reads the index as a LEB: 0x80 0x00 is memory 0.
    expect(() => compileModule(zero.bytes)).not.toThrow();
  });
});

/** A compile that accepts nothing beyond WebAssembly 2.0 without SIMD: every refusal shows. */
const NO_FEATURES: FeatureSet = new Set();

describe('each refused feature', () => {
  for (const c of cases()) {
    it(`${c.name}: ${c.feature}`, async () => {
      let err: unknown;
      try {
        compileModule(c.bytes, NO_FEATURES);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(c.error);
      const e = err as DecodeError | ValidationError;
      expect(e.message).toBe(`${c.message} (at byte offset ${c.offset})`);
      expect(e.offset).toBe(c.offset);
      expect(e.feature).toBe(c.feature);

      // The sandbox: InvalidModule, with the engine's message.
      const sandbox = new Sandbox(HostAbi.denyAll(), { features: NO_FEATURES });
      let sErr: unknown;
      try {
        await sandbox.compile(c.bytes);
      } catch (x) {
        sErr = x;
      }
      expect(sErr).toBeInstanceOf(SandboxError);
      const s = sErr as SandboxError;
      expect(s.kind).toBe('InvalidModule');
      expect(s.exitCode).toBe(6);
      expect(s.message).toContain(c.feature);
      expect(s.message).toContain(`${c.message} (at byte offset ${c.offset})`);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The newer suite: every module of a script is either accepted or refused naming one of the
// features the suite's README lists for that script.

const SUITE3 = suite3Dir();
const suite3Present = suiteAvailable(SUITE3, 'the WebAssembly test suite with Wasm 3.0 features');

/** The README's feature names (its "Per script" table) and the refusals each may cause. */
const README_FEATURES: Readonly<Record<string, readonly Feature[]>> = {
  simd: [Feature.Simd],
  relaxed: [Feature.RelaxedSimd],
  tail: [Feature.TailCalls],
  'multi-mem': [Feature.MultiMemory],
  'ext-const': [Feature.ExtendedConst],
  mem64: [Feature.Memory64, Feature.Table64],
  'func-refs': [Feature.FunctionReferences],
  gc: [Feature.Gc],
  exn: [Feature.ExceptionHandling],
};

/**
 * Refusals the README's feature detection cannot see (it matches instructions and types of
 * each module printed as text): the table initializer `(table 1 funcref (ref.func $f))`
 * (0x40 0x00 form) is function references', and `global.get` of a global the module
 * defines, in a constant expression, is GC's; the scripts below use them without a typed
 * reference or a GC type.
 */
const UNDETECTED: ReadonlyMap<string, readonly Feature[]> = new Map([
  ['data', [Feature.Gc]],
  ['elem', [Feature.Gc]],
  ['global', [Feature.Gc, Feature.FunctionReferences]],
  ['i31', [Feature.FunctionReferences]],
  ['instance', [Feature.FunctionReferences]],
]);

function readmeFeatures(dir: string): Map<string, Feature[]> {
  const byScript = new Map<string, Feature[]>();
  for (const line of readFileSync(join(dir, 'README.md'), 'utf8').split('\n')) {
    // | script | tool | commands | modules | assert_return | assert_trap | invalid | malformed | features | vs 2.0 |
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length !== 12 || (cells[2] !== 'wabt' && cells[2] !== 'jco')) continue;
    const features = cells[9]!.split(/\s+/).filter((f) => f !== '').flatMap((f) => {
      const known = README_FEATURES[f];
      if (known === undefined) throw new Error(`README feature "${f}" of ${cells[1]} is not known to this test`);
      return known;
    });
    byScript.set(cells[1]!, features);
  }
  return byScript;
}

interface SuiteCommand {
  readonly type: string;
  readonly line: number;
  readonly filename?: string;
  readonly text?: string;
}

function scriptModules(jsonDir: string): { script: string; cmd: SuiteCommand; bytes: Uint8Array }[] {
  const out: { script: string; cmd: SuiteCommand; bytes: Uint8Array }[] = [];
  for (const script of readdirSync(jsonDir).sort()) {
    const file = join(jsonDir, script, `${script}.json`);
    if (!existsSync(file)) continue;
    for (const cmd of (JSON.parse(readFileSync(file, 'utf8')) as { commands: SuiteCommand[] }).commands) {
      if (cmd.filename === undefined || !cmd.filename.endsWith('.wasm')) continue;
      out.push({ script, cmd, bytes: new Uint8Array(readFileSync(join(jsonDir, script, cmd.filename))) });
    }
  }
  return out;
}

/** Commands whose module is valid in the suite's feature set. */
const VALID = new Set(['module', 'assert_return', 'assert_trap', 'assert_exhaustion', 'assert_uninstantiable',
  'assert_unlinkable', 'action']);

function attempt(bytes: Uint8Array, features?: FeatureSet): unknown {
  try {
    compileModule(bytes, features);
    return null;
  } catch (e) {
    return e;
  }
}

describe.skipIf(!suite3Present && !suitesRequired())('the Wasm 3.0 test suite (../shared/wasm-testsuite-3)', () => {
  it('refuses each module it cannot run naming a feature the script uses, and accepts no invalid one', () => {
    expect(suite3Present, `the suite is missing at ${SUITE3}, and CI=true requires it`).toBe(true);
    const features = readmeFeatures(SUITE3);
    expect(features.size).toBeGreaterThan(250);
    const problems: string[] = [];
    const refusedAs = new Map<Feature, number>();
    for (const { script, cmd, bytes } of scriptModules(join(SUITE3, 'json'))) {
      const where = `${script}:${cmd.line} (${cmd.type})`;
      const err = attempt(bytes);
      if (VALID.has(cmd.type)) {
        if (err === null) continue;
        const feature = err instanceof DecodeError || err instanceof ValidationError ? err.feature : null;
        if (feature === null) {
          problems.push(`${where}: a valid module rejected without naming a feature: ${String(err)}`);
          continue;
        }
        const allowed = [...(features.get(script) ?? []), ...(UNDETECTED.get(script) ?? [])];
        if (!allowed.includes(feature)) problems.push(`${where}: refused as ${feature}, script uses [${allowed.join(', ')}]`);
        refusedAs.set(feature, (refusedAs.get(feature) ?? 0) + 1);
      } else if (cmd.type === 'assert_invalid' || cmd.type === 'assert_malformed') {
        if (err === null) problems.push(`${where}: "${cmd.text}" expected, but the module compiled`);
        else if (!(err instanceof DecodeError || err instanceof ValidationError)) problems.push(`${where}: ${String(err)}`);
      }
    }
    expect(problems).toEqual([]);
    // Every feature the suite covers that the engine does not run yet is met, and refused, at
    // least once.
    for (const f of [Feature.FunctionReferences, Feature.Gc]) {
      expect(refusedAs.get(f) ?? 0, f).toBeGreaterThan(0);
    }
  }, 120_000);

  it('accepts legacy exception handling and threads; wasmtime\'s features refuse threads as such', () => {
    expect(suite3Present).toBe(true);
    const seen = new Map<Feature, number>();
    for (const [sub, features, allowed] of [
      ['legacy/json', ALL_FEATURES, []],
      ['proposals/threads/json', ALL_FEATURES, []],
      ['proposals/threads/json', WASMTIME_FEATURES, [Feature.SharedMemory, Feature.Atomics]],
    ] as const) {
      for (const { script, cmd, bytes } of scriptModules(join(SUITE3, sub))) {
        if (!VALID.has(cmd.type)) continue;
        const err = attempt(bytes, features);
        if (err === null) continue;
        const feature = err instanceof DecodeError || err instanceof ValidationError ? err.feature : null;
        expect(feature !== null && (allowed as readonly Feature[]).includes(feature), `${sub} ${script}:${cmd.line}: ${String(err)}`)
          .toBe(true);
        seen.set(feature!, (seen.get(feature!) ?? 0) + 1);
      }
    }
    expect(seen.get(Feature.SharedMemory) ?? 0).toBeGreaterThan(0);
  });
});
