import { defineConfig } from 'vitest/config';

/**
 * Tests that measure time — deadlines, the event loop's gaps, the soak — run after all the
 * others, one file at a time: on two cores, another test file beside them takes the CPU their
 * 10–15 ms margins are about.
 */
const TIMING = [
  'test/soak.test.ts', 'test/fences.test.ts', 'test/watchdog.test.ts', 'test/sandbox-concurrency.test.ts',
  'test/jit-fences.test.ts', 'test/wasi-timing.test.ts',
  // A browser and its page: it takes both cores, and clicks during a run are timed.
  'test/playground.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'engine', include: ['test/**/*.test.ts'], exclude: TIMING, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timing', include: TIMING, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
