/**
 * Compiling a module: decode, validate, translate. The result is immutable and may be
 * instantiated any number of times, in any store.
 */
import { compileFunctions, type CompiledFunctions } from './compiler.js';
import { signatureKey } from './store.js';
import { decodeModule } from './decoder.js';
import { declaredFunctionRefs, validateModule } from './module-validator.js';
import { SIMD_UNSUPPORTED, ValidationError } from './errors.js';
import { type FuncType, type GlobalType, type ModuleIR, type TableType, V128 } from './types.js';

export class CompiledModule {
  /** Function types by function index, imports first. */
  readonly funcTypes: readonly FuncType[];
  readonly numImportedFuncs: number;
  readonly tableTypes: readonly TableType[];
  readonly globalTypes: readonly GlobalType[];
  readonly numImportedGlobals: number;
  readonly numImportedTables: number;
  readonly functions: CompiledFunctions;
  /** signatureKey of each type index, computed once for every store that instantiates. */
  readonly typeKeys: readonly string[];

  constructor(readonly ir: ModuleIR) {
    rejectSimd(ir);
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
    this.typeKeys = ir.types.map(signatureKey);
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

/**
 * The decoder reads the v128 type so that such modules are reported clearly; this engine
 * runs WebAssembly 2.0 without its SIMD part, so any use of v128 is refused here.
 */
function rejectSimd(ir: ModuleIR): void {
  const usesV128 = ir.types.some((t) => t.params.includes(V128) || t.results.includes(V128))
    || ir.globals.some((g) => g.type.valType === V128)
    || ir.imports.some((i) => i.desc.kind === 'global' && i.desc.type.valType === V128)
    || ir.codes.some((c) => c.locals.includes(V128));
  if (usesV128) throw new ValidationError(SIMD_UNSUPPORTED);
}

/** Decodes, validates and translates a binary module; throws DecodeError or ValidationError. */
export function compileModule(bytes: Uint8Array): CompiledModule {
  const ir = decodeModule(bytes);
  validateModule(ir);
  return new CompiledModule(ir);
}
