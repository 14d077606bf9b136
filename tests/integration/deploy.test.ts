import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_DOCS, loadConfig } from '../../server/config';
import { fromRoot } from '../../server/paths';

/**
 * The container recipe and the compose file cannot be run on a machine without a container engine;
 * what can be checked without one is checked here: every file the image copies exists, every file the
 * server reads at run time is in the image, and every server in the compose file starts with a valid
 * configuration in the role it is meant for.
 */

const dockerfile = readFileSync(fromRoot('Dockerfile'), 'utf8');
const compose = parse(readFileSync(fromRoot('deploy/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, string>; command?: string[] }>;
};

/** `COPY a b dest` lines of the runtime stage taken from the build context (not from another stage). */
function contextCopies(): string[] {
  const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
  return runtime
    .split('\n')
    .filter((line) => /^COPY\s/.test(line) && !line.includes('--from='))
    .flatMap((line) => line.trim().split(/\s+/).slice(1, -1));
}

/** What the bundled server reads beside itself, found in the sources as `fromRoot('…')`. */
const RUNTIME_FILES = [
  'server/db/migrations',
  'server/db/pglite-create.mjs',
  'server/modules/news/assets',
  'server/modules/news/sources/replay.jsonl',
  'server/modules/analysis/coins.json',
  'server/modules/analysis/weights.json',
  'package.json',
];

/** A compose value with `${NAME:?…}` / `${NAME:-default}` filled in as the shell would. */
function substitute(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::[?-]([^}]*))?\}/g, (_m, name: string, fallback?: string) => {
    return env[name] ?? fallback ?? '';
  });
}

describe('the container recipe', () => {
  it('copies only files that exist, and every file the server reads at run time', () => {
    const sources = contextCopies();
    for (const source of sources) expect(existsSync(fromRoot(source)), source).toBe(true);
    for (const file of RUNTIME_FILES) {
      const covered = sources.some((s) => file === s || file.startsWith(`${s.replace(/\/$/, '')}/`));
      expect(covered, `${file} is not copied into the image`).toBe(true);
    }
    expect(dockerfile).toContain('COPY --from=build /app/dist ./dist');
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });

  it('lists every file the server reads from the project in RUNTIME_FILES', () => {
    // The sources name each one with fromRoot; build-time and training-only readers are left out.
    const readers = [
      'server/modules/news/media.routes.ts',
      'server/modules/news/sources/replay-data.ts',
      'server/modules/analysis/assets.ts',
      'server/modules/analysis/local-analyzer.ts',
      'server/db/client.ts',
      'server/main.ts',
    ];
    const named = readers.flatMap((file) =>
      [...readFileSync(fromRoot(file), 'utf8').matchAll(/fromRoot\('([^']+)'\)/g)].map((m) => m[1] ?? ''),
    );
    for (const file of named) expect(RUNTIME_FILES, file).toContain(file);
  });
});

describe('the compose file', () => {
  const env = { SECRETS_KEY: 'ab'.repeat(32) };
  const servers = Object.entries(compose.services).filter(([, s]) => s.image === 'signal-console');

  it('runs two api nodes, a worker and a release step that migrates', () => {
    const roles = Object.fromEntries(servers.map(([name, s]) => [name, s.environment?.ROLE ?? 'all']));
    expect(roles).toMatchObject({ api1: 'api', api2: 'api', worker: 'worker' });
    expect(compose.services.migrate?.command).toEqual(['node', 'dist/server/migrate.mjs']);
    const nginx = readFileSync(fromRoot('deploy/nginx.conf'), 'utf8');
    expect(nginx).toMatch(/server api1:8080;\s+server api2:8080;/);
  });

  it('gives every server a configuration it starts with', () => {
    for (const [name, service] of servers) {
      const vars = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, substitute(String(v), env)]),
      );
      for (const key of Object.keys(vars)) expect(Object.keys(CONFIG_DOCS), `${name}: ${key}`).toContain(key);
      if (name === 'migrate') continue;
      const config = loadConfig(vars);
      expect(config.MIGRATE_ON_START, name).toBe(false);
      expect(config.DATABASE_URL, name).toBeDefined();
      expect(config.REDIS_URL, name).toBeDefined();
      expect(path.isAbsolute(config.DATA_DIR)).toBe(true);
    }
  });
});
