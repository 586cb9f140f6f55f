/**
 * The decoded form of a WebAssembly 2.0 module: what the decoder produces and the
 * validator, compiler and linker consume. Plain data, no behaviour.
 *
 * Value types are kept as their binary encoding bytes so that the decoder can pass them
 * through unchanged and tables of them stay small.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
export const FUNCREF = 0x70;
export const EXTERNREF = 0x6f;
/** A reference to an exception (exception handling), or null. */
export const EXNREF = 0x69;

/** One of the constants above. */
export type ValType = number;

export function isRefType(t: ValType): boolean {
  return t === FUNCREF || t === EXTERNREF || t === EXNREF;
}

/**
 * Words (32-bit) a value of type `t` takes in a frame: 4 for a v128, 2 (one 64-bit slot) for
 * everything else. Frames lay values out by type, so a caller's row of arguments and a
 * callee's parameters agree whichever modules they come from.
 */
export function valueWords(t: ValType): number {
  return t === V128 ? 4 : 2;
}

/**
 * The words of a row of values of `types` (laid out by valueWords) that mean nothing: the high
 * word of each i32 and f32, which no instruction reads. A mask, bit k for word k (words past
 * 30 are never marked): what the JavaScript tier need not pass in a call's arguments or results.
 */
export function idleWordMask(types: readonly ValType[]): number {
  let mask = 0;
  let word = 0;
  for (const t of types) {
    if ((t === I32 || t === F32) && word + 1 <= 30) mask |= 1 << (word + 1);
    word += valueWords(t);
  }
  return mask;
}

/** The words a row of values of `types` takes, laid out by valueWords. */
export function rowWords(types: readonly ValType[]): number {
  let words = 0;
  for (const t of types) words += valueWords(t);
  return words;
}

export function valTypeName(t: ValType): string {
  switch (t) {
    case I32: return 'i32';
    case I64: return 'i64';
    case F32: return 'f32';
    case F64: return 'f64';
    case V128: return 'v128';
    case FUNCREF: return 'funcref';
    case EXTERNREF: return 'externref';
    case EXNREF: return 'exnref';
    default: return `<0x${t.toString(16)}>`;
  }
}

export interface FuncType {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

export function sameFuncType(a: FuncType, b: FuncType): boolean {
  return a.params.length === b.params.length && a.results.length === b.results.length
    && a.params.every((t, i) => t === b.params[i]) && a.results.every((t, i) => t === b.results[i]);
}

/** Limits in pages (memories) or elements (tables); `max` is null when absent. */
export interface Limits {
  readonly min: number;
  readonly max: number | null;
}

export interface TableType {
  readonly elemType: ValType;
  readonly limits: Limits;
  /** Indexed by i64 (memory64's table64); absent or false: by i32. */
  readonly is64?: boolean;
}

/** A table the module defines: its type, and the value its elements start with (3.0), if given. */
export interface Table extends TableType {
  readonly init?: ConstExpr;
}

export interface MemoryType {
  readonly limits: Limits;
  /** Addressed by i64 (memory64); absent or false: by i32. */
  readonly is64?: boolean;
  /** Shared (threads); absent or false: not. One agent runs here, so only atomics' waits differ. */
  readonly shared?: boolean;
}

/** The type of a memory's addresses or a table's indices: i64 with memory64, else i32. */
export function addressType(t: { readonly is64?: boolean }): ValType {
  return t.is64 === true ? I64 : I32;
}

export interface GlobalType {
  readonly valType: ValType;
  readonly mutable: boolean;
}

export type ExternKind = 'func' | 'table' | 'memory' | 'global' | 'tag';

export type ImportDesc =
  | { readonly kind: 'func'; readonly typeIndex: number }
  | { readonly kind: 'table'; readonly type: TableType }
  | { readonly kind: 'memory'; readonly type: MemoryType }
  | { readonly kind: 'global'; readonly type: GlobalType }
  /** An exception tag (exception handling): the type of its payload (results empty). */
  | { readonly kind: 'tag'; readonly typeIndex: number };

export interface Import {
  readonly module: string;
  readonly name: string;
  readonly desc: ImportDesc;
}

export interface Export {
  readonly name: string;
  readonly kind: ExternKind;
  readonly index: number;
}

/**
 * One instruction of a constant expression. Operands are 32-bit halves so that no BigInt is
 * needed anywhere in the engine:
 * - 0x41 i32.const: a = value
 * - 0x42 i64.const: a = low 32 bits, b = high 32 bits
 * - 0x43 f32.const: a = bit pattern
 * - 0x44 f64.const: a = low 32 bits of the pattern, b = high 32 bits
 * - 0xd0 ref.null:  a = reference type
 * - 0xd2 ref.func:  a = function index
 * - 0x23 global.get: a = global index
 * - 0xfd0c v128.const (V128_CONST_OP): a, b, c, d = the four 32-bit lanes, lowest first
 * - 0x6a/0x6b/0x6c i32.add/sub/mul, 0x7c/0x7d/0x7e i64.add/sub/mul (extended constant
 *   expressions, only when the compile accepts Feature.ExtendedConst): no operands (a = b = 0)
 * The terminating `end` is not included. A ConstExpr is a stack program: in WebAssembly 2.0
 * one instruction, with extended constant expressions operands before their operator, e.g.
 * `global.get 0; i32.const 4; i32.add`. Any other opcode is reported by the decoder as a
 * validation error ("constant expression required").
 */
export interface ConstInstr {
  readonly op: number;
  readonly a: number;
  readonly b: number;
  /** Bits 64..95 of a v128.const (0 for every other instruction). */
  readonly c?: number;
  /** Bits 96..127 of a v128.const (0 for every other instruction). */
  readonly d?: number;
}

/** ConstInstr.op of `v128.const` (the 0xfd prefix and sub-opcode 12). */
export const V128_CONST_OP = 0xfd0c;

export type ConstExpr = readonly ConstInstr[];

export interface Global {
  readonly type: GlobalType;
  readonly init: ConstExpr;
}

export type SegmentMode = 'active' | 'passive' | 'declarative';

export interface ElemSegment {
  readonly mode: SegmentMode;
  /** Table index (active segments only; 0 otherwise). */
  readonly table: number;
  /** Offset expression (active segments only). */
  readonly offset: ConstExpr | null;
  readonly elemType: ValType;
  /** One expression per element; a plain function-index vector becomes `ref.func` items. */
  readonly init: readonly ConstExpr[];
}

export interface DataSegment {
  readonly mode: 'active' | 'passive';
  readonly memory: number;
  readonly offset: ConstExpr | null;
  readonly bytes: Uint8Array;
}

export interface FunctionBody {
  /** Declared locals, expanded (params not included). */
  readonly locals: readonly ValType[];
  /** Byte offsets into the module bytes: the instruction sequence, its final `end` included. */
  readonly codeStart: number;
  readonly codeEnd: number;
}

export interface CustomSection {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface ModuleIR {
  /** The whole binary; function bodies are ranges of it. */
  readonly bytes: Uint8Array;
  readonly types: readonly FuncType[];
  readonly imports: readonly Import[];
  /** Type index of each function defined in the module (function section). */
  readonly functions: readonly number[];
  readonly tables: readonly Table[];
  readonly memories: readonly MemoryType[];
  /** Type index of each tag defined in the module (exception handling's tag section). */
  readonly tags: readonly number[];
  readonly globals: readonly Global[];
  readonly exports: readonly Export[];
  readonly start: number | null;
  readonly elements: readonly ElemSegment[];
  readonly data: readonly DataSegment[];
  /** The data count section's value, null when the section is absent. */
  readonly dataCount: number | null;
  readonly codes: readonly FunctionBody[];
  readonly customSections: readonly CustomSection[];
  /** Function names from the `name` custom section, when present and well formed. */
  readonly functionNames: ReadonlyMap<number, string>;
  /** The module's name from the `name` custom section, or null. */
  readonly moduleName: string | null;
}
