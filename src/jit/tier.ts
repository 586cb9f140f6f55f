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
import type { Execution } from '../interpreter/execution.js';
import { FUNC_INFO_STRIDE, FuncInfo, readyFrame } from '../interpreter/compiler.js';
import { Trap, TrapKind } from '../interpreter/errors.js';
import { bulkOperation } from '../interpreter/bulk.js';
import { indirectCallee, memoryTrap, narrow64, canonicalizeNaN } from '../interpreter/interpreter.js';
import * as N from '../interpreter/numeric.js';
import {
  ABNORMAL, bodyTranslated, CLOCK_FUEL, EXIT, FACTORY_STATE, RETURNED, functionSourceInSteps, type LoopNest, loopNests, MAX_SOURCE_CHARS, type OutlinedRange, cutsOf, halves, landingPiecesOf, piecesOf, TOO_LONG, type TranslatedSource,
} from './translate.js';
export { HOT_THRESHOLD, LOOP_HEAT, jitSupported } from './policy.js';

/**
 * A translation step's budget (ms) where the run has no slice deadline (the engine API driven by
 * fuel alone, invokeSync): the function runs interpreted between steps, one at each entry or
 * loop header, so that no resume() is held longer for translating (as every step was until
 * 2026-12-01).
 */
const UNPACED_STEP_MS = 1;

/**
 * The smallest budget (ms) of a step taken as a slice starts (JitTable.advanceWaiting): half a
 * slice, and slices are 1 ms for a run alone, shorter as more runs share the event loop; below
 * it, translations under way go on only where the run enters their functions.
 */
const MIN_WAITING_STEP_MS = 0.25;

/** A translated function: see translate.ts for its parameters and answers. */
export type JitFunction = (ex: unknown, base: number, pc: number, fsp: number, n: number, left: number) => number;

/**
 * Runs translated function `fn` for the interpreter, from `ex.jitLeft` fuel: its answer, the fuel
 * left in `ex.jitLeft` (translate.ts). Entered with n = 0, it never returns as to a translated
 * caller. It counts CLOCK_FUEL at a time, the rest in the reserve; the fuel comes back whole
 * (where it throws, the translation's catch puts it together; no try here, which made V8's
 * code for the interpreter's calls into the tier slower: the indirect kernel's first run by a sixth).
 */
export function runTranslated(fn: JitFunction, ex: Execution, base: number, pc: number, fsp: number): number {
  const left = Math.min(ex.jitLeft, CLOCK_FUEL);
  ex.fuelReserve = ex.jitLeft - left;
  ex.jitLeft = left; // (as it stays where the function does nothing: NO_ENTRY)
  if (fn(ex, base, pc, fsp, 0, left) !== ABNORMAL) throw new Error('internal error: a translated function returned to the interpreter as to a translated caller');
  ex.jitLeft += ex.fuelReserve;
  ex.fuelReserve = 0;
  return ex.answer;
}

/**
 * Whether a translated function the interpreter entered makes its return into the interpreter's
 * frame below it itself (translate.ts, RETURNED): not where the caller has a translation, which
 * the interpreter's Return goes on in; nor past the bottom frame or into another instance's,
 * which only the interpreter's Return sees to. If it does, the caller's position for the
 * interpreter, as its Return leaves it (the function then writes its results at its base, which
 * nothing between here and there can stop). A rejoin pending (Execution.rejoin) stays pending,
 * for the interpreter's next Return: it may be a frame further down's, whose translation left
 * the interpreter a call to a function that cannot be translated.
 */
function returnsDirectly(ex: Execution, table: JitTable, fsp: number): boolean {
  const frames = ex.frames;
  const pc = frames[fsp - 3]!;
  if (pc < 0 || frames[fsp - 1] !== ex.inst!.id || table.hasTranslationAt(pc)) return false;
  ex.pc = pc;
  ex.base = frames[fsp - 2]!;
  ex.fsp = fsp - 3;
  ex.answer = RETURNED;
  return true;
}

const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/** What translated code may reach: this and nothing else (docs/jit.md). Made on first use: the modules it names import this one. */
function helpers(): Record<string, unknown> {
  return Object.freeze({ N, Trap, TrapKind, memoryTrap, narrow64, canonicalizeNaN, bulkOperation, indirectCallee, returnsDirectly, EMPTY_VIEW });
}
let helperObject: Record<string, unknown> | undefined;

/**
 * Outlining. A function that got hot through its loops (fewer than LOOP_FUNCTION_CALLS calls
 * among its heat), whose translation would pass OUTLINE_ABOVE characters and whose loops hold
 * MIN_LOOP_SHARE of its words has its loops outlined: each outermost loop (or, where one is itself too long, the loops inside it) becomes
 * a JavaScript function of its own, which the function's translation calls where the loop
 * starts, handing over the frame words the loop touches (translate.ts). V8 optimises a short
 * function soon, on its own; a long one late, and again each time the run reaches a part that
 * had not run before (the kernels' first runs, docs/performance.md). A function hot through its
 * calls keeps its loops: they turn little. And each entry into an outlined loop pays a call
 * and the words handed over, which a loop entered often for a few iterations does not earn
 * back (lz4-wasm's and dprint-json's scanning loops): an outlined loop is on trial for its
 * first TRIAL_ENTRIES entries, and one that ran less than MIN_FUEL_PER_ENTRY fuel an entry on
 * average goes back into its function, which is translated again without it — in steps, as
 * any translation, driven by that loop's own entries.
 */
const OUTLINE_ABOVE = 16_000;
const LOOP_FUNCTION_CALLS = 100;
const TRIAL_ENTRIES = 64;
/** Loops are outlined only where they hold this share of the function's words at least (translationInSteps). */
const MIN_LOOP_SHARE = 1 / 3;
/**
 * The fewest characters of translation a word of internal code has taken, over the kernels'
 * and the real programs' functions of 8,000 characters and more (15.8; the median 38.5).
 */
const MIN_CHARS_PER_WORD = 15;
/** What a word is taken to make where the function was not translated whole (loopShare's estimate; between the two). */
const ESTIMATED_CHARS_PER_WORD = 25;
const MIN_FUEL_PER_ENTRY = 400;

/**
 * Pieces. A function whose translation would be too long (MAX_SOURCE_CHARS, MAX_TRANSLATED_WORDS)
 * even with its loops outlined is cut into pieces of about PIECE_CHARS characters (by
 * ESTIMATED_CHARS_PER_WORD), each a JavaScript function of its own that the function's
 * translation calls in turn (translate.ts, piecesOf): V8 optimises each piece, where it would
 * leave the whole in its baseline tiers, slower than the interpreter (MAX_SOURCE_CHARS). The cuts
 * are where no branch crosses, so control goes through the pieces in order, each entered once a
 * call at most (a loop stays in one piece): the words handed over between pieces cost little
 * beside a piece's work. Unrolled code is made so — hash and cipher rounds, whose functions run
 * to tens of thousands of words — and stayed interpreted until 2026-12-01. A function with no
 * such cut, one long loop as a parser's, is cut where branches cross that land on cuts
 * (translate.ts, landingPiecesOf). Pieces are not on trial: without them the function has no
 * translation.
 */
const PIECE_CHARS = 32_000;
/**
 * What calling a piece takes in its function's translation (characters, about: the call, the
 * words handed over, the positions it may leave for); a function that would make more pieces
 * than MAX_SOURCE_CHARS / this is not cut (a review, 2026-12-01: one of 640,000 words, 500
 * pieces, was translated for seconds and then found too long).
 */
const OUTER_CHARS_PER_PIECE = 400;

/** How an outlined loop has paid so far (across the translations of its function). */
class LoopTrial {
  entries = 0;
  fuel = 0;
  verdict: 'on trial' | 'pays' | 'fails' = 'on trial';
}

/** A function's outlined loops: their trials by header, and the loops it keeps (found not to pay). */
class Outlining {
  readonly trials = new Map<number, LoopTrial>();
  readonly kept = new Set<number>();
  /** How many of `kept` the installed translation keeps. */
  keptInstalled = 0;
  /** A translation without the loops kept, under way, and how many of `kept` it keeps. */
  job: Generator<void, JitFunction | null> | null = null;
  keptByJob = 0;

  /**
   * A loop has failed its trial: it is kept, and so is every loop of the function on trial that
   * has not paid so far either, over an eighth of a trial at least (one translation for them
   * all). How many.
   */
  putBack(): number {
    const before = this.kept.size;
    for (const [from, trial] of this.trials) {
      if (trial.verdict === 'on trial' && trial.entries >= TRIAL_ENTRIES / 8 && trial.fuel < trial.entries * MIN_FUEL_PER_ENTRY) {
        trial.verdict = 'fails';
        this.kept.add(from);
      }
    }
    return this.kept.size - before;
  }
}

/** What translating a function gives: its source and its outlined loops, or nothing (null). */
type Translation = { readonly whole: TranslatedSource; readonly ranges: readonly OutlinedRange[] } | null;

/** How long translations may be (characters): whole, and a piece's (JitTable's options; tests lower them). */
export interface TranslationSizes {
  readonly maxChars: number;
  readonly pieceChars: number;
}
const DEFAULT_SIZES: TranslationSizes = { maxChars: MAX_SOURCE_CHARS, pieceChars: PIECE_CHARS };

/**
 * Function `index`'s translation in steps (functionSourceInSteps): whole, or past `outlineAbove`
 * characters with its loops outlined, but for those whose headers are in `kept`; in pieces
 * where it is too long either way.
 */
export function* translationInSteps(
  fns: CompiledFunctions, index: number, outlineAbove: number, kept: ReadonlySet<number> = new Set(), sizes = DEFAULT_SIZES,
): Generator<void, Translation> {
  const { maxChars } = sizes;
  const limit = Math.min(outlineAbove, maxChars);
  yield* bodyTranslated(fns, index);
  const at = index * FUNC_INFO_STRIDE;
  const words = fns.info[at + FuncInfo.CodeEnd]! - fns.info[at + FuncInfo.Entry]!;
  // Whole first, unless it is sure to pass the limit; past it, how long its words make it.
  let whole: TranslatedSource | typeof TOO_LONG | null | undefined;
  let charsPerWord = ESTIMATED_CHARS_PER_WORD;
  if (limit === maxChars || words <= limit / MIN_CHARS_PER_WORD) {
    whole = yield* functionSourceInSteps(fns, index, null, maxChars);
    if (whole === null) return null;
    if (whole !== TOO_LONG) {
      if (whole.source.length <= limit) return { whole, ranges: [] };
      charsPerWord = whole.source.length / words;
    }
  }
  // Too long whole, and not hot through its loops (whose outlining is not tried): in pieces.
  if (limit === maxChars) return yield* inPieces(fns, index, sizes);
  // Outlining pays where the loops take much of the function away; otherwise the function stays
  // long (V8 optimises it as late) and only gains the calls — lz4-wasm's two hot functions, their
  // outlined loops 15% and 28% of their words, and the rest of each longer than it was whole. A
  // function too long to translate whole has nothing to lose, unless what its loops leave is
  // sure to be too long as well (dprint-json has twenty such functions).
  const share = yield* loopShare(fns, index, limit / charsPerWord, kept);
  const outerSureTooLong = words * (1 - share) > maxChars / MIN_CHARS_PER_WORD;
  if (!outerSureTooLong && (whole === TOO_LONG || share >= MIN_LOOP_SHARE)) {
    const loops = yield* outlinedLoopsInSteps(fns, index, limit, kept);
    if (loops.length > 0) {
      const outer = yield* functionSourceInSteps(fns, index, null, maxChars, loops);
      if (outer !== TOO_LONG && outer !== null) return { whole: outer, ranges: loops };
    }
  }
  whole ??= yield* functionSourceInSteps(fns, index, null, maxChars);
  if (whole === null) return null;
  return whole === TOO_LONG ? yield* inPieces(fns, index, sizes) : { whole, ranges: [] };
}

/**
 * Function `index`'s translation in pieces (PIECE_CHARS); a piece whose translation comes out too
 * long is cut in two again, at the cut nearest its middle. Null where it cannot be cut so, or
 * would make more pieces than its own translation can call (OUTER_CHARS_PER_PIECE): that is
 * known before any piece is translated, so that no long work ends in nothing.
 */
function* inPieces(fns: CompiledFunctions, index: number, { maxChars, pieceChars }: TranslationSizes): Generator<void, Translation> {
  const at = index * FUNC_INFO_STRIDE;
  const entry = fns.info[at + FuncInfo.Entry]!;
  const end = fns.info[at + FuncInfo.CodeEnd]!;
  const pieceWords = Math.max(1, Math.floor(pieceChars / ESTIMATED_CHARS_PER_WORD));
  const maxPieces = Math.floor(maxChars / OUTER_CHARS_PER_PIECE);
  if ((end - entry) / pieceWords > maxPieces) return null;
  const cuts = yield* cutsOf(fns, index);
  if (cuts === null) return null;
  // (Each piece but the last is pieceWords long at least: no more than maxPieces, by the test
  // above.) Code between two cuts that is too long, one long loop, in pieces that branches
  // cross (landingPiecesOf).
  const whole = { from: entry, to: end };
  const ranges = piecesOf(cuts, entry, end, pieceWords) ?? (yield* landingPiecesOf(fns, whole, pieceWords, maxPieces));
  if (ranges === null) return null;
  const pieces: OutlinedRange[] = [];
  while (ranges.length > 0) {
    const range = ranges.shift()!;
    const piece = yield* functionSourceInSteps(fns, index, range, maxChars);
    if (piece === null) return null;
    if (piece === TOO_LONG) {
      const left = maxPieces - pieces.length - ranges.length;
      const parts = halves(cuts, range) ?? (yield* landingPiecesOf(fns, range, pieceWords, left));
      if (parts === null || parts.length > left) return null;
      ranges.unshift(...parts);
      continue;
    }
    pieces.push({ ...range, ...piece, kind: 'piece' });
  }
  const outer = yield* functionSourceInSteps(fns, index, null, maxChars, pieces);
  return outer === TOO_LONG || outer === null ? null : { whole: outer, ranges: pieces };
}

/**
 * What `take` makes of the loops of function `index` that outlining takes: its outermost loops,
 * and the loops inside one that `take` finds too long (TOO_LONG); null leaves a loop out. A
 * loop in `kept` stays in the function's own translation, and so do the loops inside it
 * (entered more often still).
 */
function* loopsTaken<T>(
  fns: CompiledFunctions, index: number, kept: ReadonlySet<number>, take: (loop: LoopNest) => Generator<void, T | typeof TOO_LONG | null>,
): Generator<void, T[]> {
  const taken: T[] = [];
  const work = loopNests(fns, index);
  while (work.length > 0) {
    const loop = work.shift()!;
    if (kept.has(loop.from)) continue;
    const result = yield* take(loop);
    if (result === TOO_LONG) work.unshift(...loop.inner);
    else if (result !== null) taken.push(result);
  }
  return taken;
}

/** The share of function `index`'s words in the loops outlining would take, taken to fit in `maxWords`. */
function* loopShare(fns: CompiledFunctions, index: number, maxWords: number, kept: ReadonlySet<number>): Generator<void, number> {
  // (A loop's size is known at once: no step.)
  const sizes = yield* loopsTaken(fns, index, kept, function* (loop) { return loop.to - loop.from <= maxWords ? loop.to - loop.from : TOO_LONG; });
  const at = index * FUNC_INFO_STRIDE;
  return sizes.reduce((sum, words) => sum + words, 0) / (fns.info[at + FuncInfo.CodeEnd]! - fns.info[at + FuncInfo.Entry]!);
}

/** The translations of function `index`'s loops that outlining takes, each up to `maxChars`. */
function outlinedLoopsInSteps(fns: CompiledFunctions, index: number, maxChars: number, kept: ReadonlySet<number>): Generator<void, OutlinedRange[]> {
  return loopsTaken(fns, index, kept, function* (loop): Generator<void, OutlinedRange | typeof TOO_LONG | null> {
    const translated = yield* functionSourceInSteps(fns, index, loop, maxChars);
    return translated === TOO_LONG || translated === null ? translated : { from: loop.from, to: loop.to, ...translated, kind: 'loop' };
  });
}

/** What a JitTable counts, by index in its `counts`. */
const enum JitCount {
  Translated,
  LoopsOutlined,
  LoopsPutBack,
  Pieces,
  Rejoined,
  TranslateMs,
  Length,
}

export class JitTable {
  /** The translated function of each function index: undefined until translated, null when it cannot be. */
  readonly fns: Array<JitFunction | null | undefined>;
  /** The installed translation's outlined loops, by function index: what its `table.loop(index, k)` gives. */
  readonly outlined: Array<JitFunction[] | undefined> = [];
  /** Functions with outlined loops: how those have paid. */
  private readonly outlining = new Map<number, Outlining>();
  /** Heat per function index (the policy above), and the calls among it. */
  readonly heat: Int32Array;
  readonly calls: Int32Array;
  /**
   * What the bench and tests count (JitCount), kept in a typed array rather than in fields. V8
   * takes a field that has held one value as constant, and an integer field as one until it
   * holds a fraction; optimised code relies on both, and the first translation of a process
   * broke them (`translated` 0 → 1, `translateMs` 0 → a fraction) while V8 was compiling the
   * interpreter's `runStretch`: it threw away 36-60 ms of compiling, twice, in each kernel's
   * first run ("Bailed out due to dependency change", "Maps became deprecated").
   */
  private readonly counts = new Float64Array(JitCount.Length);
  /** hasTranslationAt's last function: where its code starts and ends, and its index. */
  private readonly lastCaller = new Int32Array(3);
  /** Translations under way (a large function is translated over several slices). */
  private readonly jobs = new Map<number, Generator<void, JitFunction | null>>();

  /** How many functions were translated. */
  get translated(): number {
    return this.counts[JitCount.Translated]!;
  }

  /** How many loops were outlined, and how many of them were put back. */
  get loopsOutlined(): number {
    return this.counts[JitCount.LoopsOutlined]!;
  }

  get loopsPutBack(): number {
    return this.counts[JitCount.LoopsPutBack]!;
  }

  /** How many pieces functions too long to translate whole were cut into (PIECE_CHARS). */
  get pieces(): number {
    return this.counts[JitCount.Pieces]!;
  }

  /**
   * How many times an execution went back into translated code where the interpreter stood:
   * at its start, or after doing what the tier had left it (Execution.rejoin).
   */
  get rejoined(): number {
    return this.counts[JitCount.Rejoined]!;
  }

  /** The milliseconds translation has taken. */
  get translateMs(): number {
    return this.counts[JitCount.TranslateMs]!;
  }

  /**
   * Whether the function whose code holds `pc` has a translation, remembering the last function
   * it looked up (its code's range and index): the returns into one caller come from its calls.
   * (An Int32Array: fields that change would be taken as constants by V8's optimised code.)
   */
  hasTranslationAt(pc: number): boolean {
    const last = this.lastCaller;
    if (pc < last[0]! || pc >= last[1]!) {
      const index = this.functions.functionIndexAt(pc);
      const at = index * FUNC_INFO_STRIDE;
      last[0] = this.functions.info[at + FuncInfo.Entry]!;
      last[1] = this.functions.info[at + FuncInfo.CodeEnd]!;
      last[2] = index;
    }
    return typeof this.fns[last[2]!] === 'function';
  }

  /** Counts a return into translated code (`rejoined`). */
  noteRejoined(): void {
    this.counts[JitCount.Rejoined]!++;
  }

  /** `outlineAbove`: OUTLINE_ABOVE; `sizes`: MAX_SOURCE_CHARS, PIECE_CHARS (less in tests, to outline and cut more). */
  constructor(readonly functions: CompiledFunctions, private readonly outlineAbove = OUTLINE_ABOVE, private readonly sizes = DEFAULT_SIZES) {
    const count = functions.info.length / FUNC_INFO_STRIDE;
    this.fns = new Array<JitFunction | null | undefined>(count).fill(undefined);
    this.heat = new Int32Array(count);
    this.calls = new Int32Array(count);
  }

  /**
   * For a call from translated code to a function not translated yet: the callee's translation,
   * if a step of it (the same budget as the interpreter's, translatedFunction) finishes it now;
   * else the call goes through the interpreter. A hot caller's callees are hot too (through its
   * calls: their loops stay in them).
   */
  translateCallee(index: number, deadline: number): JitFunction | null | undefined {
    const have = this.fns[index];
    if (have !== undefined) return have; // (null: it stays interpreted)
    return this.step(deadline, (budgetMs) => this.translate(index, budgetMs, false));
  }

  /**
   * `translation(budgetMs)`, a step of a translation for what is left of the slice, up to its
   * `deadline` (Execution.sliceDeadline; with none, UNPACED_STEP_MS); undefined, and no step,
   * once the deadline has passed.
   */
  step<T>(deadline: number, translation: (budgetMs: number) => T | undefined): T | undefined {
    const budget = stepBudget(deadline);
    return budget > 0 ? translation(budget) : undefined;
  }

  /**
   * The translated function for `index`, translating it for at most `budgetMs` now: null when
   * it stays interpreted, undefined while its translation goes on (at a later step).
   * `hotThroughLoops`: it got hot in the interpreter through its loops rather than its calls,
   * and its loops may be outlined.
   */
  translate(index: number, budgetMs = Infinity, hotThroughLoops = true): JitFunction | null | undefined {
    const have = this.fns[index];
    if (have !== undefined) return have;
    const job = this.jobs.get(index)
      ?? this.installed(index, translationInSteps(this.functions, index, hotThroughLoops ? this.outlineAbove : this.sizes.maxChars, new Set(), this.sizes));
    const step = this.advance(job, budgetMs);
    if (step.done !== true) {
      this.jobs.set(index, job);
      return undefined;
    }
    this.jobs.delete(index);
    this.fns[index] = step.value;
    return step.value;
  }

  /**
   * A step of `budgetMs` (no later than `deadline`) of the translation started first among those
   * under way: 'done' where that finished its function's translation, 'step' where a step was
   * taken, 'none' where none was (no translation under way, no slice deadline, or a budget under
   * MIN_WAITING_STEP_MS: many runs share the event loop). Called as each slice starts (runLoop):
   * a translation otherwise goes on only where the run enters its function, at its entry or a
   * loop header reached from outside, and a run may reach a function for a long while only
   * through the returns of its callees — sha256's main function, looping over blocks and calling
   * its translated compression function, whose own translation stood still for 30–90 ms of a
   * 300 ms first run.
   */
  advanceWaiting(budgetMs: number, deadline: number): 'done' | 'step' | 'none' {
    if (this.jobs.size === 0 || deadline === Infinity || !(budgetMs >= MIN_WAITING_STEP_MS)) return 'none';
    const [index] = this.jobs.keys();
    const stepped = this.step(deadline, (left) => this.translate(index!, Math.min(left, budgetMs)) !== undefined);
    if (stepped === undefined) return 'none';
    return stepped && this.fns[index!] !== null ? 'done' : 'step';
  }

  /** Steps of `job` for `budgetMs` at most (the last may overrun it), counted in translateMs. */
  private advance<T>(job: Generator<void, T>, budgetMs: number): IteratorResult<void, T> {
    const started = performance.now();
    let step = job.next();
    while (step.done !== true && performance.now() - started < budgetMs) step = job.next();
    this.counts[JitCount.TranslateMs] += performance.now() - started;
    return step;
  }

  /** Outlined range `k` (a loop or a piece) of function `index`'s translation. */
  loop(index: number, k: number): JitFunction {
    return this.outlined[index]![k]!;
  }

  /**
   * The steps of a translation, then of making its JavaScript functions — one a step: a function
   * in a hundred pieces took 33 ms to make at once — and the function of the translation, its
   * outlined ranges installed with it (the loops put on trial).
   */
  private *installed(index: number, translation: Generator<void, Translation>): Generator<void, JitFunction | null> {
    const done = yield* translation;
    if (done === null) return null;
    const made: JitFunction[] = [];
    for (const [k, range] of done.ranges.entries()) {
      made.push(range.kind === 'loop' ? this.onTrial(index, k, range, this.outliningOf(index), this.make(range)) : this.make(range));
      yield;
    }
    this.outlined[index] = made.length > 0 ? made : undefined;
    this.counts[JitCount.Pieces] += done.ranges.filter((range) => range.kind === 'piece').length;
    return this.make(done.whole);
  }

  /** Function `index`'s record of its outlined loops' trials. */
  private outliningOf(index: number): Outlining {
    let outlining = this.outlining.get(index);
    if (outlining === undefined) this.outlining.set(index, (outlining = new Outlining()));
    return outlining;
  }

  /**
   * Outlined loop `k` of function `index` as its translation calls it: itself once it has been
   * found to pay; before, through a wrapper that counts its entries and their fuel, and once it
   * has been found not to, that takes steps of the translation without it.
   */
  private onTrial(index: number, k: number, loop: OutlinedRange, outlining: Outlining, fn: JitFunction): JitFunction {
    let trial = outlining.trials.get(loop.from);
    if (trial === undefined) {
      outlining.trials.set(loop.from, (trial = new LoopTrial()));
      this.counts[JitCount.LoopsOutlined]++;
    }
    if (trial.verdict === 'pays') return fn;
    const counted = trial;
    const wrapper: JitFunction = (ex, base, pc, fsp, n, left) => {
      if (counted.verdict === 'fails') this.translateWithout(index, outlining, (ex as { sliceDeadline: number }).sliceDeadline);
      if (counted.verdict !== 'on trial') return fn(ex, base, pc, fsp, n, left);
      const execution = ex as Execution;
      const before = left + execution.fuelReserve;
      const result = fn(ex, base, pc, fsp, n, left);
      // Only an entry that ran until control left the loop, in this frame, tells what an entry
      // costs: one cut short (the slice's end, a callee left to the interpreter) tells nothing.
      const after = execution.jitLeft + execution.fuelReserve;
      if (result === ABNORMAL && execution.answer === EXIT && execution.fsp === fsp && execution.base === base && after > 0
        && (execution.pc < loop.from || execution.pc >= loop.to)) {
        counted.fuel += before - after;
        if (++counted.entries === TRIAL_ENTRIES) {
          if (counted.fuel >= TRIAL_ENTRIES * MIN_FUEL_PER_ENTRY) {
            counted.verdict = 'pays';
            const installed = this.outlined[index];
            if (installed?.[k] === wrapper) installed[k] = fn;
          } else {
            this.counts[JitCount.LoopsPutBack] += outlining.putBack();
          }
        }
      }
      return result;
    };
    return wrapper;
  }

  /**
   * A step (as translatedFunction's) of function `index`'s translation without the outlined
   * loops found not to pay; done, it replaces the function's translation: the interpreter and
   * translated callers enter the new one from their next entry (a slice's end is one).
   */
  private translateWithout(index: number, outlining: Outlining, deadline: number): void {
    if (outlining.job === null && outlining.kept.size === outlining.keptInstalled) return;
    this.step(deadline, (budgetMs) => {
      if (outlining.job === null) {
        outlining.job = this.installed(index, translationInSteps(this.functions, index, this.outlineAbove, new Set(outlining.kept), this.sizes));
        outlining.keptByJob = outlining.kept.size;
      }
      const step = this.advance(outlining.job, budgetMs);
      if (step.done !== true) return undefined;
      outlining.job = null;
      outlining.keptInstalled = outlining.keptByJob;
      if (step.value !== null) this.fns[index] = step.value;
      return true;
    });
  }

  /** The JavaScript function of a translation's source (the factory hands it only what docs/jit.md lists). */
  private make({ source }: TranslatedSource): JitFunction {
    const given = (helperObject ??= helpers());
    const names = Object.keys(given);
    const factory = new Function('table', 'code', ...names, `'use strict'; ${FACTORY_STATE} return function (ex, base, pc, fsp, n, left) {\n${source}\n};`);
    this.counts[JitCount.Translated]++;
    return factory(this, this.functions.code, ...names.map((k) => given[k])) as JitFunction;
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

  /**
   * A check point's (or a call entry's) fuel when `left` has run out (translate.ts, CLOCK_FUEL):
   * `step` more from the reserve, after a look at the clock; else, with the slice's fuel spent,
   * what is left (<= 0), or with its time spent, 0 (the fuel stays in the reserve: the way out
   * tells the two apart).
   */
  refill(ex: Execution, left: number, step: number): number {
    const total = left + ex.fuelReserve;
    if (total <= 0) {
      ex.fuelReserve = 0;
      return total;
    }
    if (performance.now() >= ex.sliceDeadline) {
      ex.fuelReserve = total;
      return 0;
    }
    const next = total < step ? total : step;
    ex.fuelReserve = total - next;
    return next;
  }
}

/**
 * The translated function for `index` where the interpreter may enter it, after adding `heat`:
 * translated now if the heat has reached `threshold`; null while it stays interpreted (also
 * where no step could be taken, or one taken without a deadline left the translation
 * unfinished: below); undefined while its translation is under way (a step spent the slice,
 * up to `deadline`, the slice's: stepBudget). The interpreter then pauses where it stands and
 * tries again on resuming, so that the function waits for its translation rather than run on interpreted: a
 * long loop would otherwise reach its header from outside only now and then, and a translation
 * spread over its entries took a tenth of a second (the indirect kernel's dispatch loop), while
 * V8 compiled the interpreter's dispatch function two or three times over for what ran
 * interpreted meanwhile (docs/performance.md, First runs).
 */
export function translatedFunction(jit: JitTable, index: number, heat: number, threshold: number, deadline: number): JitFunction | null | undefined {
  const have = jit.fns[index];
  if (have !== undefined) return have;
  if (heat === 1) jit.calls[index]++; // (a call's; a loop header's is LOOP_HEAT)
  if ((jit.heat[index] += heat) < threshold) return null;
  const hotThroughLoops = jit.calls[index]! < LOOP_FUNCTION_CALLS;
  // With threshold 0 (every function from its first call, for tests) at once. Otherwise in
  // steps, none past the slice's deadline, so that a large function's translation never holds
  // the event loop. Where no step can be taken — the slice's time is spent, or nothing paces
  // the run by the clock (no deadline: the engine API driven by fuel alone, invokeSync) — the
  // function is interpreted meanwhile: a run paused then would resume to the same (a deadline
  // that has passed stays passed for an embedder that set it once), and an unpaced one has no
  // slice to wait through.
  if (threshold === 0) return jit.translate(index, Infinity, hotThroughLoops) ?? null;
  const budget = stepBudget(deadline);
  if (budget <= 0) return null;
  const translated = jit.translate(index, budget, hotThroughLoops);
  return deadline === Infinity ? translated ?? null : translated;
}

/**
 * A step's budget (ms) before `deadline` (Execution.sliceDeadline): what is left of the slice
 * (<= 0: none), or UNPACED_STEP_MS where no deadline paces the run.
 */
function stepBudget(deadline: number): number {
  return deadline === Infinity ? UNPACED_STEP_MS : deadline - performance.now();
}

/** The module's table, made on first use. */
export function jitTableOf(holder: { jit: JitTable | null; readonly functions: CompiledFunctions }): JitTable {
  return (holder.jit ??= new JitTable(holder.functions));
}
