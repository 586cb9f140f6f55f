/**
 * The text path (src/sandbox/wat.ts): text nested deeper than wabt's 64 KiB stack can take
 * is refused before wabt sees it, a wabt instance that failed is never used again, and the
 * ordinary text features keep working. wabt 1.0.39 overflows its stack from about 150
 * levels, and what follows is a trap, an abort, a loop without end, or silent corruption that
 * broke every later compile in the process.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Sandbox, SandboxError, Value } from '../src/index.js';
import { MAX_WAT_NESTING, nestingTooDeep, toBinary } from '../src/sandbox/wat.js';

const ORDINARY = readFileSync(new URL('../fixtures/well_behaved.wat', import.meta.url), 'utf8');

/** The ordinary module's binary from a compile that nothing before it can have disturbed. */
const reference = toBinary(ORDINARY);

/** Compiles the ordinary module now and checks that the bytes are the reference's. */
async function ordinaryCompileWorks(): Promise<void> {
  expect(await toBinary(ORDINARY)).toEqual(await reference);
  const out = await Sandbox.denyAll().run(ORDINARY, 'fib', [Value.i32(20)]);
  expect(String(out.values[0])).toBe('I32(6765)');
}

/** Awaits a compile that must fail, and returns its SandboxError. */
async function refusal(p: Promise<unknown>): Promise<SandboxError> {
  let error: unknown = null;
  try {
    await p;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(SandboxError);
  const e = error as SandboxError;
  expect(e.kind).toBe('InvalidModule');
  expect(e.exitCode).toBe(6);
  return e;
}

const nest = (n: number, open: string, middle: string, close: string): string => open.repeat(n) + middle + close.repeat(n);

/** Bombs: `n` nested levels of one construct, inside `(module (func …))` (2 levels more). */
const SHAPES: Record<string, (n: number) => string> = {
  'folded block': (n) => `(module (func ${nest(n, '(block ', '', ')')}))`,
  'folded loop with results': (n) => `(module (func (result i32) ${nest(n, '(loop (result i32) ', '(i32.const 1)', ')')}))`,
  'i32.add expression': (n) => `(module (func (result i32) ${nest(n, '(i32.add (i32.const 1) ', '(i32.const 1)', ')')}))`,
  'if/then': (n) => `(module (func ${nest(n, '(if (i32.const 1) (then ', '', '))')}))`,
  'if/else': (n) => `(module (func ${nest(n, '(if (i32.const 1) (then) (else ', '', '))')}))`,
  'plain block…end': (n) => `(module (func ${'block '.repeat(n)}${'end '.repeat(n)}))`,
  'plain if…end': (n) => `(module (func ${'i32.const 1 if '.repeat(n)}${'end '.repeat(n)}))`,
  'plain and folded blocks mixed': (n) => `(module (func ${nest(n >> 1, 'block (block ', '', ') end ')}))`,
  'global initialiser': (n) => `(module (global i32 ${nest(n, '(i32.add (i32.const 1) ', '(i32.const 1)', ')')}))`,
  'bare parentheses': (n) => `(module ${nest(n, '(', 'x', ')')})`,
  'unclosed parentheses': (n) => '('.repeat(n),
  'unclosed plain blocks': (n) => `(module (func ${'block '.repeat(n)}`,
};

describe('nestingTooDeep', () => {
  it('counts parentheses, and plain blocks until their end', () => {
    expect(nestingTooDeep('(module)', 1)).toBeNull();
    expect(nestingTooDeep('(module (func))', 1)).toEqual({ line: 1, column: 9 });
    expect(nestingTooDeep('(module (func block end))', 2)).toEqual({ line: 1, column: 15 });
    expect(nestingTooDeep('(module (func block end block end loop end))', 3)).toBeNull();
    expect(nestingTooDeep('(module (func block block end end))', 3)).toEqual({ line: 1, column: 21 });
    // `(block` is one level, not two; `if`, `loop`, `try`, `try_table` open levels too.
    expect(nestingTooDeep('(module (func (block (loop (if (then))))))', 6)).toBeNull();
    expect(nestingTooDeep('(module (func (block (loop (if (then))))))', 5)).not.toBeNull();
    for (const word of ['block', 'loop', 'if', 'try', 'try_table']) {
      expect(nestingTooDeep(`(module (func ${word} ${word}))`, 3), word).not.toBeNull();
      expect(nestingTooDeep(`(module (func ${word} end ${word} end))`, 3), word).toBeNull();
    }
    // A `)` closes the plain blocks left open inside it.
    expect(nestingTooDeep('(module (func block block) (func block block))', 4)).toBeNull();
    // `end` closes nothing outside its parentheses; `delegate` ends a `try`.
    expect(nestingTooDeep('(module (func block (nop end) block block))', 5)).toBeNull();
    expect(nestingTooDeep('(module (func block (nop end) block block))', 4)).toEqual({ line: 1, column: 37 });
    expect(nestingTooDeep('(module (func try delegate 0 try delegate 0))', 3)).toBeNull();
  });

  it('skips strings, comments and identifiers', () => {
    const deep = '('.repeat(500);
    expect(nestingTooDeep(`(module (data "${deep}"))`, 3)).toBeNull();
    expect(nestingTooDeep(`(module (data "\\"${deep}\\\\"))`, 3)).toBeNull();
    expect(nestingTooDeep(`(module ;; ${deep}\n)`, 1)).toBeNull();
    expect(nestingTooDeep(`(module (; ${deep} (; nested ;) ${deep} ;))`, 1)).toBeNull();
    expect(nestingTooDeep(`(module (func $block $loop $if (block $end)))`, 3)).toBeNull();
    expect(nestingTooDeep(`(module (func i32.const 1 if.x blocks loop_ end_))`, 2)).toBeNull();
    // A comment between `(` and its keyword: still one level.
    expect(nestingTooDeep(`(module (func ( ;; c\n block) ((; c ;)block)))`, 3)).toBeNull();
  });

  it('says where, by line and column', () => {
    expect(nestingTooDeep('(module\n  (func\n    (block\n      block))', 3)).toEqual({ line: 4, column: 7 });
    expect(nestingTooDeep('(module\r\n(func (block)))', 2)).toEqual({ line: 2, column: 7 });
  });

  it('lets every script of the WebAssembly core test suite through', async () => {
    const { readdirSync, existsSync } = await import('node:fs');
    const dir = new URL('../../shared/wasm-testsuite/wast/', import.meta.url);
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.wast'))) {
      // A script's deepest module sits inside an assertion or two: 43 levels at most (loop.wast).
      expect(nestingTooDeep(readFileSync(new URL(name, dir), 'utf8'), 50), name).toBeNull();
    }
  });
});

describe('text nested too deeply', () => {
  it.each(Object.keys(SHAPES))('%s: refused as InvalidModule at any depth past the limit', async (shape) => {
    for (const depth of [MAX_WAT_NESTING + 1, 150, 300, 1000, 5000, 100_000]) {
      const e = await refusal(toBinary(SHAPES[shape]!(depth)));
      expect(e.message).toMatch(/^invalid module: module\.wat:1:\d+: error: the WebAssembly text is nested too deeply \(more than 100 levels of parentheses and blocks\)$/);
    }
    await ordinaryCompileWorks();
  });

  it('is refused the same way by Sandbox.compile, run and instantiate, as text or bytes', async () => {
    const sandbox = Sandbox.denyAll();
    const bomb = SHAPES['folded block']!(3000);
    for (const attempt of [
      () => sandbox.compile(bomb),
      () => sandbox.compile(new TextEncoder().encode(bomb)),
      () => sandbox.run(bomb, 'run', []),
      () => sandbox.instantiate(bomb),
    ]) {
      expect((await refusal(attempt())).message).toMatch(/nested too deeply/);
    }
    await ordinaryCompileWorks();
  });

  it('every shape compiles at the limit, and leaves wabt as it was', async () => {
    for (const [shape, make] of Object.entries(SHAPES)) {
      if (shape.startsWith('unclosed') || shape === 'bare parentheses') continue;
      // The deepest text of this shape that is let through.
      let n = 1;
      while (nestingTooDeep(make(n + 1)) === null) n++;
      expect(n, shape).toBeGreaterThanOrEqual(MAX_WAT_NESTING / 2 - 2);
      expect((await toBinary(make(n))).length, shape).toBeGreaterThan(8);
      await ordinaryCompileWorks();
    }
  });

  it('random mixtures: valid at the limit, refused past it, and nothing else', async () => {
    let seed = 0x2545f491;
    const random = (k: number): number => {
      seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x9e3779b9) | 0;
      return ((seed >>> 0) % k);
    };
    // A void instruction sequence nesting exactly `levels` levels.
    const body = (levels: number): string => {
      let open = '';
      let close = '';
      while (levels > 0) {
        const pick = random(levels >= 2 ? 6 : 4);
        const parts: [string, string, number][] = [
          ['(block ', ')', 1],
          ['(loop ', ')', 1],
          ['block ', ' end', 1],
          ['i32.const 0 if ', ' end', 1],
          ['(if (i32.const 0) (then ', '))', 2],
          ['(if (i32.const 0) (then nop) (else ', '))', 2],
        ];
        const [o, c, cost] = parts[pick]!;
        open += o;
        close = c + close;
        levels -= cost;
      }
      return open + 'nop' + close;
    };
    const sandbox = Sandbox.denyAll();
    for (let round = 0; round < 20; round++) {
      const atLimit = `(module (func (export "run") ${body(MAX_WAT_NESTING - 2)}))`;
      expect(nestingTooDeep(atLimit)).toBeNull();
      const out = await sandbox.run(atLimit, 'run', []);
      expect(out.values).toEqual([]);
      const past = `(module (func (export "run") ${body(MAX_WAT_NESTING - 1 + random(3000))}))`;
      expect((await refusal(sandbox.compile(past))).message).toMatch(/nested too deeply/);
    }
    await ordinaryCompileWorks();
  });
});

describe('a wabt instance that fails is not used again', () => {
  // With the nesting limit lifted, the bombs reach wabt: each breaks the instance it runs
  // in (before the fix, every later compile in the process failed the same way).
  const unlimited = { maxNesting: Number.POSITIVE_INFINITY };

  it.each([
    ['folded block', 1000],
    ['i32.add expression', 5000],
    ['folded block', 100_000],
  ])('%s × %i: InvalidModule from wabt, then an ordinary compile works', async (shape, depth) => {
    const e = await refusal(toBinary(SHAPES[shape]!(depth), 'module.wat', unlimited));
    expect(e.message).toMatch(/^invalid module: the WebAssembly text compiler \(wabt\) failed on this text: /);
    await ordinaryCompileWorks();
  });

  it('compiles waiting for the same instance do not use it once it has failed', async () => {
    const results = await Promise.allSettled([
      toBinary(SHAPES['folded block']!(1000), 'module.wat', unlimited),
      toBinary(ORDINARY),
      toBinary(ORDINARY),
    ]);
    expect(results[0]!.status).toBe('rejected');
    expect(results.slice(1)).toEqual([
      { status: 'fulfilled', value: await reference },
      { status: 'fulfilled', value: await reference },
    ]);
  });

  it('after an ordinary parse error too', async () => {
    const e = await refusal(toBinary('(module (func (result i32) i32.const))'));
    expect(e.message).toBe('invalid module: module.wat:1:37: error: unexpected token ")", expected a numeric literal (e.g. 123, -45, 6.7e8).');
    await ordinaryCompileWorks();
  });
});

describe('the text features still work', () => {
  it('comments, strings with parentheses, names, multi-value, reference types, bulk memory', async () => {
    const text = `
      ;; a line comment ((((
      (; a block comment (; nested ;) (((( ;)
      (module
        (memory (export "memory") 1)
        (data (i32.const 0) "((((\\")\\\\")
        (table 2 funcref)
        (elem (i32.const 0) $pair)
        (func $pair (export "pair") (param i32 i64) (result i64 i32)
          (local.get 1) (local.get 0))
        (func (export "first") (result i32)
          (i32.load8_u (i32.const 0)))
        (func (export "copy") (result i32)
          (memory.copy (i32.const 8) (i32.const 0) (i32.const 4))
          (i32.load8_u (i32.const 9)))
        (func (export "is_null") (result i32)
          (ref.is_null (table.get (i32.const 1))))
        (func (export "blocks") (param $n i32) (result i32)
          block $out (result i32)
            i32.const 7
            local.get $n
            br_if $out
            drop
            (if (result i32) (local.get $n) (then (i32.const 1)) (else (i32.const 2)))
          end))`;
    const sandbox = Sandbox.denyAll();
    const module = await sandbox.compile(text);
    const run = async (name: string, args: Value[] = []): Promise<string> =>
      (await sandbox.run(module, name, args)).values.map(String).join(', ');
    expect(await run('pair', [Value.i32(-5), Value.i64(-5n)])).toBe('I64(-5), I32(-5)');
    expect(await run('first')).toBe('I32(40)');
    expect(await run('copy')).toBe('I32(40)');
    expect(await run('is_null')).toBe('I32(1)');
    expect(await run('blocks', [Value.i32(0)])).toBe('I32(2)');
    expect(await run('blocks', [Value.i32(1)])).toBe('I32(7)');
  });

  it('text as bytes, and binaries passed through untouched', async () => {
    const bytes = new TextEncoder().encode(ORDINARY);
    expect(await toBinary(bytes)).toEqual(await reference);
    expect(await toBinary(bytes.buffer)).toEqual(await reference);
    const binary = await reference;
    expect(await toBinary(binary)).toBe(binary);
  });

  it('a large text (2 MiB) compiles in an instance of its own, and the next compile works', async () => {
    const funcs = '(func (result i32) (block (result i32) (i32.const 1)))\n'.repeat(40_000);
    const text = `(module ${funcs} (func (export "run") (result i32) (i32.const 5)))`;
    expect(text.length).toBeGreaterThan(2 * 2 ** 20);
    const out = await Sandbox.denyAll().run(text, 'run', []);
    expect(String(out.values[0])).toBe('I32(5)');
    await ordinaryCompileWorks();
  });

  it('input that is neither binary nor text', async () => {
    const e = await refusal(toBinary(new Uint8Array([0xff, 0xfe, 0x00, 0x01])));
    expect(e.message).toMatch(/neither a WebAssembly binary/);
  });
});
