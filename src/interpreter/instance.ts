/**
 * Instantiation: resolving and checking imports, allocating an instance's functions, tables,
 * memory and globals in a store, and applying its active segments.
 */
import { LinkError, Trap, TrapKind } from './errors.js';
import type { CompiledModule } from './module.js';
import {
  type ExternVal, FuncInst, GlobalInst, MemoryInst, NULL_REF, type Store, TableInst, TagInst,
} from './store.js';
import { type ConstExpr, type ConstInstr, type Import, type Limits, sameFuncType, V128_CONST_OP } from './types.js';
import { FuncRef } from './values.js';
import { WorkMeter, type WorkSink } from './pieces.js';
import { runSteps, type Steps } from './steps.js';
import { i64Mul } from './numeric.js';

export class Instance {
  /** Store function id of each function index. */
  readonly funcIds: Int32Array;
  /** Store signature id of each type index. */
  readonly sigIds: Int32Array;
  /** Memory 0, the one the dispatch loop keeps at hand (null without memories). */
  memory: MemoryInst | null = null;
  /** All memories by index, imports first (multi-memory). */
  readonly memories: MemoryInst[] = [];
  readonly tables: TableInst[] = [];
  readonly globals: GlobalInst[] = [];
  /** Exception tags by index, imports first. */
  readonly tags: TagInst[] = [];
  /** Passive data segments still available to memory.init (dropped ones are empty). */
  readonly dataSegments: Uint8Array[];
  /** Element segments as engine references (dropped ones are empty). */
  readonly elemSegments: Int32Array[] = [];
  /** `exports`, made when first asked for: a run looks up the one export it calls (exported()). */
  private exportMap: Map<string, ExternVal> | null = null;
  startFunction: FuncRef | null = null;
  /** Position in `store.instances`; frames record it to find their instance again. */
  readonly id: number;

  /** Every export's value, by name. */
  get exports(): ReadonlyMap<string, ExternVal> {
    if (this.exportMap === null) {
      this.exportMap = new Map();
      for (const e of this.module.ir.exports) this.exportMap.set(e.name, exportedValue(this, e.kind, e.index));
    }
    return this.exportMap;
  }

  /** The value of the export named `name`, or undefined. */
  exported(name: string): ExternVal | undefined {
    const e = this.module.exportNamed(name);
    return e === undefined ? undefined : exportedValue(this, e.kind, e.index);
  }

  /** The module's code (replaced by a longer array when a function is translated on its first call). */
  get code(): Int32Array {
    return this.module.functions.code;
  }

  constructor(readonly store: Store, readonly module: CompiledModule) {
    this.funcIds = new Int32Array(module.funcTypes.length);
    this.sigIds = new Int32Array(module.typeKeys.length);
    for (let i = 0; i < module.typeKeys.length; i++) this.sigIds[i] = store.signatureIdOfKey(module.typeKeys[i]!);
    this.dataSegments = module.ir.data.map((d) => d.bytes);
    this.id = store.instances.length;
    store.instances.push(this);
  }
}

export type ImportResolver = (imp: Import) => ExternVal | undefined;

/** Instantiates `module` at once: the engine API (see instantiateInSteps). */
export function instantiate(store: Store, module: CompiledModule, resolve: ImportResolver): Instance {
  return runSteps(instantiateInSteps(store, module, resolve));
}

/** How many segments, or elements of a segment's list, to go through between two steps. */
const ITEMS_PER_STEP = 1024;

/**
 * Instantiation as a generator that yields between pieces of its work: every
 * ITEMS_PER_STEP segments or elements, and between the pieces of a large segment's copy
 * (pieces.ts). Its work is proportional to the module's size and to the memory and tables it
 * declares, so a caller that looks at the clock at each step (the sandbox does) can keep the
 * event loop and the run's deadline.
 */
export function* instantiateInSteps(store: Store, module: CompiledModule, resolve: ImportResolver): Steps<Instance> {
  const ir = module.ir;
  const imported = ir.imports.map((imp) => {
    const value = resolve(imp);
    if (value === undefined) throw new LinkError(`unknown import: ${imp.module}::${imp.name}`);
    checkImport(store, module, imp, value);
    return value;
  });

  const inst = new Instance(store, module);
  let funcIndex = 0;
  for (const value of imported) {
    if (value instanceof FuncRef) inst.funcIds[funcIndex++] = value.id;
    else if (value instanceof TableInst) inst.tables.push(value);
    else if (value instanceof MemoryInst) inst.memories.push(value);
    else if (value instanceof TagInst) inst.tags.push(value);
    else inst.globals.push(value);
  }
  const defined = module.ir.functions;
  for (let i = 0; i < defined.length; i++) {
    const index = module.numImportedFuncs + i;
    const sig = inst.sigIds[defined[i]!]!;
    inst.funcIds[index] = store.addFunction(new FuncInst(module.funcTypes[index]!, sig, inst, index, null));
    if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
  }
  const scratch: Words = { lo: 0, hi: 0, w2: 0, w3: 0 };
  for (const t of ir.tables) {
    let init = NULL_REF;
    if (t.init !== undefined) {
      evalConst(inst, t.init, scratch);
      init = scratch.lo;
    }
    inst.tables.push(new TableInst(store, t, init));
  }
  for (const m of ir.memories) inst.memories.push(new MemoryInst(store, m));
  inst.memory = inst.memories[0] ?? null;
  for (const t of ir.tags) inst.tags.push(new TagInst(ir.types[t]!));
  for (const g of ir.globals) {
    const global = new GlobalInst(store, g.type);
    evalConst(inst, g.init, global);
    inst.globals.push(global);
  }
  yield;
  for (const seg of ir.elements) {
    const refs = new Int32Array(seg.init.length);
    for (let i = 0; i < refs.length; i++) {
      evalConst(inst, seg.init[i]!, scratch);
      refs[i] = scratch.lo;
      if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
    }
    inst.elemSegments.push(refs);
  }
  const meter = new WorkMeter();
  for (let i = 0; i < ir.elements.length; i++) {
    const seg = ir.elements[i]!;
    if (seg.mode === 'active') {
      evalConst(inst, seg.offset!, scratch);
      // A 64-bit offset of 2^32 or more is past any table this engine makes.
      if (scratch.hi !== 0 && inst.tables[seg.table]!.type.is64 === true) throw new Trap(TrapKind.TableOutOfBounds);
      initTable(inst, seg.table, i, scratch.lo >>> 0, 0, seg.init.length, meter);
      yield* paced(meter, i);
    }
    if (seg.mode !== 'passive') inst.elemSegments[i] = EMPTY_REFS;
  }
  for (let i = 0; i < ir.data.length; i++) {
    const seg = ir.data[i]!;
    if (seg.mode !== 'active') continue;
    evalConst(inst, seg.offset!, scratch);
    // A 64-bit offset of 2^32 or more is past any memory this engine makes.
    if (scratch.hi !== 0 && inst.memories[seg.memory]!.type.is64 === true) throw new Trap(TrapKind.MemoryOutOfBounds);
    initMemory(inst, seg.memory, i, scratch.lo >>> 0, 0, seg.bytes.length, meter);
    inst.dataSegments[i] = EMPTY_BYTES;
    yield* paced(meter, i);
  }
  if (ir.start !== null) inst.startFunction = new FuncRef(inst.funcIds[ir.start]!);
  return inst;
}

/** Yields while the `index`th segment's work goes on in pieces, and every ITEMS_PER_STEP segments. */
function* paced(meter: WorkMeter, index: number): Steps<void> {
  while (!meter.continuePending()) yield;
  if (meter.due || index % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) {
    meter.reset();
    yield;
  }
}

const EMPTY_REFS = new Int32Array(0);
const EMPTY_BYTES = new Uint8Array(0);

/** table.init: copies `n` references of element segment `seg` from `s` to table `t` at `d`. */
export function initTable(inst: Instance, t: number, seg: number, d: number, s: number, n: number, sink: WorkSink): void {
  const table = inst.tables[t]!;
  const refs = inst.elemSegments[seg]!;
  if (s + n > refs.length || d + n > table.size) throw new Trap(TrapKind.TableOutOfBounds);
  sink.copy(table.elements, d, refs, s, n);
}

/** memory.init: copies `n` bytes of data segment `seg` from `s` to memory `mem` at `d`. */
export function initMemory(inst: Instance, mem: number, seg: number, d: number, s: number, n: number, sink: WorkSink): void {
  const bytes = inst.dataSegments[seg]!;
  const memory = inst.memories[mem]!;
  if (s + n > bytes.length || d + n > memory.size) throw new Trap(TrapKind.MemoryOutOfBounds);
  sink.copy(memory.bytes, d, bytes, s, n);
}

function exportedValue(inst: Instance, kind: string, index: number): ExternVal {
  switch (kind) {
    case 'func': return new FuncRef(inst.funcIds[index]!);
    case 'table': return inst.tables[index]!;
    case 'memory': return inst.memories[index]!;
    case 'tag': return inst.tags[index]!;
    default: return inst.globals[index]!;
  }
}

/** A constant expression's value as words: i64/f64 in lo and hi, a v128 in all four. */
interface Words {
  lo: number;
  hi: number;
  w2: number;
  w3: number;
}

/**
 * Evaluates a validated constant expression into `out`. A single instruction (all that 2.0
 * has, and every element of a segment's init) is read directly; a longer one is an extended
 * constant expression, run as a stack program on `constStack` (see evalConstSequence).
 */
function evalConst(inst: Instance, expr: ConstExpr, out: Words): void {
  if (expr.length === 1) evalConstInstr(inst, expr[0]!, out);
  else evalConstSequence(inst, expr, out);
}

/** The value of one constant instruction (not an operator) into `out`. */
function evalConstInstr(inst: Instance, c: ConstInstr, out: Words): void {
  out.w2 = 0;
  out.w3 = 0;
  switch (c.op) {
    case 0x23: {
      const g = inst.globals[c.a]!;
      out.lo = g.lo;
      out.hi = g.hi;
      out.w2 = g.w2;
      out.w3 = g.w3;
      return;
    }
    case 0xd0:
      out.lo = NULL_REF;
      out.hi = 0;
      return;
    case 0xd2:
      out.lo = inst.funcIds[c.a]!;
      out.hi = 0;
      return;
    case V128_CONST_OP:
      out.lo = c.a;
      out.hi = c.b;
      out.w2 = c.c!;
      out.w3 = c.d!;
      return;
    default: // i32/i64/f32/f64.const carry their bits in a and b
      out.lo = c.a;
      out.hi = c.b;
  }
}

/**
 * The operand stack of evalConstSequence: entry k is the words 4k..4k+3 (an i32 in the
 * first, an i64 in the first two as in numeric.ts's slots). Grown on demand; evaluation calls
 * nothing that could re-enter it.
 */
let constStack = new Int32Array(64);

/**
 * Evaluates an extended constant expression: i32/i64 add, sub and mul (wrapping, on 32-bit
 * halves, i64.mul by numeric.ts's i64Mul) over constants and imported globals. Validation
 * guarantees that every operator finds two operands of its type and that one value is left;
 * an i32 result has a zero high word, as i32.const's has.
 */
function evalConstSequence(inst: Instance, expr: ConstExpr, out: Words): void {
  if (constStack.length < 4 * expr.length) constStack = new Int32Array(4 * expr.length);
  const s = constStack;
  let sp = 0; // index of the next free entry's first word
  for (const c of expr) {
    const a = sp - 8; // first operand of a binary operator; the second is at sp - 4
    const b = sp - 4;
    switch (c.op) {
      case 0x6a: // i32.add
        s[a] = (s[a]! + s[b]!) | 0;
        sp = b;
        break;
      case 0x6b: // i32.sub
        s[a] = (s[a]! - s[b]!) | 0;
        sp = b;
        break;
      case 0x6c: // i32.mul
        s[a] = Math.imul(s[a]!, s[b]!);
        sp = b;
        break;
      case 0x7c: { // i64.add
        const alo = s[a]!;
        const lo = (alo + s[b]!) | 0;
        const carry = (lo >>> 0) < (alo >>> 0) ? 1 : 0;
        s[a + 1] = (s[a + 1]! + s[b + 1]! + carry) | 0;
        s[a] = lo;
        sp = b;
        break;
      }
      case 0x7d: { // i64.sub
        const alo = s[a]!;
        const blo = s[b]!;
        const borrow = (alo >>> 0) < (blo >>> 0) ? 1 : 0;
        s[a + 1] = (s[a + 1]! - s[b + 1]! - borrow) | 0;
        s[a] = (alo - blo) | 0;
        sp = b;
        break;
      }
      case 0x7e: // i64.mul
        i64Mul(s, a, a, b);
        sp = b;
        break;
      default: {
        // A constant or global.get, as a single-instruction expression.
        evalConstInstr(inst, c, constWords);
        s[sp] = constWords.lo;
        s[sp + 1] = constWords.hi;
        s[sp + 2] = constWords.w2;
        s[sp + 3] = constWords.w3;
        sp += 4;
      }
    }
  }
  out.lo = s[0]!;
  out.hi = s[1]!;
  out.w2 = s[2]!;
  out.w3 = s[3]!;
}

/** evalConstSequence's scratch for one constant. */
const constWords: Words = { lo: 0, hi: 0, w2: 0, w3: 0 };

function checkImport(store: Store, module: CompiledModule, imp: Import, value: ExternVal): void {
  const d = imp.desc;
  const where = `${imp.module}::${imp.name}`;
  const mismatch = (why: string): never => {
    throw new LinkError(`incompatible import type for ${where}: ${why}`);
  };
  switch (d.kind) {
    case 'func': {
      if (!(value instanceof FuncRef)) return mismatch('expected a function');
      const actual = value.id === NULL_REF ? undefined : store.funcs[value.id];
      if (actual === undefined) return mismatch('function from another store');
      if (!sameFuncType(actual.type, module.ir.types[d.typeIndex]!)) return mismatch('function types differ');
      return;
    }
    case 'table':
      if (!(value instanceof TableInst)) return mismatch('expected a table');
      if (value.type.elemType !== d.type.elemType) return mismatch('element types differ');
      if ((value.type.is64 === true) !== (d.type.is64 === true)) return mismatch('index types differ');
      if (!limitsMatch(value.size, value.type.limits.max, d.type.limits)) return mismatch('table limits do not match');
      return;
    case 'memory':
      if (!(value instanceof MemoryInst)) return mismatch('expected a memory');
      if ((value.type.is64 === true) !== (d.type.is64 === true)) return mismatch('address types differ');
      if ((value.type.shared === true) !== (d.type.shared === true)) return mismatch('sharedness differs');
      if (!limitsMatch(value.pages, value.type.limits.max, d.type.limits)) return mismatch('memory limits do not match');
      return;
    case 'tag':
      if (!(value instanceof TagInst)) return mismatch('expected a tag');
      if (!sameFuncType(value.type, module.ir.types[d.typeIndex]!)) return mismatch('tag types differ');
      return;
    case 'global':
      if (!(value instanceof GlobalInst)) return mismatch('expected a global');
      if (value.type.valType !== d.type.valType || value.type.mutable !== d.type.mutable) return mismatch('global types differ');
  }
}

function limitsMatch(size: number, max: number | null, wanted: Limits): boolean {
  if (size < wanted.min) return false;
  if (wanted.max === null) return true;
  return max !== null && max <= wanted.max;
}
