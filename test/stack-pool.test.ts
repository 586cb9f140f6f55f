import { describe, expect, it } from 'vitest';
import { POOLED_STACK_WORDS, returnStack, takeStack } from '../src/interpreter/stack-pool.js';

describe('value stack pool', () => {
  it('hands back a returned stack zeroed, so nothing of one run reaches the next', () => {
    const first = new Int32Array(takeStack(100));
    expect(first.length).toBe(POOLED_STACK_WORDS);
    first.fill(0x5a5a5a5a);
    returnStack(first);
    const second = new Int32Array(takeStack(100));
    expect(second.buffer).toBe(first.buffer);
    expect(second.every((w) => w === 0)).toBe(true);
  });

  it('does not keep stacks of other sizes', () => {
    const big = new Int32Array(takeStack(POOLED_STACK_WORDS * 2));
    expect(big.length).toBe(POOLED_STACK_WORDS * 2);
    returnStack(big);
    expect(new Int32Array(takeStack(10)).buffer).not.toBe(big.buffer);
  });
});
