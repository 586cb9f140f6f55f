/**
 * The WebAssembly 2.0 binary decoder: bytes -> ModuleIR.
 *
 * Everything outside function bodies is decoded here; a body is recorded as its expanded
 * locals plus the byte range of its instructions, which the compiler decodes later.
 * Malformed input throws DecodeError (with the spec's wording where the test suite has one);
 * a non-constant instruction inside a constant expression throws
 * ValidationError("constant expression required"), but only once the whole module has been
 * decoded, so that a malformation anywhere takes precedence (as in the specification, where
 * decoding precedes validation).
 *
 * The encodings of later proposals are refused here, naming the proposal (errors.ts,
 * `refusal`): as a DecodeError when WebAssembly 2.0 cannot decode them (a tag section, a
 * shared memory), and like the error above, once decoding is done, when 2.0 decodes them
 * and the module is refused as invalid (a second memory, `i32.add` in a constant expression,
 * and the v128 type of SIMD, which this engine leaves out of 2.0).
 */
import { runSteps, type Steps } from './steps.js';
import { ALL_FEATURES, type FeatureSet } from './features.js';
import { DecodeError, Feature, formatOpcode, refuseDecode, refuseValidation, ValidationError } from './errors.js';
import { proposalHeapType, proposalType, skipInstructions } from './body-syntax.js';
import { ByteReader } from './reader.js';
import { EXTENDED_CONST_OPS, SINGLE_BYTE } from './instruction-set.js';
import {
  EXNREF,
  EXTERNREF,
  FUNCREF,
  V128,
  V128_CONST_OP,
  type ConstExpr,
  type ConstInstr,
  type CustomSection,
  type DataSegment,
  type ElemSegment,
  type Export,
  type ExternKind,
  type FuncType,
  type FunctionBody,
  type Global,
  type GlobalType,
  type Import,
  type ImportDesc,
  type Limits,
  type MemoryType,
  type ModuleIR,
  type Table,
  type TableType,
  type ValType,
} from './types.js';

/** Implementation limit on the number of declared locals of one function (params excluded). */
export const MAX_FUNCTION_LOCALS = 50000;
/**
 * Implementation limit on the declared locals of all functions together. Locals are expanded
 * (and zeroed on every call), so a small module declaring 50,000 locals in each of a great
 * many tiny functions would otherwise cost the host far more than its size suggests.
 */
export const MAX_MODULE_LOCALS = 1 << 22;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const SEC_CUSTOM = 0;
const SEC_TYPE = 1;
const SEC_IMPORT = 2;
const SEC_FUNCTION = 3;
const SEC_TABLE = 4;
const SEC_MEMORY = 5;
const SEC_GLOBAL = 6;
const SEC_EXPORT = 7;
const SEC_START = 8;
const SEC_ELEMENT = 9;
const SEC_CODE = 10;
const SEC_DATA = 11;
const SEC_DATACOUNT = 12;
/** Exception handling's tag section, refused. */
const SEC_TAG = 13;

/** Position of each non-custom section id in the required order (index = section id). */
/** Where each section id may appear: the tag section (13) between memory and global. */
const SECTION_RANK = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6];

const EXTERN_KINDS: readonly ExternKind[] = ['func', 'table', 'memory', 'global', 'tag'];

const EMPTY_LOCALS: readonly ValType[] = Object.freeze([]);

/** Type forms of the type section that GC adds beside `func` (0x60). */
const GC_TYPE_FORMS: ReadonlyMap<number, string> = new Map([
  [0x5f, 'struct type'], [0x5e, 'array type'], [0x50, 'subtype'], [0x4f, 'final subtype'], [0x4e, 'recursive type group'],
]);

/**
 * Constant instructions of extended constant expressions, by opcode: read into the
 * ConstExpr when the compile accepts Feature.ExtendedConst, refused otherwise.
 */

function mkInstr(op: number, a: number, b: number): ConstInstr {
  return { op, a, b, c: 0, d: 0 };
}

/** The decoder state: one cursor over the module bytes. */
class Decoder extends ByteReader {
  readonly len: number;
  /**
   * The first validation error met while decoding ("constant expression required", or a
   * refusal of something 2.0 decodes), thrown once decoding has succeeded.
   */
  deferred: ValidationError | null = null;
  /** Memories imported or defined so far (a second one needs multi-memory). */
  memoryCount = 0;
  /** Globals imported, and those defined so far: what `global.get` in a constant expression names. */
  importedGlobals = 0;
  definedGlobals: readonly Global[] = [];
  /** Declared locals of the bodies decoded so far (see MAX_MODULE_LOCALS). */
  moduleLocals = 0;

  /**
   * Like the reference interpreter, section contents are read against the end of the module
   * (`end`), and a section that does not end exactly where its size says is reported
   * afterwards ("section size mismatch"); only a function's locals are read against the end
   * of the function.
   */
  constructor(bytes: Uint8Array, readonly features: FeatureSet) {
    super(bytes);
    this.len = bytes.length;
  }

  /** Defers the refusal of `feature` (see `defer`) unless the compile accepts it. */
  requireFeature(feature: Feature, detail: string, at: number, fallback?: string): void {
    if (!this.features.has(feature)) this.defer(refuseValidation(feature, detail, at, fallback));
  }

  override eof(at: number): never {
    // Before the first section (the header) the reference interpreter says just this much.
    throw new DecodeError(this.pos < 8 ? 'unexpected end' : 'unexpected end of section or function', at);
  }

  /**
   * A byte length or element count (every element takes at least one byte): checked before
   * anything is allocated for it, so that a bogus count fails fast.
   */
  length(): number {
    const at = this.pos;
    const n = this.u32();
    if (n > this.end - this.pos) this.lengthFail(n, at);
    return n;
  }

  lengthFail(n: number, at: number): never {
    // The reference interpreter measures a length against what is left of the module from
    // the start of the length itself; short of that, the content simply runs out.
    if (n > this.len - at) this.fail('length out of bounds', at);
    this.eof(this.end);
  }

  name(): string {
    const at = this.pos;
    const n = this.length();
    const start = this.pos;
    const stop = start + n;
    const bytes = this.bytes;
    this.pos = stop;
    if (n <= 32) {
      let s = '';
      for (let i = start; i < stop; i++) {
        const c = bytes[i]!;
        if (c >= 0x80) return this.utf8Name(start, stop, at);
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.utf8Name(start, stop, at);
  }

  utf8Name(start: number, stop: number, at: number): string {
    try {
      return utf8.decode(this.bytes.subarray(start, stop));
    } catch {
      return this.fail('malformed UTF-8 encoding', at);
    }
  }

  /** Keeps the first validation error for the end of decoding. */
  defer(error: ValidationError): void {
    if (this.deferred === null) this.deferred = error;
  }

  valType(): ValType {
    const at = this.pos;
    const b = this.u8();
    if (b & 0x80) this.fail('integer representation too long', this.pos);
    if ((b >= 0x7c && b <= 0x7f) || b === FUNCREF || b === EXTERNREF) return b;
    if (b === EXNREF && this.features.has(Feature.ExceptionHandling)) return b;
    if (b === V128) {
      this.requireFeature(Feature.Simd, `value type v128, ${formatOpcode(V128)}`, at);
      return b;
    }
    const refused = proposalType(this, at);
    if (refused !== null) throw refused;
    return this.fail('malformed value type', at);
  }

  refType(): ValType {
    const at = this.pos;
    const b = this.u8();
    if (b & 0x80) this.fail('integer representation too long', this.pos);
    if (b === FUNCREF || b === EXTERNREF) return b;
    if (b === EXNREF && this.features.has(Feature.ExceptionHandling)) return b;
    const refused = proposalType(this, at);
    if (refused !== null) throw refused;
    return this.fail('malformed reference type', at);
  }

  /** The immediate of `ref.null`. */
  heapType(): ValType {
    const at = this.pos;
    const b = this.u8();
    if (b === FUNCREF || b === EXTERNREF) return b;
    if (b === EXNREF && this.features.has(Feature.ExceptionHandling)) return b;
    const refused = proposalHeapType(this, at);
    if (refused !== null) throw refused;
    if (b & 0x80) this.fail('integer representation too long', this.pos);
    return this.fail('malformed reference type', at);
  }

  /**
   * Limits and their flags: bit 0 a maximum, bit 1 shared (threads; memories only), bit 2
   * 64-bit (memory64, table64). A bit outside the compile's features is refused naming its
   * feature; with the WebAssembly 2.0 features the suite expects "integer too large" for any
   * other flag below 0x80, and the 3.0 binary format says "malformed limits flags".
   */
  limits(of: 'memory' | 'table'): { limits: Limits; is64: boolean; shared: boolean } {
    const at = this.pos;
    const flag = this.u8();
    const features = this.features;
    const allowed = 0x01
      | (features.has(of === 'memory' ? Feature.Memory64 : Feature.Table64) ? 0x04 : 0)
      | (of === 'memory' && features.has(Feature.SharedMemory) ? 0x02 : 0);
    if (flag & ~allowed) {
      const feature = flag & 0x80 || flag & 0x70 ? null
        : flag & 0x04 && !(allowed & 0x04) ? (of === 'memory' ? Feature.Memory64 : Feature.Table64)
          : flag & 0x02 && !(allowed & 0x02) ? (of === 'memory' ? Feature.SharedMemory : Feature.SharedTable)
            : flag & 0x08 && of === 'memory' ? Feature.CustomPageSizes : null;
      const wording = features.has(Feature.Memory64) ? 'malformed limits flags' : 'integer too large';
      if (feature !== null) throw refuseDecode(feature, `${of} limits flags ${formatOpcode(flag)}`, at, wording);
      if (wording === 'malformed limits flags') this.fail(wording, at);
      if (flag & 0x7e) this.fail('integer too large', at);
      this.fail('integer representation too long', this.pos);
    }
    const is64 = (flag & 0x04) !== 0;
    // The 3.0 binary format (memory64's) reads every limit as a u64; validation bounds it.
    const wide = is64 || features.has(Feature.Memory64);
    const min = wide ? this.u64() : this.u32();
    const max = flag & 0x01 ? (wide ? this.u64() : this.u32()) : null;
    return { limits: { min, max }, is64, shared: (flag & 0x02) !== 0 };
  }

  tableType(): TableType {
    const elemType = this.refType();
    const { limits, is64 } = this.limits('table');
    return is64 ? { elemType, limits, is64 } : { elemType, limits };
  }

  memoryType(): MemoryType {
    const at = this.pos;
    const { limits, is64, shared } = this.limits('memory');
    if (++this.memoryCount === 2) {
      this.requireFeature(Feature.MultiMemory, 'a second memory', at, 'multiple memories');
    }
    return { limits, ...(is64 ? { is64 } : {}), ...(shared ? { shared } : {}) };
  }

  /** A tag type: attribute 0 (an exception), then the type index of its payload. */
  tagType(): number {
    const at = this.pos;
    if (this.u8() !== 0) this.fail('malformed tag attribute', at);
    return this.u32();
  }

  globalType(): GlobalType {
    const valType = this.valType();
    const at = this.pos;
    const m = this.u8();
    if (m > 1) this.fail('malformed mutability', at);
    return { valType, mutable: m === 1 };
  }

  funcType(): FuncType {
    const at = this.pos;
    const form = this.u8();
    if (form & 0x80) this.fail('integer representation too long', this.pos);
    if (form !== 0x60) {
      const gc = GC_TYPE_FORMS.get(form);
      if (gc !== undefined) throw refuseDecode(Feature.Gc, `${gc}, ${formatOpcode(form)}`, at);
      this.fail('malformed function type', at);
    }
    const np = this.length();
    const params: ValType[] = new Array<ValType>(np);
    for (let i = 0; i < np; i++) params[i] = this.valType();
    const nr = this.length();
    const results: ValType[] = new Array<ValType>(nr);
    for (let i = 0; i < nr; i++) results[i] = this.valType();
    return { params, results };
  }

  /** A constant expression, up to and including its `end`. */
  constExpr(): ConstExpr {
    const out: ConstInstr[] = [];
    for (;;) {
      const at = this.pos;
      const op = this.u8();
      switch (op) {
        case 0x0b:
          return out;
        case 0x41:
          out.push(mkInstr(op, this.s32(), 0));
          break;
        case 0x42: {
          const lo = this.s64();
          out.push(mkInstr(op, lo, this.hi));
          break;
        }
        case 0x43:
          out.push(mkInstr(op, this.fixed32(), 0));
          break;
        case 0x44: {
          const lo = this.fixed32();
          out.push(mkInstr(op, lo, this.fixed32()));
          break;
        }
        case 0xd0:
          out.push(mkInstr(op, this.heapType(), 0));
          break;
        case 0xd2:
          out.push(mkInstr(op, this.u32(), 0));
          break;
        case 0x23: {
          const x = this.u32();
          // WebAssembly 2.0 knows only the imported globals here ("unknown global"); 3.0 lets
          // a constant expression read an immutable global the module defines before it.
          const own = this.definedGlobals[x - this.importedGlobals];
          if (x >= this.importedGlobals && own !== undefined && !own.type.mutable) {
            this.requireFeature(Feature.ConstantGlobals, `global.get ${x}`, at, `unknown global ${x}`);
          }
          out.push(mkInstr(op, x, 0));
          break;
        }
        case 0xfd: {
          if (this.u32() === 12) {
            this.requireFeature(Feature.Simd, `v128.const, opcode ${formatOpcode(0xfd, 12)}`, at);
            const a = this.fixed32();
            const b = this.fixed32();
            const c = this.fixed32();
            const d = this.fixed32();
            out.push({ op: V128_CONST_OP, a, b, c, d });
            break;
          }
          this.pos = at;
          this.nonConstant(at);
          return out;
        }
        default: {
          if (EXTENDED_CONST_OPS.has(op)) {
            // Extended constant expressions: an operator without immediates, typed by the validator.
            if (this.features.has(Feature.ExtendedConst)) {
              out.push(mkInstr(op, 0, 0));
              break;
            }
            const detail = `${SINGLE_BYTE[op]!.name}, opcode ${formatOpcode(op)}, in a constant expression`;
            this.defer(refuseValidation(Feature.ExtendedConst, detail, at, 'constant expression required'));
          }
          this.pos = at;
          this.nonConstant(at);
          return out;
        }
      }
    }
  }

  /**
   * A non-constant instruction starts at `at` (the cursor is on it): remember the validation
   * error, then skip the rest of the expression, checking that it is well formed.
   */
  nonConstant(at: number): void {
    this.defer(new ValidationError('constant expression required', at));
    skipInstructions(this, this.features);
  }
}

/** Decodes a binary module. Throws DecodeError (malformed) or ValidationError (see above). */
/** Decodes a whole module at once (see decodeModuleInSteps). */
export function decodeModule(bytes: Uint8Array, features: FeatureSet = ALL_FEATURES): ModuleIR {
  return runSteps(decodeModuleInSteps(bytes, features));
}

/** Items of a section (types, imports, bodies, segments, ...) to decode between two steps. */
const ITEMS_PER_STEP = 1024;

/**
 * Decodes a module in steps (steps.ts): it yields after every section and every
 * ITEMS_PER_STEP items of a section, so that decoding a large module can share the event loop.
 */
export function* decodeModuleInSteps(bytes: Uint8Array, features: FeatureSet = ALL_FEATURES): Steps<ModuleIR> {
  const d = new Decoder(bytes, features);
  const len = bytes.length;

  // Header.
  if (len < 4) d.eof(len);
  if (bytes[0] !== 0x00 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    d.fail('magic header not detected', 0);
  }
  if (len < 8) d.eof(len);
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    d.fail('unknown binary version', 4);
  }
  d.pos = 8;

  const types: FuncType[] = [];
  const imports: Import[] = [];
  let functions: number[] = [];
  const tables: Table[] = [];
  const memories: MemoryType[] = [];
  const tags: number[] = [];
  const globals: Global[] = [];
  d.definedGlobals = globals;
  const exports: Export[] = [];
  let start: number | null = null;
  const elements: ElemSegment[] = [];
  const data: DataSegment[] = [];
  let dataCount: number | null = null;
  let codes: FunctionBody[] = [];
  const customSections: CustomSection[] = [];

  let lastRank = 0;
  while (d.pos < len) {
    const idAt = d.pos;
    const id = bytes[idAt]!;
    if (id === SEC_TAG && !features.has(Feature.ExceptionHandling)) {
      throw refuseDecode(Feature.ExceptionHandling, 'section id 13, the tag section', idAt, 'malformed section id');
    }
    if (id > SEC_TAG) d.fail('malformed section id', idAt);
    if (id !== SEC_CUSTOM) {
      const rank = SECTION_RANK[id]!;
      if (rank <= lastRank) d.fail('unexpected content after last section', idAt);
      lastRank = rank;
    }
    d.pos = idAt + 1;
    const size = d.length();
    const contentStart = d.pos;
    const sectionEnd = contentStart + size;

    switch (id) {
      case SEC_CUSTOM: {
        const name = d.name();
        if (d.pos > sectionEnd) d.fail('unexpected end of section or function', sectionEnd);
        customSections.push({ name, bytes: bytes.subarray(d.pos, sectionEnd) });
        d.pos = sectionEnd;
        break;
      }
      case SEC_TYPE: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          types.push(d.funcType());
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_IMPORT: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          const module = d.name();
          const name = d.name();
          const kindAt = d.pos;
          const kind = d.u8();
          let desc: ImportDesc;
          switch (kind) {
            case 0:
              desc = { kind: 'func', typeIndex: d.u32() };
              break;
            case 1:
              desc = { kind: 'table', type: d.tableType() };
              break;
            case 2:
              desc = { kind: 'memory', type: d.memoryType() };
              break;
            case 3:
              desc = { kind: 'global', type: d.globalType() };
              d.importedGlobals++;
              break;
            case 4:
              if (!features.has(Feature.ExceptionHandling)) {
                throw refuseDecode(Feature.ExceptionHandling, 'import kind 4, a tag', kindAt, 'malformed import kind');
              }
              desc = { kind: 'tag', typeIndex: d.tagType() };
              break;
            default:
              return d.fail('malformed import kind', kindAt);
          }
          imports.push({ module, name, desc });
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_FUNCTION: {
        const n = d.length();
        functions = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          functions[i] = d.u32();
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_TABLE: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          if (d.pos < sectionEnd && bytes[d.pos] === 0x40) {
            const at = d.pos;
            if (!features.has(Feature.TableInitializers)) {
              throw refuseDecode(Feature.TableInitializers, 'a table with an initializer expression, 0x40', at);
            }
            d.pos++;
            if (d.u8() !== 0x00) d.fail('malformed table', at + 1);
            const type = d.tableType();
            tables.push({ ...type, init: d.constExpr() });
          } else {
            tables.push(d.tableType());
          }
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_MEMORY: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          memories.push(d.memoryType());
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_TAG: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          tags.push(d.tagType());
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_GLOBAL: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          const type = d.globalType();
          globals.push({ type, init: d.constExpr() });
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_EXPORT: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          const name = d.name();
          const kindAt = d.pos;
          const kind = d.u8();
          if (kind === 4 && !features.has(Feature.ExceptionHandling)) {
            throw refuseDecode(Feature.ExceptionHandling, 'export kind 4, a tag', kindAt, 'malformed export kind');
          }
          if (kind > 4) d.fail('malformed export kind', kindAt);
          exports.push({ name, kind: EXTERN_KINDS[kind]!, index: d.u32() });
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_START:
        start = d.u32();
        break;
      case SEC_ELEMENT: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          elements.push(decodeElemSegment(d));
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_DATACOUNT:
        dataCount = d.u32();
        break;
      case SEC_CODE: {
        const n = d.length();
        codes = new Array<FunctionBody>(n);
        for (let i = 0; i < n; i++) {
          codes[i] = decodeBody(d, sectionEnd);
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
      case SEC_DATA: {
        const n = d.length();
        for (let i = 0; i < n; i++) {
          data.push(decodeDataSegment(d));
          if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
        }
        break;
      }
    }
    if (d.pos !== sectionEnd) d.fail('section size mismatch', contentStart);
    yield;
  }

  // The reference interpreter's order of the checks that need the whole module.
  if (functions.length !== codes.length) {
    d.fail('function and code section have inconsistent lengths', len);
  }
  if (dataCount !== null && dataCount !== data.length) {
    d.fail('data count and data section have inconsistent lengths', len);
  }
  if (d.deferred !== null) throw d.deferred;

  let names: ReturnType<typeof decodeNames> = { moduleName: null, functionNames: new Map() };
  for (const c of customSections) {
    if (c.name === 'name') {
      names = decodeNames(c.bytes);
      break;
    }
  }

  return {
    bytes,
    types,
    imports,
    functions,
    tables,
    memories,
    tags,
    globals,
    exports,
    start,
    elements,
    data,
    dataCount,
    codes,
    customSections,
    functionNames: names.functionNames,
    moduleName: names.moduleName,
  };
}

function funcIndexVector(d: Decoder): ConstExpr[] {
  const n = d.length();
  const init: ConstExpr[] = new Array<ConstExpr>(n);
  for (let i = 0; i < n; i++) init[i] = [mkInstr(0xd2, d.u32(), 0)];
  return init;
}

function exprVector(d: Decoder): ConstExpr[] {
  const n = d.length();
  const init: ConstExpr[] = new Array<ConstExpr>(n);
  for (let i = 0; i < n; i++) init[i] = d.constExpr();
  return init;
}

function elemKind(d: Decoder): ValType {
  const at = d.pos;
  if (d.u8() !== 0x00) d.fail('malformed element kind', at);
  return FUNCREF;
}

function decodeElemSegment(d: Decoder): ElemSegment {
  const flagsAt = d.pos;
  const flags = d.u32();
  switch (flags) {
    case 0: {
      const offset = d.constExpr();
      return { mode: 'active', table: 0, offset, elemType: FUNCREF, init: funcIndexVector(d) };
    }
    case 1: {
      const elemType = elemKind(d);
      return { mode: 'passive', table: 0, offset: null, elemType, init: funcIndexVector(d) };
    }
    case 2: {
      const table = d.u32();
      const offset = d.constExpr();
      const elemType = elemKind(d);
      return { mode: 'active', table, offset, elemType, init: funcIndexVector(d) };
    }
    case 3: {
      const elemType = elemKind(d);
      return { mode: 'declarative', table: 0, offset: null, elemType, init: funcIndexVector(d) };
    }
    case 4: {
      const offset = d.constExpr();
      return { mode: 'active', table: 0, offset, elemType: FUNCREF, init: exprVector(d) };
    }
    case 5: {
      const elemType = d.refType();
      return { mode: 'passive', table: 0, offset: null, elemType, init: exprVector(d) };
    }
    case 6: {
      const table = d.u32();
      const offset = d.constExpr();
      const elemType = d.refType();
      return { mode: 'active', table, offset, elemType, init: exprVector(d) };
    }
    case 7: {
      const elemType = d.refType();
      return { mode: 'declarative', table: 0, offset: null, elemType, init: exprVector(d) };
    }
    default:
      return d.fail('malformed elements segment kind', flagsAt);
  }
}

function decodeDataSegment(d: Decoder): DataSegment {
  const flagsAt = d.pos;
  const flags = d.u32();
  let mode: 'active' | 'passive' = 'active';
  let memory = 0;
  let offset: ConstExpr | null = null;
  switch (flags) {
    case 0:
      offset = d.constExpr();
      break;
    case 1:
      mode = 'passive';
      break;
    case 2:
      memory = d.u32();
      offset = d.constExpr();
      break;
    default:
      d.fail('malformed data segment kind', flagsAt);
  }
  const n = d.length();
  const bytes = d.bytes.subarray(d.pos, d.pos + n);
  d.pos += n;
  return { mode, memory, offset, bytes };
}

function decodeBody(d: Decoder, sectionEnd: number): FunctionBody {
  const size = d.length();
  const bodyStart = d.pos;
  const bodyEnd = bodyStart + size;
  d.end = bodyEnd;

  const groupsAt = d.pos;
  const groups = d.length();
  let locals: ValType[] | readonly ValType[] = EMPTY_LOCALS;
  if (groups !== 0) {
    // First pass: sum the counts (each group is at least two bytes), rejecting early.
    let total = 0;
    const groupsStart = d.pos;
    for (let i = 0; i < groups; i++) {
      total += d.u32();
      if (total > MAX_FUNCTION_LOCALS) d.fail('too many locals', groupsAt);
      d.valType();
    }
    d.moduleLocals += total;
    if (d.moduleLocals > MAX_MODULE_LOCALS) d.fail(`too many locals: the module declares more than ${MAX_MODULE_LOCALS} in all`, groupsAt);
    if (total !== 0) {
      const expanded = new Array<ValType>(total);
      d.pos = groupsStart;
      let k = 0;
      for (let i = 0; i < groups; i++) {
        const count = d.u32();
        const t = d.valType();
        for (let j = 0; j < count; j++) expanded[k++] = t;
      }
      locals = expanded;
    }
  }

  const codeStart = d.pos;
  if (codeStart >= bodyEnd || d.bytes[bodyEnd - 1] !== 0x0b) {
    // The body's last instruction must be its `end`. Word the error as the reference
    // interpreter would, which decodes straight on past the body's declared end.
    const msg =
      bodyEnd === d.len
        ? 'unexpected end of section or function'
        : bodyEnd === sectionEnd
          ? 'section size mismatch'
          : 'END opcode expected';
    d.fail(msg, codeStart >= bodyEnd ? bodyEnd : bodyEnd - 1);
  }
  d.pos = bodyEnd;
  d.end = d.len;
  return { locals, codeStart, codeEnd: bodyEnd };
}

/**
 * The function-names subsection of a `name` custom section. Best effort: a malformed name
 * section never fails the module; whatever cannot be decoded is ignored.
 */
/**
 * The module's name (subsection 0) and its functions' names (subsection 1) from a `name`
 * custom section; what is malformed is left out (the section is advisory).
 */
function decodeNames(payload: Uint8Array): { moduleName: string | null; functionNames: ReadonlyMap<number, string> } {
  let moduleName: string | null = null;
  let functionNames = new Map<number, string>();
  const d = new Decoder(payload, ALL_FEATURES);
  try {
    while (d.pos < payload.length) {
      d.end = payload.length;
      const id = d.u8();
      const size = d.length();
      const subEnd = d.pos + size;
      d.end = subEnd;
      if (id === 0) moduleName = d.name();
      else if (id === 1) {
        const names = new Map<number, string>();
        const n = d.length();
        for (let i = 0; i < n; i++) {
          const index = d.u32();
          names.set(index, d.name());
        }
        if (d.pos === subEnd) functionNames = names;
      }
      d.pos = subEnd;
    }
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
  return { moduleName, functionNames };
}
