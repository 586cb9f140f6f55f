/**
 * The JavaScript tier of a compiled module: which of its functions run as translated
 * JavaScript (translate.ts), and when a function gets translated.
 *
 * The policy. Every function starts in the interpreter. The interpreter counts a function's
 * heat where it may enter translated code — at the function's entry (1 per call) and at its
 * loop headers (LOOP_HEAT each time one is reached from outside the loop, or again after a
 * pause, which a long loop does once per slice) —
 * and translates the function once its heat reaches the store's threshold (HOT_THRESHOLD by
 * default; 0 translates every function on its first call, for tests). The translated function
 * runs from the next entry or loop header on. A function the tier cannot translate (too long;
 * SIMD or atomic instructions) is marked and never tried again.
 *
 * Where `new Function` is refused (a Content Security Policy, some edge runtimes),
 * `jitSupported()` is false and every function stays in the interpreter.
 */
import type { CompiledFunctions } from '../interpreter/compiler.js';
import { FUNC_INFO_STRIDE, readyFrame } from '../interpreter/compiler.js';
import { Trap, TrapKind } from '../interpreter/errors.js';
import { bulkOperation } from '../interpreter/bulk.js';
import { indirectCallee, memoryTrap, narrow64, canonicalizeNaN } from '../interpreter/interpreter.js';
import * as N from '../interpreter/numeric.js';
import { functionSourceInSteps } from './translate.js';
export { HOT_THRESHOLD, LOOP_HEAT, jitSupported } from './policy.js';

/** The most time one step of a translation takes (ms); the rest waits for a later entry of the function. */
export const TRANSLATE_SLICE_MS = 1;
/** The least time between two steps of the translations of one module (ms). */
export const TRANSLATE_EVERY_MS = 4;

/** A translated function: see translate.ts for its parameters and answers. */
export type JitFunction = (ex: unknown, base: number, pc: number, fsp: number, n: number) => number;

const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/** What translated code may reach: this and nothing else (docs/jit.md). Made on first use: the modules it names import this one. */
function helpers(): Record<string, unknown> {
  return Object.freeze({ N, Trap, TrapKind, memoryTrap, narrow64, canonicalizeNaN, bulkOperation, indirectCallee, EMPTY_VIEW, now: () => performance.now() });
}
let helperObject: Record<string, unknown> | undefined;

export class JitTable {
  /** The translated function of each function index: undefined until translated, null when it cannot be. */
  readonly fns: Array<JitFunction | null | undefined>;
  /** Heat per function index (the policy above). */
  readonly heat: Int32Array;
  /** How many functions were translated, and the milliseconds it took (for the bench and tests). */
  translated = 0;
  /**
   * How many times an execution went back into translated code where the interpreter stood:
   * at its start, or after doing what the tier had left it (Execution.rejoin; for tests).
   */
  rejoined = 0;
  translateMs = 0;
  /** Not before this (performance.now()) does a translation under way take its next step. */
  translateAgainAt = 0;
  /** Translations under way (a large function is translated over several slices). */
  private readonly jobs = new Map<number, Generator<void, string | null>>();

  constructor(readonly functions: CompiledFunctions) {
    const count = functions.info.length / FUNC_INFO_STRIDE;
    this.fns = new Array<JitFunction | null | undefined>(count).fill(undefined);
    this.heat = new Int32Array(count);
  }

  /**
   * For a call from translated code to a function not translated yet: the callee's translation,
   * if a step of it (the same budget as the interpreter's, translatedFunction) finishes it now;
   * else the call goes through the interpreter. A hot caller's callees are hot too.
   */
  translateCallee(index: number): JitFunction | null | undefined {
    if (performance.now() < this.translateAgainAt) return undefined;
    const fn = this.translate(index, TRANSLATE_SLICE_MS);
    if (fn === undefined) this.translateAgainAt = performance.now() + TRANSLATE_EVERY_MS;
    return fn;
  }

  /**
   * The translated function for `index`, translating it for at most `budgetMs` now: null when
   * it stays interpreted, undefined while its translation goes on (it goes on at the next call).
   */
  translate(index: number, budgetMs = Infinity): JitFunction | null | undefined {
    const have = this.fns[index];
    if (have !== undefined) return have;
    const started = performance.now();
    const job = this.jobs.get(index) ?? functionSourceInSteps(this.functions, index);
    let step = job.next();
    while (step.done !== true && performance.now() - started < budgetMs) step = job.next();
    if (step.done !== true) {
      this.jobs.set(index, job);
      this.translateMs += performance.now() - started;
      return undefined;
    }
    this.jobs.delete(index);
    let fn: JitFunction | null = null;
    if (step.value !== null) {
      const given = (helperObject ??= helpers());
      const names = Object.keys(given);
      const factory = new Function('table', 'code', ...names, `'use strict'; return function (ex, base, pc, fsp, n) {\n${step.value}\n};`);
      fn = factory(this, this.functions.code, ...names.map((k) => given[k])) as JitFunction;
      this.translated++;
    }
    this.fns[index] = fn;
    this.translateMs += performance.now() - started;
    return fn;
  }

  /**
   * Readies function `index`'s frame at `base` as the dispatch loop's call does — locals zeroed,
   * constant slots written — for a translated function entered fresh whose own setup would be
   * long to write out (translate.ts, freshFrame), and for a call_indirect's callee left to the
   * interpreter at its entry. It reads the module's constants as they are now: lazy translation
   * replaces the array (compiler.ts), so translated code holds none of it.
   */
  readyFrame(s32: Int32Array, base: number, index: number): void {
    readyFrame(s32, base, this.functions, index);
  }
}

/**
 * The translated function for `index` where the interpreter may enter it, after adding `heat`:
 * translated now if the heat has reached `threshold`; null while it stays interpreted.
 */
export function translatedFunction(jit: JitTable, index: number, heat: number, threshold: number): JitFunction | null {
  const have = jit.fns[index];
  if (have !== undefined) return have;
  if ((jit.heat[index] += heat) < threshold) return null;
  // With threshold 0 (every function from its first call, for tests) at once. Otherwise in
  // steps of TRANSLATE_SLICE_MS, at most one per TRANSLATE_EVERY_MS of the module's time, so
  // that a large function's translation never holds the event loop, however often the
  // function is entered meanwhile (the interpreter runs it until its translation is done).
  if (threshold === 0) return jit.translate(index) ?? null;
  const now = performance.now();
  if (now < jit.translateAgainAt) return null;
  const fn = jit.translate(index, TRANSLATE_SLICE_MS);
  if (fn === undefined) jit.translateAgainAt = performance.now() + TRANSLATE_EVERY_MS;
  return fn ?? null;
}

/** The module's table, made on first use. */
export function jitTableOf(holder: { jit: JitTable | null; readonly functions: CompiledFunctions }): JitTable {
  return (holder.jit ??= new JitTable(holder.functions));
}
