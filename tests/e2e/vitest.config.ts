import { defineConfig } from 'vitest/config';

/**
 * Browser tests: the built server in a child process, driven by Debian's chromium through playwright-core.
 * Each file starts its own server (free port, own DATA_DIR) and its own chromium, so two files run side by
 * side: on two cores the run takes ~70 % of the time one at a time did (a third file at once gained
 * nothing). The pages' timing checks poll (`expect.poll`) rather than wait fixed times.
 */
export default defineConfig({
  test: {
    name: 'e2e',
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // A file's beforeAll starts a server and waits up to 150 s for it (support/browser.ts): the hook
    // must not give up first on a busy machine.
    hookTimeout: 180_000,
    maxWorkers: 2,
    // What a page shows after a call (a login hashes its password on purpose slowly) can take more than
    // vitest's default second of polling on a busy machine: a poll that fails only waits longer.
    expect: { poll: { timeout: 5_000 } },
    // Each file's server starts on a copy of one migrated database made here.
    globalSetup: ['tests/helpers/pglite-template.setup.ts'],
  },
});
