#!/usr/bin/env node
// The `signal-console` command. From a development install, tsx runs the TypeScript CLI (bin/cli.ts) as
// is; a production install (`npm ci --omit=dev`, no tsx) runs the bundle `npm run build` made of it.
let main;
try {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./cli.ts'));
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('tsx')) throw err;
  ({ main } = await import('../dist/server/cli.mjs'));
}
process.exitCode = await main(process.argv.slice(2));
