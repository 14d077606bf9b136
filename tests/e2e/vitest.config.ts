import { defineConfig } from 'vitest/config';

/** Browser tests: the built server in a child process, driven by Debian's chromium through playwright-core. */
export default defineConfig({
  test: {
    name: 'e2e',
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
