/**
 * The engine's own failures. The sandbox layer maps each of these onto a `SandboxError`;
 * inside the engine they keep the distinctions the WebAssembly specification draws.
 */

export abstract class WasmError extends Error {}

/** The binary is not a well-formed module ("malformed" in the specification). */
export class DecodeError extends WasmError {
  constructor(message: string, readonly offset: number) {
    super(`${message} (at byte offset ${offset})`);
    this.name = 'DecodeError';
  }
}

/** The module is well formed but breaks a validation rule ("invalid"). */
export class ValidationError extends WasmError {
  constructor(message: string, readonly offset: number = -1) {
    super(offset >= 0 ? `${message} (at byte offset ${offset})` : message);
    this.name = 'ValidationError';
  }
}

/** The engine runs WebAssembly 2.0 without its fixed-width SIMD part. */
export const SIMD_UNSUPPORTED = 'SIMD (v128) is not supported by this engine';

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
} as const;

export type TrapKind = (typeof TrapKind)[keyof typeof TrapKind];

/** A WebAssembly trap: execution stopped and cannot resume. */
export class Trap extends WasmError {
  constructor(readonly kind: TrapKind) {
    super(`wasm trap: ${kind}`);
    this.name = 'Trap';
  }
}
