/**
 * The instruction table (src/interpreter/instruction-set.ts) against wabt: every row with a
 * text name is assembled by wabt into a tiny module, and disassembling that module's body with
 * the table (disassemble.ts) must give the same name back — so each row's name, prefix, code
 * and immediates agree with the reference assembler. Plus the table's totals and lookups.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeModule } from '../src/interpreter/decoder.js';
import { disassembleBody } from '../src/interpreter/disassemble.js';
import { Imm, INSTRUCTIONS, type InstructionRow, instructionRow, SINGLE_BYTE } from '../src/interpreter/instruction-set.js';
import { ATOMIC_OPS } from '../src/interpreter/atomic-ops.js';
import { SIMD_OPS } from '../src/interpreter/simd-ops.js';
import { Feature } from '../src/interpreter/errors.js';

type Wabt = Awaited<ReturnType<typeof import('wabt')>>;
let wabt: Wabt;
beforeAll(async () => {
  wabt = await (await import('wabt')).default();
});

const FEATURES = {
  simd: true, relaxed_simd: true, threads: true, tail_call: true, exceptions: true, multi_memory: true, memory64: true,
  extended_const: true,
};

/** Instructions that need a block around them in the text: the text to assemble and the names it holds, in order. */
const CONTROL: Readonly<Record<string, readonly [string, readonly string[]]>> = {
  block: ['block end', ['block', 'end']],
  loop: ['loop end', ['loop', 'end']],
  // wabt leaves out an empty else.
  if: ['unreachable if nop else nop end', ['unreachable', 'if', 'nop', 'else', 'nop', 'end']],
  else: ['unreachable if nop else nop end', ['unreachable', 'if', 'nop', 'else', 'nop', 'end']],
  end: ['block end', ['block', 'end']],
  try: ['try catch 0 end', ['try', 'catch', 'end']],
  catch: ['try catch 0 end', ['try', 'catch', 'end']],
  catch_all: ['try catch_all end', ['try', 'catch_all', 'end']],
  delegate: ['try delegate 0', ['try', 'delegate']],
  try_table: ['try_table end', ['try_table', 'end']],
};

/** Immediates, in the text format, that any row of a kind accepts in the module below. */
const IMMEDIATE_TEXT: Readonly<Record<number, string>> = {
  [Imm.Label]: '0', [Imm.Func]: '0', [Imm.Local]: '0', [Imm.Global]: '0', [Imm.Table]: '0', [Imm.Tag]: '0',
  [Imm.Data]: '0', [Imm.Elem]: '0', [Imm.I32]: '7', [Imm.I64]: '7', [Imm.F32]: '1.5', [Imm.F64]: '1.5',
  [Imm.BrTable]: '0 0', [Imm.CallIndirect]: '(type 0)', [Imm.SelectTypes]: '(result i32)', [Imm.HeapType]: 'func',
  [Imm.DataMemory]: '0', [Imm.ElemTable]: '0', [Imm.MemargLane]: '0', [Imm.Lane]: '0',
  [Imm.V128]: 'i32x4 1 2 3 4', [Imm.Shuffle]: '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15',
};

/** The instruction after `unreachable` (so that any operand types validate), or a control row's snippet. */
function textOf(row: InstructionRow): [string, readonly string[]] {
  const control = row.prefix === 0 ? CONTROL[row.name] : undefined;
  if (control !== undefined) return [control[0], [...control[1], 'end']];
  const imm = IMMEDIATE_TEXT[row.imm] ?? '';
  return [`unreachable ${row.name} ${imm}`, ['unreachable', row.name, 'end']];
}

/** Assembles a body in a module that has one of everything an immediate can name. */
function assemble(body: string): Uint8Array {
  const wat = `(module (type (func)) (memory 1 1 shared) (table 1 funcref) (global (mut i32) (i32.const 0)) (tag)
    (data "") (elem func 0) (func (local i32) ${body}))`;
  const module = wabt.parseWat('row.wat', wat, FEATURES);
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

describe('the instruction table', () => {
  it('has the totals of its sections', () => {
    const count = (prefix: number): number => INSTRUCTIONS.filter((r) => r.prefix === prefix).length;
    expect(count(0)).toBe(193);
    expect(count(0xfc)).toBe(18);
    expect(count(0xfd)).toBe(256); // 236 of 2.0, 20 of relaxed SIMD
    expect(INSTRUCTIONS.filter((r) => r.feature === Feature.RelaxedSimd).length).toBe(20);
    expect(count(0xfe)).toBe(67);
    expect(INSTRUCTIONS.length).toBe(193 + 18 + 256 + 67);
  });

  it('composes SIMD and atomics from their own tables, row for row', () => {
    expect(SIMD_OPS.map((i) => instructionRow(0xfd, i.op)!.simd)).toEqual(SIMD_OPS);
    expect(ATOMIC_OPS.map((i) => instructionRow(0xfe, i.op)!.atomic)).toEqual(ATOMIC_OPS);
  });

  it('finds every row by its encoding, and ids index the table', () => {
    INSTRUCTIONS.forEach((row, i) => {
      expect(row.id).toBe(i);
      expect(instructionRow(row.prefix, row.code)).toBe(row);
    });
    expect(SINGLE_BYTE[0x14]).toBeUndefined(); // call_ref: not an instruction here
    expect(instructionRow(0xfc, 18)).toBeUndefined();
  });

  it('charges fuel as wasmtime: 0 for nop, drop, block, loop, unreachable, return, else, end', () => {
    const free = INSTRUCTIONS.filter((r) => r.fuel === 0).map((r) => r.name).sort();
    expect(free).toEqual(['block', 'drop', 'else', 'end', 'loop', 'nop', 'return', 'unreachable']);
  });

  it('names every row as wabt does: assembling the name and disassembling it give the same name', () => {
    let checked = 0;
    const skipped: string[] = [];
    for (const row of INSTRUCTIONS) {
      const [text, names] = textOf(row);
      let binary: Uint8Array;
      try {
        binary = assemble(text);
      } catch {
        skipped.push(row.name); // wabt cannot express it
        continue;
      }
      const ir = decodeModule(binary);
      const code = ir.codes[0]!;
      const lines = disassembleBody(binary, code.codeStart, code.codeEnd);
      expect(lines.map((l) => l.trim().split(' ')[0]), `${row.name} (${text})`).toEqual(names);
      checked++;
    }
    // Every row is expressible in wabt 1.0.39 with these features.
    expect(skipped).toEqual([]);
    expect(checked).toBe(INSTRUCTIONS.length);
  });

  it('prints immediates as wat does', () => {
    const binary = assemble(`i32.const 0 i64.load offset=8 align=4 drop block (result i32) i32.const -3 end
      br_table 0 0 f64.const -0.5 drop v128.const i32x4 1 2 3 4 i8x16.extract_lane_u 15 drop`);
    const code = decodeModule(binary).codes[0]!;
    expect(disassembleBody(binary, code.codeStart, code.codeEnd)).toEqual([
      'i32.const 0', 'i64.load offset=8 align=4', 'drop', 'block (result i32)', '  i32.const -3', 'end', 'br_table 0 0',
      'f64.const -0.5', 'drop', 'v128.const i32x4 0x00000001 0x00000002 0x00000003 0x00000004', 'i8x16.extract_lane_u 15',
      'drop', 'end',
    ]);
  });
});
