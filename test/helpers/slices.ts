/**
 * Driving an engine-level execution as the sandbox does, in slices of fuel, and telling two
 * memories apart: what the tests that compare two ways of running a program share.
 */
import type { Execution, MemoryInst, WasmValue } from '../../src/interpreter/index.js';

/** Resumes `ex`, `slice` fuel at a time, until it is done (a trap throws); returns its results. */
export function resumeInSlices(ex: Execution, slice: number): WasmValue[] {
  let status;
  do {
    ex.sliceFuel = slice;
    status = ex.resume();
  } while (status === 'paused');
  return ex.results;
}

/** FNV-1a over a memory's bytes, with its length: enough to tell two memories apart ('' for none). */
export function memoryDigest(memory: MemoryInst | null): string {
  if (memory === null) return '';
  const bytes = memory.bytes.subarray(0, memory.size);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return `${bytes.length}:${(h >>> 0).toString(16)}`;
}
