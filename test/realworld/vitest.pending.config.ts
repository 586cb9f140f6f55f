/**
 * Runs the pending real-world tests (test/realworld/*.pending.ts), which the main config
 * (test/**\/*.test.ts) does not pick up until they are renamed:
 *
 *   npx vitest run --config test/realworld/vitest.pending.config.ts
 *   npx vitest run --config test/realworld/vitest.pending.config.ts as-sha256
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/realworld/*.pending.ts'],
    testTimeout: 120_000,
  },
});
