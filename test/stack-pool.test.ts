import { describe, expect, it } from 'vitest';
import { POOLED_STACK_WORDS, returnStack, takeStack } from '../src/interpreter/stack-pool.js';

describe('value stack pool', () => {
  it('hands back a returned stack zeroed, with its views, so nothing of one run reaches the next', () => {
    const first = takeStack(100);
    expect(first.s32.length).toBe(POOLED_STACK_WORDS);
    first.s32.fill(0x5a5a5a5a);
    returnStack(first);
    const second = takeStack(100);
    expect(second).toBe(first);
    expect(second.s32.every((w) => w === 0)).toBe(true);
    expect(second.f64.every((w) => w === 0)).toBe(true);
  });

  it('gives three views of one buffer', () => {
    const stack = takeStack(100);
    expect(stack.f32.buffer).toBe(stack.s32.buffer);
    expect(stack.f64.buffer).toBe(stack.s32.buffer);
    stack.f64[1] = 1;
    expect(stack.s32[3]).toBe(0x3ff00000);
    returnStack(stack);
  });

  it('does not keep stacks of other sizes', () => {
    const big = takeStack(POOLED_STACK_WORDS * 2);
    expect(big.s32.length).toBe(POOLED_STACK_WORDS * 2);
    returnStack(big);
    expect(takeStack(10).s32.buffer).not.toBe(big.s32.buffer);
  });
});
