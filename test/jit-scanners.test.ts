/**
 * The translator's scanners of its own source text (src/jit/translate.ts): frameReferences,
 * intsAsVariables and namesVariable answer in one pass what regular expressions — kept here as
 * their definitions — answered in several. Both are run on tricky lines and on every line of the
 * bench's translations, and must agree: on text the translator writes, that is (the definitions
 * remove a view's access before looking for `base + K`, and would read one where a digit
 * followed the access, which no template writes).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileModule } from '../src/interpreter/index.js';
import { JitTable } from '../src/jit/tier.js';
import { frameReferences, intsAsVariables, namesVariable } from '../src/jit/translate.js';
import { FUNC_INFO_STRIDE } from '../src/interpreter/compiler.js';

/** The definitions: what each scanner must find. */
function frameReferencesByRegExp(line: string): ReturnType<typeof frameReferences> {
  const all = (re: RegExp, text: string): number[] => [...text.matchAll(re)].map((m) => Number(m[1]));
  return {
    s32: all(/\bs32\[base \+ (\d+)\]/g, line),
    f32: all(/\bf32\[base \+ (\d+)\]/g, line),
    f64: all(/\bf64\[base \+ (\d+) >> 1\]/g, line),
    otherAccess: /\b(s32|f32|f64)\[/.test(line.replace(/\b[sf](32|64)\[base \+ \d+( >> 1)?\]/g, '')),
    addresses: all(/\bbase \+ (\d+)/g, line.replace(/\b[sfSF](32|64)\[base \+ \d+( >> 1)?\]/g, '')),
    // (White space: ASCII's, all the translator could write.)
    s32Writes: [...line.matchAll(/(?:\+\+|--)[\t\n\v\f\r ]*\bs32\[base \+ (\d+)\]|\bs32\[base \+ (\d+)\](?:[\t\n\v\f\r ]*=[\t\n\v\f\r ]*(-?\d+)(?=;)|[\t\n\v\f\r ]*(?:\+\+|--|[-+*\/%|&^]?=(?!=)|(?:<<|>>>?|\*\*)=))/g)]
      .flatMap((m) => [Number(m[1] ?? m[2]), m[3] === undefined ? NaN : Number(m[3])]),
  };
}

const intsAsVariablesByRegExp = (text: string, ints: ReadonlySet<number>): string =>
  text.replace(/\bs32\[base \+ (\d+)\]/g, (all, k: string) => (ints.has(Number(k)) ? `w${k}` : all));

const namesVariableByRegExp = (text: string, name: string): boolean =>
  new Set(text.match(/(?<![.\w$])[A-Za-z_$][\w$]*(?![\w$:])/g)).has(name);

const TRICKY = [
  's32[base + 12] = s32[base + 14] + s32[base + 16];',
  'f64[base + 8 >> 1] = f64[base + 10 >> 1] * f32[base + 3];',
  'S32[base + 4] = w4; F64[base + 6 >> 1] = d6;',
  'N.i64Mul(s32, base + 20, base + 22, base + 24);',
  's32[at] = 1; f32[base + k] = 2; f64[base + 3] = 4;',
  'xs32[base + 5] = ys32[base + 7]; $s32[base + 9] = 1;',
  's32[base + 5 >> 1] = f32[base + 6 >> 1] + f64[base + 8];',
  'const ea = ((s32[base + 2] + 4) >>> 0) + 8; mybase + 3; (base + 4); base + 55 + 2;',
  's64[base + 1] = s64[i]; s32[base + ] = s32[base + 1x];',
  's32[base + 123456789] = f32[base + 0] | 0; base + ',
  '',
  '[base + 3] s32[ f32[base + 2',
  's32[base + 3] += 1; ++s32[base + 4]; s32[base + 5]--; s32[base + 6] = -7; s32[base + 7] == 8; s32[base + 8] >>>= 1;',
  's32[base + 9] >= 2 ? s32[base + 10] <= 3 : s32[base + 11] = 4 + 5; s32[base + 12] = 6; s32[base + 13] - -1; s32[base + 14] **= 2;',
  '++ s32[base + 1]; -- s32[base + 2]; s32[base + 3]\t= 5; s32[base + 4]\n++; s32[base + 5] \t>>>= 1; s32[base + 6] = \t7; s32[base + 7] <<= 1; s32[base + 8] >> 2;',
];

/** Every line of the translations of the bench's kernels and of lz4-wasm (all functions, whole and with loops outlined). */
function translatedLines(): string[] {
  const lines: string[] = [];
  const dir = new URL('../bench/kernels/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.wasm') && !f.startsWith('simd')).map((f) => new URL(f, dir));
  for (const file of [...files, new URL('../bench/programs/lz4.wasm', import.meta.url)]) {
    const mod = compileModule(new Uint8Array(readFileSync(file)), undefined, { lazyTranslation: false });
    for (const outlineAbove of [undefined, 2000]) {
      const table = new JitTable(mod.functions, outlineAbove);
      const made = (table as unknown as { make(range: { source: string }): unknown }).make.bind(table);
      (table as unknown as { make(range: { source: string }): unknown }).make = (range) => {
        lines.push(...range.source.split(/\n|(?<=;) /));
        return made(range);
      };
      for (let i = mod.numImportedFuncs; i < mod.functions.info.length / FUNC_INFO_STRIDE; i++) table.translate(i, Infinity, outlineAbove !== undefined);
    }
  }
  return lines;
}

describe('the translator\'s scanners agree with their regular expressions', () => {
  const corpus = [...TRICKY, ...translatedLines()];

  it('reads a corpus of real translations', () => {
    expect(corpus.length).toBeGreaterThan(5_000);
    expect(corpus.some((line) => frameReferences(line).addresses.length > 0)).toBe(true);
    expect(corpus.some((line) => frameReferences(line).f64.length > 0)).toBe(true);
    expect(corpus.some((line) => frameReferences(line, true).s32Writes.some((value, i) => i % 2 === 1 && !Number.isNaN(value)))).toBe(true);
  });

  it('frameReferences: views, their words, other accesses, addresses handed on, the int32 words assigned and their constants', () => {
    for (const line of corpus) expect(frameReferences(line, true), line).toEqual(frameReferencesByRegExp(line));
    for (const line of corpus) expect(frameReferences(line).s32Writes, line).toEqual([]);
  });

  it('intsAsVariables: int32 words in variables', () => {
    for (const line of corpus) {
      const ints = new Set(frameReferencesByRegExp(line).s32.filter((w) => w % 3 !== 0));
      expect(intsAsVariables(line, ints), line).toBe(intsAsVariablesByRegExp(line, ints));
    }
  });

  it('namesVariable: a name as a variable, not a property, key or label', () => {
    const names = ['S32', 's32', 'f64', 'inst', 'store', 'fns', 'info', 'view', 'memLen', 'mem', 'blk', 'answer', 'below', 'calling', 'at', 'into', 'enter', 'xpc', 'xcallee'];
    const texts = [...TRICKY, 'ex.view = 1;', 'view: 2', 'views = 3', 'a.at; at: for (;;) {}', '$at = 1; at$ = 2;', 'at', corpus.join('\n')];
    for (const text of texts) for (const name of names) expect(namesVariable(text, name), `${name} in ${text.slice(0, 60)}`).toBe(namesVariableByRegExp(text, name));
  });
});
