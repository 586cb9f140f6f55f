/**
 * Source positions from DWARF line tables (src/inspect/dwarf.ts): the C fixture's trap and its
 * callers map to the lines of fixtures/c/traps.c that the marker comments name, at the offsets
 * Node's own engine reports; hand-built line programs (DWARF 2–5) read as the spec says; and
 * hostile `.debug_line` sections give null or a table, never an exception, quickly.
 */
import { describe, expect, it } from 'vitest';
import { LineTable, readCustomSections } from '../src/inspect/dwarf.js';
import { cWasm as wasm, marked } from './helpers/inspect.js';
import { section, sleb, uleb } from './helpers/hostile.js';

/** The frames of a trap in Node's engine: [function index, module byte offset], innermost first. */
async function nodeTrapFrames(exportName: string, arg: number): Promise<Array<[number, number]>> {
  const { instance } = await WebAssembly.instantiate(wasm);
  const f = instance.exports[exportName] as (x: number) => number;
  let error: unknown = null;
  try {
    f(arg);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(WebAssembly.RuntimeError);
  const stack = String((error as Error).stack);
  return [...stack.matchAll(/wasm-function\[(\d+)\]:0x([0-9a-f]+)/g)].map((m) => [Number(m[1]), parseInt(m[2]!, 16)]);
}

// ---- building modules by hand ----

const u16 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff];
const u32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const cstr = (s: string): number[] => [...new TextEncoder().encode(s), 0];

function custom(name: string, payload: ArrayLike<number>): number[] {
  const n = new TextEncoder().encode(name);
  return section(0, [...uleb(n.length), ...n, ...Array.from(payload)]);
}

/** A code section of `size` content bytes (its contents are never decoded here). */
const CODE_SIZE = 0x40;
const code = (): number[] => section(10, new Array<number>(CODE_SIZE).fill(0));

/** magic, version, a type section, a code section, then `rest` (custom sections). */
function moduleWith(...rest: number[][]): Uint8Array {
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...section(1, [0]), ...code(), ...rest.flat()]);
}

/** The module offset of code address 0 in `moduleWith`'s modules. */
const CODE_START = 8 + 3 + 1 + uleb(CODE_SIZE).length;

const OPCODE_LENGTHS = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1];

/** A DWARF 2–4 line unit (opcode_base 13, line_base -5, line_range 14). */
function unitV4(version: number, dirs: string[], files: Array<[string, number]>, program: number[]): number[] {
  const header = [
    1, // min_inst_length
    ...(version >= 4 ? [1] : []), // max_ops_per_inst
    1, // default_is_stmt
    0xfb, // line_base -5
    14, // line_range
    13, // opcode_base
    ...OPCODE_LENGTHS,
    ...dirs.flatMap(cstr), 0,
    ...files.flatMap(([name, dir]) => [...cstr(name), ...uleb(dir), 0, 0]), 0,
  ];
  const body = [...u16(version), ...u32(header.length), ...header, ...program];
  return [...u32(body.length), ...body];
}

const DW_FORM_string = 0x08;
const DW_FORM_line_strp = 0x1f;
const DW_FORM_strp = 0x0e;
const DW_FORM_udata = 0x0f;
const DW_FORM_data16 = 0x1e;
const DW_LNCT_path = 1;
const DW_LNCT_directory_index = 2;
const DW_LNCT_MD5 = 5;

/**
 * A DWARF 5 line unit whose entries are given already encoded; `counts` overrides the entry
 * counts written, and `dwarf64` writes the 64-bit unit_length and header_length forms.
 */
function unitV5(
  dirFormats: number[][], dirs: number[][], fileFormats: number[][], files: number[][], program: number[],
  { dirCount, fileCount, dwarf64 = false }: { dirCount?: bigint; fileCount?: bigint; dwarf64?: boolean } = {},
): number[] {
  const header = [
    1, 1, 1, 0xfb, 14, 13, ...OPCODE_LENGTHS,
    dirFormats.length, ...dirFormats.flat().flatMap(uleb), ...uleb(dirCount ?? dirs.length), ...dirs.flat(),
    fileFormats.length, ...fileFormats.flat().flatMap(uleb), ...uleb(fileCount ?? files.length), ...files.flat(),
  ];
  const offset = (n: number): number[] => (dwarf64 ? [...u32(n), 0, 0, 0, 0] : u32(n));
  const body = [...u16(5), 4, 0, ...offset(header.length), ...header, ...program];
  return [...(dwarf64 ? u32(0xffffffff) : []), ...offset(body.length), ...body];
}

// Line program pieces.
const setAddress = (a: number): number[] => [0, 5, 2, ...u32(a)];
const endSequence = [0, 1, 1];
const copy = [1];
const advancePc = (n: number): number[] => [2, ...uleb(n)];
const advanceLine = (n: number): number[] => [3, ...sleb(n)];
const setFile = (n: number): number[] => [4, ...uleb(n)];
const setColumn = (n: number): number[] => [5, ...uleb(n)];
/** A special opcode advancing the address by `addr` (0–16) and the line by `line` (-5–8). */
const special = (addr: number, line: number): number[] => {
  const opcode = 13 + (line + 5) + 14 * addr;
  if (line < -5 || line > 8 || addr < 0 || opcode > 255) throw new Error(`no special opcode for ${addr}, ${line}`);
  return [opcode];
};

/** A deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('DWARF line tables', () => {
  describe('the C fixture', () => {
    it('finds the code section and the debug sections', () => {
      const { codeSectionStart, sections } = readCustomSections(wasm);
      expect(codeSectionStart).toBeGreaterThan(8);
      expect(wasm[codeSectionStart - 2]).toBe(10); // id, then a one-byte size LEB here
      expect([...sections.keys()]).toEqual(expect.arrayContaining(['.debug_line', '.debug_info', '.debug_str', 'name']));
      // Compiled from the repository root with a relative path: no machine path in the binary.
      expect(Buffer.from(wasm).includes('/work')).toBe(false);
    });

    it('maps the trapping i32.div_s and each caller’s call site to their lines in traps.c', async () => {
      const frames = await nodeTrapFrames('run', 0);
      expect(frames.length).toBeGreaterThanOrEqual(3);
      const [[, divAt], [, scaleAt], [, runAt]] = frames as [[number, number], [number, number], [number, number]];
      expect(wasm[divAt]).toBe(0x6d); // Node reports module byte offsets: this is the i32.div_s
      expect(wasm[scaleAt]).toBe(0x10); // and for callers, their call instruction
      expect(wasm[runAt]).toBe(0x10);

      const table = LineTable.fromModule(wasm);
      expect(table).not.toBeNull();
      const at = (offset: number) => table!.locate(offset);
      expect(at(divAt)).toMatchObject({ file: 'fixtures/c/traps.c', line: marked('div').line });
      expect(at(divAt)!.column).toBeGreaterThan(0);
      expect(at(scaleAt)).toMatchObject({ file: 'fixtures/c/traps.c', line: marked('scale calls div').line });
      expect(at(runAt)).toMatchObject({ file: 'fixtures/c/traps.c', line: marked('run calls scale').line });
      expect(at(divAt)!.file.endsWith('traps.c')).toBe(true);
    });

    it('answers undefined outside the code and for offsets no row covers', () => {
      const table = LineTable.fromModule(wasm)!;
      const { codeSectionStart } = readCustomSections(wasm);
      expect(table.locate(0)).toBeUndefined();
      expect(table.locate(codeSectionStart)).toBeUndefined(); // the function count
      expect(table.locate(codeSectionStart - 1)).toBeUndefined();
      expect(table.locate(wasm.length - 1)).toBeUndefined(); // inside a custom section
      expect(table.locate(-5)).toBeUndefined();
      expect(table.locate(Number.NaN)).toBeUndefined();
      expect(table.locate(Number.POSITIVE_INFINITY)).toBeUndefined();
    });
  });

  describe('hand-built line programs', () => {
    it('reads a DWARF 4 program: special opcodes, advances, file and directory joining, end_sequence', () => {
      const program = [
        ...setAddress(0x10), ...advanceLine(9), ...copy, // 0x10: line 10
        ...setColumn(7), ...special(2, 1), // 0x12: line 11:7
        ...special(0, 2), // 0x12 again: line 13 (the last row at an address wins)
        ...setFile(2), ...advancePc(4), ...copy, // 0x16: lib/x.h:13:7
        ...setFile(3), ...special(1, -3), // 0x17: /abs/y.c:10:7
        ...advancePc(3), ...endSequence, // ends at 0x1a
        ...setAddress(0x20), ...setFile(9), ...special(0, 0), ...advancePc(2), ...endSequence, // file 9: none
      ];
      const m = moduleWith(custom('.debug_line', unitV4(4, ['src', 'lib'], [['a.c', 1], ['x.h', 2], ['/abs/y.c', 1]], program)));
      const t = LineTable.fromModule(m)!;
      expect(t).not.toBeNull();
      const at = (a: number) => t.locate(CODE_START + a);
      expect(at(0x0f)).toBeUndefined();
      expect(at(0x10)).toEqual({ file: 'src/a.c', line: 10, column: 0 });
      expect(at(0x11)).toEqual({ file: 'src/a.c', line: 10, column: 0 });
      expect(at(0x12)).toEqual({ file: 'src/a.c', line: 13, column: 7 });
      expect(at(0x15)).toEqual({ file: 'src/a.c', line: 13, column: 7 });
      expect(at(0x16)).toEqual({ file: 'lib/x.h', line: 13, column: 7 });
      expect(at(0x17)).toEqual({ file: '/abs/y.c', line: 10, column: 7 });
      expect(at(0x19)).toEqual({ file: '/abs/y.c', line: 10, column: 7 });
      expect(at(0x1a)).toBeUndefined(); // the end_sequence address is past the sequence
      expect(at(0x20)).toEqual({ file: '<unknown>', line: 1, column: 0 });
      expect(at(0x22)).toBeUndefined();
    });

    it('turns control characters in names into ?, so a name cannot forge lines of a backtrace or lcov', () => {
      const program = [...setAddress(4), ...special(0, 4), ...advancePc(1), ...endSequence];
      const forged = 'a.c\nDA:4242,1\nend_of_record\nSF:/etc/forged.c';
      const t = LineTable.fromModule(moduleWith(custom('.debug_line', unitV4(4, [], [[forged, 0]], program))))!;
      expect(t.locate(CODE_START + 4)).toEqual({ file: 'a.c?DA:4242,1?end_of_record?SF:/etc/forged.c', line: 5, column: 0 });
    });

    it('reads DWARF 2 and 3 headers (no max_ops_per_inst); directory 0 is the bare name', () => {
      for (const version of [2, 3]) {
        const program = [...setAddress(4), ...special(0, 4), ...special(3, 1), ...advancePc(1), ...endSequence];
        const t = LineTable.fromModule(moduleWith(custom('.debug_line', unitV4(version, [], [['main.c', 0]], program))))!;
        expect(t.locate(CODE_START + 4)).toEqual({ file: 'main.c', line: 5, column: 0 });
        expect(t.locate(CODE_START + 7)).toEqual({ file: 'main.c', line: 6, column: 0 });
        expect(t.locate(CODE_START + 8)).toBeUndefined();
      }
    });

    it('reads DWARF 5: 0-based files, names from .debug_line_str and .debug_str, inline strings', () => {
      const lineStr = [...cstr('.'), ...cstr('fixtures/c'), ...cstr('traps.c')]; // offsets 0, 2, 13
      const str = [...cstr('junk'), ...cstr('from_str.c')]; // offset 5
      const dirFormats = [[DW_LNCT_path, DW_FORM_line_strp]];
      const dirs = [u32(0), u32(2)];
      const fileFormats = [[DW_LNCT_path, DW_FORM_line_strp], [DW_LNCT_directory_index, DW_FORM_udata], [DW_LNCT_MD5, DW_FORM_data16]];
      const md5 = new Array<number>(16).fill(0xab);
      const files = [[...u32(13), 1, ...md5], [...u32(13), 0, ...md5]];
      const program = [...setAddress(2), ...setFile(0), ...advanceLine(9), ...copy, ...setFile(1), ...special(2, 1), ...special(3, 0), ...endSequence];
      const m = moduleWith(
        custom('.debug_line', unitV5(dirFormats, dirs, fileFormats, files, program)),
        custom('.debug_line_str', lineStr),
        custom('.debug_str', str),
      );
      const t = LineTable.fromModule(m)!;
      expect(t.locate(CODE_START + 2)).toEqual({ file: 'fixtures/c/traps.c', line: 10, column: 0 });
      expect(t.locate(CODE_START + 4)).toEqual({ file: 'traps.c', line: 11, column: 0 }); // directory "." adds nothing
      expect(t.locate(CODE_START + 7)).toBeUndefined();

      // DW_FORM_strp and DW_FORM_string names; a strp offset outside .debug_str is unknown.
      const t2 = LineTable.fromModule(moduleWith(
        custom('.debug_line', unitV5(
          [[DW_LNCT_path, DW_FORM_string]], [cstr('/src')],
          [[DW_LNCT_path, DW_FORM_strp]], [u32(5), u32(999)],
          [...setAddress(8), ...setFile(0), ...copy, ...setFile(1), ...special(1, 0), ...advancePc(1), ...endSequence])),
        custom('.debug_str', str),
      ))!;
      expect(t2.locate(CODE_START + 8)).toEqual({ file: '/src/from_str.c', line: 1, column: 0 });
      expect(t2.locate(CODE_START + 9)).toEqual({ file: '<unknown>', line: 1, column: 0 });

      // The 64-bit DWARF format: 8-byte lengths and string offsets.
      const t3 = LineTable.fromModule(moduleWith(
        custom('.debug_line', unitV5(
          [[DW_LNCT_path, DW_FORM_line_strp]], [[...u32(2), 0, 0, 0, 0]],
          [[DW_LNCT_path, DW_FORM_line_strp], [DW_LNCT_directory_index, DW_FORM_udata]], [[...u32(13), 0, 0, 0, 0, 0]],
          [...setAddress(3), ...setFile(0), ...setColumn(4), ...special(0, 2), ...advancePc(5), ...endSequence],
          { dwarf64: true })),
        custom('.debug_line_str', lineStr),
      ))!;
      expect(t3.locate(CODE_START + 7)).toEqual({ file: 'fixtures/c/traps.c', line: 3, column: 4 });
    });

    it('ignores sequences the linker dropped (address 0 or -1) and rows past the code section', () => {
      const program = [
        ...setAddress(0), ...advanceLine(99), ...copy, ...advancePc(0x30), ...endSequence, // dropped function, old wasm-ld
        ...setAddress(0xffffffff), ...advanceLine(199), ...copy, ...advancePc(0x30), ...endSequence, // dropped, new wasm-ld
        ...setAddress(0x08), ...special(0, 4), ...advancePc(CODE_SIZE), ...endSequence, // runs past the code
      ];
      const t = LineTable.fromModule(moduleWith(custom('.debug_line', unitV4(4, [], [['f.c', 0]], program))))!;
      expect(t.locate(CODE_START + 4)).toBeUndefined();
      expect(t.locate(CODE_START + 8)).toEqual({ file: 'f.c', line: 5, column: 0 });
      expect(t.locate(CODE_START + CODE_SIZE - 1)).toEqual({ file: 'f.c', line: 5, column: 0 });
      expect(t.locate(CODE_START + CODE_SIZE)).toBeUndefined();
    });

    it('keeps overlapping sequences disjoint (the earlier-starting one wins), in any order, and drops an unfinished one', () => {
      const one = [...setAddress(0x10), ...special(0, 0), ...advancePc(0x10), ...endSequence]; // [0x10, 0x20) line 1
      const two = [...setAddress(0x18), ...special(0, 1), ...advancePc(0x10), ...endSequence]; // [0x18, 0x28) line 2
      const unfinished = [...setAddress(0x30), ...special(0, 2), ...advancePc(4)]; // no end_sequence
      for (const program of [[...one, ...two, ...unfinished], [...two, ...one, ...unfinished]]) {
        const t = LineTable.fromModule(moduleWith(custom('.debug_line', unitV4(4, [], [['f.c', 0]], program))))!;
        expect(t.locate(CODE_START + 0x10)!.line).toBe(1);
        expect(t.locate(CODE_START + 0x1f)!.line).toBe(1);
        expect(t.locate(CODE_START + 0x20)!.line).toBe(2);
        expect(t.locate(CODE_START + 0x27)!.line).toBe(2);
        expect(t.locate(CODE_START + 0x28)).toBeUndefined();
        expect(t.locate(CODE_START + 0x30)).toBeUndefined();
        expect(t.size).toBe(2);
      }
    });

    it('reads the units after a broken one', () => {
      const good = unitV4(4, [], [['ok.c', 0]], [...setAddress(4), ...special(0, 0), ...advancePc(2), ...endSequence]);
      const broken = unitV4(4, [], [['bad.c', 0]], [...setAddress(8), ...special(0, 0), 0, 50, 2]); // extended op past the unit
      const badVersion = [...u32(6), ...u16(9), 0, 0, 0, 0];
      const t = LineTable.fromModule(moduleWith(custom('.debug_line', [...broken, ...badVersion, ...good])))!;
      expect(t.locate(CODE_START + 4)).toEqual({ file: 'ok.c', line: 1, column: 0 });
      expect(t.locate(CODE_START + 8)).toBeUndefined();
    });
  });

  describe('modules without usable DWARF', () => {
    it('gives null without .debug_line, without a code section, or for something that is not a module', () => {
      expect(LineTable.fromModule(moduleWith())).toBeNull();
      expect(LineTable.fromModule(moduleWith(custom('name', [0, 1, 0x61])))).toBeNull();
      const lineOnly = custom('.debug_line', unitV4(4, [], [['f.c', 0]], [...setAddress(4), ...copy, ...advancePc(1), ...endSequence]));
      expect(LineTable.fromModule(moduleWith(lineOnly))).not.toBeNull();
      expect(LineTable.fromModule(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...lineOnly]))).toBeNull(); // no code section
      expect(LineTable.fromModule(new Uint8Array(0))).toBeNull();
      expect(LineTable.fromModule(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toBeNull();
      expect(LineTable.fromModule(new TextEncoder().encode('(module (func))'))).toBeNull();
    });

    it('walks sections defensively: stops at the first one that does not fit', () => {
      const head = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
      const ok = custom('a', [1, 2, 3]);
      expect([...readCustomSections(new Uint8Array([...head, ...ok])).sections.keys()]).toEqual(['a']);
      expect(readCustomSections(new Uint8Array([...head, ...ok])).sections.get('a')).toEqual(new Uint8Array([1, 2, 3]));
      // A size past the end, a size LEB that never ends, a name longer than its section,
      // a name that isn't UTF-8: what came before is kept.
      for (const bad of [[0, 0x7f, 1], [0, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f], [0, 2, 9, 0x61], [0, 2, 1, 0xff]]) {
        const { sections, codeSectionStart } = readCustomSections(new Uint8Array([...head, ...ok, ...bad, ...custom('b', [])]));
        expect([...sections.keys()]).toEqual(['a']);
        expect(codeSectionStart).toBe(-1);
      }
      expect(readCustomSections(new Uint8Array([...head.slice(0, 7)])).sections.size).toBe(0);
      expect(readCustomSections(new Uint8Array([1, ...head.slice(1), ...ok])).sections.size).toBe(0);
      expect(readCustomSections(new Uint8Array([...head, ...section(10, [0])])).codeSectionStart).toBe(10);
    });
  });

  describe('hostile .debug_line sections', () => {
    const hostile = (payload: ArrayLike<number>): LineTable | null => LineTable.fromModule(moduleWith(custom('.debug_line', payload)));

    it('truncated headers and programs: every prefix of the fixture’s section', () => {
      const line = readCustomSections(wasm).sections.get('.debug_line')!;
      for (let n = 0; n <= line.length; n++) {
        const t = hostile(line.subarray(0, n));
        // Only the whole unit has a unit_length that fits.
        if (n < line.length) expect(t).toBeNull();
        else expect(t).not.toBeNull();
      }
      // The same unit with its unit_length shortened to each length: it ends mid-header or
      // mid-program, and at most the sequences it finished remain.
      const body = Array.from(line.subarray(4));
      for (let n = 0; n <= body.length; n++) {
        const t = hostile([...u32(n), ...body.slice(0, n)]);
        if (t !== null) expect(t.size).toBeGreaterThan(0);
      }
    });

    it('absurd lengths and counts', () => {
      const started = performance.now();
      const cases: number[][] = [
        [],
        [0, 0, 0],
        u32(0),
        u32(0xfffffff0), // reserved
        [...u32(0xffffffff), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, ...u16(4)], // 64-bit, 2^64 - 1 bytes
        [...u32(0xffffffff), ...u32(18), ...u32(0), ...u16(4), ...u32(0xffffffff), ...u32(0xffffffff), ...new Array<number>(8).fill(0)], // 64-bit, absurd header_length
        [...u32(100000000), ...u16(4)],
        [...u32(12), ...u16(4), ...u32(0x7fffffff), 1, 1, 1, 0xfb, 14, 13], // header_length past the unit
        // line_range 0 and opcode_base 0 would divide by zero / index out of range
        unitV4(4, [], [], [...setAddress(4), ...copy, ...endSequence]).map((b, i) => (i === 14 ? 0 : b)),
        unitV4(4, [], [], [...setAddress(4), ...copy, ...endSequence]).map((b, i) => (i === 15 ? 0 : b)),
        // DWARF 5: 2^62 directories of no format; 2^62 files of one format; an unknown form
        unitV5([], [], [], [], [], { dirCount: 2n ** 62n }),
        unitV5([[DW_LNCT_path, DW_FORM_string]], [cstr('d')], [[DW_LNCT_path, DW_FORM_string]], [cstr('f')], [], { fileCount: 2n ** 62n }),
        unitV5([[DW_LNCT_path, 0x7f]], [[0, 0, 0]], [], [], [...setAddress(4), ...copy, ...endSequence]),
        // a directory name cut by header_length (no NUL before the program); a block form claiming 4 GiB
        unitV4(4, ['no-nul'], [], [...setAddress(4), ...copy, ...endSequence]).map((b, i) => (i === 6 ? 21 : b)),
        unitV5([[DW_LNCT_path, 0x04]], [[...u32(0xffffffff)]], [], [], []),
        // a program of huge advances, huge file indices, huge lines, extended ops claiming 2^63 bytes
        unitV4(4, [], [['f.c', 0]], [
          ...setAddress(4), ...advanceLine(-1e15), ...setFile(2 ** 40), ...copy, ...advancePc(2 ** 60), ...copy,
          ...advanceLine(2 ** 60), 2, ...new Array<number>(40).fill(0xff), 0x01, ...endSequence,
          0, ...uleb(2n ** 63n), 1,
        ]),
      ];
      const results = cases.map((payload) => {
        const t = hostile(payload);
        if (t !== null) {
          expect(t.size).toBeGreaterThan(0);
          for (let o = 0; o < CODE_START + CODE_SIZE + 4; o++) t.locate(o);
        }
        return t;
      });
      // Only the last, whose program goes wrong after finishing a sequence, keeps anything.
      expect(results.map((t) => t !== null)).toEqual(cases.map((_, i) => i === cases.length - 1));
      const last = results[results.length - 1]!;
      expect(last.locate(CODE_START + 4)).toMatchObject({ file: '<unknown>', column: 0 });
      expect(last.locate(CODE_START + CODE_SIZE)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(2000);
    });

    it('random bytes and random mutations of a real section, with a fixed seed', () => {
      const random = rng(0x5eed);
      const line = Array.from(readCustomSections(wasm).sections.get('.debug_line')!);
      const lineStr = Array.from({ length: 64 }, () => Math.floor(random() * 256));
      const started = performance.now();
      let tables = 0;
      for (let round = 0; round < 3000; round++) {
        let payload: number[];
        if (round % 3 === 0) {
          payload = Array.from({ length: Math.floor(random() * 600) }, () => Math.floor(random() * 256));
          if (round % 2 === 0 && payload.length > 6) payload.splice(0, 6, ...u32(payload.length - 4), ...u16(2 + ((round / 6) % 4)));
        } else {
          payload = line.slice();
          const flips = 1 + Math.floor(random() * 8);
          for (let i = 0; i < flips; i++) {
            const at = Math.floor(random() * payload.length);
            payload[at] = random() < 0.3 ? [0, 0x7f, 0x80, 0xff][Math.floor(random() * 4)]! : Math.floor(random() * 256);
          }
        }
        const m = moduleWith(custom('.debug_line', payload), custom('.debug_line_str', lineStr), custom('.debug_str', lineStr));
        const table = LineTable.fromModule(m); // throwing fails the test
        if (table !== null) {
          tables++;
          for (let o = CODE_START; o < CODE_START + CODE_SIZE; o += 3) {
            const loc = table.locate(o);
            if (loc) expect(typeof loc.file === 'string' && Number.isInteger(loc.line) && Number.isInteger(loc.column)).toBe(true);
          }
        }
        // And the whole module mutated: the section walk must not throw either.
        const mutated = wasm.slice();
        mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
        LineTable.fromModule(mutated);
      }
      expect(tables).toBeGreaterThan(0); // some mutations leave the table readable
      expect(performance.now() - started).toBeLessThan(10_000);
    });
  });
});
