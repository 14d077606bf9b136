import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import type { Database } from '../../server/db/client';
import type { DbTarget } from './db';
import { OFFLINE_ENV } from './process';

export interface TestApp {
  app: FastifyInstance;
  /** The `/api` scope, where the modules' services are decorated (`api.rules`, `api.trading`…). */
  api: FastifyInstance;
  database: Database;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

/** Builds the app against a test database and a temporary DATA_DIR; `env` overrides configuration. */
export async function startTestApp(
  target: DbTarget,
  env: Record<string, string> = {},
  opts: Omit<BuildOptions, 'database'> = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sc-test-'));
  const config = loadConfig(
    { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ...OFFLINE_ENV, ...env },
    'test',
  );
  const database = await target.open();
  let api: FastifyInstance | undefined;
  const app = await buildApp(config, {
    logger: false,
    ...opts,
    database,
    onApi: (scope) => {
      api = scope;
      opts.onApi?.(scope);
    },
  });
  await app.ready();
  if (api === undefined) throw new Error('the /api scope was not registered');
  return {
    app,
    api,
    database,
    config,
    dataDir,
    async close() {
      await app.close();
      await database.close();
      await target.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
