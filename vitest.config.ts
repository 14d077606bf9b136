import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        test: {
          name: 'browser-core',
          environment: 'happy-dom',
          include: ['src/**/*.test.{ts,tsx}'],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          include: [
            'server/**/*.test.ts',
            'tests/integration/**/*.test.ts',
            'tests/helpers/**/*.test.ts',
            'bin/**/*.test.ts',
            'bench/lib/**/*.test.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // A worker runs its files one after another in one module graph: the server's modules are
          // imported once per worker, not once per file (the imports took a fifth of the run). Each file
          // still builds its own app, database and ports; what the server keeps in a module is a cache.
          isolate: false,
          // Every app's embedded database starts as a copy of one migrated template made here.
          globalSetup: ['tests/helpers/pglite-template.setup.ts'],
        },
      },
    ],
  },
});
