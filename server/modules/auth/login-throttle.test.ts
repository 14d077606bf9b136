import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FAILURE_MEMORY_MS,
  FREE_FAILURES,
  MAX_WAIT_MS,
  MemoryLoginThrottle,
  RedisLoginThrottle,
  type LoginThrottle,
} from './login-throttle';

interface Target {
  name: string;
  /** Two throttles that count in the same place (two processes on Redis; one throttle in memory). */
  pair(now: () => number): [LoginThrottle, LoginThrottle];
}

const targets: Target[] = [
  {
    name: 'memory',
    pair(now) {
      const t = new MemoryLoginThrottle(now);
      return [t, t];
    },
  },
];
const redisUrl = process.env.TEST_REDIS_URL;
const connections: Redis[] = [];
const prefix = `test:${randomBytes(4).toString('hex')}:limits:`;
if (redisUrl) {
  targets.push({
    name: 'redis',
    pair(now) {
      const [a, b] = [new Redis(redisUrl), new Redis(redisUrl)];
      connections.push(a, b);
      return [
        new RedisLoginThrottle({ redis: a, prefix, now }),
        new RedisLoginThrottle({ redis: b, prefix, now }),
      ];
    },
  });
}

afterAll(async () => {
  const [first] = connections;
  if (first !== undefined) {
    const keys = await first.keys(`${prefix}*`);
    if (keys.length > 0) await first.del(...keys);
  }
  await Promise.all(connections.map((c) => c.quit()));
});

let n = 0;
/** A fresh account per test, so that runs kept in Redis never meet. */
const account = () => `user:${n++}-${randomBytes(3).toString('hex')}`;

describe.each(targets)('$name login throttle', (target) => {
  it('judges 30 parallel tries one by one before any password is checked, across processes', async () => {
    let now = 1_700_000_000_000;
    const [t, u] = target.pair(() => now);
    const a = account();
    const waits = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? t : u).attempt(a)));
    // The free tries and the one that starts the wait go on; the other 24 wait 2 s.
    expect(waits.filter((w) => w === 0)).toHaveLength(FREE_FAILURES + 1);
    expect(waits.filter((w) => w === 2000)).toHaveLength(30 - FREE_FAILURES - 1);
    now += 2000;
    expect(await u.attempt(a)).toBe(0);
    expect(await t.attempt(a)).toBe(4000);
    await t.succeeded(a);
    expect(await u.attempt(a)).toBe(0);
  });

  it('lets the first failures through, then doubles the wait with each failure, up to the cap', async () => {
    let now = 1_700_000_000_000;
    const [t] = target.pair(() => now);
    const [a, b] = [account(), account()];
    for (let i = 0; i < FREE_FAILURES; i++) await t.failed(a);
    expect(await t.waitMs(a)).toBe(0);
    await t.failed(a);
    expect(await t.waitMs(a)).toBe(2000);
    now += 2000;
    expect(await t.waitMs(a)).toBe(0);
    await t.failed(a);
    expect(await t.waitMs(a)).toBe(4000);
    for (let i = 0; i < 30; i++) await t.failed(a);
    expect(await t.waitMs(a)).toBe(MAX_WAIT_MS);
    expect(await t.waitMs(b)).toBe(0);
  });

  it('forgets a run after a success, or a quiet spell', async () => {
    let now = 1_700_000_000_000;
    const [t] = target.pair(() => now);
    const [a, b] = [account(), account()];
    for (let i = 0; i <= FREE_FAILURES; i++) await t.failed(a);
    await t.succeeded(a);
    expect(await t.waitMs(a)).toBe(0);
    for (let i = 0; i < FREE_FAILURES; i++) await t.failed(b);
    now += FAILURE_MEMORY_MS + 1;
    await t.failed(b);
    expect(await t.waitMs(b)).toBe(0);
  });

  it('counts failures made at the same time through either of two throttles', async () => {
    const now = 1_700_000_000_000;
    const [one, two] = target.pair(() => now);
    const a = account();
    await Promise.all(
      Array.from({ length: FREE_FAILURES + 1 }, (_, i) => (i % 2 === 0 ? one : two).failed(a)),
    );
    expect(await one.waitMs(a)).toBe(2000);
    expect(await two.waitMs(a)).toBe(2000);
    await two.succeeded(a);
    expect(await one.waitMs(a)).toBe(0);
  });
});

if (redisUrl)
  describe('redis login throttle', () => {
    it('keeps a run no longer than it is remembered', async () => {
      const redis = new Redis(redisUrl);
      connections.push(redis);
      const t = new RedisLoginThrottle({ redis, prefix });
      const a = account();
      await t.failed(a);
      const ttl = await redis.pttl(`${prefix}login:${a}`);
      expect(ttl).toBeGreaterThan(FAILURE_MEMORY_MS - 5000);
      expect(ttl).toBeLessThanOrEqual(FAILURE_MEMORY_MS);
    });

    it('counts in this process while Redis does not answer, and says so', async () => {
      // A client that never connects: every call fails at once, as during an outage.
      const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false });
      const problems: unknown[] = [];
      const t = new RedisLoginThrottle({ redis, prefix, unreachable: (err) => problems.push(err) });
      const a = account();
      for (let i = 0; i <= FREE_FAILURES; i++) await t.failed(a);
      expect(await t.waitMs(a)).toBeGreaterThan(1000);
      expect(problems.length).toBeGreaterThan(0);
      redis.disconnect();
    });
  });
