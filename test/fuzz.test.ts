/**
 * Mutation fuzzing: valid modules with random bytes flipped, inserted, deleted or cut off.
 * Whatever the bytes, the engine may only answer with its own errors — DecodeError or
 * ValidationError from compiling, LinkError or Trap from instantiating and running — and
 * must never throw a JavaScript error of its own (a TypeError, a RangeError) or hang.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DecodeError, LinkError, Store, Trap, ValidationError, WasmValue, compileModule, instantiate, invoke,
  type FuncRef,
} from '../src/interpreter/index.js';
import { I32, I64, F32, F64 } from '../src/interpreter/types.js';

const kernels = readdirSync(new URL('../bench/kernels/', import.meta.url))
  .filter((f) => f.endsWith('.wasm'))
  .map((f) => new Uint8Array(readFileSync(new URL(`../bench/kernels/${f}`, import.meta.url))));

/** A small deterministic generator (xorshift32). */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function mutate(bytes: Uint8Array, random: () => number): Uint8Array {
  const out = Array.from(bytes);
  const edits = 1 + Math.floor(random() * 4);
  for (let e = 0; e < edits; e++) {
    const at = 8 + Math.floor(random() * Math.max(1, out.length - 8));
    const kind = random();
    if (kind < 0.5) out[at] = Math.floor(random() * 256);
    else if (kind < 0.7) out.splice(at, 0, Math.floor(random() * 256));
    else if (kind < 0.9) out.splice(at, 1);
    else out.length = at;
  }
  return new Uint8Array(out);
}

const engineError = (e: unknown): boolean =>
  e instanceof DecodeError || e instanceof ValidationError || e instanceof LinkError || e instanceof Trap;

function zeroArg(t: number): WasmValue {
  if (t === I32 || t === I64 || t === F32 || t === F64) return WasmValue.fromSlot(t, 1, 0);
  return WasmValue.zero(t);
}

describe('mutated modules', () => {
  it('only ever fail with the engine\'s own errors', () => {
    const random = rng(0x5eed);
    let compiled = 0;
    let ran = 0;
    for (let i = 0; i < 1500; i++) {
      const bytes = mutate(kernels[i % kernels.length]!, random);
      try {
        const module = compileModule(bytes);
        compiled++;
        const store = new Store(undefined, { maxMemoryBytes: 1 << 24, maxCallDepth: 2000 });
        const instance = instantiate(store, module, () => undefined);
        for (const e of module.ir.exports) {
          if (e.kind !== 'func') continue;
          const f = instance.exports.get(e.name) as FuncRef;
          const type = module.funcTypes[e.index]!;
          store.fuel = 200_000;
          const execution = invoke(store, f, type.params.map(zeroArg));
          try {
            while (execution.resume() !== 'done');
            ran++;
          } catch (err) {
            if (!engineError(err)) throw err;
          }
        }
      } catch (err) {
        if (!engineError(err)) throw new Error(`mutation ${i}: ${String(err)}`, { cause: err });
      }
    }
    // The mutations must not all be rejected at the door, or this test would prove little.
    expect(compiled).toBeGreaterThan(50);
    expect(ran).toBeGreaterThan(10);
  }, 60_000);
});

describe('mutated modules through the sandbox', () => {
  it('end in a SandboxError that names a fence or the module, never an internal fault', async () => {
    const { Sandbox, SandboxError, Limits, Value } = await import('../src/index.js');
    const sandbox = Sandbox.denyAll();
    const limits = new Limits({ fuel: 100_000, timeoutMs: 1_000 });
    const random = rng(0xfade);
    for (let i = 0; i < 300; i++) {
      const bytes = mutate(kernels[i % kernels.length]!, random);
      try {
        await sandbox.run(bytes, 'run', [Value.i32(3)], limits);
      } catch (e) {
        expect(e).toBeInstanceOf(SandboxError);
        // `Host` is what an internal fault becomes.
        expect((e as { kind: string }).kind, String(e)).not.toBe('Host');
      }
    }
  }, 60_000);
});
