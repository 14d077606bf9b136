import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { speedTuning, TUNINGS } from '../../server/warm';
import { Health } from '../../src/contracts/health';
import { OrderResponse, Position } from '../../src/contracts/trading';
import { seedDataDir } from '../helpers/pglite-template';
import { OFFLINE_ENV } from '../helpers/process';
import { signUpAndLogIn } from '../helpers/session';

describe('which speed tunings apply', () => {
  it('every one by default in front of PGlite, only those not about PGlite in front of PostgreSQL', () => {
    expect(speedTuning('on', 'pglite').applied).toEqual(Object.keys(TUNINGS));
    expect(speedTuning('on', 'postgres').applied).toEqual([
      'text-rehearsal',
      'text-kept-warm',
      'order-path-rehearsal',
    ]);
    expect(loadConfig({}).SPEED_TUNING).toBe('on');
  });

  it('none with SPEED_TUNING=off, whatever the database', () => {
    for (const driver of ['pglite', 'postgres'] as const) {
      const off = speedTuning('off', driver);
      expect(off.on).toBe(false);
      expect(off.applied).toEqual([]);
      for (const name of Object.keys(TUNINGS) as (keyof typeof TUNINGS)[])
        expect(off.applies(name)).toBe(false);
    }
    expect(() => loadConfig({ SPEED_TUNING: 'fast' })).toThrow(
      'Invalid SPEED_TUNING="fast": expected on or off',
    );
  });
});

describe('the server with SPEED_TUNING=off', () => {
  let app: FastifyInstance;
  let dataDir: string;
  const lines: { level: number; msg?: string }[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sc-untuned-'));
    // Its embedded database in DATA_DIR, opened by the app itself as `npm start`'s is (from the
    // migrated template, as every test's).
    seedDataDir(dataDir);
    const config = loadConfig(
      { NODE_ENV: 'test', LOG_LEVEL: 'debug', DATA_DIR: dataDir, ...OFFLINE_ENV, SPEED_TUNING: 'off' },
      'test',
    );
    app = await buildApp(config, {
      logStream: { write: (line) => void lines.push(JSON.parse(line) as { level: number; msg?: string }) },
    });
    await app.ready();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts without any tuning: no rehearsal at start, PGlite as PGlite makes it', () => {
    expect(app.speedTuning.applied).toEqual([]);
    expect(lines.some((l) => l.msg === 'speed tunings off (SPEED_TUNING=off)')).toBe(true);
    // Debug lines are kept (the rehearsals' are debug), and none says a rehearsal ran.
    app.log.debug('debug kept');
    expect(lines.some((l) => l.level === 20 && l.msg === 'debug kept')).toBe(true);
    expect(lines.filter((l) => l.msg?.endsWith('rehearsed'))).toEqual([]);
    const client = (app.database.db as unknown as { $client: PGlite }).$client;
    expect(Object.hasOwn(client, 'query')).toBe(false);
    expect(Object.hasOwn(client, 'transaction')).toBe(false);
  });

  it('serves: health, an account, a paper order and its position', async () => {
    const health = await app.inject('/api/healthz');
    expect(health.statusCode).toBe(200);
    expect(Health.parse(health.json())).toMatchObject({ status: 'ok', db: 'pglite', dbOk: true });

    const auth = await signUpAndLogIn(app, 'untuned');
    const me = await app.inject({ url: '/api/users/me', headers: auth });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ username: 'untuned' });

    const order = await app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'ETH/USDT', side: 'long', type: 'market', amount: 500 },
    });
    expect(order.statusCode, order.body).toBe(200);
    const filled = OrderResponse.parse(order.json());
    expect(filled).toMatchObject({ symbol: 'ETH/USDT', side: 'buy', status: 'filled' });
    const positions = (await app.inject({ url: '/api/positions', headers: auth })).json() as unknown[];
    expect(positions.map((p) => Position.parse(p))).toEqual([
      expect.objectContaining({ symbol: 'ETH/USDT', side: 'long', size: filled.quantity }),
    ]);
  });
});
