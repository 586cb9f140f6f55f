/**
 * Compiling a module: decode, validate, translate. The result is immutable and may be
 * instantiated any number of times, in any store.
 */
import { compileFunctions, type CompiledFunctions } from './compiler.js';
import { decodeModule } from './decoder.js';
import { declaredFunctionRefs, validateModule } from './module-validator.js';
import type { FuncType, GlobalType, ModuleIR, TableType } from './types.js';

export class CompiledModule {
  /** Function types by function index, imports first. */
  readonly funcTypes: readonly FuncType[];
  readonly numImportedFuncs: number;
  readonly tableTypes: readonly TableType[];
  readonly globalTypes: readonly GlobalType[];
  readonly numImportedGlobals: number;
  readonly numImportedTables: number;
  readonly functions: CompiledFunctions;

  constructor(readonly ir: ModuleIR) {
    const funcTypes: FuncType[] = [];
    const tableTypes: TableType[] = [];
    const globalTypes: GlobalType[] = [];
    let memoryCount = 0;
    for (const imp of ir.imports) {
      const d = imp.desc;
      if (d.kind === 'func') funcTypes.push(ir.types[d.typeIndex]!);
      else if (d.kind === 'table') tableTypes.push(d.type);
      else if (d.kind === 'global') globalTypes.push(d.type);
      else memoryCount++;
    }
    this.numImportedFuncs = funcTypes.length;
    this.numImportedTables = tableTypes.length;
    this.numImportedGlobals = globalTypes.length;
    for (const t of ir.functions) funcTypes.push(ir.types[t]!);
    tableTypes.push(...ir.tables);
    for (const g of ir.globals) globalTypes.push(g.type);
    memoryCount += ir.memories.length;
    this.funcTypes = funcTypes;
    this.tableTypes = tableTypes;
    this.globalTypes = globalTypes;
    this.functions = compileFunctions({
      ir,
      funcTypes,
      numImportedFuncs: this.numImportedFuncs,
      tables: tableTypes,
      globals: globalTypes,
      memoryCount,
      declaredRefs: declaredFunctionRefs(ir),
    });
  }
}

/** Decodes, validates and translates a binary module; throws DecodeError or ValidationError. */
export function compileModule(bytes: Uint8Array): CompiledModule {
  const ir = decodeModule(bytes);
  validateModule(ir);
  return new CompiledModule(ir);
}
