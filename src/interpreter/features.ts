/**
 * Which WebAssembly features a compile accepts, as wasmtime's `Config` chooses them. Anything
 * outside the set is refused by the name in errors.ts's `Feature`, with its byte offset.
 */
import { Feature } from './errors.js';

export type FeatureSet = ReadonlySet<Feature>;

/** WebAssembly 2.0, SIMD included: what the 2.0 core suite assumes. */
export const WASM2_FEATURES: FeatureSet = new Set<Feature>([Feature.Simd, Feature.MultipleTables]);

/** wasmtime 45's defaults (its `Config` as sandboxd leaves it). */
export const WASMTIME_FEATURES: FeatureSet = new Set<Feature>([
  ...WASM2_FEATURES, Feature.RelaxedSimd, Feature.TailCalls, Feature.MultiMemory, Feature.ExtendedConst,
  Feature.Memory64, Feature.Table64,
]);

/**
 * What this engine runs by default: wasmtime's defaults, threads (single-threaded), exception
 * handling, and two parts of WebAssembly 3.0 that wasmtime takes only with GC or function
 * references: defined globals read in constant expressions, and table initializers.
 */
export const ALL_FEATURES: FeatureSet = new Set<Feature>([
  ...WASMTIME_FEATURES, Feature.SharedMemory, Feature.Atomics, Feature.ExceptionHandling, Feature.ConstantGlobals,
  Feature.TableInitializers,
]);

/**
 * The threads proposal as its scripts assume it: their fork of the spec predates reference
 * types, so a second table is invalid there ("multiple tables"), as a second memory is.
 */
export const THREADS_FEATURES: FeatureSet = new Set<Feature>([Feature.Simd, Feature.SharedMemory, Feature.Atomics]);
