import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { FREE_FAILURES } from '../../server/modules/auth/login-throttle';
import { AUTH_LIMIT } from '../../server/plugins/rate-limit';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase, type TestDatabase } from '../helpers/db';

const redisUrl = process.env.TEST_REDIS_URL;

/** A password login by form from `ip`; answers the status code. */
async function login(t: TestApp, ip: string, username: string, password: string): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/token',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ username, password }).toString(),
  });
  return res.statusCode;
}

let nextIp = 1;
const freshIp = () => `10.9.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

/**
 * Server processes behind one load balancer: several apps on one database (one opened PGlite, or one
 * PostgreSQL schema), each with its own limits unless they share a Redis.
 */
describe.each(dbTargets())('limits of two server processes on %s', (name) => {
  const target = useDatabase(name);
  const nodes: TestApp[] = [];
  let database: Database | undefined;
  const prefixes: string[] = [];

  /** Another process on the suite's database; `env` adds REDIS_URL and REDIS_PREFIX. */
  async function node(env: Record<string, string> = {}): Promise<TestApp> {
    if (database === undefined) throw new Error('the database is not open');
    const opened = database;
    const shared: TestDatabase = { name: target.name, open: async () => opened, cleanup: async () => {} };
    const t = await startTestApp(shared, env);
    nodes.push(t);
    return t;
  }

  /** A prefix no other run uses, removed with its keys at the end. */
  function redisEnv(prefix = `test:${randomBytes(4).toString('hex')}:`): Record<string, string> {
    prefixes.push(prefix);
    return { REDIS_URL: redisUrl ?? '', REDIS_PREFIX: prefix };
  }

  // Opening and migrating takes long on a busy machine; each test then only builds apps.
  beforeAll(async () => {
    database = await target.open();
  }, 120_000);
  afterEach(async () => {
    // Closing an app leaves the shared database open (it is the suite's).
    for (const t of nodes.splice(0)) await t.app.close();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
    if (redisUrl && prefixes.length > 0) {
      const redis = new Redis(redisUrl);
      for (const prefix of prefixes) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      await redis.quit();
    }
  });

  /** Logins for unknown names from one address, alternating between the nodes. */
  async function spreadFromOneAddress(a: TestApp, b: TestApp, count: number): Promise<number[]> {
    const ip = freshIp();
    const tag = randomBytes(3).toString('hex');
    const codes: number[] = [];
    for (let i = 0; i < count; i++)
      codes.push(await login(i % 2 === 0 ? a : b, ip, `nobody-${tag}-${i}`, 'wrong'));
    return codes;
  }

  it('without REDIS_URL, each process counts alone', async () => {
    const [a, b] = [await node(), await node()];
    expect(a.app.sharedLimits).toBeNull();
    const codes = await spreadFromOneAddress(a, b, AUTH_LIMIT.perIp + 2);
    expect(codes.every((c) => c === 401)).toBe(true);
  });

  if (redisUrl) {
    it('with REDIS_URL, a route limit counts the requests of both processes', async () => {
      const env = redisEnv();
      const [a, b] = [await node(env), await node(env)];
      const codes = await spreadFromOneAddress(a, b, AUTH_LIMIT.perIp + 2);
      expect(codes.slice(0, AUTH_LIMIT.perIp)).toEqual(Array(AUTH_LIMIT.perIp).fill(401));
      // The one over the limit is refused by whichever process gets it.
      expect(codes.slice(AUTH_LIMIT.perIp)).toEqual([429, 429]);
    });

    it('with REDIS_URL, failed logins spread over both processes make the account wait at the same count as one', async () => {
      const env = redisEnv();
      const [a, b] = [await node(env), await node(env)];
      const name = `shared${randomBytes(3).toString('hex')}`;
      const signup = await a.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        remoteAddress: freshIp(),
        payload: { email: `${name}@example.com`, username: name, password: 'correct horse battery' },
      });
      expect(signup.statusCode).toBe(201);
      // Each try from another address, so that only the account's own count can stop it.
      for (let i = 0; i <= FREE_FAILURES; i++)
        expect(await login(i % 2 === 0 ? a : b, freshIp(), name, 'wrong password')).toBe(401);
      expect(await login(a, freshIp(), name, 'correct horse battery')).toBe(429);
      expect(await login(b, freshIp(), name, 'correct horse battery')).toBe(429);
    });

    it('deployments with different REDIS_PREFIX values keep their counts apart', async () => {
      const [a, b] = [await node(redisEnv()), await node(redisEnv())];
      const codes = await spreadFromOneAddress(a, b, AUTH_LIMIT.perIp + 2);
      expect(codes.every((c) => c === 401)).toBe(true);
    });

    it('while Redis does not answer, a process keeps limiting logins on its own count', async () => {
      const a = await node(redisEnv());
      // As in an outage: every call to Redis now fails at once.
      a.app.sharedLimits?.redis.disconnect();
      const codes = await spreadFromOneAddress(a, a, AUTH_LIMIT.perIp + 1);
      expect(codes.slice(0, AUTH_LIMIT.perIp)).toEqual(Array(AUTH_LIMIT.perIp).fill(401));
      expect(codes[AUTH_LIMIT.perIp]).toBe(429);
      const name = `alone${randomBytes(3).toString('hex')}`;
      for (let i = 0; i <= FREE_FAILURES; i++) expect(await login(a, freshIp(), name, 'wrong')).toBe(401);
      expect(await login(a, freshIp(), name, 'wrong')).toBe(429);
    });
  }
});
