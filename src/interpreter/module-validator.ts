/**
 * Module-level validation (WebAssembly 2.0): every rule that is not about function bodies.
 * Bodies are validated by the compiler, which needs `declaredFunctionRefs` for `ref.func`.
 */
import { ALL_FEATURES, type FeatureSet } from './features.js';
import { Feature, refuseValidation, ValidationError } from './errors.js';
import { EXTENDED_CONST_OPS, SINGLE_BYTE } from './instruction-set.js';
import {
  F32,
  F64,
  FUNCREF,
  I32,
  I64,
  V128,
  V128_CONST_OP,
  type ConstExpr,
  type GlobalType,
  type MemoryType,
  type TableType,
  addressType,
  type Limits,
  type ModuleIR,
  type ValType,
} from './types.js';

/** Largest memory size, in 64 KiB pages (4 GiB). */
export const MAX_MEMORY_PAGES = 65536;

function fail(message: string): never {
  throw new ValidationError(message);
}

/** The parts of the validation context C that constant expressions may look at. */
interface ConstContext {
  readonly funcCount: number;
  /**
   * Types of the globals a constant expression may read: the imported ones, and with
   * Feature.ConstantGlobals those the module defines before it (all of them, for segments).
   */
  readonly readableGlobals: GlobalType[];
}


/** The constant instructions of WebAssembly 2.0 other than `global.get` (0x23). */
const CONSTANT_OPS: ReadonlySet<number> = new Set([0x41, 0x42, 0x43, 0x44, V128_CONST_OP, 0xd0, 0xd2]);

/**
 * Checks that `expr` is a constant expression producing exactly one value of type `t`. As
 * the reference interpreter does, every instruction must be constant ("constant expression
 * required", or "unknown global") before the sequence is typed as a stack program ("type
 * mismatch" for a missing or mistyped operand and for anything but exactly one `t` left).
 */
function checkConstExpr(ctx: ConstContext, expr: ConstExpr, t: ValType): void {
  for (const ins of expr) {
    if (ins.op === 0x23) {
      const g = ctx.readableGlobals[ins.a];
      if (g === undefined) fail(`unknown global ${ins.a >>> 0}`);
      if (g.mutable) fail('constant expression required');
    } else if (!CONSTANT_OPS.has(ins.op) && !EXTENDED_CONST_OPS.has(ins.op)) {
      fail('constant expression required');
    }
  }
  const stack: ValType[] = [];
  for (const ins of expr) {
    switch (ins.op) {
      case 0x41:
        stack.push(I32);
        break;
      case 0x42:
        stack.push(I64);
        break;
      case 0x43:
        stack.push(F32);
        break;
      case 0x44:
        stack.push(F64);
        break;
      case V128_CONST_OP:
        stack.push(V128);
        break;
      case 0xd0:
        stack.push(ins.a);
        break;
      case 0xd2:
        if (ins.a >= ctx.funcCount) fail(`unknown function ${ins.a >>> 0}`);
        stack.push(FUNCREF);
        break;
      case 0x23:
        stack.push(ctx.readableGlobals[ins.a]!.valType);
        break;
      default: {
        // An extended constant operator (the decoder reads one only when the compile accepts
        // the feature), typed by its row: two operands and a result of one type.
        const operand = SINGLE_BYTE[ins.op]!.params![0]!;
        // Both operands are popped (the second first) and the result pushed in place of the first.
        if (stack.pop() !== operand || stack[stack.length - 1] !== operand) fail('type mismatch');
      }
    }
  }
  if (stack.length !== 1 || stack[0] !== t) fail('type mismatch');
}

function checkLimits(l: Limits, range: number, rangeMessage: string): void {
  if (l.min > range) fail(rangeMessage);
  if (l.max !== null) {
    if (l.max > range) fail(rangeMessage);
    if (l.min > l.max) fail('size minimum must not be greater than maximum');
  }
}

const MEMORY_RANGE_MESSAGE = 'memory size must be at most 65536 pages (4GiB)';
const TABLE_RANGE_MESSAGE = 'table size must be at most 2^32-1';
/** memory64: at most 2^48 pages (the address space of 2^64 bytes), as the reference interpreter says. */
const MEMORY64_PAGES = 2 ** 48;
const MEMORY64_RANGE_MESSAGE = 'memory size must be at most 2^48 pages';
const TABLE64_RANGE_MESSAGE = 'table size must be at most 2^64-1';

/** A tag's type: a known function type without results (exception handling). */
function checkTag(m: ModuleIR, typeIndex: number): void {
  const t = m.types[typeIndex];
  if (t === undefined) fail(`unknown type ${typeIndex}`);
  if (t.results.length > 0) fail('non-empty tag result type');
}

function checkMemory(t: MemoryType): void {
  if (t.shared === true && t.limits.max === null) fail('shared memory must have maximum');
  if (t.is64 === true) checkLimits(t.limits, MEMORY64_PAGES, MEMORY64_RANGE_MESSAGE);
  else checkLimits(t.limits, MAX_MEMORY_PAGES, MEMORY_RANGE_MESSAGE);
}

function checkTable(t: TableType): void {
  if (t.is64 === true) checkLimits(t.limits, 2 ** 64, TABLE64_RANGE_MESSAGE);
  else checkLimits(t.limits, 0xffffffff, TABLE_RANGE_MESSAGE);
}

/** Validates everything in `m` except function bodies; throws ValidationError. */
export function validateModule(m: ModuleIR, features: FeatureSet = ALL_FEATURES): void {
  const nTypes = m.types.length;

  // Index spaces: imports first.
  const funcTypes: number[] = [];
  const tables: TableType[] = [];
  const memories: MemoryType[] = [];
  let tagCount = 0;
  const importedGlobals: GlobalType[] = [];

  for (const imp of m.imports) {
    const desc = imp.desc;
    switch (desc.kind) {
      case 'func':
        if (desc.typeIndex >= nTypes) fail(`unknown type ${desc.typeIndex}`);
        funcTypes.push(desc.typeIndex);
        break;
      case 'table':
        checkTable(desc.type);
        tables.push(desc.type);
        break;
      case 'memory':
        checkMemory(desc.type);
        memories.push(desc.type);
        break;
      case 'global':
        importedGlobals.push(desc.type);
        break;
      case 'tag':
        checkTag(m, desc.typeIndex);
        tagCount++;
        break;
    }
  }

  for (const typeIndex of m.functions) {
    if (typeIndex >= nTypes) fail(`unknown type ${typeIndex}`);
    funcTypes.push(typeIndex);
  }
  if (m.codes.length !== m.functions.length) {
    fail('function and code section have inconsistent lengths');
  }
  for (const t of m.tables) {
    checkTable(t);
    tables.push(t);
  }
  for (const mem of m.memories) {
    checkMemory(mem);
    memories.push(mem);
  }
  const memoryCount = memories.length;
  if (tables.length > 1 && !features.has(Feature.MultipleTables)) {
    throw refuseValidation(Feature.MultipleTables, `${tables.length} tables`, -1, 'multiple tables');
  }
  for (const t of m.tags) {
    checkTag(m, t);
    tagCount++;
  }
  // The decoder refuses a second memory at its offset; this is for a ModuleIR made otherwise.
  if (memoryCount > 1 && !features.has(Feature.MultiMemory)) throw refuseValidation(Feature.MultiMemory, `${memoryCount} memories`, -1, 'multiple memories');

  const ctx: ConstContext = { funcCount: funcTypes.length, readableGlobals: [...importedGlobals] };
  // Table initializers come before the module's globals: they may read imported ones only.
  for (const t of m.tables) if (t.init !== undefined) checkConstExpr(ctx, t.init, t.elemType);
  for (const g of m.globals) {
    checkConstExpr(ctx, g.init, g.type.valType);
    if (features.has(Feature.ConstantGlobals)) ctx.readableGlobals.push(g.type);
  }
  const globalCount = importedGlobals.length + m.globals.length;

  for (const seg of m.elements) {
    if (seg.mode === 'active') {
      const table = tables[seg.table];
      if (table === undefined) fail(`unknown table ${seg.table}`);
      if (seg.offset === null) fail('type mismatch');
      checkConstExpr(ctx, seg.offset, addressType(table));
      if (table.elemType !== seg.elemType) fail('type mismatch');
    }
    for (const e of seg.init) checkConstExpr(ctx, e, seg.elemType);
  }

  for (const seg of m.data) {
    if (seg.mode === 'active') {
      const memory = memories[seg.memory];
      if (memory === undefined) fail(`unknown memory ${seg.memory}`);
      if (seg.offset === null) fail('type mismatch');
      checkConstExpr(ctx, seg.offset, addressType(memory));
    }
  }
  if (m.dataCount !== null && m.dataCount !== m.data.length) {
    fail('data count and data section have inconsistent lengths');
  }

  if (m.start !== null) {
    const ti = funcTypes[m.start];
    if (ti === undefined) fail(`unknown function ${m.start}`);
    const ft = m.types[ti]!;
    if (ft.params.length !== 0 || ft.results.length !== 0) fail('start function');
  }

  const names = new Set<string>();
  for (const ex of m.exports) {
    switch (ex.kind) {
      case 'func':
        if (ex.index >= funcTypes.length) fail(`unknown function ${ex.index}`);
        break;
      case 'table':
        if (ex.index >= tables.length) fail(`unknown table ${ex.index}`);
        break;
      case 'memory':
        if (ex.index >= memoryCount) fail(`unknown memory ${ex.index}`);
        break;
      case 'global':
        if (ex.index >= globalCount) fail(`unknown global ${ex.index}`);
        break;
      case 'tag':
        if (ex.index >= tagCount) fail(`unknown tag ${ex.index}`);
        break;
    }
    if (names.has(ex.name)) fail('duplicate export name');
    names.add(ex.name);
  }
}

/**
 * The function indices that `ref.func` may name inside function bodies (the specification's
 * C.refs): every function referenced in a constant expression of an element segment (any
 * mode), a global initialiser or a segment offset, and every exported function.
 */
export function declaredFunctionRefs(m: ModuleIR): Set<number> {
  const refs = new Set<number>();
  const scan = (expr: ConstExpr | null): void => {
    if (expr === null) return;
    for (const ins of expr) if (ins.op === 0xd2) refs.add(ins.a);
  };
  for (const g of m.globals) scan(g.init);
  for (const seg of m.elements) {
    scan(seg.offset);
    for (const e of seg.init) scan(e);
  }
  for (const seg of m.data) scan(seg.offset);
  for (const ex of m.exports) if (ex.kind === 'func') refs.add(ex.index);
  return refs;
}
