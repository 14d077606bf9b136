import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import type { Database } from '../../server/db/client';
import type { TestDatabase } from './db';
import { OFFLINE_ENV } from './process';
import {
  bodyText,
  recordAnswer,
  recordConfigSecrets,
  recordRequestSecrets,
  scanDir,
  scanPath,
} from '../secrets/record';

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
  target: TestDatabase,
  env: Record<string, string> = {},
  opts: Omit<BuildOptions, 'database'> = {},
): Promise<TestApp> {
  // With SECRET_SCAN_DIR set, the secrets scan gets the data folder, the logs and every answer.
  const recording = scanDir() !== undefined;
  const dataDir = recording ? scanPath('data', 'app') : await mkdtemp(path.join(tmpdir(), 'sc-test-'));
  if (recording) await mkdir(dataDir, { recursive: true });
  const logFile = recording ? createWriteStream(scanPath('logs', 'app', '.log')) : undefined;
  // Work that outlives the app (an analysis pricing its assets while the market closes) may log after
  // close(): those lines are dropped, as the server's own sink drops what comes after its end.
  const logStream =
    logFile === undefined
      ? undefined
      : {
          write(line: string) {
            if (!logFile.writableEnded) logFile.write(line);
          },
        };
  if (recording) recordConfigSecrets(env);
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: recording ? 'info' : 'silent',
      DATA_DIR: dataDir,
      ...OFFLINE_ENV,
      ...env,
    },
    'test',
  );
  const database = await target.open();
  let api: FastifyInstance | undefined;
  const app = await buildApp(config, {
    logger: recording,
    ...(logStream === undefined ? {} : { logStream, onInstance: recordAnswers }),
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
      if (recording)
        await dumpDatabase(database, path.join(dataDir, 'database.jsonl')).catch(() => undefined);
      await app.close();
      await database.close();
      await target.cleanup();
      if (logFile !== undefined) await new Promise((resolve) => logFile.end(resolve));
      if (!recording) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The scan's hooks: the secrets each request sends, and each answer once it has left (onResponse: the
 * headers are then final, cookies included; the body is kept from onSend).
 */
function recordAnswers(app: FastifyInstance): void {
  const bodies = new WeakMap<object, string>();
  app.addHook('preValidation', async (request) => {
    recordRequestSecrets(request.url, request.body);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload === 'string') bodies.set(reply, payload);
    else if (Buffer.isBuffer(payload)) bodies.set(reply, bodyText(payload));
    else if (payload === null || payload === undefined) bodies.set(reply, ''); // a redirect, a 204
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const body = bodies.get(reply);
    if (body === undefined) return; // a stream: SSE, a file
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
    }
    recordAnswer({
      source: 'inject',
      method: request.method,
      url: request.url.split('?')[0] ?? '',
      status: reply.statusCode,
      headers,
      body,
    });
  });
}

/** Every row of every table, one JSON line each: an in-memory database leaves no file to search. */
async function dumpDatabase(database: Database, file: string): Promise<void> {
  type Rows<T> = { rows: T[] };
  const tables = (await database.db.execute(
    sql`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  )) as unknown as Rows<{ table_name: string }>;
  const names = tables.rows.map((r) => r.table_name);
  if (names.length === 0) return;
  const query = names
    .map((n) => `select row_to_json(x)::text as j from "${n.replaceAll('"', '""')}" x`)
    .join(' union all ');
  const rows = (await database.db.execute(sql.raw(query))) as unknown as Rows<{ j: string }>;
  await writeFile(file, rows.rows.map((r) => r.j).join('\n'));
}
