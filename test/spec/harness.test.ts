/**
 * The spec harness is strict: an answer of the wrong kind is a failure, not a note. Small
 * scripts in the suite's JSON form, written to a temporary directory, against hand-built
 * modules.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { WASM2_FEATURES } from '../../src/interpreter/features.js';
import { EXTERNREF, FUNCREF, V128 } from '../../src/interpreter/types.js';
import { FuncRef, WasmValue } from '../../src/interpreter/values.js';
import { runSpecFile, runSuite, type FileResult } from './harness.js';
import { suite3Dir } from './locate.js';
import { detectProfile, notRunReason, PROFILES } from './suites.js';
import { SUITE3_FEATURE_NAMES, SUITE3_SCRIPTS_BY_FEATURE } from './suite3-features.js';
import {
  argumentValue, formatValue, HostRefs, matchesExpected, matchesResults, SpecValueError, v128FromLanes, v128Lanes,
  type SpecValue,
} from './values.js';

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** `(func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))` */
const DIV = new Uint8Array([
  ...HEADER,
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f,
  0x03, 0x02, 0x01, 0x00,
  0x07, 0x07, 0x01, 0x03, 0x64, 0x69, 0x76, 0x00, 0x00,
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6d, 0x0b,
]);
/** Malformed: a bad magic number. */
const BAD_MAGIC = new Uint8Array([0x00, 0x61, 0x73, 0x6e, 0x01, 0x00, 0x00, 0x00]);
/** Invalid: `(func (result i32))` with an empty body, "type mismatch". */
const TYPE_MISMATCH = new Uint8Array([
  ...HEADER, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
]);
/** The 2.0 suite's select.2.wasm, which WABT 1.0.32 wrote as an untyped select (see harness.ts). */
const SELECT_DEFECT = Buffer.from('0061736d01000000010401600000030201000a09010700010141011b0b', 'hex');

const dir = mkdtempSync(join(tmpdir(), 'spec-harness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let scripts = 0;

/** Writes a script of `commands` (modules from `files`, and div.wasm) to `dir`. */
function writeScript(commands: readonly Record<string, unknown>[], files: Record<string, Uint8Array> = {}, name = 'probe') {
  writeFileSync(join(dir, 'div.wasm'), DIV);
  for (const [file, bytes] of Object.entries(files)) writeFileSync(join(dir, file), bytes);
  const path = join(dir, `${name}-${scripts++}.json`);
  writeFileSync(path, JSON.stringify({ commands }));
  return { name, path };
}

/** Runs a script of `module DIV` then `command` (modules from `files`), in `dir`. */
function runOne(command: Record<string, unknown>, files: Record<string, Uint8Array> = {}, name = 'probe'): FileResult {
  const commands = [{ type: 'module', line: 1, filename: 'div.wasm' }, { line: 2, ...command }];
  return runSpecFile(writeScript(commands, files, name), { features: WASM2_FEATURES });
}

const divBy = (a: number, b: number) => ({
  type: 'invoke', field: 'div', args: [{ type: 'i32', value: String(a >>> 0) }, { type: 'i32', value: String(b >>> 0) }],
});

function outcome(r: FileResult): 'pass' | string {
  expect(r.failed + r.passed).toBe(2);
  return r.failed === 0 ? 'pass' : r.failures[0]!.reason;
}

describe('assert_trap', () => {
  it('passes for the trap the text names, by the reference interpreter\'s prefix rule', () => {
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(1, 0), text: 'integer divide by zero' }))).toBe('pass');
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(1, 0), text: 'integer divide' }))).toBe('pass');
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(-0x80000000, -1), text: 'integer overflow' }))).toBe('pass');
  });

  it('fails for a trap of another kind', () => {
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(1, 0), text: 'integer overflow' })))
      .toMatch(/^expected trap "integer overflow", got trap "wasm trap: integer divide by zero"/);
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(1, 0), text: 'unreachable' }))).not.toBe('pass');
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(1, 0), text: 'integer divide by zero!' }))).not.toBe('pass');
  });

  it('fails when nothing traps', () => {
    expect(outcome(runOne({ type: 'assert_trap', action: divBy(4, 2), text: 'integer divide by zero' }))).not.toBe('pass');
  });
});

describe('assert_invalid and assert_malformed', () => {
  it('pass for the right class of error and a message the text begins', () => {
    expect(outcome(runOne({ type: 'assert_invalid', filename: 'invalid.wasm', text: 'type mismatch' },
      { 'invalid.wasm': TYPE_MISMATCH }))).toBe('pass');
    expect(outcome(runOne({ type: 'assert_malformed', filename: 'malformed.wasm', text: 'magic header not detected', module_type: 'binary' },
      { 'malformed.wasm': BAD_MAGIC }))).toBe('pass');
  });

  it('fail for a decoding error where validation must fail, and the other way round', () => {
    expect(outcome(runOne({ type: 'assert_invalid', filename: 'malformed.wasm', text: 'magic header not detected' },
      { 'malformed.wasm': BAD_MAGIC }))).toMatch(/^expected ValidationError "magic header not detected", got DecodeError/);
    expect(outcome(runOne({ type: 'assert_malformed', filename: 'invalid.wasm', text: 'type mismatch', module_type: 'binary' },
      { 'invalid.wasm': TYPE_MISMATCH }))).toMatch(/^expected DecodeError "type mismatch", got ValidationError/);
  });

  it('fail for another message', () => {
    expect(outcome(runOne({ type: 'assert_invalid', filename: 'invalid.wasm', text: 'unknown local' },
      { 'invalid.wasm': TYPE_MISMATCH }))).not.toBe('pass');
    // The text must begin the message, not merely occur in it.
    expect(outcome(runOne({ type: 'assert_invalid', filename: 'invalid.wasm', text: 'mismatch' },
      { 'invalid.wasm': TYPE_MISMATCH }))).not.toBe('pass');
  });

  it('skip the text-format ones only', () => {
    const r = runOne({ type: 'assert_malformed', filename: 'x.wat', text: 'unexpected token', module_type: 'text' });
    expect([r.passed, r.skipped, r.failed]).toEqual([1, 1, 0]);
    const invalid = runOne({ type: 'assert_invalid', filename: 'x.wat', text: 'type mismatch', module_type: 'text' });
    expect([invalid.passed, invalid.skipped, invalid.failed]).toEqual([1, 1, 0]);
  });

  it('accept the known conversion defect for its exact bytes, script and line only', () => {
    const command = { type: 'assert_invalid', line: 324, filename: 'select.wasm', text: 'invalid result arity' };
    const files = { 'select.wasm': SELECT_DEFECT };
    expect(outcome(runOne(command, files, 'select'))).toBe('pass');
    expect(outcome(runOne(command, files, 'other'))).not.toBe('pass');
    expect(outcome(runOne({ ...command, line: 325 }, files, 'select'))).not.toBe('pass');
    const changed = new Uint8Array(SELECT_DEFECT);
    changed[changed.length - 3] = 0x02; // i32.const 2 instead of 1: still "type mismatch", other bytes
    expect(outcome(runOne(command, { 'select.wasm': changed }, 'select'))).not.toBe('pass');
  });
});

describe('module definitions and instances', () => {
  const invokeIn = (module: string | undefined, a: number, b: number, expected: number) => ({
    type: 'assert_return', line: 9, action: { ...divBy(a, b), ...(module !== undefined ? { module } : {}) },
    expected: [{ type: 'i32', value: String(expected) }],
  });

  it('a definition is compiled, not instantiated; module_instance instantiates it, by name or the last one', () => {
    const r = runSpecFile(writeScript([
      { type: 'module', line: 1, definition: 'true', name: '$M', filename: 'div.wasm' },
      { type: 'assert_return', line: 2, action: divBy(6, 3), expected: [{ type: 'i32', value: '2' }] },
      { type: 'module_instance', line: 3, instance: '$I1', module: '$M' },
      { type: 'module_instance', line: 4, instance: '$I2' },
      { type: 'register', line: 5, name: '$I1', as: 'I1' },
      invokeIn('$I1', 6, 3, 2),
      invokeIn('$I2', 8, 2, 4),
      invokeIn(undefined, 9, 3, 3),
    ]), { features: WASM2_FEATURES });
    expect(r.failures.map((f) => [f.line, f.reason])).toEqual([[2, 'no instance yet']]);
    expect(r.passed).toBe(7);
  });

  it('after a module fails to load, commands that need it say so', () => {
    const r = runSpecFile(writeScript([
      { type: 'module', line: 1, filename: 'div.wasm' },
      { type: 'module', line: 2, name: '$M', filename: 'malformed.wasm' },
      invokeIn(undefined, 6, 3, 2),
      { type: 'register', line: 4, name: '$M', as: 'M' },
      { type: 'module_instance', line: 5, instance: '$I', module: '$M' },
      { type: 'register', line: 6, name: '$I', as: 'I' },
      { type: 'register', line: 7, name: '$J', as: 'J' },
    ], { 'malformed.wasm': BAD_MAGIC }), { features: WASM2_FEATURES });
    expect(r.failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^compile: DecodeError: magic header not detected/),
      'no instance: the module of line 2 failed',
      'no instance named $M: the module of line 2 failed',
      'no module named $M: the module of line 2 failed',
      'no instance named $I: the module_instance of line 5 failed',
      'no instance named $J',
    ]);
  });
});

describe('assert_exception', () => {
  it('fails, saying what happened instead, when there is no exception', () => {
    expect(outcome(runOne({ type: 'assert_exception', action: divBy(1, 0), expected: [] })))
      .toBe('expected an uncaught exception, got trap "wasm trap: integer divide by zero"');
    expect(outcome(runOne({ type: 'assert_exception', action: divBy(4, 2), expected: [] })))
      .toBe('expected an uncaught exception, got [i32:2]');
  });
});

describe('assert_return', () => {
  it('with either: the result matches one of the alternatives', () => {
    const either = (...values: number[]) => values.map((v) => ({ type: 'i32', value: String(v) }));
    expect(outcome(runOne({ type: 'assert_return', action: divBy(6, 3), either: either(1, 2) }))).toBe('pass');
    expect(outcome(runOne({ type: 'assert_return', action: divBy(6, 3), either: either(3, 4) })))
      .toBe('expected either i32:3 | i32:4, got [i32:2]');
  });

  it('fails for a numeric expectation without a value instead of taking it as any', () => {
    expect(outcome(runOne({ type: 'assert_return', action: divBy(6, 3), expected: [{ type: 'i32' }] })))
      .toBe('expected i32 has no value');
  });
});

describe('profiles and NOT_RUN', () => {
  it('leave out the scripts a rule names, counting their commands as not run, never as passed', () => {
    const commands = [{ type: 'module', line: 1, filename: 'div.wasm' }, { type: 'assert_return', line: 2, action: divBy(4, 2), expected: [] }];
    const gc = writeScript(commands, {}, 'array');
    const funcRefs = writeScript(commands, {}, 'call_ref');
    const plain = writeScript(commands, {}, 'i32');
    const suite = runSuite(PROFILES.wasm3, [gc, funcRefs, plain]);
    expect(suite.files.map((f) => [f.name, f.notRun, f.commands, f.passed])).toEqual([
      ['array', 'needs GC', 2, 0],
      ['call_ref', 'needs function references', 2, 0],
      ['i32', null, 2, 1],
    ]);
    expect([suite.passed, suite.failed, suite.notRun]).toEqual([1, 1, 4]);
    // --all runs them.
    expect(runSuite(PROFILES.wasm3, [gc], { all: true }).files[0]!.notRun).toBeNull();
  });

  it('say which suite a folder holds, from its README or its place in the 3.0 suite', () => {
    const suite3 = suite3Dir();
    if (!existsSync(join(suite3, 'README.md'))) return;
    expect(detectProfile(suite3)?.id).toBe('wasm3');
    expect(detectProfile(join(suite3, 'legacy'))?.id).toBe('legacy');
    expect(detectProfile(join(suite3, 'extra'))?.id).toBe('wasm3-extra');
    expect(detectProfile(join(suite3, 'proposals', 'threads'))?.id).toBe('threads');
    expect(detectProfile(join(suite3, 'json'))).toBeNull();
    expect(detectProfile(join(suite3, '..', 'wasm-testsuite'))?.id).toBe('wasm2');
    expect(notRunReason(PROFILES.wasm3, 'simd_lane')).toBeNull();
    expect(notRunReason(PROFILES.wasm3, 'ref_null')).toBe('needs GC');
  });

  it('suite3-features.ts is the 3.0 suite README\'s features column', () => {
    const readme = join(suite3Dir(), 'README.md');
    if (!existsSync(readme)) return;
    // The "Per script" table: | script | tool | commands | modules | ... | features | vs 2.0 |
    const rows = readFileSync(readme, 'utf8').split('\n')
      .filter((line) => /^\| [a-z0-9_-]+ \| (wabt|jco) \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    expect(rows.length).toBe(257);
    const fromReadme = new Map<string, string[]>(SUITE3_FEATURE_NAMES.map((f) => [f, []]));
    for (const row of rows) {
      for (const feature of row[9]!.split(/\s+/).filter(Boolean)) fromReadme.get(feature)!.push(row[1]!);
    }
    expect(new Map([...SUITE3_SCRIPTS_BY_FEATURE].map(([f, scripts]) => [f, [...scripts]]))).toEqual(fromReadme);
  });
});

// ---------------------------------------------------------------------------------------------
// Values (values.ts): unit-level, on WasmValue alone.

const hex = (v: WasmValue) => v.v128Words.map((w) => (w >>> 0).toString(16).padStart(8, '0'));
const v128 = (lane_type: string, value: string[]): SpecValue => ({ type: 'v128', lane_type, value });

describe('v128 lanes', () => {
  it('are laid out lane 0 first, little-endian, for every lane type', () => {
    const bytes = Array.from({ length: 16 }, (_, i) => String(i));
    expect(hex(v128FromLanes('i8', bytes))).toEqual(['03020100', '07060504', '0b0a0908', '0f0e0d0c']);
    expect(hex(v128FromLanes('i16', ['1', '65535', '2', '3', '4', '5', '6', '32768'])))
      .toEqual(['ffff0001', '00030002', '00050004', '80000006']);
    expect(hex(v128FromLanes('i32', ['1', '4294967295', '2147483648', '0']))).toEqual(['00000001', 'ffffffff', '80000000', '00000000']);
    expect(hex(v128FromLanes('i64', ['1', '18446744073709551615']))).toEqual(['00000001', '00000000', 'ffffffff', 'ffffffff']);
    expect(hex(v128FromLanes('f32', ['1065353216', '2143289344', '0', '2147483648']))).toEqual(['3f800000', '7fc00000', '00000000', '80000000']);
    expect(hex(v128FromLanes('f64', ['4607182418800017408', '9221120237041090560'])))
      .toEqual(['00000000', '3ff00000', '00000000', '7ff80000']);
  });

  it('read back as they were written', () => {
    const lanes = ['0', '255', '128', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13'];
    expect(v128Lanes(v128FromLanes('i8', lanes), 'i8').map(String)).toEqual(lanes);
    expect(v128Lanes(v128FromLanes('i8', lanes), 'i16').map(String)).toEqual(['65280', '384', '770', '1284', '1798', '2312', '2826', '3340']);
  });

  it('are refused when they do not fit their lane type or count', () => {
    expect(() => v128FromLanes('i8', Array(16).fill('256'))).toThrow(SpecValueError);
    expect(() => v128FromLanes('i32', ['1', '2', '3'])).toThrow(/has 3 lanes, not 4/);
    expect(() => v128FromLanes('i32', ['1', '2', '3', '-4'])).toThrow(SpecValueError);
    expect(() => v128FromLanes('i128', ['1'])).toThrow(/unknown v128 lane_type/);
    expect(() => argumentValue(v128('f32', ['nan:canonical', '0', '0', '0']), new HostRefs())).toThrow(SpecValueError);
  });

  it('match per lane, in the expected lane type, as v128 results only', () => {
    const got = v128FromLanes('i32', ['1', '2', '3', '4']);
    const refs = new HostRefs();
    expect(matchesExpected(v128('i32', ['1', '2', '3', '4']), got, refs)).toBe(true);
    expect(matchesExpected(v128('i32', ['1', '2', '3', '5']), got, refs)).toBe(false);
    expect(matchesExpected(v128('i64', ['8589934593', '17179869187']), got, refs)).toBe(true);
    expect(matchesExpected(v128('i32', ['1', '0', '0', '0']), WasmValue.i32(1), refs)).toBe(false);
    expect(formatValue(got, 'i16')).toBe('v128:i16x8[1 0 2 0 3 0 4 0]');
  });
});

describe('NaN patterns', () => {
  const f32x4 = (...lanes: number[]) => WasmValue.v128Words(lanes[0]!, lanes[1]!, lanes[2]!, lanes[3]!);
  const refs = new HostRefs();

  it('apply per float lane: canonical is a quiet NaN with a zero payload, arithmetic any quiet NaN', () => {
    const canonical = v128('f32', ['nan:canonical', 'nan:canonical', '0', '1065353216']);
    const arithmetic = v128('f32', ['nan:arithmetic', 'nan:arithmetic', '0', '1065353216']);
    expect(matchesExpected(canonical, f32x4(0x7fc00000, 0xffc00000, 0, 0x3f800000), refs)).toBe(true);
    // A payload: arithmetic, not canonical.
    expect(matchesExpected(canonical, f32x4(0x7fc00001, 0x7fc00000, 0, 0x3f800000), refs)).toBe(false);
    expect(matchesExpected(arithmetic, f32x4(0x7fc00001, 0xffe00000, 0, 0x3f800000), refs)).toBe(true);
    // A signalling NaN is neither; nor is infinity; the other lanes still count.
    expect(matchesExpected(arithmetic, f32x4(0x7fa00000, 0x7fc00000, 0, 0x3f800000), refs)).toBe(false);
    expect(matchesExpected(arithmetic, f32x4(0x7f800000, 0x7fc00000, 0, 0x3f800000), refs)).toBe(false);
    expect(matchesExpected(arithmetic, f32x4(0x7fc00000, 0x7fc00000, 1, 0x3f800000), refs)).toBe(false);
  });

  it('apply to f64 lanes and to scalars alike', () => {
    const f64x2 = (hi0: number, hi1: number) => WasmValue.v128Words(0, hi0, 0, hi1);
    expect(matchesExpected(v128('f64', ['nan:canonical', 'nan:arithmetic']), f64x2(0xfff80000, 0x7ffc0000), refs)).toBe(true);
    expect(matchesExpected(v128('f64', ['nan:canonical', 'nan:arithmetic']), f64x2(0x7ffc0000, 0x7ff80000), refs)).toBe(false);
    expect(matchesExpected({ type: 'f32', value: 'nan:canonical' }, WasmValue.f32Bits(0xffc00000), refs)).toBe(true);
    expect(matchesExpected({ type: 'f64', value: 'nan:arithmetic' }, WasmValue.f64Bits(0x7ff4000000000000n), refs)).toBe(false);
  });

  it('are refused in integer lanes and unknown spellings', () => {
    expect(() => matchesExpected(v128('i32', ['nan:canonical', '0', '0', '0']), f32x4(0, 0, 0, 0), refs)).toThrow(SpecValueError);
    expect(() => matchesExpected({ type: 'f32', value: 'nan:quiet' }, WasmValue.f32Bits(0x7fc00000), refs)).toThrow(SpecValueError);
  });
});

describe('either', () => {
  const refs = new HostRefs();
  const alternatives = [v128('i8', Array(16).fill('0')), v128('i8', Array(16).fill('1'))];

  it('matches a single result against each alternative', () => {
    const ones = v128FromLanes('i8', Array(16).fill('1'));
    expect(matchesResults({ kind: 'either', alternatives }, [ones], refs)).toBe(true);
    expect(matchesResults({ kind: 'either', alternatives }, [v128FromLanes('i8', Array(16).fill('2'))], refs)).toBe(false);
    expect(matchesResults({ kind: 'either', alternatives }, [ones, ones], refs)).toBe(false);
    expect(matchesResults({ kind: 'either', alternatives }, [], refs)).toBe(false);
  });
});

describe('references', () => {
  const refs = new HostRefs();
  const nulls = [WasmValue.funcref(null), WasmValue.externref(null), WasmValue.zero(0x69), WasmValue.zero(0x73)];

  it('an expected null matches any null, of whatever reference type', () => {
    for (const type of ['funcref', 'externref', 'exnref', 'nullfuncref', 'nullexternref', 'nullexnref', 'nullref', 'anyref']) {
      for (const got of nulls) expect(matchesExpected({ type, value: 'null' }, got, refs), `${type} vs ${formatValue(got)}`).toBe(true);
      expect(matchesExpected({ type, value: 'null' }, WasmValue.funcref(new FuncRef(1)), refs)).toBe(false);
      expect(matchesExpected({ type, value: 'null' }, WasmValue.i32(0), refs)).toBe(false);
    }
  });

  it('an expected reference without a value matches any non-null one of its kind', () => {
    expect(matchesExpected({ type: 'funcref' }, WasmValue.funcref(new FuncRef(3)), refs)).toBe(true);
    expect(matchesExpected({ type: 'funcref' }, WasmValue.funcref(null), refs)).toBe(false);
    expect(matchesExpected({ type: 'externref' }, WasmValue.externref(refs.get(7)), refs)).toBe(true);
    expect(matchesExpected({ type: 'externref' }, WasmValue.funcref(new FuncRef(3)), refs)).toBe(false);
    expect(matchesExpected({ type: 'funcref' }, WasmValue.externref(refs.get(7)), refs)).toBe(false);
    // GC values have no form at the engine's boundary: the command fails, saying so.
    expect(() => matchesExpected({ type: 'structref' }, WasmValue.externref(refs.get(7)), refs)).toThrow(/GC value/);
  });

  it('a host reference is the same object for the same number within a script', () => {
    const arg = argumentValue({ type: 'externref', value: '7' }, refs);
    expect(arg.type).toBe(EXTERNREF);
    expect(matchesExpected({ type: 'externref', value: '7' }, arg, refs)).toBe(true);
    expect(matchesExpected({ type: 'externref', value: '8' }, arg, refs)).toBe(false);
    expect(matchesExpected({ type: 'externref', value: '7' }, arg, new HostRefs())).toBe(false);
  });

  it('null arguments of any reference type are built', () => {
    expect(argumentValue({ type: 'funcref', value: 'null' }, refs).type).toBe(FUNCREF);
    const exn = argumentValue({ type: 'exnref', value: 'null' }, refs);
    expect([exn.type, exn.ref]).toEqual([0x69, null]);
    expect(argumentValue(v128('i32', ['0', '0', '0', '0']), refs).type).toBe(V128);
    expect(() => argumentValue({ type: 'anyref', value: '1' }, refs)).toThrow(/GC value/);
    expect(() => argumentValue({ type: 'i33', value: '1' }, refs)).toThrow(/unknown value type/);
  });
});
