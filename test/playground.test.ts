/**
 * The browser playground (playground/), built and driven in headless Chromium: a linked run
 * prints what the CLI prints; the deadline, the memory cap and Stop end runs with their kinds
 * while the page stays responsive; the debugger steps fib with the exact locals and operand
 * stack and stops at breakpoints set on the listing; a trap shows its backtrace; the profile
 * draws a flame graph and marks coverage; a share link reproduces the module; text typed in the
 * editor compiles (wabt in the page); a dropped .wasm shows its disassembly. Takes the
 * screenshot of docs/playground.png: into a temporary directory, or over the committed one with
 * UPDATE_SCREENSHOT=1 (a test run leaves the tree as it found it).
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. When it is missing or cannot start, the tests
 * are skipped with the reason — unless CI=true, where that fails the file.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildPlayground } from '../playground/build.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };

async function launch(): Promise<{ browser: Browser | null; reason: string }> {
  try {
    statSync(CHROMIUM);
  } catch {
    return { browser: null, reason: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)` };
  }
  try {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true, timeout: 30_000 });
    return { browser, reason: '' };
  } catch (e) {
    return { browser: null, reason: `Chromium (${CHROMIUM}) did not start: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
}

const launched = await launch();
if (launched.browser === null) {
  if (process.env.CI === 'true') throw new Error(`playground tests: ${launched.reason}`);
  console.warn(`playground tests skipped: ${launched.reason}`);
}
const browser = launched.browser;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

/** A static server over `dir` on 127.0.0.1, a free port. */
async function serve(dir: string): Promise<{ server: Server; base: string }> {
  // Headers up to 1 MiB: a link may be long (Chromium takes URLs up to 2 MB; the deflate-bomb test sends 90 KB).
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(dir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, base: `http://127.0.0.1:${address.port}/` };
}

/** `(module (func (export "answer") (result i32) i32.const 42))` as a binary. */
const ANSWER_WASM = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
  0x03, 0x02, 0x01, 0x00, // func 0: type 0
  0x07, 0x0a, 0x01, 0x06, 0x61, 0x6e, 0x73, 0x77, 0x65, 0x72, 0x00, 0x00, // export "answer"
  0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a, 0x0b, // i32.const 42, end
];

describe.skipIf(browser === null)(`the playground in Chromium${browser === null ? ` (skipped: ${launched.reason})` : ''}`, () => {
  let outdir = '';
  let server: Server | null = null;
  let base = '';
  const pages: Page[] = [];

  beforeAll(async () => {
    outdir = mkdtempSync(join(tmpdir(), 'sandboxd-playground-'));
    await buildPlayground({ outdir, quiet: true });
    ({ server, base } = await serve(outdir));
  }, 60_000);

  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => undefined);
    await browser?.close();
    await new Promise<void>((done) => (server === null ? done() : server.close(() => done())));
    if (outdir !== '') rmSync(outdir, { recursive: true, force: true });
  });

  /** Uncaught errors in the pages of the current test: there must be none. */
  let pageErrors: string[] = [];
  afterEach(() => {
    const errors = pageErrors;
    pageErrors = [];
    expect(errors).toEqual([]);
  });

  /** A new page at `query`, once the playground has loaded its module. */
  async function open(query = ''): Promise<Page> {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    pages.push(page);
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(base + query);
    await page.waitForSelector('body[data-ready]', { timeout: 15_000 });
    return page;
  }

  const text = (page: Page, selector: string): Promise<string> => page.locator(selector).innerText();
  const kindIs = (page: Page, kind: string, timeout = 10_000): Promise<unknown> =>
    page.waitForFunction((k) => document.getElementById('outcome-kind')?.textContent === k, kind, { timeout });
  /** The `.value` cells of a debugger table. */
  const values = (page: Page, id: string): Promise<string[]> => page.locator(`#${id} .value`).allInnerTexts();
  /** The editor's text (window.playground, the page's console API). */
  const editorText = (page: Page): Promise<string> =>
    page.evaluate(() => (window as unknown as { playground: { text(): string } }).playground.text());
  /** Share, and the link it made. */
  async function share(page: Page): Promise<string> {
    await page.click('#share');
    await page.waitForFunction(() => (document.getElementById('share-link') as HTMLInputElement).value !== '');
    return page.locator('#share-link').inputValue();
  }
  const currentOffset = async (page: Page): Promise<number> => Number(await page.locator('#dbg-listing .line.current').getAttribute('data-offset'));
  /** A debugger button, once the previous command has ended (the buttons are disabled while it runs). */
  async function command(page: Page, id: 'dbg-step' | 'dbg-over' | 'dbg-out' | 'dbg-continue'): Promise<void> {
    await page.click(`#${id}:not([disabled])`);
    await page.waitForSelector(`#${id}:not([disabled]), #outcome-kind[data-kind="ok"]`);
  }

  it('a link with &run prints the result as the CLI does: fib(30)', async () => {
    const page = await open('?example=fib&invoke=fib&args=30&run');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['result: I32(832040)', 'fuel consumed: 522']);
    expect(await page.locator('body').innerText()).toContain('result: I32(832040)');
    expect(await page.locator('#export').inputValue()).toBe('fib');
    expect(await page.locator('#signature').innerText()).toBe('(i32) -> (i32)');
  });

  it('the infinite loop ends at its deadline as Timeout (300 ms by default, 2,000 here), and the page answers clicks while it spins', async () => {
    const page = await open('?example=infinite_loop');
    expect(await page.locator('#timeout').inputValue()).toBe('300');
    // Long enough for the clicks below to arrive while it spins on a loaded machine: in a full
    // run (2026-12-01, a slow VM) 300 ms had passed before the first click reached the page.
    await page.fill('#timeout', '2000');
    await page.click('#run');
    await kindIs(page, 'running');
    await page.click('#ping');
    expect(await text(page, '#ping-count')).toBe('1');
    await page.click('#ping');
    await kindIs(page, 'Timeout');
    expect(await text(page, '#output')).toBe('sandboxd: wall-clock timeout: the module ran longer than 2000 ms');
    // The page itself counted the clicks it handled while the guest still ran.
    expect(Number(await page.locator('#ping-count').getAttribute('data-during-run'))).toBeGreaterThanOrEqual(1);
  });

  it('Stop aborts a guest with no deadline in sight, quickly: kind Aborted (a run, and a debugged run)', async () => {
    const page = await open('?example=infinite_loop&fuel=1000000000000000&timeout=100000000');
    await page.click('#run');
    await kindIs(page, 'running');
    await page.waitForTimeout(300);
    expect(await text(page, '#outcome-kind')).toBe('running');
    const start = Date.now();
    await page.click('#stop');
    await kindIs(page, 'Aborted', 2_000);
    expect(Date.now() - start).toBeLessThan(1_000);
    expect(await text(page, '#output')).toMatch(/^sandboxd: aborted/);
    expect(await page.locator('#run').isDisabled()).toBe(false);

    // Under the debugger: Continue with no breakpoint spins; Stop ends it the same way.
    await page.click('#debug');
    await page.click('#dbg-continue:not([disabled])');
    await kindIs(page, 'running');
    await page.waitForTimeout(200);
    await page.click('#stop');
    await kindIs(page, 'Aborted', 2_000);
  });

  it('the memory bomb is stopped by the memory cap: MemoryLimitExceeded', async () => {
    const page = await open('?example=memory_bomb&run');
    await kindIs(page, 'MemoryLimitExceeded');
    expect(await text(page, '#output')).toBe('sandboxd: memory limit exceeded: the module requested more than 16777216 bytes of linear memory');
  });

  it('a trap shows its wasm backtrace', async () => {
    const page = await open('?example=traps&run');
    await kindIs(page, 'Trap');
    expect((await text(page, '#output')).split('\n')).toEqual([
      'sandboxd: guest trap: wasm trap: integer divide by zero',
      'wasm backtrace:',
      '    0:     0x62 - traps!div',
    ]);
  });

  it('the grants: logger with host::log, random with host::random seeded 42', async () => {
    const logger = await open('?example=logger&run');
    await kindIs(logger, 'ok');
    expect((await text(logger, '#output')).split('\n')).toEqual(['[guest log] hello from the guest', 'ok (no return value)', 'fuel consumed: 4']);
    const random = await open('?example=random&run');
    await kindIs(random, 'ok');
    expect(await text(random, '#output')).toContain('result: I32(803958421)');
    // Without the grant the import is refused before anything runs.
    await random.uncheck('#grant-random');
    await random.click('#run');
    await kindIs(random, 'DisallowedImport');
  });

  it('a WASI program: its stdout and stderr, then its exit code; its arguments from the form; refused without the grant', async () => {
    const page = await open('?example=wasi&run');
    await kindIs(page, 'ok');
    // fixtures/wasi/hello.wat counts its arguments, its name among them: program one two.
    const lines = (await text(page, '#output')).split('\n');
    expect(lines.slice(0, 3)).toEqual(['Hello from a WASI program!', 'arguments: 3', 'exit code: 3']);
    expect(lines[3]).toMatch(/^fuel consumed: \d+$/);
    await page.fill('#wasi-args', 'a b c d');
    await page.click('#run');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')[1]).toBe('arguments: 5');
    await page.uncheck('#grant-wasi');
    await page.click('#run');
    await kindIs(page, 'DisallowedImport');
  });

  it('stepping fib(3): the locals and the operand stack at each instruction', async () => {
    const page = await open('?example=fib&invoke=fib&args=3');
    await page.click('#debug');
    await kindIs(page, 'ready');
    // Before the first command: the whole module's disassembly, nothing current.
    expect(await page.locator('#dbg-listing .func-head').count()).toBe(2);
    await command(page, 'dbg-step');
    expect(await currentOffset(page)).toBe(0x39); // i32.const 0
    expect(await values(page, 'dbg-locals')).toEqual(['I32(3)', 'I32(0)', 'I32(0)', 'I32(0)', 'I32(0)']);
    expect(await values(page, 'dbg-stack')).toEqual([]);
    expect(await page.locator('#dbg-frames li[data-index]').count()).toBe(1);
    // The prologue, block, loop, local.get $i, local.get $n: ten steps to the first i32.ge_s.
    for (let i = 0; i < 10; i++) await command(page, 'dbg-step');
    expect(await currentOffset(page)).toBe(0x4d);
    expect(await page.locator('#dbg-listing .line.current .text').innerText()).toBe('    i32.ge_s');
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)', 'I32(3)']); // i, n
    expect(await values(page, 'dbg-locals')).toEqual(['I32(3)', 'I32(0)', 'I32(1)', 'I32(0)', 'I32(0)']); // n, a, b, i, tmp
    await command(page, 'dbg-step'); // br_if 1, with 0 >= 3 = 0 on the stack
    expect(await currentOffset(page)).toBe(0x4e);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)']);
    for (let i = 0; i < 3; i++) await command(page, 'dbg-over'); // local.get $a, local.get $b to i32.add
    expect(await currentOffset(page)).toBe(0x54);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)', 'I32(1)']); // a + b: fib(0) + fib(1)
    // The rest of the pass (i32.add to br 0: ten instructions), then local.get $i, local.get $n, the check.
    let steps = 0;
    do {
      await command(page, 'dbg-step');
      steps++;
    } while ((await currentOffset(page)) !== 0x4d && steps < 20);
    expect(steps).toBe(13);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(1)', 'I32(3)']);
    expect(await values(page, 'dbg-locals')).toEqual(['I32(3)', 'I32(1)', 'I32(1)', 'I32(1)', 'I32(1)']);
    // Step out of the export: the run finishes, as the plain run would.
    await command(page, 'dbg-out');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['result: I32(2)', 'fuel consumed: 63']);
    expect(await page.locator('#dbg-step').isDisabled()).toBe(true);
  });

  it('breakpoints set by clicking listing lines, before and during a session', async () => {
    const page = await open('?example=fib&invoke=fib&args=5');
    await page.click('#dbg-listing .line[data-offset="84"]'); // the loop's i32.add
    expect(await page.locator('#dbg-listing .line.breakpoint').getAttribute('data-offset')).toBe('84');
    await page.click('#debug');
    await kindIs(page, 'ready');
    await command(page, 'dbg-continue');
    expect(await currentOffset(page)).toBe(84);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)', 'I32(1)']);
    await command(page, 'dbg-continue');
    expect(await currentOffset(page)).toBe(84);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(1)', 'I32(1)']);
    // During the session: clear it, and break at i + 1 instead.
    await page.click('#dbg-listing .line[data-offset="84"]');
    await page.click('#dbg-listing .line[data-offset="99"]');
    expect(await page.locator('#dbg-listing .line.breakpoint').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-offset')))).toEqual(['99']);
    await command(page, 'dbg-continue');
    expect(await currentOffset(page)).toBe(99);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(1)', 'I32(1)']); // i = 1, then the constant 1
    await page.click('#dbg-listing .line[data-offset="99"]');
    await command(page, 'dbg-continue');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['result: I32(5)', 'fuel consumed: 97']);
  });

  it('the call stack: a caller’s frame shows its function, its call, its locals and stack; step out returns to it', async () => {
    const page = await open('?example=calls&args=1');
    await page.click('#dbg-listing .line[data-offset="70"]'); // square's i32.mul
    await page.click('#debug');
    await kindIs(page, 'ready');
    await command(page, 'dbg-continue');
    expect(await currentOffset(page)).toBe(70);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)', 'I32(0)']); // square(0): x, x
    const frames = await page.locator('#dbg-frames li[data-index] .fn').allInnerTexts();
    expect(frames).toEqual(['#0 calls!square', '#1 calls!sum_squares', '#2 calls!run']);
    await page.click('#dbg-frames li[data-index="1"]');
    expect(await page.locator('#dbg-listing .func-head').getAttribute('data-func')).toBe('2');
    expect(await currentOffset(page)).toBe(0x5b);
    expect(await page.locator('#dbg-listing .line.current .text').innerText()).toBe('    call 1');
    expect(await values(page, 'dbg-locals')).toEqual(['I32(20)', 'I32(0)', 'I32(0)']); // n = 20 * 1, i, sum
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)']); // sum, below the call's argument
    await page.click('#dbg-frames li[data-index="2"]');
    expect(await values(page, 'dbg-locals')).toEqual(['I32(1)']);
    expect(await values(page, 'dbg-stack')).toEqual(['I32(1)']); // fib(1), waiting for sum_squares
    await page.click('#dbg-frames li[data-index="0"]');
    await page.click('#dbg-listing .line[data-offset="70"]'); // clear it
    await command(page, 'dbg-out');
    expect(await currentOffset(page)).toBe(0x5d); // sum_squares' i32.add, after the call
    expect(await values(page, 'dbg-stack')).toEqual(['I32(0)', 'I32(0)']); // sum, square(0)
    expect(await page.locator('#dbg-frames li[data-index]').count()).toBe(2);
  });

  it('the memory view follows the address typed, 16 bytes a row', async () => {
    const page = await open('?example=logger');
    await page.click('#debug');
    await kindIs(page, 'ready');
    expect(await text(page, '#dbg-memory')).toBe('the instance does not exist yet');
    await command(page, 'dbg-step');
    expect(await text(page, '#dbg-memory-size')).toBe('65536 bytes (1 pages)');
    await page.fill('#dbg-addr', '0x1c');
    const rows = (await text(page, '#dbg-memory')).split('\n');
    expect(rows).toHaveLength(16);
    expect(rows[0]).toBe('0x00000010  68 65 6c 6c 6f 20 66 72  6f 6d 20 74 68 65 20 67  |hello from the g|');
    expect(rows[1]).toBe('0x00000020  75 65 73 74 00 00 00 00  00 00 00 00 00 00 00 00  |uest............|');
    await page.fill('#dbg-addr', '70000');
    expect(await text(page, '#dbg-memory')).toContain('past the end of memory');
    await command(page, 'dbg-continue');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['[guest log] hello from the guest', 'ok (no return value)', 'fuel consumed: 4']);
  });

  it('the profile: a flame graph with fib in it, the function table, and coverage on the listing', async () => {
    const page = await open('?example=fib&invoke=fib&args=30&run=profile');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['result: I32(832040)', 'fuel consumed: 522']);
    const fibFrame = page.locator('#flamegraph .frame[data-name="<unknown>!<wasm function 1>"]');
    await fibFrame.waitFor();
    expect(await fibFrame.getAttribute('data-fuel')).toBe('522');
    expect(await fibFrame.innerText()).toContain('"fib"');
    expect(await fibFrame.getAttribute('title')).toContain('522 fuel (100.0%)');
    expect(await page.locator('#profile-table tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/"fib"\s+1\s+522\s+522\s+100\.0%/)]);
    // fib(30) runs 27 of fib's 29 instructions; add never runs.
    expect(await page.locator('#dbg-listing .line[data-func="1"].covered').count()).toBe(27);
    expect(await page.locator('#dbg-listing .line[data-func="0"].covered').count()).toBe(0);
    expect(await page.locator('#dbg-listing .func-head[data-func="1"] .cov').innerText()).toBe('27/29 ran');

    // A call tree: nested frames, each as wide as its fuel.
    await page.selectOption('#example', 'calls');
    await page.click('#profile');
    await kindIs(page, 'ok');
    const names = await page.locator('#flamegraph .frame').evaluateAll((fs) => fs.map((f) => f.getAttribute('data-name')));
    expect(names).toEqual(expect.arrayContaining(['calls!run', 'calls!fib', 'calls!sum_squares', 'calls!square']));
    const width = (name: string): Promise<number> => page.locator(`#flamegraph .frame[data-name="${name}"]`).first().evaluate((f) => f.getBoundingClientRect().width);
    expect(await width('calls!run')).toBeGreaterThan(await width('calls!sum_squares'));
  });

  it('a share link carries edited text, export, arguments and limits; opened, it reproduces the run', async () => {
    const page = await open('?example=fib');
    const edited = ';; edited in the playground\n(module\n  (func (export "triple") (param i32) (result i32)\n    (i32.mul (local.get 0) (i32.const 3))))\n';
    await page.click('.cm-content');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(edited);
    await page.waitForFunction(() => Array.from((document.getElementById('export') as HTMLSelectElement).options).some((o) => o.value === 'triple'));
    await page.fill('#args', '14');
    await page.fill('#fuel', '5000');
    await page.fill('#timeout', '250');
    const link = await share(page);
    expect(link).toContain('code=');
    expect(link).not.toContain('example=');
    expect(page.url()).toBe(link); // history.replaceState
    const q = new URL(link).searchParams;
    expect([q.get('invoke'), q.get('args'), q.get('fuel'), q.get('timeout'), q.get('memory'), q.has('run')]).toEqual(['triple', '14', '5000', '250', '16', true]);

    const again = await open(link.slice(base.length));
    expect(await editorText(again)).toBe(edited);
    await kindIs(again, 'ok');
    expect((await text(again, '#output')).split('\n')).toEqual(['result: I32(42)', 'fuel consumed: 4']);
    expect([await again.locator('#fuel').inputValue(), await again.locator('#timeout').inputValue()]).toEqual(['5000', '250']);
    // An untouched example is shared by name.
    const example = await open('?example=traps');
    expect(await share(example)).toContain('example=traps&invoke=div&args=1%2C0');
  });

  it('a link whose module inflates past 16 MiB (a deflate bomb) is refused, and the page goes on', async () => {
    // 64 MiB of spaces deflate to about 64 KB: a link a few times smaller than what it would inflate to.
    const bomb = deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 }).toString('base64url');
    const page = await open(`?code=${bomb}&invoke=fib&run`);
    await kindIs(page, 'BadLink');
    expect(await text(page, '#output')).toBe(`sandboxd: error: the link's module text (code=) cannot be read: the link's module inflates to more than ${16 * 1024 * 1024} bytes`);
    // The page still works: the first example, ready to run.
    await page.click('#run');
    await kindIs(page, 'ok');
  });

  it('text typed in the editor compiles in the page (wabt in the browser), and errors show', async () => {
    const page = await open('?example=fib');
    await page.click('.cm-content');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    // Typed key by key: the editor closes brackets and quotes, and steps over them when typed.
    await page.keyboard.type('(module (func (export "answer") (result i32) i32.const 42))');
    expect(await editorText(page)).toBe('(module (func (export "answer") (result i32) i32.const 42))');
    await page.waitForSelector('#compile-status.ok');
    expect(await page.locator('#export').inputValue()).toBe('answer');
    await page.click('#run');
    await kindIs(page, 'ok');
    expect((await text(page, '#output')).split('\n')).toEqual(['result: I32(42)', 'fuel consumed: 2']);
    await page.click('.cm-content');
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.insertText(' (oops');
    await page.waitForSelector('#compile-status.error');
    await page.click('#run');
    await kindIs(page, 'InvalidModule');
    expect(await text(page, '#output')).toMatch(/^sandboxd: invalid module: module\.wat:1:\d+: error: /);
  });

  it('a dropped .wasm loads as a binary module: its disassembly, read-only, and it runs', async () => {
    const page = await open('?example=fib');
    const drop = await page.evaluateHandle((bytes) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'answer.wasm', { type: 'application/wasm' }));
      return data;
    }, ANSWER_WASM);
    // Onto the editor's text, as a user would: the page takes the file, not the editor.
    await page.dispatchEvent('.cm-content', 'drop', { dataTransfer: drop });
    await page.waitForSelector('#binary-banner:not([hidden])');
    expect(await text(page, '#binary-banner')).toContain('answer.wasm (39 bytes)');
    const shown = await editorText(page);
    expect(shown).toContain('func[0]: () -> (i32)');
    expect(shown).toContain('i32.const 42');
    expect(await page.locator('.cm-content').getAttribute('contenteditable')).toBe('false');
    expect(await page.locator('#export').inputValue()).toBe('answer');
    await page.click('#run');
    await kindIs(page, 'ok');
    expect(await text(page, '#output')).toContain('result: I32(42)');
    // A binary module is shared as bytes.
    const again = await open((await share(page)).slice(base.length));
    await kindIs(again, 'ok');
    expect(await text(again, '#binary-banner')).toContain('answer.wasm (39 bytes)');
  });

  it('screenshot: fib profiled, then paused under the debugger (docs/playground.png with UPDATE_SCREENSHOT=1)', async () => {
    const page = await open('?example=fib&invoke=fib&args=30&run=profile');
    await kindIs(page, 'ok');
    await page.fill('#args', '3');
    await page.click('#dbg-listing .line[data-offset="84"]');
    await page.click('#debug');
    await kindIs(page, 'ready');
    await command(page, 'dbg-continue');
    await command(page, 'dbg-continue');
    expect(await values(page, 'dbg-stack')).toEqual(['I32(1)', 'I32(1)']);
    await page.click('#ping');
    const dir = process.env.UPDATE_SCREENSHOT === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'playground-shot-'));
    const path = join(dir, 'playground.png');
    await page.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(10_000);
    if (dir !== join(ROOT, 'docs')) rmSync(dir, { recursive: true, force: true });
  });
});
