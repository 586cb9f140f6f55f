/**
 * Compiling a module: decode, validate, translate. The result may be instantiated any number of
 * times, in any store; it is immutable but for the bodies translated on their first call
 * (lazy translation, compiler.ts), which only append to its code.
 */
import type { JitTable } from '../jit/tier.js';
import { compileFunctionsInSteps, type CompiledFunctions, type ModuleContext } from './compiler.js';
import { ALL_FEATURES, type FeatureSet } from './features.js';
import { runSteps, type Steps } from './steps.js';
import { signatureKey } from './store.js';
import { decodeModuleInSteps } from './decoder.js';
import { declaredFunctionRefs, validateModule } from './module-validator.js';
import { Feature, SIMD_UNSUPPORTED, ValidationError } from './errors.js';
import { type Export, type FuncType, type GlobalType, type MemoryType, type ModuleIR, type TableType, V128 } from './types.js';

export class CompiledModule {
  /** Function types by function index, imports first. */
  readonly funcTypes: readonly FuncType[];
  readonly numImportedFuncs: number;
  readonly tableTypes: readonly TableType[];
  readonly globalTypes: readonly GlobalType[];
  readonly numImportedGlobals: number;
  readonly numImportedTables: number;
  /** signatureKey of each type index, computed once for every store that instantiates. */
  readonly typeKeys: readonly string[];
  /** Compiled with a probe before every instruction (CompileOptions.probes). */
  readonly probed: boolean;
  /** What it was compiled with: a copy compiled otherwise (with probes) must use the same. */
  readonly features: FeatureSet;
  readonly canonicalNaNs: boolean;
  /** Its functions' JavaScript tier (src/jit/tier.ts), made when a store that uses the tier first runs it. */
  jit: JitTable | null = null;

  private constructor(readonly ir: ModuleIR, layout: ModuleContext, readonly functions: CompiledFunctions) {
    this.funcTypes = layout.funcTypes;
    this.probed = layout.probes;
    this.features = layout.features;
    this.canonicalNaNs = layout.canonicalNaNs;
    this.numImportedFuncs = layout.numImportedFuncs;
    this.tableTypes = layout.tables;
    this.globalTypes = layout.globals;
    this.numImportedTables = layout.tables.length - ir.tables.length;
    this.numImportedGlobals = layout.globals.length - ir.globals.length;
    this.typeKeys = ir.types.map(signatureKey);
  }

  /** The exports by name, made on the first lookup and shared by every instance. */
  private exportsByName: Map<string, Export> | null = null;

  /** The export named `name` (validation made names unique). */
  exportNamed(name: string): Export | undefined {
    if (this.exportsByName === null) this.exportsByName = new Map(this.ir.exports.map((e) => [e.name, e]));
    return this.exportsByName.get(name);
  }

  /** The index of the function whose code holds position `pc`. */
  functionIndexAt(pc: number): number {
    return this.functions.functionIndexAt(pc);
  }

  /** Compiles a decoded and validated module, in steps (compileFunctionsInSteps). */
  static *inSteps(ir: ModuleIR, features: FeatureSet = ALL_FEATURES, options: CompileOptions = {}): Steps<CompiledModule> {
    if (!features.has(Feature.Simd)) rejectSimd(ir);
    const layout = layoutOf(ir, features, options.canonicalNaNs === true, options.probes === true);
    const functions = yield* compileFunctionsInSteps(layout, options.lazyTranslation !== false && !layout.probes);
    return new CompiledModule(ir, layout, functions);
  }
}

/** What translating the function bodies needs to know of the module: the index spaces. */
export function layoutOf(ir: ModuleIR, features: FeatureSet, canonicalNaNs: boolean, probes: boolean): ModuleContext {
  const funcTypes: FuncType[] = [];
  const tables: TableType[] = [];
  const globals: GlobalType[] = [];
  const memories: MemoryType[] = [];
  const tags: FuncType[] = [];
  for (const imp of ir.imports) {
    const d = imp.desc;
    if (d.kind === 'func') funcTypes.push(ir.types[d.typeIndex]!);
    else if (d.kind === 'table') tables.push(d.type);
    else if (d.kind === 'global') globals.push(d.type);
    else if (d.kind === 'tag') tags.push(ir.types[d.typeIndex]!);
    else memories.push(d.type);
  }
  const numImportedFuncs = funcTypes.length;
  for (const t of ir.functions) funcTypes.push(ir.types[t]!);
  tables.push(...ir.tables);
  for (const g of ir.globals) globals.push(g.type);
  memories.push(...ir.memories);
  for (const t of ir.tags) tags.push(ir.types[t]!);
  return {
    ir, features, canonicalNaNs, probes, funcTypes, numImportedFuncs, tables, globals, memories, tags, declaredRefs: declaredFunctionRefs(ir),
  };
}

/**
 * The decoder refuses v128 where it meets it when the compile does not accept SIMD; this
 * checks a module that did not come from the decoder the same way.
 */
function rejectSimd(ir: ModuleIR): void {
  const usesV128 = ir.types.some((t) => t.params.includes(V128) || t.results.includes(V128))
    || ir.globals.some((g) => g.type.valType === V128)
    || ir.imports.some((i) => i.desc.kind === 'global' && i.desc.type.valType === V128)
    || ir.codes.some((c) => c.locals.includes(V128));
  if (usesV128) throw new ValidationError(SIMD_UNSUPPORTED);
}

/**
 * Decodes, validates and translates a binary module; throws DecodeError or ValidationError.
 * `features`: what it may use (features.ts); anything else is refused by name.
 */
export function compileModule(bytes: Uint8Array, features: FeatureSet = ALL_FEATURES, options: CompileOptions = {}): CompiledModule {
  return runSteps(compileModuleInSteps(bytes, features, options));
}

/** How a module is translated, beyond what it may use. */
export interface CompileOptions {
  /**
   * Every NaN that floating-point arithmetic produces (scalar and SIMD lanes) becomes the
   * canonical NaN, so results and memory are bit-identical on every engine and machine. Off
   * by default, as in wasmtime (its `cranelift_nan_canonicalization`).
   */
  readonly canonicalNaNs?: boolean;
  /**
   * A probe before every instruction (Op.Probe), for the monitors that watch instructions
   * (src/inspect: coverage, the trace, the debugger). The same results and fuel; slower. Off by
   * default.
   */
  readonly probes?: boolean;
  /**
   * Translate a function's body into the internal instruction set on its first call rather
   * than at compile time, when a validation-only pass proves it valid (compiler.ts,
   * CompiledFunctions): every body is still checked before anything runs. On by default; a
   * compile with probes translates everything at once.
   */
  readonly lazyTranslation?: boolean;
}

/**
 * compileModule as steps (steps.ts), each a bounded piece of the work: decoding, the module's
 * own rules, then the function bodies a few tens of kilobytes at a time.
 */
export function* compileModuleInSteps(
  bytes: Uint8Array, features: FeatureSet = ALL_FEATURES, options: CompileOptions = {},
): Steps<CompiledModule> {
  const ir = yield* decodeModuleInSteps(bytes, features);
  validateModule(ir, features);
  yield;
  return yield* CompiledModule.inSteps(ir, features, options);
}
