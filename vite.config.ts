/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** commander is a Node package; in the browser its few Node imports map to small shims. */
export const browserAliases = {
  'node:events': 'events',
  'node:process': here('./node_modules/process/browser.js'),
  'node:path': 'path-browserify',
  'node:fs': here('./src/app/shims/empty.ts'),
  'node:child_process': here('./src/app/shims/empty.ts'),
};

const apiTarget = process.env.API_TARGET ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: browserAliases },
  define: { 'process.env.NODE_ENV': JSON.stringify(process.env.NODE_ENV ?? 'production') },
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1024 },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: { '/api': { target: apiTarget, ws: true, changeOrigin: false } },
  },
});
