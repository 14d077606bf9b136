import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder holding the project's package.json. The server runs from its sources (server/*.ts under
 * tsx) and from the bundle that `npm run build` writes to dist/server; both find the files shipped in
 * the repository (migrations, replay news, the analyzer's tables, the built browser app) from here.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'signal-console'
    ) {
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`no signal-console package.json above ${from}`);
  }
}

export const APP_ROOT = findRoot(import.meta.dirname);

/** A path inside the project, e.g. `fromRoot('server/db/migrations')`. */
export function fromRoot(...parts: string[]): string {
  return path.join(APP_ROOT, ...parts);
}
