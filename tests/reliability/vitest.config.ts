import { defineConfig } from 'vitest/config';

/**
 * Crash safety: the real server in a child process, killed with SIGKILL mid-burst and started again on
 * the same data. The two scenario files run side by side: one spends most of its time waiting for the
 * rule engine to catch up. `--short` (RELIABILITY_SHORT=1) kills once per scenario, the full run thrice.
 */
export default defineConfig({
  test: {
    name: 'reliability',
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/reliability/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 180_000,
    maxWorkers: 2,
    globalSetup: ['tests/reliability/figures.setup.ts', 'tests/helpers/pglite-template.setup.ts'],
  },
});
