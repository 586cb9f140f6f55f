/**
 * Looking at a module without running it: `describe` (what it imports, exports, defines, and
 * which post-MVP features it uses) and `disassemble` (a function's instructions with their byte
 * offsets, as `wasm-objdump -d` lists them — the offsets backtraces and profiles report).
 * Everything is read from the decoded module and, for instructions, from the instruction table
 * (disassemble.ts, body-syntax.ts).
 */
import { disassembleInstructions } from '../interpreter/disassemble.js';
import { readOpcode, readImmediates } from '../interpreter/body-syntax.js';
import { ALL_FEATURES } from '../interpreter/features.js';
import { Feature } from '../interpreter/errors.js';
import type { CompiledModule as EngineModule } from '../interpreter/module.js';
import { ByteReader } from '../interpreter/reader.js';
import { type FuncType, type ModuleIR, type ValType, valTypeName } from '../interpreter/types.js';

export interface ModuleDescription {
  /** From the `name` section, or null. */
  readonly name: string | null;
  readonly imports: ReadonlyArray<{ module: string; name: string; kind: string; type: string }>;
  readonly exports: ReadonlyArray<{ name: string; kind: string; index: number }>;
  readonly functions: ReadonlyArray<{ index: number; name: string | null; type: string; imported: boolean; bodyBytes: number; locals: number }>;
  readonly memories: ReadonlyArray<{ index: number; min: number; max: number | null; shared: boolean; memory64: boolean; imported: boolean }>;
  readonly tables: ReadonlyArray<{ index: number; element: string; min: number; max: number | null; imported: boolean }>;
  readonly globals: ReadonlyArray<{ index: number; type: string; mutable: boolean; imported: boolean }>;
  readonly data: ReadonlyArray<{ index: number; mode: string; bytes: number }>;
  readonly elements: ReadonlyArray<{ index: number; mode: string; count: number }>;
  readonly customSections: ReadonlyArray<{ name: string; bytes: number }>;
  /** The function run at instantiation, or null. */
  readonly start: number | null;
  /** The post-MVP features the module uses (the engine's Feature names), sorted. */
  readonly features: readonly string[];
}

const signature = (t: FuncType): string =>
  `(${t.params.map(valTypeName).join(', ')}) -> (${t.results.map(valTypeName).join(', ')})`;

/** What the module is made of. */
export function describe(module: EngineModule): ModuleDescription {
  const ir = module.ir;
  let imported = { func: 0, table: 0, memory: 0, global: 0 };
  const importList = ir.imports.map((i) => {
    const d = i.desc;
    const type = d.kind === 'func' || d.kind === 'tag' ? signature(ir.types[d.typeIndex]!)
      : d.kind === 'memory' ? `${d.type.limits.min}..${d.type.limits.max ?? ''} pages`
        : d.kind === 'table' ? `${valTypeName(d.type.elemType)} ${d.type.limits.min}..${d.type.limits.max ?? ''}`
          : `${d.type.mutable ? 'mut ' : ''}${valTypeName(d.type.valType)}`;
    if (d.kind !== 'tag') imported = { ...imported, [d.kind]: imported[d.kind] + 1 };
    return { module: i.module, name: i.name, kind: d.kind, type };
  });
  const functions = module.funcTypes.map((t, index) => {
    const body = index >= module.numImportedFuncs ? ir.codes[index - module.numImportedFuncs] : undefined;
    return {
      index,
      name: ir.functionNames.get(index) ?? null,
      type: signature(t),
      imported: body === undefined,
      bodyBytes: body === undefined ? 0 : body.codeEnd - body.codeStart,
      locals: body?.locals.length ?? 0,
    };
  });
  const importedMemories = ir.imports.flatMap((i) => (i.desc.kind === 'memory' ? [i.desc.type] : []));
  const memories = [...importedMemories, ...ir.memories].map((m, index) => ({
    index, min: m.limits.min, max: m.limits.max, shared: m.shared === true, memory64: m.is64 === true, imported: index < importedMemories.length,
  }));
  const tables = module.tableTypes.map((t, index) => ({
    index, element: valTypeName(t.elemType), min: t.limits.min, max: t.limits.max, imported: index < module.numImportedTables,
  }));
  const globals = module.globalTypes.map((g, index) => ({
    index, type: valTypeName(g.valType), mutable: g.mutable, imported: index < module.numImportedGlobals,
  }));
  return {
    name: ir.moduleName,
    imports: importList,
    exports: ir.exports.map((e) => ({ name: e.name, kind: e.kind, index: e.index })),
    functions,
    memories,
    tables,
    globals,
    data: ir.data.map((d, index) => ({ index, mode: d.mode, bytes: d.bytes.length })),
    elements: ir.elements.map((e, index) => ({ index, mode: e.mode, count: e.init.length })),
    customSections: ir.customSections.map((c) => ({ name: c.name, bytes: c.bytes.length })),
    start: ir.start,
    features: featuresUsed(ir, memories, tables.length),
  };
}

/** The features a module's sections and instructions use (what its instruction rows name, and its types). */
function featuresUsed(ir: ModuleIR, memories: ModuleDescription['memories'], tableCount: number): string[] {
  const used = new Set<Feature>();
  if (memories.length > 1) used.add(Feature.MultiMemory);
  if (memories.some((m) => m.memory64)) used.add(Feature.Memory64);
  if (memories.some((m) => m.shared)) used.add(Feature.SharedMemory);
  if (ir.tags.length > 0) used.add(Feature.ExceptionHandling);
  if (tableCount > 1) used.add(Feature.MultipleTables);
  const v128 = (ts: readonly ValType[]): boolean => ts.some((t) => valTypeName(t) === 'v128');
  if (ir.types.some((t) => v128(t.params) || v128(t.results))) used.add(Feature.Simd);
  for (const body of ir.codes) {
    const r = new ByteReader(ir.bytes, body.codeStart, body.codeEnd);
    const scratch: number[] = [];
    while (!r.atEnd) {
      const row = readOpcode(r);
      scratch.length = 0;
      readImmediates(r, row, ALL_FEATURES, scratch);
      if (row.feature !== null) used.add(row.feature);
    }
  }
  return [...used].map(String).sort();
}

/** The index of the function exported as `name`, or else named `name` by the `name` section; undefined when none is. */
export function functionNamed(ir: ModuleIR, name: string): number | undefined {
  return ir.exports.find((e) => e.kind === 'func' && e.name === name)?.index
    ?? [...ir.functionNames].find(([, n]) => n === name)?.[0];
}

/**
 * The instructions of function `index` (or of every defined function) with their byte offsets
 * in the module, indented by block nesting: `  0x62: i32.div_s`.
 */
export function disassemble(module: EngineModule, index?: number): string {
  const ir = module.ir;
  const indices = index === undefined
    ? ir.codes.map((_, i) => i + module.numImportedFuncs)
    : [index];
  const out: string[] = [];
  for (const f of indices) {
    const body = ir.codes[f - module.numImportedFuncs];
    if (body === undefined) throw new RangeError(`disassemble: function ${f} is not defined in the module (${module.numImportedFuncs} imported, ${ir.codes.length} defined)`);
    const name = ir.functionNames.get(f);
    out.push(`func[${f}]${name !== undefined ? ` <${name}>` : ''}: ${signature(module.funcTypes[f]!)}`);
    for (const { offset, text } of disassembleInstructions(ir.bytes, body.codeStart, body.codeEnd)) {
      out.push(`  0x${offset.toString(16).padStart(6, '0')}: ${text}`);
    }
  }
  return out.join('\n');
}

/** A description as the CLI prints it (`sandboxd MODULE --describe`). */
export function formatDescription(d: ModuleDescription): string {
  const range = (min: number, max: number | null): string => `${min}..${max ?? ''}`;
  const lines = [`module ${d.name ?? '<unknown>'}`];
  lines.push(`imports (${d.imports.length}):`, ...d.imports.map((i) => `  ${i.module}::${i.name}  ${i.kind} ${i.type}`));
  lines.push(`exports (${d.exports.length}):`, ...d.exports.map((e) => `  ${e.name}  ${e.kind} ${e.index}`));
  lines.push(`functions (${d.functions.filter((f) => !f.imported).length} defined, ${d.functions.filter((f) => f.imported).length} imported):`);
  for (const f of d.functions) {
    lines.push(`  func[${f.index}]${f.name !== null ? ` ${f.name}` : ''}: ${f.type}${f.imported ? ', imported' : `, ${f.bodyBytes} bytes of code, ${f.locals} locals`}`);
  }
  lines.push(`memories (${d.memories.length}):`, ...d.memories.map((m) =>
    `  memory[${m.index}]: ${range(m.min, m.max)} pages${m.memory64 ? ', 64-bit' : ''}${m.shared ? ', shared' : ''}${m.imported ? ', imported' : ''}`));
  lines.push(`tables (${d.tables.length}):`, ...d.tables.map((t) => `  table[${t.index}]: ${t.element} ${range(t.min, t.max)}${t.imported ? ', imported' : ''}`));
  lines.push(`globals (${d.globals.length}):`, ...d.globals.map((g) => `  global[${g.index}]: ${g.mutable ? 'mut ' : ''}${g.type}${g.imported ? ', imported' : ''}`));
  lines.push(`data segments (${d.data.length}):`, ...d.data.map((s) => `  data[${s.index}]: ${s.mode}, ${s.bytes} bytes`));
  lines.push(`element segments (${d.elements.length}):`, ...d.elements.map((s) => `  elem[${s.index}]: ${s.mode}, ${s.count} elements`));
  lines.push(`custom sections (${d.customSections.length}):`, ...d.customSections.map((c) => `  ${JSON.stringify(c.name)}: ${c.bytes} bytes`));
  lines.push(`start: ${d.start === null ? 'none' : `func[${d.start}]`}`);
  lines.push(`features: ${d.features.length === 0 ? 'none beyond WebAssembly 2.0' : d.features.join(', ')}`);
  return lines.join('\n');
}
