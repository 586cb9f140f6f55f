/**
 * Defects a review of the inspection tools found, each kept from coming back: a caller's stack
 * after a tail call, the probes' memory on wide block results, run options that are not what
 * they should be, and the probed copy of a module compiled otherwise than the module.
 */
import { describe, expect, it } from 'vitest';
import { compileModule } from '../src/interpreter/index.js';
import { HostAbi, Limits, Sandbox, Value } from '../src/index.js';
import { toBinary } from '../src/sandbox/wat.js';
import { failure } from './helpers/sandbox.js';

describe('the debugger after a tail call', () => {
  // a pushes 100, then calls $b with two arguments; $b tail-calls $c, which takes none (and the reverse).
  const wat = (bParams: string, cParams: string, bArgs: string, cArgs: string): string => `(module
    (func $a (export "a") (result i32) (i32.add (i32.const 100) (call $b ${bArgs})))
    (func $b ${bParams} (result i32) (return_call $c ${cArgs}))
    (func $c ${cParams} (result i32) (i32.const 7)))`;

  it('shows the caller’s stack without the arguments of its own call, whatever the callee then became', async () => {
    const sandbox = Sandbox.denyAll();
    for (const source of [
      wat('(param i32 i32)', '', '(i32.const 1) (i32.const 2)', ''),
      wat('', '(param i32 i32)', '', '(i32.const 1) (i32.const 2)'),
    ]) {
      const debug = await sandbox.debug(source, 'a');
      debug.breakAt({ func: 2 });
      const event = await debug.continue();
      expect(event.kind).toBe('paused');
      if (event.kind !== 'paused') return;
      expect(event.frames.map((f) => f.funcIndex)).toEqual([2, 0]);
      expect(event.frames[1]!.instruction).toBe('call 1');
      expect(event.frames[1]!.stack.map(String)).toEqual(['I32(100)']);
      expect((await debug.continue()).kind).toBe('finished');
    }
  });
});

describe('the probes’ memory', () => {
  it('instructions that leave a wide stack alone share its record (br_if on 1,000 block results)', async () => {
    const results = ' i32'.repeat(1000);
    const consts = '(i32.const 0)'.repeat(1000);
    const body = '(br_if 0 (local.get 0))'.repeat(50);
    const source = `(module (func $g (result${results}) ${consts})
      (func (export "f") (param i32) (block (result${results}) (call $g) ${body}) ${'drop '.repeat(1000)}))`;
    const module = compileModule(await toBinary(source), undefined, { probes: true });
    const sites = module.functions.probes.filter((p) => p.funcIndex === 1 && p.stack !== null && p.stack.depth >= 1000);
    expect(sites.length).toBeGreaterThanOrEqual(100);
    // The 1,000 results below the condition are one record, shared by every site.
    const bottoms = new Set(sites.map((p) => (p.stack!.depth === 1000 ? p.stack : p.stack!.below)));
    expect(bottoms.size).toBeLessThanOrEqual(2);
  });
});

describe('run options that are not what they should be', () => {
  it('a signal that is not an AbortSignal is a Host error, and arms nothing that could end a later call', async () => {
    const sandbox = Sandbox.denyAll();
    const instance = await sandbox.instantiate('(module (func (export "f") (result i32) (i32.const 1)))', new Limits({ timeoutMs: 100 }));
    const bad = await failure(instance.call('f', [], { signal: {} as AbortSignal }));
    expect(bad.kind).toBe('Host');
    expect(bad.message).toContain('signal must be an AbortSignal');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(String((await instance.call('f')).values[0])).toBe('I32(1)');
    expect((await failure(sandbox.run('(module (func (export "f")))', 'f', [], undefined, { signal: 'stop' as unknown as AbortSignal }))).kind).toBe('Host');
    expect((await failure(instance.call('f', [], null as unknown as object))).kind).toBe('Host');
  });
});

describe('the probed copy of a module', () => {
  it('is compiled as the module was, whichever sandbox runs it: the same result with coverage as without', async () => {
    // A NaN from 0/0 is canonical in a module compiled with canonicalNaNs, arithmetic's own otherwise.
    const source = '(module (func (export "nan") (param f32) (result i32) (i32.reinterpret_f32 (f32.div (local.get 0) (local.get 0)))))';
    const module = await new Sandbox(HostAbi.denyAll(), { canonicalNaNs: true }).compile(source);
    const other = Sandbox.denyAll();
    const arg = [Value.f32(0)];
    const plain = await other.run(module, 'nan', arg);
    const covered = await other.run(module, 'nan', arg, undefined, { coverage: true });
    expect(String(covered.values[0])).toBe(String(plain.values[0]));
    expect(String(plain.values[0])).toBe('I32(2143289344)');
    const debug = await other.debug(module, 'nan', arg);
    const end = await debug.continue();
    expect(end.kind === 'finished' && String(end.output.values[0])).toBe('I32(2143289344)');
  });
});
