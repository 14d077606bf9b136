import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The server test files that reach a real service when they are pointed at one: those whose imports,
 * followed through the project's own files, lead to a file that reads TEST_DATABASE_URL or
 * TEST_REDIS_URL (tests/helpers/db.ts's `useDatabase()` for most; the bus, limit and lease tests
 * read them directly). CI runs only these a second time against PostgreSQL and Redis: every other server
 * test does the same thing whatever those variables say, and `npm test` has run it once.
 *
 * `npx tsx tests/helpers/service-suites.ts` prints them, one path a line, relative to the project.
 */
export const SERVICE_MARKER = /\bTEST_(?:DATABASE|REDIS)_URL\b/;

/** `import … from './x'`, `export … from './x'`, `import './x'`, `import('./x')`; not `import type`. */
const RELATIVE_IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '/index.ts', '/index.tsx'];

function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.(?:m?js|jsx)$/, ''));
  return EXTENSIONS.map((ext) => base + ext).find((candidate) =>
    statSync(candidate, { throwIfNoEntry: false })?.isFile(),
  );
}

/** The project's own files `file` imports (type-only imports left out), as absolute paths. */
export function localImports(file: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(RELATIVE_IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (specifier === undefined) continue;
    const resolved = resolveImport(file, specifier);
    if (resolved !== undefined) found.push(resolved);
  }
  return found;
}

/** Whether `file`, or a project file it reaches through its imports, reads a real-service variable. */
export function reachesService(file: string, read = (f: string) => readFileSync(f, 'utf8')): boolean {
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.pop() as string;
    if (seen.has(current)) continue;
    seen.add(current);
    const source = read(current);
    if (SERVICE_MARKER.test(source)) return true;
    queue.push(...localImports(current, source));
  }
  return false;
}

/** The server project's test files, as vitest finds them. */
export function serverTestFiles(root: string): string[] {
  const vitest = path.join(root, 'node_modules/.bin/vitest');
  const res = spawnSync(vitest, ['list', '--project', 'server', '--filesOnly', '--json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (res.status !== 0) throw new Error(`vitest list failed (exit ${res.status}): ${res.stderr}`);
  const listed = JSON.parse(res.stdout) as { file: string }[];
  return [...new Set(listed.map((l) => l.file))].sort();
}

export function serviceSuites(root: string): string[] {
  return serverTestFiles(root)
    .filter((file) => reachesService(file))
    .map((file) => path.relative(root, file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '../..');
  const suites = serviceSuites(root);
  if (suites.length === 0) {
    console.error('no server test file reaches TEST_DATABASE_URL or TEST_REDIS_URL');
    process.exit(1);
  }
  console.log(suites.join('\n'));
}
