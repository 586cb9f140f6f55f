/**
 * A disassembler of function bodies into the text format's instruction names, read from the
 * instruction table alone (instruction-set.ts): the row gives the name and the kind of the
 * immediates, body-syntax.ts's readImmediates reads them, and this file only prints them, as
 * wat does. For people and tools (a debugger, tests); nothing on the execution path uses it.
 */
import { readImmediates, readOpcode } from './body-syntax.js';
import { ALL_FEATURES, type FeatureSet } from './features.js';
import { Imm, type InstructionRow, naturalAlignment } from './instruction-set.js';
import { ByteReader } from './reader.js';
import { valTypeName } from './types.js';

/**
 * One line per instruction of the instruction sequence bytes[start, end) — a function body's
 * code after its locals (CodeIR's codeStart, codeEnd), its final `end` included — indented by
 * block nesting. `features` decide how memory indices and offsets are read (multi-memory,
 * memory64); by default every feature this engine has. A malformed encoding throws its
 * DecodeError.
 */
export function disassembleBody(bytes: Uint8Array, start: number, end: number, features: FeatureSet = ALL_FEATURES): string[] {
  return disassembleInstructions(bytes, start, end, features).map((i) => i.text);
}

/** disassembleBody's lines with the byte offset in `bytes` of each instruction. */
export function disassembleInstructions(bytes: Uint8Array, start: number, end: number, features: FeatureSet = ALL_FEATURES): Array<{ offset: number; text: string }> {
  const r = new ByteReader(bytes, start, end);
  const lines: Array<{ offset: number; text: string }> = [];
  let depth = 0;
  const values: number[] = [];
  while (!r.atEnd) {
    const offset = r.pos;
    const row = readOpcode(r);
    values.length = 0;
    readImmediates(r, row, features, values);
    const name = row.name;
    // else, catch and catch_all divide their block; end and delegate close it.
    const divides = name === 'else' || name === 'catch' || name === 'catch_all';
    const closes = name === 'end' || name === 'delegate';
    const indent = '  '.repeat(Math.max(0, divides || closes ? depth - 1 : depth));
    const text = immediateText(row, values);
    lines.push({ offset, text: indent + (text === '' ? name : `${name} ${text}`) });
    if (closes) depth--;
    else if (row.imm === Imm.BlockType || row.imm === Imm.TryTable) depth++;
  }
  return lines;
}

const CATCH_KINDS = ['catch', 'catch_ref', 'catch_all', 'catch_all_ref'];
const HEAP_TYPES: Readonly<Record<number, string>> = { 0x70: 'func', 0x6f: 'extern', 0x69: 'exn' };

/** The immediates of `row`, read into `v` (readImmediates' layout), as wat writes them. */
function immediateText(row: InstructionRow, v: readonly number[]): string {
  switch (row.imm) {
    case Imm.None:
    case Imm.ZeroByte:
      return '';
    case Imm.Label:
    case Imm.Func:
    case Imm.Local:
    case Imm.Global:
    case Imm.Table:
    case Imm.Tag:
    case Imm.Data:
    case Imm.Elem:
    case Imm.I32:
    case Imm.Lane:
      return String(v[0]);
    case Imm.I64:
      return String((BigInt(v[1]!) << 32n) | BigInt(v[0]! >>> 0));
    case Imm.F32:
    case Imm.F64:
      return floatText(v);
    case Imm.BlockType:
      return blockTypeText(v[0]!);
    case Imm.TryTable: {
      const parts = [blockTypeText(v[0]!)];
      for (let i = 0, at = 2; i < v[1]!; i++, at += 3) {
        const kind = v[at]!;
        parts.push(`(${CATCH_KINDS[kind]}${kind < 2 ? ` ${v[at + 1]}` : ''} ${v[at + 2]})`);
      }
      return parts.filter((p) => p !== '').join(' ');
    }
    case Imm.BrTable:
      return v.slice(1).join(' ');
    case Imm.CallIndirect:
      return `${v[1] === 0 ? '' : `${v[1]} `}(type ${v[0]})`;
    case Imm.SelectTypes:
      return v[0] === 0 ? '' : `(result ${v.slice(1).map(valTypeName).join(' ')})`;
    case Imm.Memarg:
      return memargText(row, v);
    case Imm.MemargLane:
      return [memargText(row, v), String(v[3])].filter((p) => p !== '').join(' ');
    case Imm.Memory:
      return v[0] === 0 ? '' : String(v[0]);
    case Imm.HeapType:
      return HEAP_TYPES[v[0]!] ?? `0x${v[0]!.toString(16)}`;
    case Imm.DataMemory:
      // wat: `memory.init [memory] data`.
      return v[1] === 0 ? String(v[0]) : `${v[1]} ${v[0]}`;
    case Imm.MemoryPair:
    case Imm.TablePair:
      return v[0] === 0 && v[1] === 0 ? '' : `${v[0]} ${v[1]}`;
    case Imm.ElemTable:
      // wat: `table.init [table] elem`.
      return v[1] === 0 ? String(v[0]) : `${v[1]} ${v[0]}`;
    case Imm.V128: {
      const words: string[] = [];
      for (let i = 0; i < 16; i += 4) {
        const w = (v[i]! | (v[i + 1]! << 8) | (v[i + 2]! << 16) | (v[i + 3]! << 24)) >>> 0;
        words.push(`0x${w.toString(16).padStart(8, '0')}`);
      }
      return `i32x4 ${words.join(' ')}`;
    }
    case Imm.Shuffle:
      return v.join(' ');
  }
}

/** A block type, from its s33 value: nothing when empty, `(result t)`, or `(type n)`. */
function blockTypeText(s33: number): string {
  if (s33 >= 0) return `(type ${s33})`;
  const b = s33 + 0x80;
  return b === 0x40 ? '' : `(result ${valTypeName(b)})`;
}

/** `[memory] [offset=n] [align=n]`: the alignment only when it is not the natural one. */
function memargText(row: InstructionRow, v: readonly number[]): string {
  const [align, mem, offset] = v as [number, number, number];
  const parts: string[] = [];
  if (mem !== 0) parts.push(String(mem));
  if (offset !== 0) parts.push(`offset=${offset}`);
  if (align !== naturalAlignment(row)) parts.push(`align=${2 ** align}`);
  return parts.join(' ');
}

/** An f32 or f64 constant from its little-endian bytes: decimal, `inf`, `nan` or `nan:0x…` (a payload). */
function floatText(bytes: readonly number[]): string {
  const view = new DataView(new Uint8Array(bytes).buffer);
  const wide = bytes.length === 8;
  const x = wide ? view.getFloat64(0, true) : view.getFloat32(0, true);
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (!Number.isNaN(x)) return Object.is(x, -0) ? '-0' : String(x);
  const sign = bytes[bytes.length - 1]! >= 0x80 ? '-' : '';
  const payload = wide ? view.getBigUint64(0, true) & ((1n << 52n) - 1n) : BigInt(view.getUint32(0, true) & 0x7fffff);
  const canonical = wide ? 1n << 51n : 1n << 22n;
  return payload === canonical ? `${sign}nan` : `${sign}nan:0x${payload.toString(16)}`;
}
