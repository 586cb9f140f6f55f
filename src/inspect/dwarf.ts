/**
 * Source positions from DWARF line tables: `LineTable.fromModule` reads a module's
 * `.debug_line` custom section (DWARF 2–5; version 5's names may live in `.debug_line_str` or
 * `.debug_str`) and `locate` turns a byte offset in the module — what backtraces report — into
 * file, line and column.
 *
 * Addresses. In WebAssembly DWARF (the LLVM/wasm-ld convention, also what wasmtime and
 * llvm-dwarfdump use), an address is a byte offset relative to the first byte of the code
 * section's contents — the byte right after the section id and its size LEB, i.e. the function
 * count. So `address = moduleOffset - codeSectionStart`. Offset 0 of the code section is that
 * count and never an instruction, which is why a sequence starting at address 0 can only be a
 * function the linker dropped (older wasm-ld wrote 0 there, newer ones -1): such sequences, and
 * any row past the end of the code section, are ignored.
 *
 * File names: the path is joined with its directory as the line program's header gives them,
 * and nothing else is done to it — no normalisation, no compilation directory from
 * `.debug_info`:
 *   - an absolute path (`/…`, `\…`, `C:\…`) is used as it is;
 *   - DWARF 2–4: directory 0 is the compilation directory, which the line table doesn't name,
 *     so a file in directory 0 is its bare name; directory k ≥ 1 is `include_directories[k-1]`;
 *   - DWARF 5: directory k is `directories[k]` (0 is the compilation directory, named);
 *   - a directory that is empty or `.` adds nothing; otherwise the result is `dir/file`.
 * A name that can't be read (an index out of range, a DW_FORM_strx needing `.debug_str_offsets`,
 * a string offset outside its section) is `<unknown>`.
 *
 * Untrusted input: nothing here throws (fromModule catches everything and answers null), every
 * loop consumes at least one byte of its bounded input, every count is checked against the bytes
 * left before anything is allocated for it, and decoded names are capped (4 KiB each, 16 Mi
 * characters in all per table — past that, `<unknown>`), so work and memory are linear in the
 * size of the module.
 */

export interface SourceLocation {
  /** As described in the module comment: `dir/file` as compiled, or the file alone. */
  file: string;
  /** 1-based; 0 when the compiler attributes the instruction to no source line. */
  line: number;
  /** 1-based; 0 means unknown. */
  column: number;
}

const UNKNOWN_FILE = '<unknown>';
const MAX_NAME_BYTES = 4096;
const NAME_BUDGET_CHARS = 16 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Module sections

/**
 * The module's custom sections by name (the first one of each name wins) and where the code
 * section's contents start (-1 without a code section). Every length is checked; at the first
 * thing that doesn't fit the walk stops and returns what it found before it, so a module that is
 * malformed from the start yields no sections. Section payloads are views into `moduleBytes`.
 */
export function readCustomSections(moduleBytes: Uint8Array): { codeSectionStart: number; sections: Map<string, Uint8Array> } {
  const { codeSectionStart, sections } = walkSections(moduleBytes);
  return { codeSectionStart, sections };
}

/** readCustomSections, and the size of the code section's contents (0 without one). */
function walkSections(bytes: Uint8Array): { codeSectionStart: number; codeSectionSize: number; sections: Map<string, Uint8Array> } {
  const sections = new Map<string, Uint8Array>();
  const found = { codeSectionStart: -1, codeSectionSize: 0, sections };
  if (!(bytes instanceof Uint8Array) || bytes.length < 8) return found;
  if (bytes[0] !== 0x00 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return found;
  if (bytes[4] !== 0x01 || bytes[5] !== 0x00 || bytes[6] !== 0x00 || bytes[7] !== 0x00) return found;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos++]!;
    const size = readU32Leb(bytes, pos);
    if (size === null) break;
    pos = size.next;
    const end = pos + size.value;
    if (end > bytes.length) break;
    if (id === 0) {
      const nameLength = readU32Leb(bytes, pos);
      if (nameLength === null || nameLength.next + nameLength.value > end) break;
      let name: string;
      try {
        name = decoder.decode(bytes.subarray(nameLength.next, nameLength.next + nameLength.value));
      } catch {
        break; // a custom section's name must be UTF-8
      }
      if (!sections.has(name)) sections.set(name, bytes.subarray(nameLength.next + nameLength.value, end));
    } else if (id === 10 && found.codeSectionStart < 0) {
      found.codeSectionStart = pos;
      found.codeSectionSize = size.value;
    }
    pos = end;
  }
  return found;
}

/** An unsigned LEB128 of at most 5 bytes that fits in 32 bits, or null. */
function readU32Leb(bytes: Uint8Array, pos: number): { value: number; next: number } | null {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (pos >= bytes.length) return null;
    const b = bytes[pos++]!;
    if (i === 4 && b > 0x0f) return null;
    value += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return { value, next: pos };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Bounded reading

/** Thrown by the cursor when a read would pass its end; caught per unit. */
class Malformed extends Error {}

class Cursor {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    public end: number,
  ) {}

  get left(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (!(n >= 0) || n > this.end - this.pos) throw new Malformed();
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  i8(): number {
    const b = this.u8();
    return b >= 0x80 ? b - 0x100 : b;
  }

  u16(): number {
    this.need(2);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 2;
    return b[p]! | (b[p + 1]! << 8);
  }

  u32(): number {
    this.need(4);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  /** A little-endian unsigned integer of `n` ≤ 8 bytes, as a (possibly rounded) number. */
  uN(n: number): number {
    this.need(n);
    let value = 0;
    for (let i = n - 1; i >= 0; i--) value = value * 256 + this.bytes[this.pos + i]!;
    this.pos += n;
    return value;
  }

  /** Unsigned LEB128 of any length (all of it is consumed; bits past 2^63 are dropped). */
  uleb(): number {
    return this.leb(false);
  }

  /** Signed LEB128 of any length, as a (possibly rounded) number. */
  sleb(): number {
    return this.leb(true);
  }

  private leb(signed: boolean): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      if (scale < 2 ** 63) value += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) {
        if (signed && (b & 0x40) !== 0 && scale <= 2 ** 64) value -= scale;
        return value;
      }
    }
  }

  /** Skips a NUL-terminated string and answers where it started; throws if it has no NUL. */
  cstring(): number {
    const start = this.pos;
    const nul = this.bytes.subarray(start, this.end).indexOf(0);
    if (nul < 0) throw new Malformed();
    this.pos = start + nul + 1;
    return start;
  }
}

/** Decodes NUL-terminated names, each once, within the caps given in the module comment. */
class Names {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly cache = new Map<Uint8Array, Map<number, string | null>>();
  private budget = NAME_BUDGET_CHARS;

  /** The string at `offset` in `section`, or null (out of range, no NUL, budget spent). */
  at(section: Uint8Array | undefined, offset: number): string | null {
    if (section === undefined || !Number.isSafeInteger(offset) || offset < 0 || offset >= section.length) return null;
    let perSection = this.cache.get(section);
    if (perSection === undefined) this.cache.set(section, (perSection = new Map()));
    const cached = perSection.get(offset);
    if (cached !== undefined) return cached;
    let result: string | null = null;
    const window = section.subarray(offset, Math.min(section.length, offset + MAX_NAME_BYTES + 1));
    const nul = window.indexOf(0);
    const length = nul < 0 ? Math.min(window.length, MAX_NAME_BYTES) : nul;
    if ((nul >= 0 || window.length > MAX_NAME_BYTES) && length <= this.budget) {
      this.budget -= length;
      // Control characters (a newline would forge lines of a backtrace or an lcov file) become '?'.
      result = this.decoder.decode(window.subarray(0, length)).replace(/[\u0000-\u001f\u007f]/g, '?');
    }
    perSection.set(offset, result);
    return result;
  }

  /** Charges a string built from decoded names (a joined path) to the budget. */
  charge(s: string): boolean {
    if (s.length > this.budget) return false;
    this.budget -= s.length;
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Line program

/** A name as the header gives it: a NUL-terminated string at an offset in some section. */
interface NameRef {
  readonly section: Uint8Array | undefined;
  readonly offset: number;
}

interface FileEntry {
  readonly path: NameRef | null;
  readonly dir: number;
}

interface Header {
  readonly version: number;
  readonly minInstLength: number;
  readonly maxOpsPerInst: number;
  readonly lineBase: number;
  readonly lineRange: number;
  readonly opcodeBase: number;
  readonly standardLengths: Uint8Array;
  readonly dirs: Array<NameRef | null>;
  readonly files: FileEntry[];
}

interface DebugSections {
  readonly line: Uint8Array;
  readonly lineStr: Uint8Array | undefined;
  readonly str: Uint8Array | undefined;
}

// DW_LNCT_* content types and the DW_FORM_* codes a v5 entry format may use.
const LNCT_PATH = 1;
const LNCT_DIRECTORY_INDEX = 2;
const FORM = {
  block2: 0x03, block4: 0x04, data2: 0x05, data4: 0x06, data8: 0x07, string: 0x08, block: 0x09,
  block1: 0x0a, data1: 0x0b, sdata: 0x0d, strp: 0x0e, udata: 0x0f, strx: 0x1a, strpSup: 0x1d,
  data16: 0x1e, lineStrp: 0x1f, strx1: 0x25, strx2: 0x26, strx3: 0x27, strx4: 0x28,
} as const;

/**
 * Rows as parallel, growable typed arrays. The rows of the sequence being read sit at
 * [open, length) with only their start set; `closeSequence` turns them into ranges
 * [start, end) — each row's end is the next row's start, the last one's the end_sequence
 * address — and keeps only the non-empty ones; `dropOpen` forgets an unfinished sequence.
 */
class Rows {
  length = 0;
  private open = 0;
  starts = new Float64Array(256);
  ends = new Float64Array(256);
  files = new Uint32Array(256);
  lines = new Uint32Array(256);
  columns = new Uint32Array(256);

  push(start: number, file: number, line: number, column: number): void {
    if (this.length === this.starts.length) this.grow();
    const i = this.length++;
    this.starts[i] = start;
    this.files[i] = file;
    this.lines[i] = line;
    this.columns[i] = column;
  }

  /**
   * Ends the open sequence at `end`. A sequence starting at address 0 (the code section's
   * function count: a function the linker dropped) is forgotten; ranges are cut at `limit`,
   * the code section's size.
   */
  closeSequence(end: number, limit: number): void {
    const first = this.open;
    if (this.length > first && this.starts[first]! > 0) {
      let w = first;
      for (let i = first; i < this.length; i++) {
        const start = this.starts[i]!;
        const stop = Math.min(i + 1 < this.length ? this.starts[i + 1]! : end, limit);
        if (!(start < stop)) continue; // empty (a later row at the same address wins) or past the code
        this.starts[w] = start;
        this.ends[w] = stop;
        this.files[w] = this.files[i]!;
        this.lines[w] = this.lines[i]!;
        this.columns[w] = this.columns[i]!;
        w++;
      }
      this.length = w;
    } else {
      this.length = first;
    }
    this.open = this.length;
  }

  dropOpen(): void {
    this.length = this.open;
  }

  private grow(): void {
    const n = this.starts.length * 2;
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    const files = new Uint32Array(n);
    const lines = new Uint32Array(n);
    const columns = new Uint32Array(n);
    starts.set(this.starts);
    ends.set(this.ends);
    files.set(this.files);
    lines.set(this.lines);
    columns.set(this.columns);
    Object.assign(this, { starts, ends, files, lines, columns });
  }
}

/** Everything one table build collects, across units. */
class Collector {
  readonly rows = new Rows();
  readonly files: string[] = [];
  private readonly fileIds = new Map<string, number>();
  readonly names = new Names();

  constructor(
    readonly sections: DebugSections,
    /** The code section's contents' size: no address at or past it is an instruction. */
    readonly codeSize: number,
  ) {}

  internFile(name: string): number {
    let id = this.fileIds.get(name);
    if (id === undefined) {
      id = this.files.length;
      this.files.push(name);
      this.fileIds.set(name, id);
    }
    return id;
  }
}

function parseUnits(c: Collector): void {
  const section = c.sections.line;
  let pos = 0;
  while (section.length - pos >= 4) {
    const cur = new Cursor(section, pos, section.length);
    let length = cur.u32();
    let offsetSize = 4;
    if (length === 0xffffffff) {
      if (cur.left < 8) return;
      length = cur.uN(8);
      offsetSize = 8;
    } else if (length >= 0xfffffff0) {
      return; // reserved
    }
    if (length > cur.left) return; // a unit past the end of the section: stop here
    const unitEnd = cur.pos + length;
    try {
      parseUnit(c, new Cursor(section, cur.pos, unitEnd), offsetSize);
    } catch (e) {
      if (!(e instanceof Malformed)) throw e;
      // This unit is broken from here on; what it finished is kept, the next unit is read.
    }
    c.rows.dropOpen(); // a sequence without its end_sequence has no extent
    pos = unitEnd;
  }
}

function parseUnit(c: Collector, cur: Cursor, offsetSize: number): void {
  const version = cur.u16();
  if (version < 2 || version > 5) return;
  if (version >= 5) cur.skip(2); // address_size, segment_selector_size
  const headerLength = cur.uN(offsetSize);
  if (headerLength > cur.left) return;
  const programStart = cur.pos + headerLength;
  const h = new Cursor(cur.bytes, cur.pos, programStart);
  const minInstLength = h.u8();
  const maxOpsPerInst = version >= 4 ? h.u8() : 1;
  h.skip(1); // default_is_stmt
  const lineBase = h.i8();
  const lineRange = h.u8();
  const opcodeBase = h.u8();
  if (lineRange === 0 || opcodeBase === 0) return;
  h.need(opcodeBase - 1);
  const standardLengths = h.bytes.slice(h.pos, h.pos + opcodeBase - 1);
  h.skip(opcodeBase - 1);

  const dirs: Array<NameRef | null> = [];
  const files: FileEntry[] = [];
  if (version >= 5) {
    readEntries(c, h, offsetSize, (path) => dirs.push(path));
    readEntries(c, h, offsetSize, (path, dir) => files.push({ path, dir }));
  } else {
    for (;;) {
      h.need(1);
      if (h.bytes[h.pos] === 0) break;
      const start = h.cstring();
      dirs.push({ section: h.bytes, offset: start });
    }
    h.skip(1);
    for (;;) {
      h.need(1);
      if (h.bytes[h.pos] === 0) break;
      const start = h.cstring();
      const dir = h.uleb();
      h.uleb(); // modification time
      h.uleb(); // length
      files.push({ path: { section: h.bytes, offset: start }, dir });
    }
  }

  const header: Header = { version, minInstLength, maxOpsPerInst: maxOpsPerInst || 1, lineBase, lineRange, opcodeBase, standardLengths, dirs, files };
  runProgram(c, header, new Cursor(cur.bytes, programStart, cur.end));
}

/** A DWARF 5 entry-format list and its entries; calls `add` with each entry's path and directory. */
function readEntries(c: Collector, h: Cursor, offsetSize: number, add: (path: NameRef | null, dir: number) => void): void {
  const formatCount = h.u8();
  const formats: Array<[number, number]> = [];
  for (let i = 0; i < formatCount; i++) formats.push([h.uleb(), h.uleb()]);
  const count = h.uleb();
  if (count === 0) return;
  // Every form we accept takes at least one byte, so an entry takes at least formatCount.
  if (formatCount === 0 || count * formatCount > h.left) throw new Malformed();
  for (let i = 0; i < count; i++) {
    let path: NameRef | null = null;
    let dir = 0;
    for (const [type, form] of formats) {
      const value = readForm(c, h, form, offsetSize);
      if (type === LNCT_PATH) path = typeof value === 'object' ? value : null;
      else if (type === LNCT_DIRECTORY_INDEX && typeof value === 'number') dir = value;
    }
    add(path, dir);
  }
}

/** Reads one attribute value: a number, a name, or null for anything else. Unknown forms throw. */
function readForm(c: Collector, h: Cursor, form: number, offsetSize: number): number | NameRef | null {
  switch (form) {
    case FORM.data1: return h.u8();
    case FORM.data2: return h.u16();
    case FORM.data4: return h.u32();
    case FORM.data8: return h.uN(8);
    case FORM.udata: return h.uleb();
    case FORM.sdata: return h.sleb();
    case FORM.data16: h.skip(16); return null;
    case FORM.block1: h.skip(h.u8()); return null;
    case FORM.block2: h.skip(h.u16()); return null;
    case FORM.block4: h.skip(h.u32()); return null;
    case FORM.block: h.skip(h.uleb()); return null;
    case FORM.string: return { section: h.bytes, offset: h.cstring() };
    case FORM.lineStrp: return { section: c.sections.lineStr, offset: h.uN(offsetSize) };
    case FORM.strp: return { section: c.sections.str, offset: h.uN(offsetSize) };
    // These need other sections (.debug_str_offsets with the unit's base, or a supplementary
    // file) that a line table alone can't resolve: the bytes are skipped, the name is unknown.
    case FORM.strpSup: h.skip(offsetSize); return null;
    case FORM.strx: h.uleb(); return null;
    case FORM.strx1: h.skip(1); return null;
    case FORM.strx2: h.skip(2); return null;
    case FORM.strx3: h.skip(3); return null;
    case FORM.strx4: h.skip(4); return null;
    default: throw new Malformed();
  }
}

function runProgram(c: Collector, hdr: Header, p: Cursor): void {
  // Names of the files this unit's rows use, resolved once each.
  const fileIds = new Map<number, number>();
  const fileId = (index: number): number => {
    let id = fileIds.get(index);
    if (id === undefined) {
      id = c.internFile(fileName(c, hdr, index));
      fileIds.set(index, id);
    }
    return id;
  };

  let address = 0;
  let opIndex = 0;
  let file = 1;
  let line = 1;
  let column = 0;
  const reset = (): void => {
    address = 0;
    opIndex = 0;
    file = 1;
    line = 1;
    column = 0;
  };
  const advance = (operationAdvance: number): void => {
    if (hdr.maxOpsPerInst === 1) {
      address += hdr.minInstLength * operationAdvance;
    } else {
      const ops = opIndex + operationAdvance;
      address += hdr.minInstLength * Math.floor(ops / hdr.maxOpsPerInst);
      opIndex = ops % hdr.maxOpsPerInst;
    }
  };
  // The line register is unsigned: as LLVM does, it wraps to 32 bits.
  const emit = (): void => c.rows.push(address, fileId(file), line >>> 0, column >>> 0);
  const endSequence = (): void => {
    c.rows.closeSequence(address, c.codeSize);
    reset();
  };

  const specialAdvance = (opcode: number): number => Math.floor((opcode - hdr.opcodeBase) / hdr.lineRange);
  while (p.left > 0) {
    const opcode = p.u8();
    if (opcode >= hdr.opcodeBase) {
      const adjusted = opcode - hdr.opcodeBase;
      advance(specialAdvance(opcode));
      line += hdr.lineBase + (adjusted % hdr.lineRange);
      emit();
      continue;
    }
    switch (opcode) {
      case 0: {
        const length = p.uleb();
        p.need(length);
        const after = p.pos + length;
        if (length === 0) break;
        const sub = p.u8();
        if (sub === 1) {
          endSequence(); // the end_sequence row: its address is where the sequence stops
        } else if (sub === 2) {
          const size = length - 1;
          if (size >= 1 && size <= 8) address = p.uN(size);
          opIndex = 0;
        } else if (sub === 3 && hdr.version < 5) {
          const sub3 = new Cursor(p.bytes, p.pos, after);
          const start = sub3.cstring();
          const dir = sub3.uleb();
          hdr.files.push({ path: { section: p.bytes, offset: start }, dir });
          fileIds.delete(hdr.files.length); // its (1-based) index may have been looked up before
        }
        // DW_LNE_set_discriminator and anything else: nothing we keep.
        p.pos = after;
        break;
      }
      case 1: emit(); break; // DW_LNS_copy
      case 2: advance(p.uleb()); break; // DW_LNS_advance_pc
      case 3: line += p.sleb(); break; // DW_LNS_advance_line
      case 4: file = p.uleb(); break; // DW_LNS_set_file
      case 5: column = p.uleb(); break; // DW_LNS_set_column
      case 6: case 7: break; // DW_LNS_negate_stmt, DW_LNS_set_basic_block: flags we don't keep
      case 8: advance(specialAdvance(255)); break; // DW_LNS_const_add_pc
      case 9: address += p.u16(); opIndex = 0; break; // DW_LNS_fixed_advance_pc
      case 10: case 11: break; // DW_LNS_set_prologue_end, DW_LNS_set_epilogue_begin
      case 12: p.uleb(); break; // DW_LNS_set_isa
      default: {
        // A standard opcode this reader doesn't know: skip its ULEB operands.
        const operands = hdr.standardLengths[opcode - 1] ?? 0;
        for (let i = 0; i < operands; i++) p.uleb();
      }
    }
  }
}

function fileName(c: Collector, hdr: Header, index: number): string {
  const entry = hdr.version >= 5 ? hdr.files[index] : index >= 1 ? hdr.files[index - 1] : undefined;
  if (entry === undefined || entry.path === null) return UNKNOWN_FILE;
  const name = c.names.at(entry.path.section, entry.path.offset);
  if (name === null) return UNKNOWN_FILE;
  if (isAbsolute(name)) return name;
  let dir: string | null = null;
  if (hdr.version >= 5) {
    const ref = hdr.dirs[entry.dir];
    dir = ref ? c.names.at(ref.section, ref.offset) : null;
  } else if (entry.dir >= 1) {
    const ref = hdr.dirs[entry.dir - 1];
    dir = ref ? c.names.at(ref.section, ref.offset) : null;
  } else {
    dir = '';
  }
  if (dir === null) return UNKNOWN_FILE;
  if (dir === '' || dir === '.') return name;
  const joined = dir.endsWith('/') || dir.endsWith('\\') ? dir + name : `${dir}/${name}`;
  return c.names.charge(joined) ? joined : UNKNOWN_FILE;
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path);
}

// ---------------------------------------------------------------------------------------------
// The table

export class LineTable {
  private constructor(
    private readonly codeSectionStart: number,
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly fileIndex: Uint32Array,
    private readonly lines: Uint32Array,
    private readonly columns: Uint32Array,
    private readonly files: readonly string[],
  ) {}

  /**
   * The line table of a module's `.debug_line`, or null: no code section, no `.debug_line`,
   * or nothing in it that gives a row. Never throws.
   */
  static fromModule(moduleBytes: Uint8Array): LineTable | null {
    try {
      const { codeSectionStart, codeSectionSize, sections } = walkSections(moduleBytes);
      const line = sections.get('.debug_line');
      if (codeSectionStart < 0 || line === undefined) return null;
      const c = new Collector({ line, lineStr: sections.get('.debug_line_str'), str: sections.get('.debug_str') }, codeSectionSize);
      parseUnits(c);
      return LineTable.build(codeSectionStart, c);
    } catch {
      return null;
    }
  }

  private static build(codeSectionStart: number, c: Collector): LineTable | null {
    const rows = c.rows;
    const n = rows.length;
    if (n === 0) return null;
    // Order the ranges by start (among equal starts, the earlier sequence first) — they usually
    // are already — then clip overlaps away: a range starting inside an earlier one keeps only
    // what lies past it. The ranges are then disjoint and ordered, and a binary search finds
    // the one containing an address.
    let order: Uint32Array | null = null;
    for (let i = 1; i < n; i++) {
      if (rows.starts[i]! < rows.starts[i - 1]!) {
        order = new Uint32Array(n);
        for (let k = 0; k < n; k++) order[k] = k;
        order.sort((a, b) => rows.starts[a]! - rows.starts[b]! || a - b);
        break;
      }
    }
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    const files = new Uint32Array(n);
    const lines = new Uint32Array(n);
    const columns = new Uint32Array(n);
    let count = 0;
    let covered = 0;
    for (let k = 0; k < n; k++) {
      const r = order === null ? k : order[k]!;
      const start = Math.max(rows.starts[r]!, covered);
      const end = rows.ends[r]!;
      if (start >= end) continue;
      starts[count] = start;
      ends[count] = end;
      files[count] = rows.files[r]!;
      lines[count] = rows.lines[r]!;
      columns[count] = rows.columns[r]!;
      count++;
      covered = end;
    }
    return new LineTable(
      codeSectionStart,
      starts.slice(0, count),
      ends.slice(0, count),
      files.slice(0, count),
      lines.slice(0, count),
      columns.slice(0, count),
      c.files,
    );
  }

  /** How many address ranges the table holds (rows with a non-empty extent). */
  get size(): number {
    return this.starts.length;
  }

  /**
   * The source position of the instruction at `moduleOffset` (a byte offset in the whole
   * module, as backtraces report it): the last row at or before its address in the sequence
   * that contains it, or undefined if no sequence does.
   */
  locate(moduleOffset: number): SourceLocation | undefined {
    if (!Number.isFinite(moduleOffset)) return undefined;
    const address = moduleOffset - this.codeSectionStart;
    if (address < 0) return undefined;
    // The last range whose start is <= address.
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= address) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    if (i < 0 || address >= this.ends[i]!) return undefined;
    return { file: this.files[this.fileIndex[i]!]!, line: this.lines[i]!, column: this.columns[i]! };
  }
}
