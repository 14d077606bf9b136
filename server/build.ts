import { readFile, rm } from 'node:fs/promises';
import { build } from 'esbuild';
import { fromRoot } from './paths';

/**
 * `npm run build` (after vite): bundles the server, its operator tools (backup, restore, migrate, key rotation) and the command-line client into dist/server as plain
 * JavaScript, so that a production install (`npm ci --omit=dev`) runs them with node alone. Production
 * dependencies stay imports from node_modules; the project's own TypeScript and any development-only
 * package it reaches are bundled.
 * The bundles find the repository's data files (migrations, replay news, analyzer tables) through
 * server/paths.ts, so they run from this checkout's dist/ folder.
 */
const OUT = fromRoot('dist/server');
const manifest = JSON.parse(await readFile(fromRoot('package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
// Production dependencies stay imports; anything else the code reaches (the browser packages the
// command-line client shares with the web app) is bundled in, so nothing needs a development install.
const external = Object.keys(manifest.dependencies).flatMap((name) => [name, `${name}/*`]);

await rm(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: fromRoot(),
  entryPoints: {
    main: 'server/main.ts',
    backup: 'server/db/tools/backup.ts',
    restore: 'server/db/tools/restore.ts',
    migrate: 'server/db/tools/migrate.ts',
    'rotate-secrets-key': 'server/db/tools/rotate-secrets-key.ts',
    cli: 'bin/cli.ts',
  },
  outdir: OUT,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
});
