/**
 * Randomised differential tests of the translator: seeded random i32/i64 programs
 * (test/helpers/engine-progen.ts) with local.set/tee/get interleavings, nested blocks, ifs and
 * loops with parameters and results, branches carrying values, early returns and calls, run in
 * our engine and in Node's WebAssembly with the same arguments; results, traps, and the final
 * state of globals and memory must agree.
 *
 * A failure message names the seed; `PROGEN_SEED=<seed> npx vitest run test/engine-random`
 * reruns that program alone and prints its text.
 */
import { describe, expect, it } from 'vitest';
import { I32_EDGES, I64_EDGES, Pair, Rng, assemble, i32, i64 } from './helpers/engine-oracle.js';
import { HELPERS, ProgramGenerator, helpers, instrumentFuel } from './helpers/engine-progen.js';
import { invokeSync, Trap } from '../src/interpreter/index.js';

const FUNCS_PER_MODULE = 4;
const MODULES = 90; // 360 random functions
const ARGS_PER_FUNC = 6;

function programFor(seed: number, size: number): string {
  const gen = new ProgramGenerator(new Rng(seed));
  const fns = Array.from({ length: FUNCS_PER_MODULE }, (_, k) => gen.func(`f${k}`, size));
  return `(module ${HELPERS}\n${fns.join('\n')})`;
}

async function checkSeed(seed: number, size: number): Promise<string[]> {
  const src = programFor(seed, size);
  const p = new Pair(await assemble(src));
  const rng = new Rng(seed ^ 0x9e3779b9);
  const failures: string[] = [];
  for (let f = 0; f < FUNCS_PER_MODULE; f++) {
    for (let k = 0; k < ARGS_PER_FUNC; k++) {
      const args = [
        i32(rng.chance(0.5) ? rng.pick(I32_EDGES) : rng.i32()),
        i32(rng.chance(0.5) ? rng.pick(I32_EDGES) : rng.int(10)),
        i64(rng.chance(0.5) ? rng.pick(I64_EDGES) : rng.i64()),
        i64(rng.chance(0.5) ? rng.pick(I64_EDGES) : BigInt(rng.int(10))),
      ];
      const d = p.diff(`f${f}`, args);
      if (d !== null) failures.push(`seed ${seed}: ${d}`);
      // Globals and memory after each call must agree too.
      const s = p.diff('state', []);
      if (s !== null) failures.push(`seed ${seed} after f${f}: ${s}`);
      if (failures.length > 0) return failures;
    }
  }
  return failures;
}

const only = process.env.PROGEN_SEED;

describe('random programs against the native engine', () => {
  if (only !== undefined) {
    it(`seed ${only}`, async () => {
      const seed = Number(only);
      console.log(programFor(seed, 8));
      expect(await checkSeed(seed, 8)).toEqual([]);
    });
    return;
  }

  it(`${MODULES * FUNCS_PER_MODULE} random functions agree`, async () => {
    const failures: string[] = [];
    for (let m = 0; m < MODULES; m++) {
      failures.push(...(await checkSeed(1000 + m, 8)));
      if (failures.length >= 5) break;
    }
    expect(failures).toEqual([]);
  });

  it('some random runs trap, most return (the generator exercises both)', async () => {
    let traps = 0;
    let returns = 0;
    for (let m = 0; m < 10; m++) {
      const p = new Pair(await assemble(programFor(5000 + m, 8)));
      for (let f = 0; f < FUNCS_PER_MODULE; f++) {
        for (const x of [0, 1, -1, 7]) {
          const o = p.ours(`f${f}`, [i32(x), i32(x), i64(x), i64(0)]);
          if (o.ok) returns++;
          else traps++;
        }
      }
    }
    expect(returns).toBeGreaterThan(traps);
    expect(traps).toBeGreaterThan(0);
  });

  it('larger random functions agree', async () => {
    const failures: string[] = [];
    for (let m = 0; m < 12; m++) {
      failures.push(...(await checkSeed(9000 + m, 30)));
      if (failures.length >= 5) break;
    }
    expect(failures).toEqual([]);
  });
});

describe('fuel of random programs', () => {
  // The native engine runs a copy instrumented to count wasmtime's fuel in a global (one per
  // operator that costs 1, one per invocation); ours must charge exactly that much.
  it('the instrumentation counts as the model says', () => {
    const counted = instrumentFuel('local.get 0 i32.const 1 i32.add drop block (result i32) nop i32.const 2 end select (result i32)');
    // invocation + local.get + i32.const + i32.add + i32.const + select
    expect(counted.split('global.set $fuelc').length - 1).toBe(6);
    expect(counted.replace(/global.get \$fuelc i64.const 1 i64.add global.set \$fuelc /g, ''))
      .toBe('local.get 0 i32.const 1 i32.add drop block (result i32) nop i32.const 2 end select (result i32)');
  });

  it('120 random functions consume exactly the fuel the model counts', async () => {
    const failures: string[] = [];
    let compared = 0;
    for (let m = 0; m < 30 && failures.length < 5; m++) {
      const seed = 7000 + m;
      const fnsPlain: string[] = [];
      const fnsCounted: string[] = [];
      for (const [list, count] of [[fnsPlain, false], [fnsCounted, true]] as const) {
        const gen = new ProgramGenerator(new Rng(seed));
        for (let k = 0; k < FUNCS_PER_MODULE; k++) list.push(gen.func(`f${k}`, 8, count));
      }
      const p = new Pair(await assemble(`(module ${HELPERS}\n${fnsPlain.join('\n')})`));
      const native = new WebAssembly.Instance(new WebAssembly.Module(await assemble(`(module ${helpers(true)}\n${fnsCounted.join('\n')})`)));
      const fuelc = native.exports.fuelc as WebAssembly.Global;
      const rng = new Rng(seed);
      for (let f = 0; f < FUNCS_PER_MODULE; f++) {
        for (let k = 0; k < 4; k++) {
          const args = [i32(rng.pick(I32_EDGES)), i32(rng.int(10)), i64(rng.pick(I64_EDGES)), i64(BigInt(rng.int(10)))];
          p.store.fuel = 1e12;
          let trapped = false;
          try {
            invokeSync(p.store, p.func(`f${f}`), args);
          } catch (e) {
            if (!(e instanceof Trap)) throw e;
            trapped = true;
          }
          const ours = 1e12 - p.store.fuel;
          fuelc.value = 0n;
          try {
            (native.exports[`f${f}`] as (...a: unknown[]) => unknown)(...args.map((v) => (v.type === 0x7f ? v.asI32 : v.asI64)));
          } catch {
            trapped = true;
          }
          if (trapped) continue; // fuel charged before a trap is not specified exactly
          compared++;
          const expected = Number(fuelc.value as bigint);
          if (ours !== expected) failures.push(`seed ${seed} f${f}(${args.map(String).join(', ')}): charged ${ours}, model ${expected}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  });
});
