/**
 * The compiler's word buffers (src/interpreter/code-buffer.ts): the code emitted in chunks and
 * joined, and the arrays lazy translation appends to after the compile.
 */
import { describe, expect, it } from 'vitest';
import { runSteps } from '../src/interpreter/steps.js';
import { CodeBuffer, WordArray } from '../src/interpreter/code-buffer.js';

/** 0, 1, 2, ... as the words pushed, so that any word out of place shows. */
function filled(buffer: CodeBuffer, count: number): void {
  for (let i = buffer.length; i < count; i++) buffer.push(i);
}

const CHUNK_WORDS = 1 << 16;

describe('CodeBuffer', () => {
  it('grows from a small first guess, across chunks, and joins every word in order', () => {
    for (const count of [0, 1, 63, 64, 1000, CHUNK_WORDS, CHUNK_WORDS + 1, 3 * CHUNK_WORDS + 5]) {
      const buffer = new CodeBuffer(64);
      filled(buffer, count);
      const code = runSteps(buffer.finishInSteps());
      expect(code.length).toBe(count);
      expect(code.every((w, i) => w === i)).toBe(true);
    }
  });

  it('takes back words (truncate) and goes on from there: inside a chunk, at its start, and at the end of a full last chunk', () => {
    for (const [count, at] of [[CHUNK_WORDS + 100, CHUNK_WORDS + 40], [2 * CHUNK_WORDS + 1, CHUNK_WORDS], [2 * CHUNK_WORDS, 2 * CHUNK_WORDS]] as const) {
      const buffer = new CodeBuffer(16);
      filled(buffer, count);
      buffer.truncate(at);
      buffer.push3(-1, -2, -3);
      const code = runSteps(buffer.finishInSteps());
      expect(code.length).toBe(at + 3);
      expect(code[at - 1]).toBe(at - 1);
      expect([...code.subarray(at)]).toEqual([-1, -2, -3]);
    }
  });

  it('appends what follows a restart to a WordArray with no room left, which grows', () => {
    const buffer = new CodeBuffer(64);
    filled(buffer, 10);
    const code = new WordArray(runSteps(buffer.finishInSteps()));
    expect(code.words.length).toBe(10);
    // Three first calls, one of more than a chunk: positions go on from the code's end.
    for (const more of [5, 2000, CHUNK_WORDS + 7]) {
      const start = code.words.length;
      buffer.restartAt(start);
      filled(buffer, start + more);
      expect(buffer.get(start + more - 1)).toBe(start + more - 1);
      buffer.appendTo(code);
      expect(code.words.length).toBe(start + more);
    }
    expect(code.words.every((w, i) => w === i)).toBe(true);
  });
});
