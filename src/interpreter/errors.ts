/**
 * The engine's own failures. The sandbox layer maps each of these onto a `SandboxError`;
 * inside the engine they keep the distinctions the WebAssembly specification draws.
 */

export abstract class WasmError extends Error {}

/**
 * The binary is not a well-formed module ("malformed" in the specification). `feature` names
 * the proposal when the bytes are a later proposal's encoding that this engine refuses (see
 * `refusal`), and is null otherwise.
 */
export class DecodeError extends WasmError {
  constructor(message: string, readonly offset: number, readonly feature: Feature | null = null) {
    super(`${message} (at byte offset ${offset})`);
    this.name = 'DecodeError';
  }
}

/** The module is well formed but breaks a validation rule ("invalid"); `feature` as above. */
export class ValidationError extends WasmError {
  constructor(message: string, readonly offset: number = -1, readonly feature: Feature | null = null) {
    super(offset >= 0 ? `${message} (at byte offset ${offset})` : message);
    this.name = 'ValidationError';
  }
}

// ---------------------------------------------------------------------------------------------
// Refusals: what this engine does not implement.

/**
 * The features beyond WebAssembly 2.0 (and the SIMD part of 2.0) that this engine refuses,
 * each as its refusals name it.
 */
export const Feature = {
  Simd: 'SIMD',
  RelaxedSimd: 'relaxed SIMD',
  SharedMemory: 'shared memory (threads)',
  Atomics: 'atomic instructions (threads)',
  SharedTable: 'shared tables (shared-everything threads)',
  ExceptionHandling: 'exception handling',
  Memory64: 'memory64',
  Table64: 'table64 (memory64)',
  CustomPageSizes: 'custom page sizes',
  MultiMemory: 'multi-memory',
  TailCalls: 'tail calls',
  FunctionReferences: 'function references',
  Gc: 'GC',
  ExtendedConst: 'extended constant expressions',
  /** Part of 2.0 (reference types): more than one table. Only the threads proposal's older scripts leave it out. */
  MultipleTables: 'multiple tables (reference types)',
  /** WebAssembly 3.0 (from GC): a constant expression may read an immutable global defined before it. */
  ConstantGlobals: 'global.get of a module-defined global in a constant expression',
  /** WebAssembly 3.0 (from function references): a table defined with the value its elements start with. */
  TableInitializers: 'table initializer expressions',
  WideArithmetic: 'wide arithmetic',
} as const;

export type Feature = (typeof Feature)[keyof typeof Feature];

const PLURAL_FEATURES: ReadonlySet<Feature> = new Set<Feature>([
  Feature.Atomics, Feature.SharedTable, Feature.CustomPageSizes, Feature.TailCalls,
  Feature.FunctionReferences, Feature.ExtendedConst, Feature.TableInitializers,
]);

/** How every message prints an opcode: `0x12`, or with its prefix `0xfc 0x13`. */
export function formatOpcode(op: number, sub?: number): string {
  const hex = (n: number): string => `0x${n.toString(16).padStart(2, '0')}`;
  return sub === undefined ? hex(op) : `${hex(op)} ${hex(sub)}`;
}

/**
 * The one wording of a refusal: `tail calls are not supported by this engine (return_call,
 * opcode 0x12)`; the error adds the byte offset. `classification` goes first when the
 * WebAssembly 2.0 test suite checks what a 2.0 engine says about the same bytes (a limits
 * flag of 2 is "integer too large", a second memory "multiple memories"), so that the
 * message still begins with the suite's text.
 */
export function refusal(feature: Feature, detail: string, classification?: string): string {
  const text = `${feature} ${PLURAL_FEATURES.has(feature) ? 'are' : 'is'} not supported by this engine (${detail})`;
  return classification === undefined ? text : `${classification}: ${text}`;
}

/** A refused encoding that is not WebAssembly 2.0's binary format: a DecodeError. */
export function refuseDecode(feature: Feature, detail: string, offset: number, classification?: string): DecodeError {
  return new DecodeError(refusal(feature, detail, classification), offset, feature);
}

/** A refused construct that 2.0 can encode but not validate (or that this engine leaves out). */
export function refuseValidation(feature: Feature, detail: string, offset: number, classification?: string): ValidationError {
  return new ValidationError(refusal(feature, detail, classification), offset, feature);
}

/** An import cannot be satisfied ("unlinkable"). */
export class LinkError extends WasmError {
  constructor(message: string) {
    super(message);
    this.name = 'LinkError';
  }
}

/** Trap kinds, each with wasmtime's wording. */
export const TrapKind = {
  Unreachable: 'wasm `unreachable` instruction executed',
  IntegerDivideByZero: 'integer divide by zero',
  IntegerOverflow: 'integer overflow',
  BadConversionToInteger: 'invalid conversion to integer',
  MemoryOutOfBounds: 'out of bounds memory access',
  TableOutOfBounds: 'undefined element: out of bounds table access',
  UninitializedElement: 'uninitialized element',
  IndirectCallTypeMismatch: 'indirect call type mismatch',
  StackOverflow: 'call stack exhausted',
  NullReference: 'null reference',
  Interrupt: 'interrupt',
  OutOfFuel: 'all fuel consumed by WebAssembly',
  /** An atomic instruction's effective address is not a multiple of its access size (threads). */
  UnalignedAtomic: 'unaligned atomic',
  /** memory.atomic.wait32/64 on a memory that is not shared (threads). */
  AtomicWaitNonSharedMemory: 'atomic wait on non-shared memory',
  /** A WebAssembly exception that no handler caught (exception handling): see UncaughtException. */
  UncaughtException: 'uncaught exception',
  /** More exceptions caught by reference in one store than its limit (store.ts, maxExceptionRefs). */
  ExceptionRefsExhausted: 'too many exception references',
} as const;

export type TrapKind = (typeof TrapKind)[keyof typeof TrapKind];

/** A frame of a backtrace: a function of an instance and where in the module it was. */
export interface BacktraceFrame {
  readonly funcIndex: number;
  /** From the module's `name` section, when it names the function. */
  readonly funcName?: string;
  /** From the module's `name` section, when it names the module. */
  readonly moduleName?: string;
  /** The byte offset in the module of the instruction: the trapping one, or a caller's call. */
  readonly offset: number;
  /** Where in the source that instruction came from, when the module carries DWARF line tables. */
  readonly source?: { readonly file: string; readonly line: number; readonly column: number };
}

/**
 * A frame's function as wasmtime names it in a backtrace, `module!function`: `<unknown>` for a
 * module without a name, `<wasm function N>` for a function without one.
 */
export function frameName(frame: Pick<BacktraceFrame, 'funcIndex' | 'funcName' | 'moduleName'>): string {
  return `${frame.moduleName ?? '<unknown>'}!${frame.funcName ?? `<wasm function ${frame.funcIndex}>`}`;
}

/** A WebAssembly trap: execution stopped and cannot resume. */
export class Trap extends WasmError {
  /** Where the execution was when it trapped, innermost first (set by Execution.resume). */
  backtrace?: BacktraceFrame[];

  constructor(readonly kind: TrapKind) {
    // Without a JavaScript stack: where the interpreter was in its own code says nothing (the
    // guest's frames are `backtrace`), and capturing it took 8-9 µs a trap on a slow VM
    // (2026-12-01), about as long as a whole short run; a thousand runs timing out at once
    // spent that on the event loop.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`wasm trap: ${kind}`);
    Error.stackTraceLimit = limit;
    this.name = 'Trap';
  }
}

/**
 * A WebAssembly exception that escaped the invoked function: a trap of kind UncaughtException
 * whose message names the exception's tag, carrying the exception (store.ts ExceptionInst).
 */
export class UncaughtException extends Trap {
  constructor(readonly exception: object, tagName: string) {
    super(TrapKind.UncaughtException);
    this.message = `wasm trap: uncaught exception: ${tagName}`;
    this.name = 'UncaughtException';
  }
}

/**
 * The refusal of v128 where no offset is known: CompiledModule's check of a ModuleIR that did
 * not come from the decoder (which refuses each v128 type and `v128.const` at its offset).
 */
export const SIMD_UNSUPPORTED = refusal(Feature.Simd, 'the v128 type');
