import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Runs every `bench/*.bench.ts` (or those named on the command line) one after another, each in its own
 * process so that one benchmark's heap and JIT never colour the next. Each prints JSON lines.
 */
const here = import.meta.dirname;
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

let failed = 0;
for (const file of files) {
  const res = spawnSync(path.join(here, '../node_modules/.bin/tsx'), [path.join(here, file)], {
    stdio: 'inherit',
  });
  if (res.status !== 0) {
    failed += 1;
    process.stderr.write(`bench ${file} failed with exit code ${res.status}\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
