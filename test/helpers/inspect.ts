/** Helpers shared by the inspection tests (monitors, debugger): the C fixture's markers, listings, fib. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { CompiledModule } from '../../src/index.js';

export const cWasm = new Uint8Array(readFileSync(new URL('../../fixtures/c/traps.wasm', import.meta.url)));
export const cSource = readFileSync(new URL('../../fixtures/c/traps.c', import.meta.url), 'utf8');

/** The 1-based line of traps.c holding `MARK: <marker>`, and its text. */
export function marked(marker: string): { line: number; text: string } {
  const lines = cSource.split('\n');
  const hits = lines.flatMap((text, i) => (text.includes(`MARK: ${marker} */`) ? [i + 1] : []));
  expect(hits, marker).toHaveLength(1);
  return { line: hits[0]!, text: lines[hits[0]! - 1]! };
}

/** The instructions `disassemble(func)` lists: offset and text, in order (every line but the header is one). */
export function listing(module: CompiledModule, func: string | number): Array<{ offset: number; text: string }> {
  const lines = module.disassemble(func).split('\n');
  const out = lines.flatMap((line) => {
    const m = /^\s*0x([0-9a-f]+):\s*(.*)$/.exec(line);
    return m === null ? [] : [{ offset: parseInt(m[1]!, 16), text: m[2]!.trim() }];
  });
  expect(out.length).toBe(lines.filter((l) => l.trim() !== '').length - 1);
  return out;
}

/** fib(n) as well_behaved.wat computes it (wrapping at 32 bits). */
export const fibValue = (n: number): number => {
  let a = 0;
  let b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, (a + b) | 0];
  return a;
};
