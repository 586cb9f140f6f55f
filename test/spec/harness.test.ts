/**
 * The spec harness is strict: an answer of the wrong kind is a failure, not a note. Small
 * scripts in the suite's JSON form, written to a temporary directory, against hand-built
 * modules.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { runSpecFile, type FileResult } from './harness.js';

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

/** Runs a script of `module DIV` then `command` (modules from `files`), in `dir`. */
function runOne(command: Record<string, unknown>, files: Record<string, Uint8Array> = {}, name = 'probe'): FileResult {
  writeFileSync(join(dir, 'div.wasm'), DIV);
  for (const [file, bytes] of Object.entries(files)) writeFileSync(join(dir, file), bytes);
  const path = join(dir, `${name}-${scripts++}.json`);
  const commands = [{ type: 'module', line: 1, filename: 'div.wasm' }, { line: 2, ...command }];
  writeFileSync(path, JSON.stringify({ commands }));
  return runSpecFile({ name, path });
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
