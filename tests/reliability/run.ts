import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * `npm run test:reliability [-- --short] [vitest arguments]`: vitest has no `--short`, so it becomes
 * RELIABILITY_SHORT=1 here and the rest is handed to vitest.
 */
const root = path.resolve(import.meta.dirname, '../..');
const args = process.argv.slice(2);
const short = args.includes('--short');
const res = spawnSync(
  path.join(root, 'node_modules/.bin/vitest'),
  ['run', '--config', 'tests/reliability/vitest.config.ts', ...args.filter((a) => a !== '--short')],
  {
    cwd: root,
    stdio: 'inherit',
    env: short ? { ...process.env, RELIABILITY_SHORT: '1' } : process.env,
  },
);
process.exit(res.status ?? 1);
