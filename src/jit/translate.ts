/**
 * The JavaScript tier's translator: one function's internal code (src/interpreter/opcodes.ts)
 * as the source of one JavaScript function, which does exactly what the dispatch loop does
 * with that code — on the same value stack, the same frame array and the same fuel — minus
 * the dispatch.
 *
 * Security: this turns untrusted input into JavaScript source. The source is built only from
 * the fixed strings below, the templates of templates.generated.ts (the interpreter's own case
 * bodies, taken from our source at build time) and numbers: operands of the internal code,
 * which are 32-bit integers the compiler wrote. No name, string or byte of the module reaches
 * it. `number` below is always printed through `num`, which refuses anything but an integer.
 * docs/jit.md has the threat model; test/jit-security.test.ts scans what comes out.
 *
 * The shape of a translated function: `(ex, base, pc, fsp, n, left)` — the execution, the
 * frame's base, where to start (the function's entry or one of its loop headers; FRESH_ENTRY from
 * a translated caller, which leaves the frame's setup to it), the frame array's top, how many
 * translated calls deep it is on the JavaScript stack, and the slice's fuel left (in an argument
 * and the return value, not through the execution: a tenth of a call's cost). The code is split
 * at every branch target and loop header into numbered blocks, written as labelled blocks and loops where they nest
 * (structure.ts; code from WebAssembly always does), else run by `for (;;) switch (blk)`;
 * straight-line code falls from one block into the next. Returning to a translated caller (only
 * when n > 0; results at `base`), it returns the fuel left; otherwise ABNORMAL, with the fuel in
 * `ex.jitLeft` and its answer in `ex.answer`:
 *
 * - 1 (EXIT): the interpreter goes on at `ex.pc`, `ex.base`, `ex.fsp` — before an instruction
 *   the tier leaves to it (a host call, memory.grow, a call it cannot make), or at a check
 *   point whose slice is spent (the interpreter then pauses or runs out, as it would have);
 * - 2 (PAUSE): a call's entry found the slice spent; the interpreter pauses there;
 * - 3 (SWITCH): a bulk instruction left work to do in pieces; the interpreter pauses after it;
 * - 4 (OUT_OF_TIME): the slice's time (ex.sliceDeadline) has passed; paused at a loop header;
 * - 5 (NO_ENTRY): `pc` is not one of its entries; it did nothing;
 * - 6 (RETURNED): it returned (n = 0; not from an outlined loop; returnsDirectly, tier.ts,
 *   says where): its results are at `base` in the array and its frame is popped, as the
 *   interpreter's Return leaves them; the interpreter goes on at `ex.pc`, `ex.base`, `ex.fsp`,
 *   the caller's, in the same instance.
 *
 * Its entries: the function's entry, its loop headers, and the instruction after each call
 * (host calls included) and memory.grow, so that the interpreter can hand the rest of the
 * function back after doing one of those (Execution.rejoin). Not after UseMemory, whose memory
 * choice lives in the execution (ex.memoryIndex) for the one instruction that follows.
 *
 * Every frame it enters is pushed on the execution's frame array as the interpreter pushes
 * it, so an exit anywhere leaves the interpreter a complete stack: nothing is rewound.
 */
import { FUNC_INFO_STRIDE, FuncInfo, HANDLER_STRIDE, Handler, type CompiledFunctions } from '../interpreter/compiler.js';
import { Op } from '../interpreter/opcodes.js';
import { structuredBlocks } from './structure.js';
import { BRANCH_OPS, DATA_OPS } from './templates.generated.js';

/** A function longer than this (words of internal code) stays in the interpreter. */
export const MAX_TRANSLATED_WORDS = 12_000;
/**
 * Nor is a function translated whose JavaScript would be longer than this (characters): V8
 * optimises no function of more than 61,440 bytes of bytecode (`--max-optimized-bytecode-size`,
 * V8 11.3), and such a function, left in V8's baseline tiers, ran slower than the interpreter —
 * up to 18 times (the f64 kernel's function at 68,343 characters, 61,842 bytes: 1.58 s a run
 * instead of 85 ms). Translations ran to 0.44–0.88 bytes of bytecode per character
 * (`node --print-bytecode`, every function over 15,000 characters of the bench's kernels and
 * programs, 2026-12-01; 0.93 for a denser form of f64's since rewritten), so this limit keeps
 * them under V8's with a margin.
 */
export const MAX_SOURCE_CHARS = 64_000;
/** A fresh entry's frame setup longer than this (characters) is left to a helper (freshFrame). */
const MAX_FRAME_SETUP_CHARS = 300;
/**
 * The `pc` a translated caller enters a translated callee with: at its entry, its locals not
 * yet zeroed nor its constant slots written in the array. The callee does that itself, for
 * the words it keeps in the array only (its variables start at zero): most calls then write
 * nothing but their arguments. The interpreter, which readies every frame it enters, passes
 * the entry's own position instead.
 */
export const FRESH_ENTRY = -1;

/**
 * Translated calls nest on the JavaScript stack up to this many units of 64 bytes (256 KiB, a
 * quarter of V8's stack); a call that would pass it is left to the interpreter, which has the
 * one depth limit (maxCallDepth), so no RangeError. A callee's units (frameUnits) are an upper
 * bound of its frame: V8 gave 8.2 bytes a live local (a recursive function of 800: 6.5 KB a
 * frame; of 10: 190 bytes), and a translation keeps at most a variable a frame word, besides its
 * own dozen. Counted in frames (64) before, deep recursion left the tier every 64 calls.
 */
export const MAX_NESTING_UNITS = 4096;
/**
 * A callee's units on the JavaScript stack (MAX_NESTING_UNITS), from its frame's size in words:
 * one for each 2^UNIT_WORDS_SHIFT words, and FRAME_UNITS besides. A `call_indirect` computes the
 * same at run time from these constants.
 */
const UNIT_WORDS_SHIFT = 3;
const FRAME_UNITS = 8;
const frameUnits = (frameWords: number): number => (frameWords >> UNIT_WORDS_SHIFT) + FRAME_UNITS;

export const EXIT = 1;
export const PAUSE = 2;
export const SWITCH = 3;
export const OUT_OF_TIME = 4;
/** `pc` is not a point where the function can be entered: nothing was done (the interpreter goes on). */
export const NO_ENTRY = 5;
/** It returned to the interpreter's frame below it (translate.ts's header). */
export const RETURNED = 6;
/**
 * What a translated function returns where it did not return to a translated caller (which
 * gets the fuel left as its value): its answer is in `ex.answer`, the fuel in `ex.jitLeft`.
 * (The least small integer V8 keeps unboxed; fuel never comes near it.)
 */
export const ABNORMAL = -0x40000000;
/** Not an answer: a way out after a callee's, which the leaving block reads from the execution. */
const FROM_CALLEE = 9;
/**
 * Not answers but what a way out says for one (the block that leaves makes it one): a check
 * point found the slice spent — EXIT with the fuel spent, else OUT_OF_TIME — or a call's entry
 * did — PAUSE, else OUT_OF_TIME. (Past every answer.)
 */
const AT_CHECK_POINT = RETURNED + EXIT;
const AT_CALLEE_ENTRY = RETURNED + PAUSE;
/**
 * Fuel between two looks at the clock (ex.sliceDeadline): a tenth of a millisecond at full
 * speed, a millisecond or so in code V8 has not optimised yet. Translated code counts `left`
 * down to the next look rather than to the slice's end, and keeps the rest of the slice's fuel
 * in `ex.fuelReserve`; so a check point tests `left` alone, and at zero takes more from the
 * reserve (JitTable.refill), looking at the clock as it does. The fuel left is left + reserve
 * throughout: where the slice's fuel runs out, the code leaves just where it did with one count.
 */
export const CLOCK_FUEL = 20_000;
/**
 * The refills a translated function takes of one fuel (a look at every check point it passes)
 * before it takes CLOCK_FUEL at a time. V8 optimises a function from what its code has done so
 * far, and compiles an operation that has never run (the refill's call, its comparison) as a
 * way back to unoptimised code: a translation whose first refill at some check point came
 * after V8 had optimised it (a call's entry, late in a recursion) was thrown back to slow code
 * and compiled again, and in a recursion each of its frames on the stack with it. A new
 * translation's refills run at every check point it passes first, while V8 still runs it
 * unoptimised.
 */
const WARM_REFILLS = 1_000;
/** What each translated function's factory holds (tier.ts, make): `refill`, counting its refills for WARM_REFILLS. */
export const FACTORY_STATE = `let refills = 0;`
  + ` const refill = (ex, left) => table.refill(ex, left, ++refills > ${WARM_REFILLS} ? ${CLOCK_FUEL} : 1);`;
/** The test at a check point and at a call's entry: true once the slice's fuel is spent, or its time (`left` + reserve then says which: the way out). */
const SLICE_SPENT = '(left = refill(ex, left)) <= 0';
/** The frame record of the call under way, where there is one (`calling`, below). */
const FRAME_RECORD = 'if (calling > 0) { frames[fsp] = calling; frames[fsp + 1] = base; frames[fsp + 2] = ex.inst.id; }';
/** What a call does after it, in case the callee grew the memory; of no use to code that reads none. */
const MEMORY_REFRESH = 'if (mem !== null) { view = mem.view; memLen = mem.size; }';
const USES_MEMORY = /\b(view|memLen)\b/;

/** Sizes of the instructions the tier leaves to the interpreter (opcodes.ts gives their layouts). */
const EXIT_SIZES: ReadonlyMap<number, number> = new Map([
  [Op.CallImport, 4], [Op.MemoryGrow, 3], [Op.TailCall, 7], [Op.UseMemory, 2], [Op.Throw, 4], [Op.ThrowRef, 4],
]);
/**
 * Bulk memory and table instructions (bulk.ts), run here through the interpreter's own
 * function: their size, and which operands are frame slots it reads and writes (opcodes.ts
 * gives the layouts): those words, and only those, go through the array around the call.
 */
const BULK: ReadonlyMap<number, { size: number; reads: readonly number[]; writes: readonly number[] }> = new Map([
  [Op.TableGet, { size: 4, reads: [3], writes: [1] }],
  [Op.TableSet, { size: 4, reads: [2, 3], writes: [] }],
  [Op.TableSize, { size: 3, reads: [], writes: [1] }],
  [Op.TableGrow, { size: 5, reads: [3, 4], writes: [1] }],
  [Op.TableFill, { size: 5, reads: [2, 3, 4], writes: [] }],
  [Op.TableCopy, { size: 6, reads: [3, 4, 5], writes: [] }],
  [Op.TableInit, { size: 6, reads: [3, 4, 5], writes: [] }],
  [Op.ElemDrop, { size: 2, reads: [], writes: [] }],
  [Op.MemoryInit, { size: 6, reads: [2, 3, 4], writes: [] }],
  [Op.DataDrop, { size: 2, reads: [], writes: [] }],
  [Op.MemoryCopy, { size: 6, reads: [1, 2, 3], writes: [] }],
  [Op.MemoryFill, { size: 5, reads: [1, 2, 3], writes: [] }],
]);

/** Bits of a double or a single, for the literals that stand for them. */
const BITS = new DataView(new ArrayBuffer(8));

/**
 * The double whose bits are `lo` and `hi`, as source text, or null when it has none that
 * gives those bits back (NaN, the infinities). JavaScript prints a finite number as the
 * shortest digits that read back as the same double; -0 is the one whose sign `String` drops.
 */
function doubleLiteral(lo: number, hi: number): string | null {
  BITS.setInt32(0, lo, true);
  BITS.setInt32(4, hi, true);
  const value = BITS.getFloat64(0, true);
  return Number.isFinite(value) ? doubleText(value) : null;
}

/** The single whose bits are `bits`, as source text, or null when it is not finite. */
function singleLiteral(bits: number): string | null {
  BITS.setInt32(0, bits, true);
  const single = BITS.getFloat32(0, true);
  return Number.isFinite(single) ? doubleText(single) : null;
}

/** A finite double as source text that reads back as exactly it (-0 kept). */
function doubleText(value: number): string {
  const text = Object.is(value, -0) ? '-0' : String(value);
  if (!/^-?\d+(\.\d+)?(e[+-]\d+)?$/.test(text)) throw new Error('internal error: a double printed as something else');
  return text;
}

/** An integer, as source text; anything else is a bug in the caller, never printed. */
function num(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`internal error: ${String(value)} is not an integer operand`);
  return String(value);
}

/** The size of the instruction at `pc`, or null for one the tier cannot walk past. */
function sizeAt(code: Int32Array, pc: number): number | null {
  const op = code[pc]!;
  const fixed = DATA_OPS.get(op)?.size ?? BRANCH_OPS.get(op)?.size ?? EXIT_SIZES.get(op) ?? BULK.get(op)?.size;
  if (fixed !== undefined) return fixed;
  switch (op) {
    case Op.Unreachable: return 1;
    case Op.Jump: return 3;
    case Op.BranchTable: return 5 + code[pc + 3]!;
    case Op.Fuel: return 2;
    case Op.Loop: return 2;
    case Op.Call: return 4;
    case Op.CallIndirect: return 6;
    case Op.Return: return 4;
    default: return null; // SIMD and atomic instructions: their layouts vary (simd-dispatch.ts, atomic-dispatch.ts)
  }
}

/** Branch targets of the instruction at `pc`. */
function targetsAt(code: Int32Array, pc: number): number[] {
  const op = code[pc]!;
  if (op === Op.Jump) return [code[pc + 1]!];
  const branch = BRANCH_OPS.get(op);
  if (branch !== undefined) return [code[pc + branch.target]!];
  if (op === Op.BranchTable) {
    const out: number[] = [];
    for (let k = 0; k <= code[pc + 3]!; k++) out.push(code[pc + 4 + k]!);
    return out;
  }
  return [];
}

/** Function `index`'s constant slots (FuncInfo.ConstsStart), word by word: [frame word, value]. */
function constantWordsOf(fns: CompiledFunctions, index: number): Array<[number, number]> {
  const at = index * FUNC_INFO_STRIDE;
  const pool = fns.constants;
  const words: Array<[number, number]> = [];
  for (let c = fns.info[at + FuncInfo.ConstsStart]!, e = fns.info[at + FuncInfo.ConstsEnd]!; c < e; c += 3) {
    words.push([pool[c]!, pool[c + 1]!], [pool[c]! + 1, pool[c + 2]!]);
  }
  return words;
}

/** What follows an expression that makes it an assignment's target (not a comparison). */
const ASSIGNMENT = String.raw`\s*(?:\+\+|--|[-+*\/%|&^]?=(?!=)|(?:<<|>>>?|\*\*)=)`;
/** A frame word written by a line: after ++ or --, or before an assignment. */
const WORD_WRITE = new RegExp(
  String.raw`(?:\+\+|--)\s*[sf]32\[base \+ (\d+)\]|\b[sf]32\[base \+ (\d+)\]${ASSIGNMENT}|\bf64\[base \+ (\d+) >> 1\]${ASSIGNMENT}`, 'g');
/** Whether a view access is an assignment's target, from the text that follows it. */
const ASSIGNED = new RegExp(`^${ASSIGNMENT}`);
/** A frame word read through a view: s32 or f32 word K, or the f64 slot at K. */
const WORD_READ = /\b(s32|f32)\[base \+ (\d+)\]|\bf64\[base \+ (\d+) >> 1\]/g;

/**
 * `lines` with every read of a constant slot's words (`constantWords`) through a view made the
 * literal it holds: the compiler only reads those words, which every frame holds from its
 * setup on (readyFrame, or the translation's own for a fresh entry), so V8 sees the numbers —
 * a multiplier's halves, a shift's count, a loop bound — and folds what they decide, where it
 * would otherwise load them into variables it cannot know the values of. A word some line
 * writes (none should) is left alone; so are a double that is not finite and an f32 NaN, whose
 * bits a literal would not keep.
 */
function* constantsAsLiterals(lines: string[], constantWords: ReadonlyArray<readonly [number, number]>): Generator<void, void> {
  if (constantWords.length === 0) return;
  const value = new Map<number, number>(constantWords);
  for (let i = 0; i < lines.length; i++) {
    if (i % STEP === STEP - 1) yield;
    if (!reachesFrame(lines[i]!)) continue;
    for (const m of lines[i]!.matchAll(WORD_WRITE)) {
      const w = Number(m[1] ?? m[2] ?? m[3]);
      value.delete(w);
      if (m[3] !== undefined) value.delete(w + 1);
    }
  }
  const literal = (view: string | undefined, word: string | undefined, slot: string | undefined): string | null => {
    if (slot !== undefined) {
      const lo = value.get(Number(slot));
      const hi = value.get(Number(slot) + 1);
      return lo === undefined || hi === undefined ? null : doubleLiteral(lo, hi);
    }
    const bits = value.get(Number(word));
    if (bits === undefined) return null;
    return view === 's32' ? num(bits) : singleLiteral(bits);
  };
  for (let i = 0; i < lines.length; i++) {
    if (i % STEP === STEP - 1) yield;
    const line = lines[i]!;
    if (!reachesFrame(line)) continue;
    const frame = frameReferences(line);
    if (!frame.s32.some((w) => value.has(w)) && !frame.f32.some((w) => value.has(w)) && !frame.f64.some((k) => value.has(k) && value.has(k + 1))) continue;
    lines[i] = line.replace(WORD_READ, (all, view: string | undefined, word: string | undefined, slot: string | undefined, offset: number) => {
      const text = literal(view, word, slot);
      // (An assignment's target stays what it is; none names a constant word, as checked above.)
      if (text === null || ASSIGNED.test(line.slice(offset + all.length, offset + all.length + 6))) return all;
      return text.startsWith('-') ? `(${text})` : text;
    });
  }
}

/**
 * The statements that ready the frame at `base` as the dispatch loop's call does: words
 * `[from, to)` zeroed — a run of more than four by a loop — but those `kept` (held in variables,
 * which start at zero), and `constantWords` written.
 */
function frameWrites(from: number, to: number, constantWords: ReadonlyArray<readonly [number, number]>, kept: (w: number) => boolean): string[] {
  const parts: string[] = [];
  for (let w = from; w < to; w++) {
    if (kept(w)) continue;
    let end = w + 1;
    while (end < to && !kept(end)) end++;
    if (end - w <= 4) for (let k = w; k < end; k++) parts.push(`S32[base + ${num(k)}] = 0;`);
    else parts.push(`for (let w = base + ${num(w)}; w < base + ${num(end)}; w++) S32[w] = 0;`);
    w = end - 1;
  }
  for (const [w, value] of constantWords) parts.push(`S32[base + ${num(w)}] = ${num(value)};`);
  return parts;
}

/**
 * A memory access's effective address as the templates compute it, its operands put in —
 * `((slot + addend) >>> 0) + (offset >>> 0)` — written shorter where the numbers allow: the
 * size of a function's source decides whether V8 optimises it (MAX_SOURCE_CHARS).
 */
const EFFECTIVE_ADDRESS = /\(\((s32\[base \+ \d+\]) \+ (-?\d+)\) >>> 0\) \+ \((-?\d+) >>> 0\)/g;

/**
 * A template cut at its operands: text, then the operand each gap takes (0: the opcode), then
 * text, and so on; with whether a memory access's address may be written shorter, and whether
 * frame addresses may fold. Cut once per template, for `fill`.
 */
interface CutTemplate {
  readonly texts: readonly string[];
  readonly operands: readonly number[];
  readonly addresses: boolean;
  readonly folds: boolean;
}

const OPERAND = /code\[pc(?: \+ (\d+))?\]/g;
const cutTemplates = new Map<string, CutTemplate>();

function cutTemplate(template: string): CutTemplate {
  let cut = cutTemplates.get(template);
  if (cut === undefined) {
    const texts: string[] = [];
    const operands: number[] = [];
    let from = 0;
    for (const m of template.matchAll(OPERAND)) {
      texts.push(template.slice(from, m.index));
      operands.push(m[1] === undefined ? 0 : Number(m[1]));
      from = m.index + m[0].length;
    }
    texts.push(template.slice(from));
    cut = { texts, operands, addresses: template.includes(') >>> 0) + ('), folds: template.includes('base + ') };
    cutTemplates.set(template, cut);
  }
  return cut;
}

/**
 * A template with its operands put in — `code[pc + K]` becomes operand K, `code[pc]` the
 * opcode — and its frame addresses folded to `base + K`.
 */
function fill(template: string, code: Int32Array, pc: number): string {
  const { texts, operands, addresses, folds } = cutTemplate(template);
  let text = texts[0]!;
  for (let i = 0; i < operands.length; i++) text += num(code[pc + operands[i]!]!) + texts[i + 1]!;
  if (addresses) {
    text = text.replace(EFFECTIVE_ADDRESS, (_, slot: string, add: string, offset: string) => {
      const address = Number(add) === 0 ? `(${slot} >>> 0)` : `((${slot} + ${add}) >>> 0)`;
      const unsigned = Number(offset) >>> 0;
      return unsigned === 0 ? address : `${address} + ${num(unsigned)}`;
    });
  }
  // (Until no fold applies: each needs a `(base + ` or a `base + K + J`.)
  if (!folds) return text;
  while (text.includes('(base + ') || BASE_SUM.test(text)) {
    const folded = text
      .replace(/\(base \+ (\d+)\) \+ (\d+)/g, (_, k: string, j: string) => `base + ${num(Number(k) + Number(j))}`)
      .replace(/base \+ (\d+) \+ (\d+)(?![\d\]]*\s*[*/])/g, (_, k: string, j: string) => `base + ${num(Number(k) + Number(j))}`)
      .replace(/\(base \+ (\d+)\)/g, (_, k: string) => `base + ${k}`);
    if (folded === text) break;
    text = folded;
  }
  return text;
}

const BASE_SUM = /base \+ \d+ \+ \d/;

/**
 * Frame words in JavaScript variables. A word that the function reads and writes only as an
 * int32 (`s32[base + K]`, never through the f32 or f64 view) lives in a variable `wK`; a 64-bit
 * slot read or written through the f64 view (`f64[base + K >> 1]`, never the f32 view, and its
 * words written as int32 only by a whole-slot move or constant) lives in a double `dK`; an f32
 * word that never holds a signalling NaN lives in a double `qK` (singlesAsVariables). All are loaded
 * at entry and stored back wherever the interpreter, a callee or a helper must see them: at
 * every exit (the interpreter reads the whole frame), before a call (the arguments), and around
 * a statement that hands a helper its address (`N.i64Mul(s32, base + K, ...)`) or a line that
 * reads a double's or a single's words as int32 (`f64.abs`, a store of an f32); they are loaded
 * again after a call (its results) and after such a statement. A copy between two doubles is a
 * plain assignment. Leaving with a callee's frame above it, a frame stores only
 * the words below the callee's base. A function with a frame access of any other shape keeps
 * every word in the array.
 *
 * Doubles and NaN bits: a double only ever travels between a variable and the f64 view, which
 * keep all 64 bits; arithmetic that makes a NaN computes its bits from the array (the templates'
 * NaN path, a helper call), around which the operands are stored and the result loaded.
 */
/** Whether a line may reach a frame word (through a view or an address): a cheap look before the regular expressions. */
const reachesFrame = (line: string): boolean => line.includes('32[') || line.includes('64[') || line.includes('base + ');

/** What a line of filled templates does with the frame (frameReferences). */
export interface FrameReferences {
  /** Words read or written as `s32[base + K]`, `f32[base + K]`; slots as `f64[base + K >> 1]` (by their first word). */
  readonly s32: number[];
  readonly f32: number[];
  readonly f64: number[];
  /**
   * Whether a view is indexed by anything but `base + K` or `base + K >> 1` (`s32[at]`). (The
   * templates write `f32[base + K]` and `f64[base + K >> 1]` only; no view is recorded otherwise.)
   */
  readonly otherAccess: boolean;
  /** Frame addresses handed on as numbers (`base + K` outside an access, as to a helper). */
  readonly addresses: number[];
  /**
   * The words of `s32` that are assignments' targets, each followed by the integer constant it is
   * given, or NaN where it is given anything else: `[word, value, word, value, ...]`.
   */
  readonly s32Writes: readonly number[];
}

/** Whether the character at `at` is a word character (`\w`: a regular expression's `\b` lies between one and anything else). */
function isWordCharAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at); // (NaN outside the text)
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Where the run of decimal digits from `at` ends (`at` itself where there is none). */
function digitsEnd(text: string, at: number): number {
  let end = at;
  for (let c = text.charCodeAt(end); c >= 48 && c <= 57; c = text.charCodeAt(++end)) {
    // (digits)
  }
  return end;
}

/** frameReferences' s32Writes where they were not asked for. */
const NO_WRITES: readonly number[] = Object.freeze([]);

/** Character codes frameReferences compares. */
const enum Char { s = 115, f = 102, S = 83, F = 70, CloseBracket = 93, Zero = 48, Nine = 57, Space = 32, Equals = 61, Minus = 45, Plus = 43, Semicolon = 59 }
/** A view name's last two characters, as one number: `'32'` and `'64'`. */
const BITS_32 = 0x33 * 256 + 0x32;
const BITS_64 = 0x36 * 256 + 0x34;

/**
 * The frame references of `line` in one pass (it took a handful of regular expressions, a fifth
 * of the translator's time): every `[` after a view's name (`s32`, `f32`, `f64`, and the arrays
 * `S32`, `F64` the markers write), and every `base + K`; `withWrites`, also which `s32` words
 * are assigned, and what (WordPromotion.observe alone asks). Character codes, with no slices and
 * no helpers but isWordCharAt in the loops: the first translations of a process run the
 * translator unoptimised, where this took half the time it did with slices and helpers (lz77's
 * main function, profiled).
 */
export function frameReferences(line: string, withWrites = false): FrameReferences {
  const writes: number[] | null = withWrites ? [] : null;
  const out: FrameReferences & { otherAccess: boolean } = { s32: [], f32: [], f64: [], otherAccess: false, addresses: [], s32Writes: writes ?? NO_WRITES };
  // Where `base + K` is a view's index (the view's `[` just before it), which is no address.
  const indexAt: number[] = [];
  for (let at = line.indexOf('[', 3); at >= 0; at = line.indexOf('[', at + 1)) {
    // A view's name: [sfSF](32|64), after no word character.
    const kind = line.charCodeAt(at - 3);
    const bits = line.charCodeAt(at - 2) * 256 + line.charCodeAt(at - 1);
    const lower = kind === Char.s || kind === Char.f;
    if ((!lower && kind !== Char.S && kind !== Char.F) || (bits !== BITS_32 && bits !== BITS_64) || isWordCharAt(line, at - 4)) continue;
    // Its index: `base + K]` or `base + K >> 1]`.
    let k = -1;
    let end = at + 8;
    if (line.startsWith('base + ', at + 1)) {
      for (let c = line.charCodeAt(end); c >= Char.Zero && c <= Char.Nine; c = line.charCodeAt(++end)) k = (k < 0 ? 0 : k * 10) + c - Char.Zero;
    }
    const halved = k >= 0 && line.startsWith(' >> 1]', end);
    if (k < 0 || (!halved && line.charCodeAt(end) !== Char.CloseBracket)) {
      if (lower && !(kind === Char.s && bits === BITS_64)) out.otherAccess = true; // (s64 is no view)
      continue;
    }
    indexAt.push(at + 1);
    if (halved && kind === Char.f && bits === BITS_64) out.f64.push(k);
    else if (!halved && bits === BITS_32 && kind === Char.s) {
      out.s32.push(k);
      const value = writes === null ? undefined : assignedAfter(line, end + 1, at - 3);
      if (value !== undefined) writes!.push(k, value);
    }
    else if (!halved && bits === BITS_32 && kind === Char.f) out.f32.push(k);
  }
  for (let at = line.indexOf('base + '); at >= 0; at = line.indexOf('base + ', at + 1)) {
    if (indexAt.includes(at) || isWordCharAt(line, at - 1)) continue;
    let k = -1;
    for (let i = at + 7, c = line.charCodeAt(i); c >= Char.Zero && c <= Char.Nine; c = line.charCodeAt(++i)) k = (k < 0 ? 0 : k * 10) + c - Char.Zero;
    if (k >= 0) out.addresses.push(k);
  }
  return out;
}

/**
 * Whether the view access whose name starts at `nameAt` and whose `]` ends before `after` is an
 * assignment's target: undefined if not; if so, the integer constant assigned (`= 12;`, `= -3;`),
 * or NaN for anything else (another value, a compound assignment, `++`, `--`).
 */
function assignedAfter(line: string, after: number, nameAt: number): number | undefined {
  let back = nameAt - 1;
  while (isSpaceAt(line, back)) back--;
  const before = line.charCodeAt(back);
  if ((before === Char.Plus || before === Char.Minus) && line.charCodeAt(back - 1) === before) return NaN;
  let at = after;
  while (isSpaceAt(line, at)) at++;
  const c = line.charCodeAt(at);
  if (c === Char.Equals) {
    if (line.charCodeAt(at + 1) === Char.Equals) return undefined;
    let from = at + 1;
    while (isSpaceAt(line, from)) from++;
    const digitsFrom = line.charCodeAt(from) === Char.Minus ? from + 1 : from;
    const end = digitsEnd(line, digitsFrom);
    return end > digitsFrom && line.charCodeAt(end) === Char.Semicolon ? Number(line.slice(from, end)) : NaN;
  }
  if ((c === Char.Plus || c === Char.Minus) && line.charCodeAt(at + 1) === c) return NaN;
  // A compound assignment: `+=` and the like, `**=`, `<<=`, `>>=`, `>>>=` (not `>=`, `<=`).
  const operator = line[at];
  let length = 0;
  if (operator !== undefined && '+-*/%|&^'.includes(operator)) length = operator === '*' && line[at + 1] === '*' ? 2 : 1;
  else if (operator === '<' && line[at + 1] === '<') length = 2;
  else if (operator === '>' && line[at + 1] === '>') length = line[at + 2] === '>' ? 3 : 2;
  return length > 0 && line.charCodeAt(at + length) === Char.Equals && line.charCodeAt(at + length + 1) !== Char.Equals ? NaN : undefined;
}

/** Whether `uses` hands word `w` on: an address names a 64-bit slot, its word and the next. */
function handsOn(uses: FrameReferences, w: number): boolean {
  return uses.addresses.includes(w) || uses.addresses.includes(w - 1);
}

/** Whether `uses` reads word `w` as int32 or hands it on. */
function readsAsInt32(uses: FrameReferences, w: number): boolean {
  return uses.s32.includes(w) || handsOn(uses, w);
}

/** The first word of the 64-bit slot that holds word `w`. */
const slotOfWord = (w: number): number => w - (w % 2);

/** Whether the character at `at` is ASCII white space (a regular expression's `[\t\n\v\f\r ]`). */
function isSpaceAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at); // (NaN outside the text)
  return c === Char.Space || (c >= 9 && c <= 13);
}

/** `text` with every `s32[base + K]` of a word in `ints` as its variable `wK`. */
export function intsAsVariables(text: string, ints: ReadonlySet<number>): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf('s32[base + '); at >= 0; at = text.indexOf('s32[base + ', at + 1)) {
    const end = digitsEnd(text, at + 11);
    if (isWordCharAt(text, at - 1) || end === at + 11 || text[end] !== ']') continue;
    const word = text.slice(at + 11, end);
    if (!ints.has(Number(word))) continue;
    out += `${text.slice(from, at)}w${word}`;
    from = end + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * A data instruction's line or a fuel line: straight code, with no way in (a way in starts a
 * block, a `case` line) and no way out but a trap, after which no frame word is read.
 */
function isStraight(line: string): boolean {
  if (line.startsWith('left -= ')) return /^left -= \d+;$/.test(line);
  return /^(?:at = \d+; )?\{ /.test(line) && !/\b(?:continue|break|return)\b|@/.test(line);
}

/** Accesses through the f64 and the f32 view, each with its plain assignment if it is one's target. */
const F64_ACCESS = /\bf64\[base \+ (\d+) >> 1\](\s*=(?!=))?/g;
const F32_ACCESS = /\bf32\[base \+ (\d+)\](\s*=(?!=))?/g;
/**
 * A load of a word from memory (an i32's or an f32's, one template; and an i64's low word): an
 * f32 web's value may come from one (the others' readers read int32, which ends the web unmade).
 */
const WORD_LOAD = /\bs32\[base \+ (\d+)\] = view\.getInt32\(ea, true\);/g;
/**
 * The f32 NaN rules with a form on values (numeric.ts, f32NaN2Of and the like): each writes the
 * f32 word at its first address and reads the others — f32 words, but f32DemoteNaN's, an f64 slot.
 */
const F32_NAN_RULE_VALUED = /\bN\.(f32NaN1|f32NaN2|f32NaNMinMax|f32DemoteNaN)\(s32, base \+ (\d+), base \+ (\d+)(?:, base \+ (\d+))?\);/g;

/** The kinds of value a web holds: an f64 in a slot of two words, or an f32 in one word. */
type WebWidth = 1 | 2;

/** How a line uses one f64 slot or f32 word through its view or a NaN rule with a form on values. */
interface ViewUse {
  read: boolean;
  /** Written whole: through the view, as a NaN rule's result, or (an f32 word) loaded from memory. */
  write: boolean;
  /** Read after written, or changed otherwise: no web may cross the line. */
  bad: boolean;
  /** Where the last read through the view starts in the line. */
  lastRead: number;
}

/** What a straight line does with the frame, for the webs (valueWebs). */
interface WebLine {
  readonly f64: Map<number, ViewUse>;
  readonly f32: Map<number, ViewUse>;
  /** Its other references: the int32 accesses and the addresses handed to other helpers. */
  readonly other: FrameReferences;
}

function webLine(line: string): WebLine {
  const f64 = new Map<number, ViewUse>();
  const f32 = new Map<number, ViewUse>();
  const use = (uses: Map<number, ViewUse>, k: number): ViewUse => {
    let u = uses.get(k);
    if (u === undefined) uses.set(k, (u = { read: false, write: false, bad: false, lastRead: -1 }));
    return u;
  };
  for (const [pattern, uses] of [[F64_ACCESS, f64], [F32_ACCESS, f32]] as const) {
    for (const m of line.matchAll(pattern)) {
      const u = use(uses, Number(m[1]));
      if (m[2] !== undefined) u.write = true;
      // (Not followed by a plain `=`: ASSIGNED finds a compound assignment or an increment, which no template writes.)
      else if (u.write || ASSIGNED.test(line.slice(m.index + m[0].length))) u.bad = true;
      else {
        u.read = true;
        u.lastRead = m.index;
      }
    }
  }
  let rest = line;
  if (line.includes('NaN')) {
    for (const m of line.matchAll(NAN_RULE)) {
      use(f64, Number(m[2])).write = true;
      for (const a of [m[3], m[4]]) if (a !== undefined) use(f64, Number(a)).read = true;
    }
    for (const m of line.matchAll(F32_NAN_RULE_VALUED)) {
      use(f32, Number(m[2])).write = true;
      use(m[1] === 'f32DemoteNaN' ? f64 : f32, Number(m[3])).read = true;
      if (m[4] !== undefined) use(f32, Number(m[4])).read = true;
    }
    rest = rest.replace(NAN_RULE, '').replace(F32_NAN_RULE_VALUED, '');
  }
  if (line.includes('getInt32')) {
    for (const m of line.matchAll(WORD_LOAD)) use(f32, Number(m[1])).write = true;
    rest = rest.replace(WORD_LOAD, '');
  }
  return { f64, f32, other: frameReferences(rest, true) };
}

/** The words of web `width` at `k`. */
const webWords = (width: WebWidth, k: number): number[] => (width === 2 ? [k, k + 1] : [k]);

/** How a line uses word `w` through the view other than a web of `width`'s: the f32 word itself, or the f64 slot holding it. */
function otherViewUse(uses: WebLine, width: WebWidth, w: number): ViewUse | undefined {
  return width === 2 ? uses.f32.get(w) : uses.f64.get(slotOfWord(w));
}

/** How many times `refs` assigns word `w` as int32. */
function int32Writes(refs: FrameReferences, w: number): number {
  let writes = 0;
  for (let j = 0; j < refs.s32Writes.length; j += 2) if (refs.s32Writes[j] === w) writes++;
  return writes;
}

/** Whether `line` (seen as `uses`) reads any of `words` other than through the view of a web of `width`, or changes them in a way no web may cross. */
function readsOtherwise(uses: WebLine, width: WebWidth, words: readonly number[]): boolean {
  const { other } = uses;
  for (const w of words) {
    if (other.s32.filter((x) => x === w).length > int32Writes(other, w) || handsOn(other, w)) return true;
    const across = otherViewUse(uses, width, w);
    if (across !== undefined && (across.read || across.bad)) return true;
  }
  return false;
}

/** Whether `line` (seen as `uses`) writes any of `words` other than through the view of a web of `width`. */
function writesOtherwise(uses: WebLine, width: WebWidth, words: readonly number[]): boolean {
  return words.some((w) => int32Writes(uses.other, w) > 0 || otherViewUse(uses, width, w)?.write === true);
}

/**
 * Where the last read of `words` in `line` other than through the view of a web of `width`
 * starts (-1 if none; the operands of a NaN rule, the alternative to a write through the view,
 * are read before it writes): a line that writes a web may read what was there first, as a load
 * its address. Infinity where the line hands the words to a helper, which may read them after.
 */
function readsBefore(line: string, uses: WebLine, width: WebWidth, words: readonly number[]): number {
  if (words.some((w) => handsOn(uses.other, w))) return Infinity;
  // (Most lines that write a web read none of its words: no regular expression made for them.)
  const readAcross = (w: number): boolean => otherViewUse(uses, width, w)?.read === true || otherViewUse(uses, width, w)?.bad === true;
  if (!words.some((w) => uses.other.s32.includes(w) || readAcross(w))) return -1;
  const view = width === 2 ? String.raw`\bf32\[base \+ (?:${words.join('|')})\]` : String.raw`\bf64\[base \+ ${slotOfWord(words[0]!)} >> 1\]`;
  let last = -1;
  for (const m of line.matchAll(new RegExp(String.raw`(?:\bs32\[base \+ (?:${words.join('|')})\]|${view})(?!\s*=(?!=))`, 'g'))) last = m.index;
  return last;
}

/**
 * Where `line` first writes any of `words` (as int32 or through a view), or Infinity: where the
 * assignment's statement ends, since its value, to the right, is worked out first
 * (`s32[base + 4] = N.i32TruncF64S(f64[base + 4 >> 1]);` reads the slot, then writes it).
 */
function firstWriteAt(line: string, words: readonly number[]): number {
  const at = line.search(new RegExp(String.raw`\b[sf]32\[base \+ (?:${words.join('|')})\]\s*=(?!=)|\bf64\[base \+ ${slotOfWord(words[0]!)} >> 1\]\s*=(?!=)`));
  if (at < 0) return Infinity;
  const end = line.indexOf(';', at);
  return end < 0 ? line.length : end;
}

/**
 * `line` with the reads (`write` false) or the whole writes (`write` true) of the web of `width`
 * at `from` — through its view, by the NaN rules with a form on values, and (an f32) by a load —
 * made the web's own slot or word `to`.
 */
function webRenamed(line: string, width: WebWidth, from: number, to: number, write: boolean): string {
  const slot = (k: string, written: boolean): string => `base + ${num(Number(k) === from && written === write ? to : Number(k))}`;
  const access = (view: string, suffix: string) => (all: string, k: string, assigned: string | undefined): string =>
    (Number(k) === from && (assigned !== undefined) === write ? `${view}[base + ${num(to)}${suffix}]${assigned ?? ''}` : all);
  if (width === 2) {
    return line.replace(F64_ACCESS, access('f64', ' >> 1'))
      .replace(NAN_RULE, (_, name: string, d: string, a: string, b: string | undefined) =>
        `N.${name}(s32, ${slot(d, true)}, ${slot(a, false)}${b === undefined ? '' : `, ${slot(b, false)}`});`)
      .replace(F32_NAN_RULE_VALUED, (all, name: string, d: string, a: string) =>
        (name === 'f32DemoteNaN' && !write ? `N.${name}(s32, base + ${num(Number(d))}, ${slot(a, false)});` : all));
  }
  return line.replace(F32_ACCESS, access('f32', ''))
    .replace(F32_NAN_RULE_VALUED, (_, name: string, d: string, a: string, b: string | undefined) => (name === 'f32DemoteNaN'
      ? `N.${name}(s32, ${slot(d, true)}, base + ${num(Number(a))});`
      : `N.${name}(s32, ${slot(d, true)}, ${slot(a, false)}${b === undefined ? '' : `, ${slot(b, false)}`});`))
    .replace(WORD_LOAD, (all, k: string) => (write && Number(k) === from ? `s32[base + ${num(to)}] = view.getInt32(ea, true);` : all));
}

/** Whether `text` names a frame word at or past `frameEnd` (`base + K`), as only a web's can. */
function namesFrameBeyond(text: string, frameEnd: number): boolean {
  for (const m of text.matchAll(/\bbase \+ (\d+)/g)) if (Number(m[1]) >= frameEnd) return true;
  return false;
}

/** The webs valueWebs made: their slots (f64) and words (f32), and the lines it changed. */
interface Webs {
  readonly doubles: number[];
  readonly singles: number[];
  readonly lines: number[];
}

/**
 * The webs of float values in `lines` (changed in place). The compiler gives operand slots by
 * depth, so one slot holds an i32 address here and an f64 or f32 value there, and a slot used so
 * stays in the array for good (matmul's products). A web is a value written whole — an f64 to a
 * slot through the f64 view or as an f64 NaN rule's result; an f32 to a word through the f32
 * view, as an f32 NaN rule's result or by a load — read only through its view or by NaN rules
 * with a form on values on the straight lines after it, and dead by the end of them: a later
 * straight line writes a word of it (an operand slot's old value is gone once another value
 * comes in; a line reads its operands before it writes), or (an operand, at `tempsFrom` or
 * above: past the locals) a line reads it through its view — the instruction that takes it off
 * the stack (a value moved or kept on the stack is read as int32, which no web survives). Each
 * gets a slot or word of its own past the frame (from `from`), which becomes a variable no entry
 * loads and no way out stores:
 * no way in or out lies between its lines. An f32 may be quieted there (a load through
 * `getFloat32`): every reader converts the word to a double, which quiets it too, or computes a
 * NaN rule, which quiets its operands. A web whose words a line reads otherwise (as int32,
 * through the other view, by another helper), or that is still alive where the straight code
 * ends, is left as it was.
 */
function* valueWebs(lines: string[], from: number, tempsFrom: number): Generator<void, Webs> {
  const webs: Webs = { doubles: [], singles: [], lines: [] };
  const changed = new Set<number>();
  interface Web { readonly width: WebWidth; readonly k: number; readonly start: number; readonly readers: number[] }
  /** The open webs, by width and slot or word (`2k + width`, unique). */
  const open = new Map<number, Web>();
  const close = (web: Web): void => {
    const to = from + 2 * (webs.doubles.length + webs.singles.length);
    (web.width === 2 ? webs.doubles : webs.singles).push(to);
    lines[web.start] = webRenamed(lines[web.start]!, web.width, web.k, to, true);
    for (const r of web.readers) lines[r] = webRenamed(lines[r]!, web.width, web.k, to, false);
    for (const i of [web.start, ...web.readers]) changed.add(i);
  };
  for (let i = 0; i < lines.length; i++) {
    if (i % STEP === STEP - 1) yield;
    const line = lines[i]!;
    if (!isStraight(line)) {
      open.clear();
      continue;
    }
    if (open.size === 0 && !line.includes('f64[') && !line.includes('f32[') && !line.includes('getInt32')) continue;
    const uses = webLine(line);
    for (const [key, web] of [...open]) {
      const words = webWords(web.width, web.k);
      const own = (web.width === 2 ? uses.f64 : uses.f32).get(web.k);
      if (own?.bad === true || readsOtherwise(uses, web.width, words)) {
        open.delete(key);
        continue;
      }
      const overwritten = writesOtherwise(uses, web.width, words);
      if (own?.read === true) {
        if (overwritten && own.lastRead >= firstWriteAt(line, words)) {
          open.delete(key);
          continue;
        }
        web.readers.push(i);
      }
      // An operand's value is read once, by the instruction that takes it off the stack (a local's,
      // through `local.get`, again and again): past its reader it is dead.
      if (overwritten || own?.write === true || (own?.read === true && web.k >= tempsFrom)) {
        open.delete(key);
        close(web);
      }
    }
    for (const width of [2, 1] as const) {
      for (const [k, u] of width === 2 ? uses.f64 : uses.f32) {
        const words = webWords(width, k);
        if (!u.write || u.bad || writesOtherwise(uses, width, words)) continue;
        const readAt = readsBefore(line, uses, width, words);
        if (readAt < 0 || readAt < firstWriteAt(line, words)) {
          open.set(2 * k + width, { width, k, start: i, readers: [] });
        }
      }
    }
  }
  webs.lines.push(...changed);
  return webs;
}

class WordPromotion {
  /** Promoted int32 words, promoted f64 slots (by their first word), and promoted f32 words (`qK`), in order. */
  words: number[] = [];
  pairs: number[] = [];
  singles: number[] = [];
  private ints = new Set<number>();
  private doubles = new Set<number>();
  private quiet = new Set<number>();
  private readonly typed = new Set<number>();
  private readonly f32Words = new Set<number>();
  private readonly f64Slots = new Set<number>();
  private dynamic = false;

  /** Copies between two slots (the Copy template), as [to, from] pairs of first words. */
  private readonly copies: Array<[number, number]> = [];
  /**
   * Words a line writes as int32 otherwise (not as a whole slot moved by a copy, load or store),
   * and the words of a slot a line writes in any way while it also reads them as int32 or hands
   * them on: no double may hold them. (A double's words that are only read as int32, or handed
   * to a helper, are stored before the line and loaded after it.)
   */
  private readonly intWrites = new Set<number>();
  /** Words a line uses as int32 or hands on otherwise: what the line touches (touched). */
  private readonly intUses = new Set<number>();

  /** The words the markers name (storeWords and the like), and the lowest word a call may hand on or write. */
  private readonly marked = new Set<number>();
  private markedFrom = Infinity;

  /** Words written through the f32 view, and words that cannot hold a quiet f32 variable (singlesAsVariables). */
  private readonly f32Written = new Set<number>();
  private readonly notQuiet = new Set<number>();

  /** The webs' slots and words (valueWebs): a double or an f32 variable each, which nothing outside their lines sees, so never stored or loaded. */
  private readonly webDoubles: ReadonlySet<number>;
  private readonly webSingles: ReadonlySet<number>;

  /**
   * `singlesExcept`: where f32 words may be variables (a translation of the whole function, no
   * loop or piece of it outlined, and no instruction left to the interpreter nor exception
   * handler: every write to a word is among the lines observed), the words that may not — the
   * parameters and constant words, which the function does not write. `withDoubles`: whether
   * any line uses the f64 view (only then can a slot be a double). `webs`: valueWebs' webs.
   */
  constructor(private readonly singlesExcept: ReadonlySet<number> | null, private readonly withDoubles: boolean, webs: Webs | null = null) {
    this.webDoubles = new Set(webs?.doubles);
    this.webSingles = new Set(webs?.singles);
  }

  /** Takes note of a line's frame accesses (all lines first, then `decide`). */
  observe(line: string): void {
    // (Most lines hold no marker and no call: the cheap look first, the regular expressions only then.)
    if (line.includes('@')) {
      for (const m of line.matchAll(/@(?:store|load) ([\d,]*);/g)) for (const w of this.among(m[1]!)) this.marked.add(w);
      for (const m of line.matchAll(/@(?:store|load)From (\d+);/g)) this.markedFrom = Math.min(this.markedFrom, Number(m[1]));
    }
    // A callee's frame (`cb`, translated calls) and a call's arguments: every word from there up.
    if (line.includes('cb = ')) for (const m of line.matchAll(/\bcb = (\d+) \+ base\b/g)) this.markedFrom = Math.min(this.markedFrom, Number(m[1]));
    if (!reachesFrame(line)) return;
    // (Which words are written matters only to doubles and singles; most functions have neither.)
    const withWrites = this.withDoubles || this.singlesExcept !== null;
    const frame = frameReferences(line, withWrites);
    for (const w of frame.s32) this.typed.add(w);
    for (const w of frame.f32) this.f32Words.add(w);
    for (const k of frame.f64) this.f64Slots.add(k);
    // Any other view access, or an index that is not `base + K`: no promotion in this function.
    if (frame.otherAccess) this.dynamic = true;
    // What a double may meet besides the f64 view: a whole-slot copy, load or store, and the
    // NaN rules' helpers; any other int32 use of its words keeps the slot in the array.
    // (A whole-slot move names two words of the frame; a NaN rule names its helper.)
    const slotMoves = line.indexOf('s32[base + ') !== line.lastIndexOf('s32[base + ');
    const copy = slotMoves ? COPY.exec(line) : null;
    if (copy !== null && wholeSlot(copy)) this.copies.push([Number(copy[1]), Number(copy[2])]);
    let other = line;
    if (slotMoves) {
      other = other
        .replace(CONST_PAIR, (all, ...m: string[]) => (constantDouble([all, ...m.slice(0, 4)]) !== null ? '' : all))
        .replace(COPY, (all, ...m: string[]) => (wholeSlot([all, ...m.slice(0, 4)]) ? '' : all))
        .replace(SLOT_LOAD, (all, ...m: string[]) => (wholeSlot([all, ...m.slice(0, 2)]) ? '' : all))
        .replace(SLOT_STORE, (all, ...m: string[]) => (wholeSlot([all, ...m.slice(0, 2)]) ? '' : all));
    }
    if (other.includes('NaN')) other = other.replace(NAN_RULE, '');
    const uses = other === line ? frame : frameReferences(other, withWrites);
    for (const w of uses.s32) this.intUses.add(w);
    for (const w of uses.addresses) this.intUses.add(w).add(w + 1);
    for (let i = 0; i < uses.s32Writes.length; i += 2) this.intWrites.add(uses.s32Writes[i]!);
    // A slot the line writes — through the f64 view, or by a whole-slot move or constant, which
    // a double takes as an assignment — while it reads the slot's words as int32 or hands them on
    // otherwise (a memory64 load whose address is in the slot it loads into): after the line,
    // the double would be loaded again from the array, over what the line gave it.
    if (uses.s32.length > 0 || uses.addresses.length > 0) {
      for (let i = 0; i < frame.s32Writes.length; i += 2) this.slotWrittenAndRead(frame.s32Writes[i]!, uses);
      if (frame.f64.length > 0) for (const m of line.matchAll(F64_WRITE)) this.slotWrittenAndRead(Number(m[1] ?? m[2]), uses);
    }
    if (this.singlesExcept !== null) this.observeSingles(line, frame);
  }

  /** Word `w`, written by a line whose other references are `uses`: its slot is no double where the line also reads the slot as int32. */
  private slotWrittenAndRead(w: number, uses: FrameReferences): void {
    const k = slotOfWord(w);
    if (readsAsInt32(uses, k) || readsAsInt32(uses, k + 1)) this.intWrites.add(k).add(k + 1);
  }

  /** What `line` does to the words an f32 variable might hold (singlesAsVariables). */
  private observeSingles(line: string, frame: FrameReferences): void {
    if (frame.f32.length > 0) {
      for (const m of line.matchAll(F32_WRITE)) {
        const w = Number(m[1] ?? m[2]);
        if (m[3]?.trim() !== '=') this.notQuiet.add(w);
        this.f32Written.add(w);
        // A line that writes a word through the f32 view and reads it as int32 would have its
        // variable loaded again, from the array, after the write (`through`, in rewrite).
        if (frame.s32.includes(w)) this.notQuiet.add(w);
      }
    }
    const writes = frame.s32Writes;
    for (let i = 0; i < writes.length; i += 2) if (!quietBits(writes[i + 1]!)) this.notQuiet.add(writes[i]!);
    for (const k of frame.f64) this.notQuiet.add(k).add(k + 1);
    if (frame.addresses.length > 0) {
      const quietNaNs = new Map<number, number>();
      if (line.includes('N.f32')) for (const m of line.matchAll(F32_NAN_RULE)) {
        for (const a of m[0].matchAll(/base \+ (\d+)/g)) quietNaNs.set(Number(a[1]), (quietNaNs.get(Number(a[1])) ?? 0) + 1);
      }
      for (const k of frame.addresses) {
        const left = quietNaNs.get(k) ?? 0;
        if (left > 0) quietNaNs.set(k, left - 1);
        else this.notQuiet.add(k).add(k + 1);
      }
    }
  }

  /** Decides what lives in variables; false where a web's slot could not be a double (its lines must then stay as they were). */
  decide(): boolean {
    if (this.dynamic) return this.webDoubles.size === 0 && this.webSingles.size === 0;
    const doubles = new Set([...this.f64Slots].filter((k) => k % 2 === 0
      && !this.f32Words.has(k) && !this.f32Words.has(k + 1) && !this.intWrites.has(k) && !this.intWrites.has(k + 1)));
    // A copy between a double and a slot that is not one: neither is.
    for (let changed = true; changed;) {
      changed = false;
      for (const [to, from] of this.copies) {
        if (doubles.has(to) !== doubles.has(from)) {
          changed = doubles.delete(to) || changed;
          changed = doubles.delete(from) || changed;
        }
      }
    }
    this.doubles = doubles;
    this.ints = new Set([...this.typed].filter((w) => !this.f32Words.has(w) && !this.inDouble(w) && !this.f64Slots.has(w) && !this.f64Slots.has(w - 1)
      && !this.webSingles.has(w)));
    this.words = [...this.ints].sort((a, b) => a - b);
    this.pairs = [...this.doubles].filter((k) => !this.webDoubles.has(k)).sort((a, b) => a - b);
    const except = this.singlesExcept;
    if (except !== null) {
      this.quiet = new Set([...this.f32Written].filter((w) => this.f32Words.has(w) && !this.notQuiet.has(w) && !except.has(w)
        && !this.marked.has(w) && w < this.markedFrom && !this.webSingles.has(w)));
      this.singles = [...this.quiet].sort((a, b) => a - b);
    }
    return [...this.webDoubles].every((k) => doubles.has(k));
  }

  /** The frame words the observed lines touch: any, where one reaches the frame other than as `base + K`. */
  touched(): FrameWords {
    if (this.dynamic) return null;
    const words = new Set<number>([...this.typed, ...this.f32Words, ...this.intUses, ...this.marked].filter((w) => !this.webSingles.has(w)));
    for (const k of this.f64Slots) if (!this.webDoubles.has(k)) words.add(k).add(k + 1);
    return { words, from: this.markedFrom };
  }

  /**
   * The promoted words (a double's two) that code touching `touched` may read or write
   * (`inside`), or that it leaves alone (not `inside`): a double with either word touched is
   * touched.
   */
  touchedBy(touched: FrameWords, inside: boolean): number[] {
    const ints = [...this.words, ...this.singles].filter((w) => touches(touched, w) === inside);
    const pairs = this.pairs.filter((k) => (touches(touched, k) || touches(touched, k + 1)) === inside);
    return [...ints, ...pairs.flatMap((k) => [k, k + 1])];
  }

  /** The double holding word `w`, or -1. */
  private doubleOf(w: number): number {
    if (this.doubles.has(w)) return w;
    if (this.doubles.has(w - 1)) return w - 1;
    return -1;
  }

  private inDouble(w: number): boolean {
    return this.doubleOf(w) >= 0;
  }

  /** Whether word `w` lives in a variable of any kind. */
  private inVariable(w: number): boolean {
    return this.ints.has(w) || this.inDouble(w) || this.quiet.has(w) || this.webSingles.has(w);
  }

  /** `line` with promoted words as variables, stored and loaded around what needs the array. */
  rewrite(source: string): string {
    if (this.ints.size === 0 && this.doubles.size === 0 && this.quiet.size === 0 && this.webSingles.size === 0) return source;
    // (A line that reaches no frame word, most of a translation's `case` and branch lines, stays.)
    if (!reachesFrame(source)) return source;
    let line = source;
    // A double's slot moved whole: a copy between two doubles is an assignment; a load or a
    // store of the slot reads or writes its 8 bytes as one (DataView keeps a NaN's bits).
    if (this.doubles.size > 0) line = line
      .replace(CONST_PAIR, (all, d: string, lo: string, d1: string, hi: string) => {
        const literal = constantDouble([all, d, lo, d1, hi]);
        return literal !== null && this.doubles.has(Number(d)) ? `d${d} = ${literal};` : all;
      })
      .replace(COPY, (all, d: string, a: string, d1: string, a1: string) =>
        (wholeSlot([all, d, a, d1, a1]) && this.doubles.has(Number(d)) ? `d${d} = d${a};` : all))
      .replace(SLOT_LOAD, (all, d: string, d1: string) =>
        (wholeSlot([all, d, d1]) && this.doubles.has(Number(d)) ? `d${d} = view.getFloat64(ea, true);` : all))
      .replace(SLOT_STORE, (all, v: string, v1: string) =>
        (wholeSlot([all, v, v1]) && this.doubles.has(Number(v)) ? `view.setFloat64(ea, d${v}, true);` : all));
    // The f64 NaN rules on doubles: on their values (numeric.ts, f64NaN2Of and the like), a
    // slot in the array read and written there as a double (which keeps its bits).
    if (this.doubles.size > 0) line = line.replace(NAN_RULE,
      (all, name: string, d: string, a: string, b: string | undefined) => {
        const slots = [d, a, ...(b === undefined ? [] : [b])].map(Number);
        if (!slots.some((k) => this.doubles.has(k))) return all;
        const value = (k: number): string => (this.doubles.has(k) ? `d${num(k)}` : `F64[base + ${num(k)} >> 1]`);
        return `${value(slots[0]!)} = N.${name}Of(${slots.slice(1).map(value).join(', ')});`;
      });
    // An f32 web's load, through the view (whose readers all quiet a NaN: valueWebs), and the
    // f32 NaN rules where a web is among their words: on values, the words in the array read and
    // written through the f32 view (a NaN rule's result is quiet, and every bit survives).
    if (this.webSingles.size > 0 || this.webDoubles.size > 0) {
      line = line.replace(WORD_LOAD, (all, w: string) => (this.webSingles.has(Number(w)) ? `q${w} = view.getFloat32(ea, true);` : all))
        .replace(F32_NAN_RULE_VALUED, (all, name: string, d: string, a: string, b: string | undefined) => {
          const demote = name === 'f32DemoteNaN';
          const words = [d, ...(demote ? [] : [a]), ...(b === undefined ? [] : [b])].map(Number);
          if (!words.some((w) => this.webSingles.has(w)) && !(demote && this.webDoubles.has(Number(a)))) return all;
          const single = (w: number): string => (this.webSingles.has(w) || this.quiet.has(w) ? `q${num(w)}` : `F32[base + ${num(w)}]`);
          const operands = demote ? [this.doubles.has(Number(a)) ? `d${a}` : `F64[base + ${num(Number(a))} >> 1]`] : words.slice(1).map(single);
          return `${single(words[0]!)} = N.${name}Of(${operands.join(', ')});`;
        });
    }
    // A helper call handed frame addresses, as a statement (the templates' NaN paths, i64
    // division...): what it may touch is stored just before it and loaded just after, in place,
    // so that the path around it (the common one) keeps its variables.
    let text = '';
    let rest = line;
    for (let m = HELPER_CALL.exec(rest); m !== null; m = HELPER_CALL.exec(rest)) {
      const end = callEnd(rest, m.index + m[0].length);
      if (end < 0 || rest[end] !== ';') break;
      const call = rest.slice(m.index, end + 1);
      const touched = this.addressed(call);
      text += rest.slice(0, m.index) + (touched.length === 0 ? call : `{ ${this.store(touched)} ${call} ${this.load(touched)} }`);
      rest = rest.slice(end + 1);
    }
    text += rest;
    // A finite constant written to a single's word: its value.
    if (this.quiet.size > 0) text = text.replace(/\bs32\[base \+ (\d+)\] = (-?\d+);/g, (all, w: string, bits: string) => {
      const literal = this.quiet.has(Number(w)) ? singleLiteral(Number(bits)) : null;
      return literal === null ? all : `q${w} = ${literal};`;
    });
    // Anything else that needs the array: an address outside a call statement, or a double's
    // words touched as int32 (a copy, a load or store of the slot, a return) — around the line.
    const through = new Set<number>(this.addressed(text.replace(/\{ (S32|F64|F32)\[[^{}]*\}/g, '')));
    if (this.doubles.size > 0 || this.quiet.size > 0) {
      for (const w of frameReferences(text).s32) if (this.inDouble(w) || this.quiet.has(w)) through.add(w);
    }
    let body = toInt32OnStore(text, this.ints);
    if (this.ints.size > 0) body = intsAsVariables(body, this.ints);
    if (this.doubles.size > 0) body = body.replace(/\bf64\[base \+ (\d+) >> 1\]/g, (all, k: string) => (this.doubles.has(Number(k)) ? `d${k}` : all));
    if (this.quiet.size > 0 || this.webSingles.size > 0) body = singlesAsVariables(body, new Set([...this.quiet, ...this.webSingles]));
    if (through.size === 0) return body;
    const list = [...through];
    return `${this.store(list)} ${body} ${this.load(list)}`;
  }

  /** The promoted words at the frame addresses `text` hands on (`base + K` outside an access). */
  private addressed(text: string): number[] {
    const out: number[] = [];
    // (S32/F64[...] are the arrays themselves, on purpose: the stores and loads put in here.)
    for (const k of frameReferences(text).addresses) {
      // A helper may read or write the 64-bit slot at the address.
      for (const w of [k, k + 1]) if (this.inVariable(w)) out.push(w);
    }
    return out;
  }

  declarations(): string {
    const vars = [...this.words.map((w) => `w${num(w)} = 0`), ...[...this.pairs, ...this.webDoubles].map((k) => `d${num(k)} = 0`),
      ...[...this.singles, ...this.webSingles].map((w) => `q${num(w)} = 0`)];
    return vars.length === 0 ? '' : `let ${vars.join(', ')};`;
  }

  /** The promoted words and doubles among `words`. */
  private holding(words: Iterable<number>): { ints: number[]; pairs: number[]; singles: number[] } {
    const ints = new Set<number>();
    const pairs = new Set<number>();
    const singles = new Set<number>();
    for (const w of words) {
      if (this.ints.has(w)) ints.add(w);
      if (this.quiet.has(w)) singles.add(w);
      const d = this.doubleOf(w);
      if (d >= 0) pairs.add(d);
    }
    const sorted = (set: Set<number>): number[] => [...set].sort((a, b) => a - b);
    return { ints: sorted(ints), pairs: sorted(pairs), singles: sorted(singles) };
  }

  /**
   * A frame's setup at its entry, from a caller that left it to the function (FRESH_ENTRY):
   * locals `[from, to)` zeroed and the constant words written — into the variables where
   * `inVariables` and the word has one (declared zero, so a local needs nothing), into the
   * array for the rest; by the table's readyFrame (function `index`) where writing that out
   * would make the source long (MAX_SOURCE_CHARS). `load`: the words written to the array
   * that a double holds.
   */
  freshFrame(
    from: number, to: number, constantWords: ReadonlyArray<readonly [number, number]>, index: number, inVariables: boolean,
  ): { setup: string; load: number[] } {
    const inVar = (w: number): boolean => inVariables && this.ints.has(w);
    const inVars = constantWords.filter(([w]) => inVar(w)).map(([w, value]) => `w${num(w)} = ${num(value)};`);
    const load = inVariables ? constantWords.filter(([w]) => this.inDouble(w)).map(([w]) => w) : [];
    const array = frameWrites(from, to, constantWords.filter(([w]) => !inVar(w)),
      (w) => inVariables && this.inVariable(w)).join(' ');
    const setup = array.length > MAX_FRAME_SETUP_CHARS ? `table.readyFrame(S32, base, ${num(index)});` : array;
    return { setup: `${setup} ${inVars.join(' ')}`, load };
  }

  /** Loads of what holds `words` (at an entry: what is live there). */
  loadOnly(words: Iterable<number>): string {
    return this.load([...words]);
  }

  /** Stores of what holds `words` (all, by default). */
  store(words?: readonly number[]): string {
    const { ints, pairs, singles } = words === undefined ? this.all() : this.holding(words);
    return [...ints.map((w) => `S32[base + ${num(w)}] = w${num(w)};`), ...pairs.map((k) => `F64[base + ${num(k)} >> 1] = d${num(k)};`),
      ...singles.map((w) => `F32[base + ${num(w)}] = q${num(w)};`)].join(' ');
  }

  private all(): { ints: number[]; pairs: number[]; singles: number[] } {
    return { ints: this.words, pairs: this.pairs, singles: this.singles };
  }

  /** Stores of everything promoted under the `below` variable's value (the leaving block's). */
  storeBelow(): string {
    return [
      ...this.words.map((w) => `if (below > ${num(w)}) S32[base + ${num(w)}] = w${num(w)};`),
      ...this.pairs.map((k) => `if (below > ${num(k)}) F64[base + ${num(k)} >> 1] = d${num(k)};`),
      ...this.singles.map((w) => `if (below > ${num(w)}) F32[base + ${num(w)}] = q${num(w)};`),
    ].join(' ');
  }

  /** Loads of what holds `words` (all, by default). */
  load(words?: readonly number[]): string {
    const { ints, pairs, singles } = words === undefined ? this.all() : this.holding(words);
    return [...ints.map((w) => `w${num(w)} = S32[base + ${num(w)}];`), ...pairs.map((k) => `d${num(k)} = F64[base + ${num(k)} >> 1];`),
      ...singles.map((w) => `q${num(w)} = F32[base + ${num(w)}];`)].join(' ');
  }

  /** The words of a marker's comma-separated list. */
  among(list: string): number[] {
    return list === '' ? [] : list.split(',').map(Number);
  }

  /** Words at `from` and above that something holds (a call's arguments and results). */
  from(from: number): number[] {
    return [...this.words.filter((w) => w >= from), ...this.pairs.filter((k) => k >= from), ...this.singles.filter((w) => w >= from)];
  }
}

/** A write through the f32 view: its word, and what follows it (plain `=` only, as the templates write). */
const F32_WRITE = new RegExp(String.raw`(?:\+\+|--)\s*f32\[base \+ (\d+)\]|\bf32\[base \+ (\d+)\](${ASSIGNMENT})`, 'g');
/** A write through the f64 view: its slot's first word. */
const F64_WRITE = new RegExp(String.raw`(?:\+\+|--)\s*f64\[base \+ (\d+) >> 1\]|\bf64\[base \+ (\d+) >> 1\]${ASSIGNMENT}`, 'g');
/** The f32 NaN rules' helpers: each writes a quiet NaN to its first address and reads the others. */
const F32_NAN_RULE = /\bN\.(?:f32NaN1|f32NaN2|f32NaNMinMax|f32DemoteNaN)\(s32(?:, base \+ \d+)+\);/g;

/** Whether `value` is an int32 constant (not NaN, as s32Writes gives any other value) whose bits, as an f32, are anything but a signalling NaN. */
function quietBits(value: number): boolean {
  if (Number.isNaN(value)) return false;
  const bits = value | 0;
  return (bits & 0x7f800000) !== 0x7f800000 || (bits & 0x7fffff) === 0 || (bits & 0x400000) !== 0;
}

/**
 * `text` with the f32 words in `singles` as their variables: `f32[base + K] = v` as
 * `qK = Math.fround(v)`, reads as `qK`.
 *
 * A single is a double holding the f32 value. Converting an f32 to a double
 * quiets a signalling NaN (as the processor does), so a variable may hold only a word that never
 * holds one, which the function's own lines tell (WordPromotion.observeSingles): every write to it is an f32
 * result — arithmetic or a conversion (through the f32 view, rounded with Math.fround), or a NaN
 * rule's helper (which makes quiet NaNs) — or an int32 constant that is no signalling NaN, and it
 * is no parameter (a caller may pass one), no constant word, nothing a call hands on or writes,
 * and no f64 slot's word; only in a translation of the whole function. A quiet NaN keeps its
 * payload between an f32 and a double both ways. Where a line reads the word as int32 (an
 * f32.store, a copy), the variable is stored before the line, as a double's is.
 */
function singlesAsVariables(text: string, singles: ReadonlySet<number>): string {
  return assignmentsRewritten(text, /\bf32\[base \+ (\d+)\] = /g, singles, (k, value) => `q${k} = Math.fround(${value})`)
    .replace(/\bf32\[base \+ (\d+)\]/g, (all, k: string) => (singles.has(Number(k)) ? `q${k}` : all));
}

/**
 * `text` with each assignment that `start` finds (its word the first group, its value what
 * follows the match) to a word in `words` rewritten: `rewrite`'s text for the whole assignment,
 * or the assignment as it was where that is null.
 */
function assignmentsRewritten(text: string, start: RegExp, words: ReadonlySet<number>, rewrite: (word: string, value: string) => string | null): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(start)) {
    if (!words.has(Number(m[1])) || m.index < from) continue;
    const valueAt = m.index + m[0].length;
    const end = expressionEnd(text, valueAt);
    if (end < 0) continue;
    const rewritten = rewrite(m[1]!, text.slice(valueAt, end));
    if (rewritten === null) continue;
    out += text.slice(from, m.index) + rewritten;
    from = end;
  }
  return out + text.slice(from);
}

/** A 64-bit constant written to a slot (Const64, filled): a double may take it as a literal. */
const CONST_PAIR = /s32\[base \+ (\d+)\] = (-?\d+); s32\[base \+ (\d+)\] = (-?\d+);/;

/** The literal of a CONST_PAIR match's double (doubleLiteral), or null: not one whole slot, or no literal. */
function constantDouble(m: RegExpExecArray | readonly string[]): string | null {
  return Number(m[3]) === Number(m[1]) + 1 ? doubleLiteral(Number(m[2]), Number(m[4])) : null;
}

/** Whole-slot moves in filled templates (Copy; i64 load and store — an f64 load or store moves the double itself): a double may meet them. */
const COPY = /s32\[base \+ (\d+)\] = s32\[base \+ (\d+)\]; s32\[base \+ (\d+)\] = s32\[base \+ (\d+)\];/;
const SLOT_LOAD = /s32\[base \+ (\d+)\] = view\.getInt32\(ea, true\); s32\[base \+ (\d+)\] = view\.getInt32\(ea \+ 4, true\);/;
const SLOT_STORE = /view\.setInt32\(ea, s32\[base \+ (\d+)\], true\); view\.setInt32\(ea \+ 4, s32\[base \+ (\d+)\], true\);/;

/** Whether a COPY, SLOT_LOAD or SLOT_STORE match moves one whole slot (its second word is the first's next). */
function wholeSlot(m: RegExpExecArray | readonly string[]): boolean {
  return m.length === 5 ? Number(m[3]) === Number(m[1]) + 1 && Number(m[4]) === Number(m[2]) + 1 : Number(m[2]) === Number(m[1]) + 1;
}
/** The f64 NaN rules' helpers, which have a form on values (numeric.ts, f64NaN2Of). */
const NAN_RULE = /\bN\.(f64NaN1|f64NaN2|f64NaNMinMax)\(s32, base \+ (\d+), base \+ (\d+)(?:, base \+ (\d+))?\);/g;

/**
 * A template that may throw (a trap): it records its position first. The NaN rules' helpers
 * (numeric.ts, f32NaN1 and the like) only compute a NaN's bits, and float arithmetic is much of
 * some functions' source.
 */
const MAY_THROW = /\bthrow\b|\bN\.(?!f(32|64)NaN)|\bnarrow64\b/;

/**
 * `text` with the value of every store to a word in `ints` made a 32-bit integer where it may
 * not be one: an Int32Array converts what it is given (ToInt32), a variable does not, and some
 * templates rely on the array — `a >>> b`, a truncation's high word. Values that are int32 by
 * their shape stay as they are (V8 drops a `| 0` on an int32 anyway; the source stays shorter).
 */
function toInt32OnStore(text: string, ints: ReadonlySet<number>): string {
  if (ints.size === 0) return text;
  return assignmentsRewritten(text, /\bs32\[base \+ (\d+)\] = /g, ints, (w, value) => (isInt32Shaped(value) ? null : `s32[base + ${w}] = (${value}) | 0`));
}

/** A frame word or a number the compiler wrote. */
const SIMPLE = String.raw`(s32\[base \+ \d+\]|-?\d{1,10})`;
/**
 * Values that are 32-bit integers as they stand: a frame word, a number in range, an int32 or
 * narrower load, Math.imul of simple operands, a signed bit operation of two simple operands,
 * `(…) | 0`, and a comparison's 1 or 0 (`… ? 1 : 0`, the conditional being the top operator).
 */
const INT32_SHAPES = [
  new RegExp(`^${SIMPLE}$`),
  /^view\.get(Int8|Uint8|Int16|Uint16|Int32)\(ea( \+ \d+)?(, true)?\)$/,
  /^Math\.imul\([^()]*\)$/,
  new RegExp(`^${SIMPLE} (\\||&|\\^|<<|>>) ${SIMPLE}$`),
  /^[^?]* \? 1 : 0$/,
];

function isInt32Shaped(value: string): boolean {
  if (/^-?\d+$/.test(value)) return Number(value) >= -0x80000000 && Number(value) <= 0x7fffffff;
  if (INT32_SHAPES.some((shape) => shape.test(value))) return true;
  // `(…) | 0` whose parenthesis closes just before the `| 0`.
  if (!value.startsWith('(') || !value.endsWith(') | 0')) return false;
  let depth = 0;
  for (let i = 0; i < value.length - 4; i++) {
    if (value[i] === '(') depth++;
    else if (value[i] === ')' && --depth === 0) return i === value.length - 5;
  }
  return false;
}

/** Where the expression starting at `from` ends: the `;` (or unmatched closing bracket) after it, at its depth. */
function expressionEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return i;
      depth--;
    } else if ((c === ';' || c === ',') && depth === 0) return i;
  }
  return -1;
}

/** The start of a call of a helper that may be handed frame addresses. */
const HELPER_CALL = /\b(N\.\w+|narrow64|canonicalizeNaN)\(/;

/** Where the call whose arguments start at `from` closes (the index of its `)`), or -1. */
function callEnd(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The `count` words from `from`, but those `idle` marks (idleWordMask: bit k for word from + k,
 * the high word of an i32 or f32). A direct call stores only its arguments and loads only its
 * results: whatever this frame holds above them is dead at the call (the operand stack ends
 * with the arguments, and the callee's frame overwrites what lies above).
 */
function span(from: number, count: number, idle: number): number[] {
  const words: number[] = [];
  for (let k = 0; k < count; k++) if (k > 30 || (idle & (1 << k)) === 0) words.push(from + k);
  return words;
}

/** A Copy's template moving the low word alone (its first statement): an i32's (CompiledFunctions.i32Copies). */
const LOW_WORD_COPY = ((body: string): string => body.slice(0, body.indexOf(';') + 1))(DATA_OPS.get(Op.Copy)!.body);

/** How many of `sorted` (increasing) are below `x`: the index of the first at or above it. */
function countBelow(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The positions in [from, to) of `positions` (increasing): the Copies of an i32 in a range of the code. */
function copiesOfI32(positions: readonly number[], from: number, to: number): Set<number> {
  const lo = countBelow(positions, from);
  const found = new Set<number>();
  for (let i = lo; i < positions.length && positions[i]! < to; i++) found.add(positions[i]!);
  return found;
}

/**
 * Markers the first pass leaves for the second (WordPromotion): where to store and load which
 * words. MARKER finds each of them (and those of an outlined loop's call) for pass 3.
 */
const MARKER = /@(storeFrom|loadFrom|store|load|storeLoop|loadLoop|storeAllBut) ([\d,]*);/g;
const storeFrom = (word: number): string => `@storeFrom ${num(word)};`;
const loadFrom = (word: number): string => `@loadFrom ${num(word)};`;
const storeWords = (words: readonly number[]): string => `@store ${words.map(num).join(',')};`;
const loadWords = (words: readonly number[]): string => `@load ${words.map(num).join(',')};`;

/**
 * Instructions (or lines) translated between two yields of functionSourceInSteps. Small, for
 * the translator's first steps in a process, which V8 runs before it has optimised them: 128
 * lines a step took 2-5.6 ms then (a function of 47,000 characters), in a time budget of 1 ms
 * (a step's, until 2026-12-01; now what is left of the slice) that a step can only overrun; 32
 * take a quarter of that, and translate lz77's functions as fast once warm (12-35 ms a module
 * either way, six times each).
 */
const STEP = 32;

/** functionSourceInSteps' answer for a function or range whose translation would be too long. */
export const TOO_LONG = 'too long';

/** Part of a function's code, [from, to): one of its loops, translated on its own (tier.ts, outlined loops). */
export interface CodeRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The frame words a translation may read or write, in the array or in its variables: these
 * words and every word from `from` up (a call's arguments, its callee's frame); null for any.
 */
export type FrameWords = { readonly words: ReadonlySet<number>; readonly from: number } | null;

const touches = (touched: FrameWords, w: number): boolean => touched === null || w >= touched.from || touched.words.has(w);

/** A translation: its source, and the words it touches (what a caller of an outlined loop hands over). */
export interface TranslatedSource {
  readonly source: string;
  readonly touched: FrameWords;
}

/**
 * Part of a function translated as a function of its own, which its function's translation
 * calls (tier.ts): one of its loops, or a piece of a function too long to translate whole.
 */
export interface OutlinedRange extends CodeRange, TranslatedSource {
  readonly kind: 'loop' | 'piece';
}

/**
 * Function `index`'s body as the interpreter's code, which the tier reads: translated now, in a
 * step of its own, if it waited for its first call (compiler.ts, lazy translation).
 */
export function* bodyTranslated(fns: CompiledFunctions, index: number): Generator<void, void> {
  if (fns.isTranslated(index)) return;
  fns.ensureTranslated(index, null);
  yield;
}

/** Whether an exception handler (try_table, legacy try) starts in the code `[from, to)`. */
function hasHandlers(fns: CompiledFunctions, from: number, to: number): boolean {
  const { handlers } = fns;
  for (let h = 0; h < handlers.length; h += HANDLER_STRIDE) {
    if (handlers[h + Handler.Start]! >= from && handlers[h + Handler.Start]! < to) return true;
  }
  return false;
}

/** Instructions after which the interpreter may hand a function back to the tier (Execution.rejoin). */
const handsBack = (op: number): boolean => op === Op.Call || op === Op.CallIndirect || op === Op.CallImport || op === Op.MemoryGrow;

/**
 * The body of the JavaScript function for function `index` (the factory in tier.ts wraps it),
 * or null when the function stays in the interpreter: too long, or holding an instruction
 * whose layout the tier does not know.
 */
export function functionSource(fns: CompiledFunctions, index: number): string | null {
  const steps = functionSourceInSteps(fns, index);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value === TOO_LONG || step.value === null ? null : step.value.source;
  }
}

/**
 * functionSource in steps: it yields after every STEP instructions or lines, so that the
 * translation of a large function can be spread over several slices (tier.ts). TOO_LONG when
 * it would pass MAX_TRANSLATED_WORDS or `maxChars`; null when it holds an instruction the tier
 * does not know.
 *
 * With `range`, only that part of the function: entered at its loop headers and hand-back
 * points only (never as a call), it leaves to the interpreter wherever control leaves the
 * range — a branch out of it, falling off its end — as at any exit, with the fuel charged up to
 * there. `outlined`: loops of the function translated so (each a range), which this one calls
 * where each starts, handing over only the words the loop touches.
 */
export function* functionSourceInSteps(
  fns: CompiledFunctions, index: number, range: CodeRange | null = null, maxChars = MAX_SOURCE_CHARS, outlined: readonly OutlinedRange[] = [],
): Generator<void, TranslatedSource | typeof TOO_LONG | null> {
  yield* bodyTranslated(fns, index);
  const { code, info } = fns;
  const at = index * FUNC_INFO_STRIDE;
  const functionEntry = info[at + FuncInfo.Entry]!;
  const entry = range?.from ?? functionEntry;
  const end = range?.to ?? info[at + FuncInfo.CodeEnd]!;
  if (functionEntry < 0) return null;
  if (end - entry - outlined.reduce((sum, r) => sum + r.to - r.from, 0) > MAX_TRANSLATED_WORDS) return TOO_LONG;
  const inRange = (pc: number): boolean => pc >= entry && pc < end;
  const i32Copies = copiesOfI32(fns.i32Copies, entry, end);

  // Where the interpreter writes frame words that no line of the translation shows: the
  // instructions left to it (an import's results, memory.grow's), a catch's payload.
  let interpreterWrites = hasHandlers(fns, functionEntry, info[at + FuncInfo.CodeEnd]!);

  // Pass 1: where instructions start, and which start a block.
  const starts: number[] = [];
  const isStart = new Set<number>();
  const leaders = new Set<number>([entry]);
  // (A range is entered at its start: a loop header, or a piece's first instruction.)
  const entries: number[] = [entry];
  // Where the interpreter may hand the function back (Execution.rejoin): after the calls and
  // memory.grows inside a loop. Outside every loop the rest of the function runs once, and the
  // interpreter finishes it; each entry costs the code a join.
  const handBacks: number[] = [];
  const loops: Array<[number, number]> = [];
  /** Whether `at` lies inside one of `loops` ([header, back-edge] pairs): a hand-back there is an entry. */
  const inLoop = (within: ReadonlyArray<readonly [number, number]>, at: number): boolean => within.some(([header, backEdge]) => header < at && at <= backEdge);
  // Outlined ranges (tier.ts: loops, pieces): each is a function of its own, called where it
  // starts; the points inside it where the function can be entered enter it — as the range's
  // own translation takes them: its loop headers, and its hand-back points inside a loop of its
  // own — and where control leaves it are blocks here.
  // (The range at each position, looked up: a function in pieces has a hundred of them.)
  const rangeAt = new Int32Array(outlined.length > 0 ? end - entry : 0).fill(-1);
  for (let k = outlined.length - 1; k >= 0; k--) rangeAt.fill(k, Math.max(outlined[k]!.from, entry) - entry, Math.min(outlined[k]!.to, end) - entry);
  const outlinedAt = (pc: number): number => (outlined.length > 0 ? rangeAt[pc - entry]! : -1);
  const intoOutlined: Array<[number, number]> = [];
  const exitsOf: Array<Set<number>> = outlined.map(() => new Set<number>());
  const handBacksInto: Array<[number, number]> = [];
  const loopsInto: Array<Array<[number, number]>> = outlined.map(() => []);
  let walked = 0;
  for (let pc = entry; pc < end; ) {
    if (++walked % STEP === 0) yield;
    const size = sizeAt(code, pc);
    if (size === null) return null;
    const k = outlinedAt(pc);
    if (k >= 0) {
      const { from, to } = outlined[k]!;
      const op = code[pc]!;
      if (pc === from) {
        // Where this calls the range: a block of its own, an entry at a loop header.
        starts.push(pc);
        isStart.add(pc);
        leaders.add(pc);
        if (op === Op.Loop) entries.push(pc);
      } else if (op === Op.Loop) {
        if (!intoOutlined.some(([p]) => p === pc)) intoOutlined.push([pc, k]);
      } else if (handsBack(op) && pc + size < to) {
        handBacksInto.push([pc + size, k]);
      }
      for (const t of targetsAt(code, pc)) {
        if (t >= from && t < to) {
          if (t <= pc && code[t] === Op.Loop) loopsInto[k]!.push([t, pc]);
        } else if (inRange(t)) {
          leaders.add(t);
          exitsOf[k]!.add(t);
        }
      }
      if (pc + size === to && pc + size < end) {
        leaders.add(pc + size);
        exitsOf[k]!.add(pc + size);
      }
      pc += size;
      continue;
    }
    starts.push(pc);
    isStart.add(pc);
    const op = code[pc]!;
    if (op === Op.Loop) {
      leaders.add(pc);
      entries.push(pc);
    }
    // (A direct callee's frame layout is written into the call.)
    if (op === Op.Call) yield* bodyTranslated(fns, code[pc + 1]!);
    if (handsBack(op) && pc + size < end) handBacks.push(pc + size);
    if (EXIT_SIZES.has(op)) interpreterWrites = true;
    for (const t of targetsAt(code, pc)) {
      if (!inRange(t)) continue; // leaving the range: an exit (goto)
      leaders.add(t);
      if (t <= pc && code[t] === Op.Loop) loops.push([t, pc]);
    }
    pc += size;
  }
  for (const at of handBacks) {
    if (!inLoop(loops, at)) continue;
    leaders.add(at);
    entries.push(at);
  }
  for (const [at, k] of handBacksInto) {
    if (inLoop(loopsInto[k]!, at) && !intoOutlined.some(([p]) => p === at)) intoOutlined.push([at, k]);
  }
  intoOutlined.sort((a, b) => a[0] - b[0]);
  for (const t of leaders) if (!isStart.has(t)) return null; // a target inside an instruction: not code we wrote
  const blockOf = new Map<number, number>();
  [...leaders].sort((a, b) => a - b).forEach((pc, i) => blockOf.set(pc, i));
  const block = (pc: number): string => num(blockOf.get(pc)!);
  // Every way out goes through one block that stores the promoted words and returns `answer`.
  const leave = num(leaders.size);
  // Every way out sets only variables, to constants or to other variables, and the block that
  // leaves does the rest: code V8 has optimised before a way out was first taken has no type
  // feedback for that way, and would be thrown away on taking it (a deoptimisation) — each
  // way out once per function, at the first slice's end or return to the interpreter.
  const exit = (pc: number): string => `{ xpc = ${num(pc)}; answer = 1; blk = ${leave}; continue; }`;
  // A jump: to its block, or out of the range to the interpreter.
  const goto = (pc: number): string => (inRange(pc) ? `blk = ${block(pc)}; continue;` : exit(pc));

  // Pass 2: the code, one instruction per line, frame words as `s32[base + K]`.
  let lines: string[] = [];
  // What the code holds, for what the translation must write around it (below).
  const holds = { calls: false, checkPoints: false, traps: false };
  let done = 0;
  let length = 0;
  for (const pc of starts) {
    if (++done % STEP === 0) {
      // Already past the limit (the variables of pass 3 shorten it only a little): stop here.
      if (length > 1.5 * maxChars) return TOO_LONG;
      yield;
    }
    length += lines.length > 0 ? lines[lines.length - 1]!.length : 0;
    if (leaders.has(pc)) lines.push(`case ${block(pc)}:`);
    const k = outlinedAt(pc);
    if (k >= 0) {
      // An outlined range (a loop or a piece): the words it touches go to the array, and back
      // after it; where it left — in this frame: a callee of the range that left to the interpreter answers 1 too,
      // and a recursive one may have left at this very position, at this very base even (a call
      // with no argument words: only the frame array's top tells them apart) — this goes on; anything else
      // it answered, this answers, with the rest of its words stored (the range's are in the array).
      const { from, to } = outlined[k]!;
      const targets = [...exitsOf[k]!].sort((a, b) => a - b).map((t) => `case ${num(t)}: blk = ${block(t)}; continue;`);
      // (`into`: where in the loop an entry of this function's into the loop starts it; else -1.)
      holds.calls = true;
      lines.push(`@storeLoop ${num(k)}; { calling = 0; const r = L${num(k)}(ex, base, into < 0 ? ${num(pc)} : into, fsp, n, left); into = -1; calling = -1;`
        + ` if (r !== ${num(ABNORMAL)}) return r; left = ex.jitLeft; if (ex.answer === ${num(EXIT)} && ex.fsp === fsp && ex.base === base && (ex.pc < ${num(from)} || ex.pc >= ${num(to)})) { @loadLoop ${num(k)}; ${MEMORY_REFRESH}`
        + ` switch (ex.pc) { ${targets.join(' ')} } } @storeAllBut ${num(k)}; answer = ${num(FROM_CALLEE)}; below = 0; blk = ${leave}; continue; }`);
      continue;
    }
    const op = code[pc]!;
    const data = DATA_OPS.get(op);
    if (data !== undefined) {
      // An instruction that may trap says where it is first, for the backtrace.
      const mayThrow = MAY_THROW.test(data.body);
      holds.traps ||= mayThrow;
      const body = op === Op.Copy && i32Copies.has(pc) ? LOW_WORD_COPY : data.body;
      lines.push(`${mayThrow ? `at = ${num(pc)}; ` : ''}{ ${fill(body, code, pc)} }`);
      continue;
    }
    const branch = BRANCH_OPS.get(op);
    if (branch !== undefined) {
      lines.push(`left -= ${num(code[pc + branch.fuel]!)}; if (${fill(branch.cond, code, pc)}) { ${goto(code[pc + branch.target]!)} }`);
      continue;
    }
    if (EXIT_SIZES.has(op)) {
      lines.push(exit(pc));
      continue;
    }
    const bulk = BULK.get(op);
    if (bulk !== undefined) {
      // bulkOperation reads its operands from the array and writes its result there.
      const slots = (operands: readonly number[]): number[] => operands.flatMap((k) => [code[pc + k]!, code[pc + k]! + 1]);
      holds.traps = true;
      lines.push(`at = ${num(pc)}; ${storeWords(slots(bulk.reads))} { const next = bulkOperation(ex.meter, inst, code, ${num(pc)}, S32, base);`
        + ` if (ex.meter.due) { ${loadWords(slots(bulk.writes))} xpc = next; answer = 3; blk = ${leave}; continue; } } ${loadWords(slots(bulk.writes))}`);
      continue;
    }
    switch (op) {
      case Op.Unreachable:
        holds.traps = true;
        lines.push(`at = ${num(pc)}; throw new Trap(TrapKind.Unreachable);`);
        break;
      case Op.Jump:
        lines.push(`left -= ${num(code[pc + 2]!)}; ${goto(code[pc + 1]!)}`);
        break;
      case Op.BranchTable: {
        const count = code[pc + 3]!;
        const cases: string[] = [];
        for (let k = 0; k < count; k++) cases.push(`case ${num(k)}: ${goto(code[pc + 4 + k]!)}`);
        lines.push(`{ left -= ${num(code[pc + 2]!)}; switch (s32[base + ${num(code[pc + 1]!)}] >>> 0) { ${cases.join(' ')} default: ${goto(code[pc + 4 + count]!)} } }`);
        break;
      }
      case Op.Fuel:
        lines.push(`left -= ${num(code[pc + 1]!)};`);
        break;
      case Op.Loop:
        // The check point: with the slice spent, the interpreter takes it from here. Every
        // CLOCK_FUEL the refill also looks at the clock: V8 runs new code slowly until it has
        // optimised it (and again after a deoptimisation), so a slice sized in fuel from the
        // pace so far can last far longer than meant; past the slice's deadline, it pauses.
        holds.checkPoints = true;
        lines.push(`if (left <= 0 && ${SLICE_SPENT}) { xpc = ${num(pc)}; answer = ${num(AT_CHECK_POINT)}; blk = ${leave}; continue; }`);
        break;
      case Op.Call: {
        holds.calls = true;
        holds.checkPoints = true;
        const callee = code[pc + 1]!;
        const argBase = code[pc + 2]!;
        const calleeAt = callee * FUNC_INFO_STRIDE;
        lines.push(
          `{ const fn = fns[${num(callee)}] ?? table.translateCallee(${num(callee)}, ex.sliceDeadline), cb = ${num(argBase)} + base;`
          + ` if (fn == null || n > ${num(MAX_NESTING_UNITS - frameUnits(info[calleeAt + FuncInfo.FastFrameEnd]!))} || cb + ${num(info[calleeAt + FuncInfo.FastFrameEnd]!)} > S32.length || fsp === frames.length) ${exit(pc)}`
          + ` left -= ${num(code[pc + 3]!)}; ${storeWords(span(argBase, info[calleeAt + FuncInfo.ParamsEnd]!, fns.idleParamWords[callee]!))} calling = ${num(pc + 4)};`
          + ` if (--left <= 0 && ${SLICE_SPENT}) { xcallee = ${num(callee)}; answer = ${num(AT_CALLEE_ENTRY)}; below = ${num(argBase)}; blk = ${leave}; continue; }`
          + ` const r = fn(ex, cb, ${num(FRESH_ENTRY)}, fsp + 3, n + ${num(frameUnits(info[calleeAt + FuncInfo.FastFrameEnd]!))}, left);`
          + ` if (r === ${num(ABNORMAL)}) { answer = ${num(FROM_CALLEE)}; below = ${num(argBase)}; blk = ${leave}; continue; } left = r; calling = -1;`
          + ` ${MEMORY_REFRESH} ${loadWords(span(argBase, fns.resultWords[callee]!, fns.idleResultWords[callee]!))} }`,
        );
        break;
      }
      case Op.CallIndirect: {
        holds.calls = true;
        holds.checkPoints = true;
        holds.traps = true;
        const fuel = num(code[pc + 5]!);
        const argBase = code[pc + 3]!;
        lines.push(
          `{ at = ${num(pc)}; left -= ${fuel}; const callee = store.funcs[indirectCallee(inst, ${num(code[pc + 1]!)}, ${num(code[pc + 2]!)}, s32[base + ${num(code[pc + 4]!)}] >>> 0)];`
          + ` const fi = callee.index, fn = callee.instance === inst ? fns[fi] ?? table.translateCallee(fi, ex.sliceDeadline) : undefined, cb = ${num(argBase)} + base, ia = fi * ${num(FUNC_INFO_STRIDE)};`
          + ` const cost = (info[ia + ${num(FuncInfo.FastFrameEnd)}] >> ${num(UNIT_WORDS_SHIFT)}) + ${num(FRAME_UNITS)};`
          + ` if (fn == null || n + cost > ${num(MAX_NESTING_UNITS)} || cb + info[ia + ${num(FuncInfo.FastFrameEnd)}] > S32.length || fsp === frames.length) { left += ${fuel}; ${exit(pc)} }`
          + ` ${storeFrom(argBase)} calling = ${num(pc + 6)};`
          + ` if (--left <= 0 && ${SLICE_SPENT}) { xcallee = fi; answer = ${num(AT_CALLEE_ENTRY)}; below = ${num(argBase)}; blk = ${leave}; continue; }`
          + ` const r = fn(ex, cb, ${num(FRESH_ENTRY)}, fsp + 3, n + cost, left);`
          + ` if (r === ${num(ABNORMAL)}) { answer = ${num(FROM_CALLEE)}; below = ${num(argBase)}; blk = ${leave}; continue; } left = r; calling = -1;`
          + ` ${MEMORY_REFRESH} ${loadFrom(argBase)} }`,
        );
        break;
      }
      case Op.Return: {
        // To a translated caller, here. To the interpreter, here too where returnsDirectly
        // (tier.ts) says so: it pops the frame as the interpreter's Return does (RETURNED).
        // Otherwise, and from an outlined loop, the interpreter makes the return (the way out
        // stores every word).
        const src = code[pc + 1]!;
        const words = code[pc + 2]!;
        // Not the words no instruction reads (the high words of i32s and f32s: idleWordMask).
        const moves = span(0, words, words === fns.resultWords[index] ? fns.idleResultWords[index]! : 0)
          .map((w) => `S32[base + ${num(w)}] = s32[base + ${num(src + w)}];`).join(' ');
        const byInterpreter = `xpc = ${num(pc)}; answer = ${num(EXIT)}; blk = ${leave}; continue;`;
        lines.push(range === null
          ? `if (n === 0 && !returnsDirectly(ex, table, fsp)) { ${byInterpreter} } left -= ${num(code[pc + 3]!)}; ${moves} if (n === 0) { ex.jitLeft = left; return ${num(ABNORMAL)}; } return left;`
          : `if (n === 0) { ${byInterpreter} } left -= ${num(code[pc + 3]!)}; ${moves} return left;`);
        break;
      }
      default:
        throw new Error(`internal error: no translation for opcode ${op}`);
    }
  }
  // Falling off a range's end: the interpreter goes on there.
  if (range !== null) lines.push(exit(end));

  // Pass 3: constant slots read as literals; frame words into variables, and the markers into
  // stores and loads.
  const constantWords = constantWordsOf(fns, index);
  yield* constantsAsLiterals(lines, constantWords);
  const paramsEnd = info[at + FuncInfo.ParamsEnd]!;
  const params: number[] = [];
  for (let w = 0; w < paramsEnd; w++) params.push(w);
  const usesView = (view: string): boolean => lines.some((line) => line.includes(view));
  const singlesExcept = range === null && outlined.length === 0 && !interpreterWrites && usesView('f32[')
    ? new Set([...params, ...constantWords.map(([w]) => w)]) : null;
  const withDoubles = usesView('f64[');
  // The float values that live and die between two lines of straight code get slots and words of
  // their own (valueWebs), numbered past the frame; if any of them cannot be a variable after
  // all, the lines go back to what they were.
  const withFloats = withDoubles || usesView('f32[');
  const asWritten = withFloats ? lines.slice() : lines;
  const webs = withFloats ? yield* valueWebs(lines, info[at + FuncInfo.FrameEnd]!, info[at + FuncInfo.LocalsEnd]!) : null;
  let words = new WordPromotion(singlesExcept, withDoubles, webs);
  for (let i = 0; i < lines.length; i++) {
    if (i % STEP === STEP - 1) yield;
    words.observe(lines[i]!);
  }
  // (The webs' lines rewritten here are kept for the body below.)
  const rewritten = new Map<number, string>();
  const webLineRewritten = (i: number): string => {
    const text = words.rewrite(lines[i]!);
    rewritten.set(i, text);
    return text;
  };
  if (!words.decide() || (webs?.lines ?? []).some((i) => namesFrameBeyond(webLineRewritten(i), info[at + FuncInfo.FrameEnd]!))) {
    rewritten.clear();
    lines = asWritten;
    words = new WordPromotion(singlesExcept, withDoubles);
    for (let i = 0; i < lines.length; i++) {
      if (i % STEP === STEP - 1) yield;
      words.observe(lines[i]!);
    }
    words.decide();
  }
  // At the function's entry only its parameters and constant slots hold anything (locals are
  // zero, like the variables); at a loop header, any word may. From a translated caller
  // (FRESH_ENTRY), the frame's setup is this function's: the words it keeps in the array.
  // Entries other than the first block: the switch form goes to their block (`blk`), the
  // structured form counts them in block order (`enter`; structure.ts).
  const entryBlocks = new Map<number, number>();
  for (const pc of entries) entryBlocks.set(pc, blockOf.get(pc)!);
  for (const [pc, k] of intoOutlined) if (!entryBlocks.has(pc)) entryBlocks.set(pc, blockOf.get(outlined[k]!.from)!);
  const entered = [...new Set(entryBlocks.values())].filter((b) => b !== 0).sort((a, b) => a - b);
  const ownEntries = range === null ? [FRESH_ENTRY, entry] : [entry];
  let loads: string;
  if (range !== null) {
    // A range is entered where any word may be live.
    loads = words.load();
  } else if (code[entry] === Op.Loop) {
    // The body starts with a loop, whose header is the entry too: the interpreter may enter
    // there after a pause, with any word live. A fresh entry readies the whole frame first.
    const fresh = words.freshFrame(paramsEnd, info[at + FuncInfo.LocalsEnd]!, constantWords, index, false);
    loads = `if (pc === ${num(FRESH_ENTRY)}) { ${fresh.setup} } ${words.load()}`;
  } else {
    const fresh = words.freshFrame(paramsEnd, info[at + FuncInfo.LocalsEnd]!, constantWords, index, true);
    const constants = constantWords.map(([w]) => w);
    const atEntry = words.loadOnly([...params, ...constants]);
    loads = `if (pc === ${num(FRESH_ENTRY)}) { ${fresh.setup} ${words.loadOnly([...params, ...fresh.load])} }`
      + (entryBlocks.size > 1 ? ` else if (pc === ${num(entry)}) { ${atEntry} } else { ${words.load()} }` : ` else { ${atEntry} }`);
  }
  const marker = (kind: string, argument: string): string => {
    switch (kind) {
      case 'storeFrom': return words.store(words.from(Number(argument)));
      case 'loadFrom': return words.load(words.from(Number(argument)));
      case 'store': return words.store(words.among(argument));
      case 'load': return words.load(words.among(argument));
      case 'storeLoop': return words.store(words.touchedBy(outlined[Number(argument)]!.touched, true));
      case 'loadLoop': return words.load(words.touchedBy(outlined[Number(argument)]!.touched, true));
      default: return words.store(words.touchedBy(outlined[Number(argument)]!.touched, false)); // storeAllBut
    }
  };
  let body: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (i % STEP === STEP - 1) yield;
    const text = rewritten.get(i) ?? words.rewrite(line);
    body.push(text.includes('@') ? text.replace(MARKER, (_, kind: string, argument: string) => marker(kind, argument)) : text);
  }
  yield;
  // Only the machinery the code uses is written: what V8 compiles, and how soon, grows with the
  // source; a small leaf function comes out small enough for V8 to inline into its callers.
  const { calls, checkPoints } = holds;
  const mayThrow = calls || holds.traps;
  if (!body.some((line) => USES_MEMORY.test(line.replaceAll(MEMORY_REFRESH, '')))) body = body.map((line) => line.replaceAll(MEMORY_REFRESH, ''));
  // The way out (see `exit`): the interpreter's position, and the frame's words in the array.
  // (Written out in each translation: one shared function for it, tried, made V8 inline it, with
  // the small callees that call it, into their callers — the indirect kernel's first run 20% slower.)
  const leaving = [
    calls ? `if (answer === ${num(FROM_CALLEE)}) { answer = ex.answer; left = ex.jitLeft; }` : '',
    checkPoints ? `if (answer > ${num(RETURNED)}) answer = left + ex.fuelReserve <= 0 ? answer - ${num(RETURNED)} : ${num(OUT_OF_TIME)};` : '',
    calls ? `if (xcallee >= 0) { const cb = base + below; table.readyFrame(S32, cb, xcallee); ex.pc = table.functions.info[xcallee * ${num(FUNC_INFO_STRIDE)}]; ex.base = cb; ex.fsp = fsp + 3; } else` : '',
    'if (xpc >= 0) { ex.pc = xpc; ex.base = base; ex.fsp = fsp; }',
    calls ? FRAME_RECORD : '',
    // (`below` is set only where a callee's frame is above this one's.)
    `ex.jitLeft = left; ex.answer = answer; ${calls ? words.storeBelow() : words.store()} return ${num(ABNORMAL)};`,
  ].filter((part) => part !== '').join(' ');
  // A trap: where, for the backtrace; the fuel, whole (the reserve's too), unless a callee under
  // way has left it (calling >= 0).
  const guarded = mayThrow
    ? `} catch (e) { if (ex.trapAt === null) ex.trapAt = { pc: at, fsp, inst: ex.inst }; ${calls ? `${FRAME_RECORD} if (calling < 0) ` : ''}{ ex.jitLeft = left + ex.fuelReserve; ex.fuelReserve = 0; } throw e; }`
    : '}';
  const structured = structuredBlocks(body, leaders.size, entered);
  yield;
  // Where it starts: the switch form sets the block to run; the structured form, the entry's number.
  const plainEntry = structured !== null && entered.length === 0 && intoOutlined.length === 0;
  const dispatch: string[] = [];
  if (plainEntry) {
    dispatch.push(`if (${ownEntries.map((pc) => `pc !== ${num(pc)}`).join(' && ')}) { ex.answer = ${num(NO_ENTRY)}; return ${num(ABNORMAL)}; }`);
  } else {
    dispatch.push('switch (pc) {');
    if (range === null) dispatch.push(`case ${num(FRESH_ENTRY)}:`);
    for (const [pc, b] of entryBlocks) {
      const into = intoOutlined.some(([p]) => p === pc) && !entries.includes(pc) ? 'into = pc; ' : '';
      const enter = b === 0 ? '' : `enter = ${num(entered.indexOf(b) + 1)}; `;
      dispatch.push(`case ${num(pc)}: ${into}${structured === null ? `blk = ${num(b)}; ` : ''}${enter}break;`);
    }
    dispatch.push(`default: ex.answer = ${num(NO_ENTRY)}; return ${num(ABNORMAL)};`);
    dispatch.push('}');
  }
  const code_ = structured === null
    ? [...dispatch, loads, `${mayThrow ? 'try ' : ''}{ for (;;) { switch (blk) {`, ...body, `case ${leave}: ${leaving}`,
      `} throw new Error('internal error: ran past the end of a translated function'); } ${guarded}`]
    : [...dispatch, loads, mayThrow ? 'try {' : '{', ...structured, leaving, guarded];
  const text = code_.join('\n');
  // (Names, not properties nor keys: the ways out read what only they need from `ex` and `table` there.)
  const used = (name: string): boolean => namesVariable(text, name);
  // `calling`: -1, or a callee is running: at a call, the position after it (> 0), or an
  // outlined loop of this frame (0). A callee that throws or leaves has left the fuel in
  // ex.jitLeft itself, and this frame's own `left` (from before the call) must not overwrite it.
  // The frame record of a call (return position, caller's base, instance) is written only where
  // the interpreter will read it: when the call throws, pauses at the callee's entry, or leaves.
  // `below`: leaving with a callee's frame on the stack (it paused or exited), only the words
  // below its base are this frame's to store; the callee's own are in the array already.
  // `at`: the position of the last instruction that may trap, recorded when one does.
  const bindings = (list: Array<[string, string]>): string[] => list.filter(([name]) => used(name)).map(([name, value]) => `${name} = ${value}`);
  const head: string[] = [];
  const consts = bindings([['S32', 'ex.s32'], ['s32', 'ex.s32'], ['f32', 'ex.f32'], ['F32', 'ex.f32'], ['f64', 'ex.f64'], ['F64', 'ex.f64'], ['frames', 'ex.frames'],
    ['inst', 'ex.inst'], ['store', 'ex.store'], ['fns', 'table.fns'], ['info', 'table.functions.info']]);
  const usesMemory = used('view') || used('memLen');
  // `mem`, the instance's memory: named by the code, or read by `view` and `memLen` below.
  const needsMem = usesMemory || used('mem');
  if (needsMem && !consts.some((c) => c.startsWith('inst ='))) consts.push('inst = ex.inst');
  if (consts.length > 0) head.push(`const ${consts.join(', ')};`);
  if (needsMem) head.push('const mem = inst.memory;');
  if (usesMemory) head.push('let view = mem !== null ? mem.view : EMPTY_VIEW, memLen = mem !== null ? mem.size : 0;');
  head.push(`let ${[...bindings([['blk', '0'], ['answer', '0'], ['below', '0x7fffffff'], ['calling', '-1'],
    ['at', '0'], ['into', '-1'], ['enter', '0'], ['xpc', '-1'], ['xcallee', '-1']])].join(', ')};`);
  if (outlined.length > 0) head.push(`const ${outlined.map((_, k) => `L${num(k)} = table.loop(${num(index)}, ${num(k)})`).join(', ')};`);
  head.push(words.declarations());
  const source = [...head, text].join('\n');
  return source.length > maxChars ? TOO_LONG : { source, touched: words.touched() };
}

/**
 * Whether `text` names `name` as a variable: not as a property (after a `.`), nor as an object
 * literal's key or a label (before a `:`), nor as part of a longer name. (One search per name:
 * a regular expression collecting every name of the text took a tenth of the translator's time.)
 */
export function namesVariable(text: string, name: string): boolean {
  const continuesName = (at: number): boolean => isWordCharAt(text, at) || text[at] === '$';
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const after = at + name.length;
    if (text[at - 1] !== '.' && !continuesName(at - 1) && text[after] !== ':' && !continuesName(after)) return true;
  }
  return false;
}

/**
 * The loops of function `index` as ranges of its code, each from its header to the end of its
 * last back-edge — widened to hold any loop that starts inside it, so that they nest — with
 * the loops each one holds, outermost first.
 */
export interface LoopNest extends CodeRange {
  readonly inner: readonly LoopNest[];
}

export function loopNests(fns: CompiledFunctions, index: number): LoopNest[] {
  const { code, info } = fns;
  const at = index * FUNC_INFO_STRIDE;
  const end = info[at + FuncInfo.CodeEnd]!;
  const ends = new Map<number, number>();
  for (let pc = info[at + FuncInfo.Entry]!; pc < end; ) {
    const size = sizeAt(code, pc);
    if (size === null) return [];
    for (const t of targetsAt(code, pc)) {
      if (t <= pc && code[t] === Op.Loop) ends.set(t, Math.max(ends.get(t) ?? 0, pc + size));
    }
    pc += size;
  }
  // Widen, the last-starting first (so that those inside are widened already): a loop that
  // starts inside another one may end after it (a branch from it to the outer header).
  const headers = [...ends.keys()].sort((a, b) => a - b);
  for (const h of [...headers].reverse()) {
    for (const inner of headers) if (inner > h && inner < ends.get(h)!) ends.set(h, Math.max(ends.get(h)!, ends.get(inner)!));
  }
  const nest = (from: number, to: number): LoopNest[] => {
    const out: LoopNest[] = [];
    for (const h of headers) {
      if (h < from || h >= to || out.some((l) => h < l.to)) continue;
      out.push({ from: h, to: ends.get(h)!, inner: nest(h + 1, ends.get(h)!) });
    }
    return out;
  };
  return nest(info[at + FuncInfo.Entry]!, end);
}

/** Instructions walked between two yields of cutsOf: a scan with little to do at each. */
const CUTS_STEP = 4_096;

/**
 * Where function `index`'s code may be cut into pieces (tier.ts, pieces): the instruction
 * starts, in order, that no branch of the function crosses but for one that lands there. Cut
 * so, each piece is entered at its start only, by falling into it or a branch to it, and
 * control leaves it forward only, to the start of the next piece (or returns); a loop stays
 * whole in one piece. Null where the code holds an instruction the tier does not know, or a
 * branch out of it. In steps, as a translation: a function cut so may be very long.
 */
export function* cutsOf(fns: CompiledFunctions, index: number): Generator<void, number[] | null> {
  yield* bodyTranslated(fns, index);
  const { code, info } = fns;
  const at = index * FUNC_INFO_STRIDE;
  const entry = info[at + FuncInfo.Entry]!;
  const end = info[at + FuncInfo.CodeEnd]!;
  if (entry < 0) return null;
  const scan = yield* branchesIn(code, entry, end);
  if (scan === null) return null;
  for (let i = 1; i < scan.branches.length; i += 2) {
    if (scan.branches[i]! < entry || scan.branches[i]! >= end) return null; // (not code the compiler wrote)
  }
  return yield* uncrossed(scan.starts, scan.branches, entry, end);
}

/**
 * The instructions of [from, to): where each starts, and its branches as [source, target]
 * pairs (a br_table's every target); null where the code holds an instruction the tier does not
 * know. In steps: a function cut into pieces may be very long, a br_table very wide.
 */
function* branchesIn(code: Int32Array, from: number, to: number): Generator<void, { starts: number[]; branches: number[] } | null> {
  const starts: number[] = [];
  const branches: number[] = [];
  for (let pc = from; pc < to; ) {
    if (starts.length % CUTS_STEP === CUTS_STEP - 1) yield;
    const size = sizeAt(code, pc);
    if (size === null) return null;
    starts.push(pc);
    for (const t of targetsAt(code, pc)) {
      branches.push(pc, t);
      if ((branches.length >> 1) % CUTS_STEP === 0) yield;
    }
    pc += size;
  }
  return { starts, branches };
}

/**
 * The `starts` after `from` (instructions of [from, to), in order) that none of `branches`
 * (pairs inside [from, to]) crosses: a branch crosses the points after its source up to its
 * target, or after its target up to its source (a branch back) — not the point it lands on.
 */
function* uncrossed(starts: readonly number[], branches: readonly number[], from: number, to: number): Generator<void, number[]> {
  // How many branches cross each point, as differences.
  const crossing = new Int32Array(to - from + 1);
  for (let i = 0; i < branches.length; i += 2) {
    if ((i >> 1) % CUTS_STEP === CUTS_STEP - 1) yield;
    const pc = branches[i]!;
    const t = branches[i + 1]!;
    const [low, high] = t > pc ? [pc + 1, t] : [t + 1, pc + 1];
    crossing[low - from]++;
    crossing[high - from]--;
  }
  const points: number[] = [];
  let crossed = 0;
  let next = 0;
  for (let p = from; p < to; p++) {
    if ((p - from) % (4 * CUTS_STEP) === 4 * CUTS_STEP - 1) yield;
    crossed += crossing[p - from]!;
    if (starts[next] !== p) continue;
    next++;
    if (crossed === 0 && p > from) points.push(p);
  }
  return points;
}

/**
 * [from, to) cut at `cuts` (cutsOf) into pieces of `pieceWords` words at least, the last one
 * joined to the one before where it is shorter than half that; null where that leaves one.
 */
export function piecesOf(cuts: readonly number[], from: number, to: number, pieceWords: number): CodeRange[] | null {
  const pieces: CodeRange[] = [];
  let start = from;
  for (const p of cuts) {
    if (p > start && p < to && p - start >= pieceWords) {
      pieces.push({ from: start, to: p });
      start = p;
    }
  }
  if (to - start < pieceWords / 2 && pieces.length > 0) start = pieces.pop()!.from;
  pieces.push({ from: start, to });
  return pieces.length > 1 ? pieces : null;
}

/**
 * `range` of a function in pieces, for code that cutsOf cannot cut — one long loop, as a
 * parser's or an interpreter's dispatch loop — where branches may cross a cut (back to a loop
 * header, ahead past the next piece) if they land on a cut themselves: each piece is then
 * still entered at its start only, and control leaves it for the start of another, which the
 * function's own translation calls (its exits are blocks there). `range` is one that branches
 * enter at its start only and leave for cuts only: the code between two of cutsOf's cuts, or a
 * piece made so that comes out too long, cut again. The cuts are chosen every
 * `pieceWords` words or so at a branch's landing point, then every target of a branch that
 * leaves its piece is made a cut too, until none is left out; null where that leaves one piece,
 * or more than `maxPieces`.
 */
export function* landingPiecesOf(
  fns: CompiledFunctions, range: CodeRange, pieceWords: number, maxPieces: number,
): Generator<void, CodeRange[] | null> {
  const { from, to } = range;
  const scan = yield* branchesIn(fns.code, from, to);
  if (scan === null) return null;
  // The branches inside the range. (One out of it lands on a cut already: its end, or another
  // piece's start.)
  const branches: number[] = [];
  // Where a cut costs no other cut: a branch's landing point, or a point no branch inside the
  // range crosses (straight code in a piece cut again).
  const free = new Set<number>();
  for (let i = 0; i < scan.branches.length; i += 2) {
    if ((i >> 1) % CUTS_STEP === CUTS_STEP - 1) yield;
    const t = scan.branches[i + 1]!;
    if (t <= from || t >= to) continue;
    branches.push(scan.branches[i]!, t);
    free.add(t);
  }
  for (const p of yield* uncrossed(scan.starts, branches, from, to)) free.add(p);
  const cuts = new Set<number>();
  let last = from;
  for (const [i, p] of scan.starts.entries()) {
    if (i % CUTS_STEP === CUTS_STEP - 1) yield;
    if (free.has(p) && p - last >= pieceWords && to - p >= pieceWords / 2) {
      cuts.add(p);
      last = p;
    }
  }
  for (let added = cuts.size > 0; added;) {
    if (cuts.size + 1 > maxPieces) return null;
    yield;
    added = false;
    const sorted = [...cuts].sort((a, b) => a - b);
    // The piece of `pc`: how many cuts are at or before it.
    const pieceOf = (pc: number): number => countBelow(sorted, pc + 1);
    for (let i = 0; i < branches.length; i += 2) {
      if ((i >> 1) % CUTS_STEP === CUTS_STEP - 1) yield; // (a br_table's targets may be many)
      const t = branches[i + 1]!;
      if (!cuts.has(t) && pieceOf(branches[i]!) !== pieceOf(t)) {
        cuts.add(t);
        added = true;
      }
    }
  }
  if (cuts.size === 0 || cuts.size + 1 > maxPieces) return null;
  const pieces: CodeRange[] = [];
  let start = from;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    pieces.push({ from: start, to: c });
    start = c;
  }
  pieces.push({ from: start, to });
  return pieces;
}

/** `range` cut in two at the one of `cuts` nearest its middle; null where none is inside it. */
export function halves(cuts: readonly number[], range: CodeRange): CodeRange[] | null {
  const middle = (range.from + range.to) / 2;
  let best = -1;
  for (const p of cuts) if (p > range.from && p < range.to && (best < 0 || Math.abs(p - middle) < Math.abs(best - middle))) best = p;
  return best < 0 ? null : [{ from: range.from, to: best }, { from: best, to: range.to }];
}
