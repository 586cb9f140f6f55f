/**
 * WebAssembly text → binary, through the `wabt` package with the syntax of every feature the
 * engine runs enabled (WAT_FEATURES). wabt is loaded lazily, on the first text module, so that running a `.wasm` never
 * pays for it (the CLI's cold start depends on this).
 *
 * wabt is a C++ program compiled by Emscripten. Its parser recurses once per nesting level,
 * on a stack that lives in the instance's own linear memory: 64 KiB just above wabt's static
 * data, with no overflow check. Text nested about 150 levels deep runs that stack down
 * through the static data; what follows depends on the shape — a `memory access out of
 * bounds` trap, an `Aborted()`, `null function or function signature mismatch`, or a loop
 * that never ends (plain `block … end` from 180 levels) — and the instance stays broken: the
 * stack pointer is not restored after a trap, and its data is corrupt, so later compiles of
 * valid text fail too. So two rules hold here:
 *
 * - text nested more than `MAX_WAT_NESTING` levels deep never reaches wabt
 *   (`nestingTooDeep`);
 * - an instance that has failed once, for any reason, or has compiled a large text (its
 *   memory only grows), is never used again: the next compile creates a fresh one (a few
 *   milliseconds).
 */
import { SandboxError } from './errors.js';

/**
 * What the text parser accepts (wabt's names): WebAssembly 2.0 and every proposal the engine
 * runs. wabt only parses here; the engine validates the binary and refuses what the sandbox's
 * feature set leaves out, by name (docs/features.md).
 */
export const WAT_FEATURES = Object.freeze({
  mutable_globals: true,
  sat_float_to_int: true,
  sign_extension: true,
  multi_value: true,
  bulk_memory: true,
  reference_types: true,
  simd: true,
  relaxed_simd: true,
  tail_call: true,
  multi_memory: true,
  extended_const: true,
  memory64: true,
  threads: true,
  exceptions: true,
});

/**
 * The deepest nesting of parentheses and blocks that text may have: each `(` opens a level,
 * and so does each `block`, `loop`, `if`, `try` or `try_table` written as a plain instruction
 * (closed by `end`). wabt 1.0.39 (the npm build) spends up to about 430 bytes of its 64 KiB
 * stack per level (measured: a folded `block` 432 bytes, a plain `block` 368, an `i32.add`
 * 256) and overflows it from about 150 levels; 100 levels use at most about 45 KiB. The
 * deepest text in the WebAssembly core test suite nests 43 levels (loop.wast, counting the
 * `(module` and `(func` around it), so the limit leaves real modules more than twice that.
 */
export const MAX_WAT_NESTING = 100;

/**
 * Text longer than this (in UTF-16 code units) is compiled by an instance of its own, which is
 * then discarded, so that the memory it grew to is returned.
 */
const LARGE_TEXT = 1 << 20;

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d] as const;

interface WabtModule {
  parseWat(filename: string, buffer: string | Uint8Array, options?: Record<string, boolean>): {
    toBinary(options: Record<string, boolean>): { buffer: Uint8Array };
    destroy(): void;
  };
}

type WabtFactory = (moduleArg?: { print?: (text: string) => void; printErr?: (text: string) => void }) => Promise<WabtModule>;

/** The current instance; replaced (set to null) whenever an instance must not be used again. */
let wabtInstance: Promise<WabtModule> | null = null;

function loadWabt(): Promise<WabtModule> {
  if (wabtInstance === null) {
    // wabt writes `Aborted(...)` with console.error when it aborts; the error it then throws
    // says the same, so nothing is printed.
    const instance = import('wabt').then((m) => (m.default as unknown as WabtFactory)({ print: ignore, printErr: ignore }));
    // A failed load is not remembered: the next compile tries again.
    instance.catch(() => discardWabt(instance));
    wabtInstance = instance;
  }
  return wabtInstance;
}

function discardWabt(instance: Promise<WabtModule>): void {
  if (wabtInstance === instance) wabtInstance = null;
}

function ignore(): void {}

/** Whether `bytes` starts with the binary format's magic number `\0asm`. */
export function isWasmBinary(bytes: Uint8Array): boolean {
  return WASM_MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * The binary form of a module given as `.wasm` bytes, `.wat` bytes or `.wat` text. Throws
 * `SandboxError` kind `InvalidModule` when the input is neither, the text does not parse, is
 * nested more than `MAX_WAT_NESTING` levels deep, or wabt fails on it in any other way.
 * `options.maxNesting` replaces that limit (tests raise it to reach wabt's own failures).
 */
export async function toBinary(
  input: Uint8Array | ArrayBuffer | string,
  filename = 'module.wat',
  options: { maxNesting?: number } = {},
): Promise<Uint8Array> {
  let text: string;
  if (input instanceof ArrayBuffer) input = new Uint8Array(input);
  if (typeof input === 'string') {
    text = input;
  } else if (input instanceof Uint8Array) {
    if (isWasmBinary(input)) return input;
    const decoded = decodeText(input);
    if (decoded === null) {
      throw SandboxError.invalidModule('the input is neither a WebAssembly binary (no `\\0asm` magic number) nor WebAssembly text');
    }
    text = decoded;
  } else {
    throw SandboxError.invalidModule('expected the module as a Uint8Array or ArrayBuffer (.wasm or .wat) or a string (.wat)');
  }
  const maxNesting = options.maxNesting ?? MAX_WAT_NESTING;
  const tooDeep = nestingTooDeep(text, maxNesting);
  if (tooDeep !== null) {
    throw SandboxError.invalidModule(
      `${filename}:${tooDeep.line}:${tooDeep.column}: error: the WebAssembly text is nested too deeply ` +
        `(more than ${maxNesting} levels of parentheses and blocks)`,
    );
  }
  for (;;) {
    const instance = loadWabt();
    let wabt: WabtModule;
    try {
      wabt = await instance;
    } catch (e) {
      // (The first line: a `require` that fails goes on with its require stack.)
      throw SandboxError.host(`cannot load the WebAssembly text compiler (wabt): ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`, 0, e);
    }
    // Another compile may have failed on this instance while this one waited for it.
    if (instance !== wabtInstance) continue;
    return compileText(wabt, instance, text, filename);
  }
}

/** Runs wabt synchronously on `text`; whatever goes wrong, the instance is not used again. */
function compileText(wabt: WabtModule, instance: Promise<WabtModule>, text: string, filename: string): Uint8Array {
  if (text.length > LARGE_TEXT) discardWabt(instance);
  let module: ReturnType<WabtModule['parseWat']> | undefined;
  try {
    module = wabt.parseWat(filename, text, WAT_FEATURES);
    // With the text's `$names` as a `name` section, as wasmtime's text parser keeps them: a
    // backtrace names the module and its functions. (A copy, not a view of wabt's memory.)
    return module.toBinary({ write_debug_names: true }).buffer;
  } catch (e) {
    discardWabt(instance);
    throw SandboxError.invalidModule(wabtMessage(e, text.length), 0, e);
  } finally {
    try {
      module?.destroy();
    } catch {
      discardWabt(instance);
    }
  }
}

/** Strict UTF-8 without NUL bytes, or null when the bytes cannot be text. */
function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * wabt says "parseWat failed:\nfile:1:2: error: ...\n<source line>\n^^^": keep the error
 * lines. Anything else (a trap or an abort inside wabt) is reported as wabt's failure; wabt
 * aborts when its memory (at most 2 GiB) runs out, as it does on texts of a few hundred MiB.
 */
function wabtMessage(e: unknown, textLength: number): string {
  const raw = e instanceof Error ? e.message : String(e);
  if (/^(parseWat|toBinary) failed/.test(raw)) {
    const errors = raw.split('\n').filter((line) => /: error: /.test(line)).map((line) => line.trim());
    if (errors.length > 0) return errors.join('; ');
    return raw.replace(/^(parseWat|toBinary) failed[.:]?\s*/, '').trim() || 'the WebAssembly text does not parse';
  }
  const detail = raw.replace(/\. Build with -sASSERTIONS for more info\.$/, '').trim() || 'no detail';
  const size = textLength > LARGE_TEXT ? ` (the text is ${Math.round(textLength / 2 ** 20)} MiB; wabt has at most 2 GiB of memory)` : '';
  return `the WebAssembly text compiler (wabt) failed on this text: ${detail}${size}`;
}

/** A position in text: 1-based line and column (in UTF-16 code units). */
export interface TextPosition {
  line: number;
  column: number;
}

const enum Ch {
  Tab = 9,
  LineFeed = 10,
  CarriageReturn = 13,
  Space = 32,
  Quote = 34,
  OpenParen = 40,
  CloseParen = 41,
  Semicolon = 59,
  Backslash = 92,
}

const enum Word {
  Other,
  /** `block`, `loop`, `if`, `try`, `try_table`: instructions that open a level `end` closes. */
  Opens,
  /** `end`, `delegate` (which ends a `try`). */
  Closes,
}

/** What the word of `length` characters at `start` is, without taking it out of `text`. */
function plainWord(text: string, start: number, length: number): Word {
  switch (length) {
    case 2: return text.startsWith('if', start) ? Word.Opens : Word.Other;
    case 3: return text.startsWith('end', start) ? Word.Closes : text.startsWith('try', start) ? Word.Opens : Word.Other;
    case 4: return text.startsWith('loop', start) ? Word.Opens : Word.Other;
    case 5: return text.startsWith('block', start) ? Word.Opens : Word.Other;
    case 8: return text.startsWith('delegate', start) ? Word.Closes : Word.Other;
    case 9: return text.startsWith('try_table', start) ? Word.Opens : Word.Other;
    default: return Word.Other;
  }
}

/**
 * Where `text` first nests deeper than `limit` levels, or null if it never does. A level is
 * a `(`, closed by its `)`, or a `block`, `loop`, `if`, `try` or `try_table` written as a
 * plain instruction (not right after `(`), closed by `end` (or `delegate`) or by the `)` of
 * the parentheses it stands in. Strings and comments are skipped. One pass (about 5 ms per
 * MiB), keeping one number per open parenthesis (at most `limit` of them).
 */
export function nestingTooDeep(text: string, limit = MAX_WAT_NESTING): TextPosition | null {
  // plain[i]: plain-instruction levels open directly inside the i-th open parenthesis
  // (plain[0]: outside any).
  const plain: number[] = [0];
  let depth = 0;
  let afterParen = false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === Ch.Space || c === Ch.LineFeed || c === Ch.Tab || c === Ch.CarriageReturn) {
      i++;
    } else if (c === Ch.OpenParen) {
      if (text.charCodeAt(i + 1) === Ch.Semicolon) {
        i = skipBlockComment(text, i);
        continue;
      }
      depth++;
      if (depth > limit) return positionOf(text, i);
      plain.push(0);
      afterParen = true;
      i++;
    } else if (c === Ch.CloseParen) {
      if (plain.length > 1) depth -= 1 + plain.pop()!;
      afterParen = false;
      i++;
    } else if (c === Ch.Semicolon && text.charCodeAt(i + 1) === Ch.Semicolon) {
      while (i < n && text.charCodeAt(i) !== Ch.LineFeed) i++;
    } else if (c === Ch.Quote) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i++);
        if (d === Ch.Quote) break;
        if (d === Ch.Backslash) i++;
      }
      afterParen = false;
    } else {
      const start = i;
      while (i < n && !isDelimiter(text.charCodeAt(i))) i++;
      const word = afterParen ? Word.Other : plainWord(text, start, i - start);
      if (word === Word.Opens) {
        depth++;
        if (depth > limit) return positionOf(text, start);
        plain[plain.length - 1]!++;
      } else if (word === Word.Closes && plain[plain.length - 1]! > 0) {
        depth--;
        plain[plain.length - 1]!--;
      }
      if (i === start) i++; // a lone `;`
      afterParen = false;
    }
  }
  return null;
}

function isDelimiter(c: number): boolean {
  return c === Ch.Space || c === Ch.LineFeed || c === Ch.Tab || c === Ch.CarriageReturn ||
    c === Ch.OpenParen || c === Ch.CloseParen || c === Ch.Quote || c === Ch.Semicolon;
}

/** The index just past the block comment `(; … ;)` that starts at `i` (they nest). */
function skipBlockComment(text: string, i: number): number {
  let open = 0;
  const n = text.length;
  while (i < n) {
    if (text.charCodeAt(i) === Ch.OpenParen && text.charCodeAt(i + 1) === Ch.Semicolon) {
      open++;
      i += 2;
    } else if (text.charCodeAt(i) === Ch.Semicolon && text.charCodeAt(i + 1) === Ch.CloseParen) {
      open--;
      i += 2;
      if (open === 0) return i;
    } else {
      i++;
    }
  }
  return n;
}

function positionOf(text: string, index: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let j = text.indexOf('\n'); j !== -1 && j < index; j = text.indexOf('\n', j + 1)) {
    line++;
    lineStart = j + 1;
  }
  return { line, column: index - lineStart + 1 };
}
