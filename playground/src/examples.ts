/**
 * The example modules: the project's fixtures, imported as text (the build's `.wat` text
 * loader), each with the export, arguments, limits and grants that show what it is for.
 */
import fib from '../../fixtures/well_behaved.wat';
import infiniteLoop from '../../fixtures/infinite_loop.wat';
import memoryBomb from '../../fixtures/memory_bomb.wat';
import logger from '../../fixtures/logger.wat';
import random from '../../fixtures/random.wat';
import traps from '../../fixtures/traps.wat';
import growWithinCap from '../../fixtures/grow_within_cap.wat';
import wasiHello from '../../fixtures/wasi/hello.wat';

/** What the run form holds: the export, the arguments as typed, the limits and the grants. */
export interface RunSettings {
  invoke: string;
  /** As typed: `30`, `i64:5 f64:1.5` (spaces or commas between). */
  args: string;
  /** Fuel units, as typed (decimal). */
  fuel: string;
  /** Milliseconds, as typed (`inf` for none). */
  timeoutMs: string;
  /** Mebibytes, as typed. */
  memoryMb: string;
  /** Grant `host::log`. */
  log: boolean;
  /** Grant `host::random` seeded with this (decimal), or null for no grant. */
  seed: string | null;
  /** Grant WASI (wasi_snapshot_preview1) with these arguments after the program's name, or null for no grant. */
  wasi: string | null;
}

/** sandboxd's defaults. */
export const DEFAULT_SETTINGS: Readonly<RunSettings> = Object.freeze({
  invoke: 'run',
  args: '',
  fuel: '100000000',
  timeoutMs: '1000',
  memoryMb: '16',
  log: false,
  seed: null,
  wasi: null,
});

/** Not a fixture: a few functions calling each other, for a flame graph with some shape. */
const CALL_TREE = `;; A few functions calling each other: profile it (Profile) to see where the fuel goes.
;; run(n) = fib(n), the slow way (a call per node of the recursion), plus the sum of the
;; squares below 20 * n (a loop calling square).
(module $calls
  (func $fib (param $n i32) (result i32)
    (if (result i32) (i32.lt_s (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib (i32.sub (local.get $n) (i32.const 1)))
          (call $fib (i32.sub (local.get $n) (i32.const 2)))))))

  (func $square (param $x i32) (result i32)
    (i32.mul (local.get $x) (local.get $x)))

  (func $sum_squares (param $n i32) (result i32)
    (local $i i32)
    (local $sum i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (call $square (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $sum))

  (func $run (export "run") (param $n i32) (result i32)
    (i32.add
      (call $fib (local.get $n))
      (call $sum_squares (i32.mul (local.get $n) (i32.const 20))))))
`;

export interface Example {
  /** The name in a link (`?example=fib`). */
  readonly id: string;
  readonly title: string;
  readonly source: string;
  /** What differs from the defaults. */
  readonly settings: Partial<RunSettings>;
}

export const EXAMPLES: readonly Example[] = [
  { id: 'fib', title: 'fib — well-behaved code', source: fib, settings: { invoke: 'fib', args: '30' } },
  {
    id: 'infinite_loop',
    title: 'infinite loop — stopped by the deadline',
    source: infiniteLoop,
    settings: { invoke: 'run', fuel: '1000000000000', timeoutMs: '300' },
  },
  { id: 'memory_bomb', title: 'memory bomb — stopped by the memory cap', source: memoryBomb, settings: { invoke: 'run' } },
  { id: 'traps', title: 'traps — divide by zero', source: traps, settings: { invoke: 'div', args: '1 0' } },
  { id: 'logger', title: 'logger — host::log granted', source: logger, settings: { invoke: 'run', log: true } },
  { id: 'random', title: 'random — host::random seeded', source: random, settings: { invoke: 'roll', seed: '42' } },
  { id: 'calls', title: 'call tree — for the profiler', source: CALL_TREE, settings: { invoke: 'run', args: '10' } },
  { id: 'grow_within_cap', title: 'grow within the cap — peak memory', source: growWithinCap, settings: { invoke: 'run' } },
  { id: 'wasi', title: 'WASI program — its output and exit code', source: wasiHello, settings: { invoke: '_start', wasi: 'one two' } },
];

export function exampleById(id: string): Example | undefined {
  return EXAMPLES.find((e) => e.id === id);
}

/** An example's settings: the defaults with its own on top. */
export function settingsOf(example: Example): RunSettings {
  return { ...DEFAULT_SETTINGS, ...example.settings };
}
