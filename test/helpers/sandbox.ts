/** Helpers shared by the sandbox-level tests. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { SandboxError } from '../../src/index.js';

/** The text of `fixtures/NAME.wat`. */
export const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}.wat`, import.meta.url), 'utf8');

/** Awaits a run that must fail, and returns its SandboxError. */
export async function failure(p: Promise<unknown>): Promise<SandboxError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SandboxError);
    return e as SandboxError;
  }
  throw new Error('expected the run to fail');
}
