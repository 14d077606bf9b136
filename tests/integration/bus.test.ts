import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../../server/plugins/bus';
import { MemoryBus } from '../../server/plugins/bus/memory';
import { RedisBus } from '../../server/plugins/bus/redis';

interface BusTarget {
  name: string;
  /** Two buses that must see each other's events (two processes on Redis; one shared bus in memory). */
  pair(onError?: (topic: string, err: unknown) => void): Promise<[Bus, Bus]>;
}

const targets: BusTarget[] = [
  {
    name: 'memory',
    async pair(onError) {
      const bus = new MemoryBus(onError);
      return [bus, bus];
    },
  },
];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  targets.push({
    name: 'redis',
    async pair(onError) {
      const prefix = `test:${randomBytes(4).toString('hex')}:`;
      const a = await RedisBus.connect({
        url: redisUrl,
        prefix,
        ...(onError ? { onHandlerError: onError } : {}),
      });
      const b = await RedisBus.connect({
        url: redisUrl,
        prefix,
        ...(onError ? { onHandlerError: onError } : {}),
      });
      return [a, b];
    },
  });
}

function nextEvent<T>(subscribe: (fn: (v: T) => void) => () => void, ms = 2000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no event')), ms);
    const dispose = subscribe((v) => {
      clearTimeout(timer);
      dispose();
      resolve(v);
    });
  });
}

async function settle(bus: Bus) {
  if (bus instanceof RedisBus) await bus.ready();
}

describe.each(targets)('$name bus', (target) => {
  const open: Bus[] = [];
  afterEach(async () => {
    await Promise.all([...new Set(open.splice(0))].map((b) => b.close()));
  });

  it('delivers a typed event to subscribers, never inside publish', async () => {
    const [a, b] = await target.pair();
    open.push(a, b);
    const got = nextEvent<{ id: string; username: string }>((fn) => b.subscribe('user.created', fn));
    await settle(b);
    let deliveredSync = false;
    const dispose = a.subscribe('user.created', () => {
      deliveredSync = true;
    });
    const published = a.publish('user.created', { id: 'u1', username: 'ada' });
    expect(deliveredSync).toBe(false);
    await published;
    expect(await got).toEqual({ id: 'u1', username: 'ada' });
    dispose();
    expect(a.healthy()).toBe(true);
  });

  it('isolates a failing handler from the others and reports it', async () => {
    const errors: string[] = [];
    const [a, b] = await target.pair((topic) => errors.push(topic));
    open.push(a, b);
    b.subscribe('system.ping', () => {
      throw new Error('boom');
    });
    const got = nextEvent<{ nonce: string }>((fn) => b.subscribe('system.ping', fn));
    await settle(b);
    await a.publish('system.ping', { nonce: 'n1', from: 'test' });
    expect((await got).nonce).toBe('n1');
    expect(errors).toEqual(['system.ping']);
  });

  it('stops delivering after dispose', async () => {
    const [a, b] = await target.pair();
    open.push(a, b);
    const seen: string[] = [];
    const dispose = b.subscribe('system.ping', (p) => {
      seen.push(p.nonce);
    });
    const last = nextEvent<{ nonce: string }>((fn) => b.subscribe('system.ping', fn));
    await settle(b);
    await a.publish('system.ping', { nonce: 'one', from: 't' });
    await last;
    dispose();
    const after = nextEvent<{ nonce: string }>((fn) => b.subscribe('system.ping', fn));
    await settle(b);
    await a.publish('system.ping', { nonce: 'two', from: 't' });
    await after;
    expect(seen).toEqual(['one']);
  });
});

// Only where a Redis answers (CI sets TEST_REDIS_URL when one does).
if (redisUrl)
  describe('redis bus across processes', () => {
    it('drops a message that does not match its schema', async () => {
      const prefix = `test:${randomBytes(4).toString('hex')}:`;
      const invalid: string[] = [];
      const bus = await RedisBus.connect({
        url: redisUrl,
        prefix,
        onInvalidMessage: (topic, reason) => invalid.push(`${topic}: ${reason}`),
      });
      const seen: unknown[] = [];
      bus.subscribe('user.created', (p) => {
        seen.push(p);
      });
      await bus.ready();
      const raw = new Redis(redisUrl);
      await raw.publish(`${prefix}user.created`, JSON.stringify({ id: 42 }));
      await raw.publish(`${prefix}user.created`, 'not json');
      await raw.publish(`${prefix}user.created`, JSON.stringify({ id: 'u2', username: 'bob' }));
      const deadline = Date.now() + 2000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([{ id: 'u2', username: 'bob' }]);
      expect(invalid).toHaveLength(2);
      raw.disconnect();
      await bus.close();
    });
  });
