import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { systemClock } from '../../server/modules/market/clock';
import { registerMediaRoutes } from '../../server/modules/news/media.routes';
import type { Resolver } from '../../server/modules/news/proxy/fetch-image';
import { ImageCache } from '../../server/modules/news/proxy/image-cache';
import { ImageProxy, type ImageProxyOptions } from '../../server/modules/news/proxy/image-proxy';
import errorsPlugin from '../../server/plugins/errors';
import limitsPlugin from '../../server/plugins/limits';
import openapiPlugin from '../../server/plugins/openapi';

/** A resolver from a table: names in tests never reach DNS. Unknown names fail like NXDOMAIN. */
export function tableResolver(
  table: Record<string, string[] | (() => string[])>,
): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (host: string) => {
    calls.push(host);
    const entry = table[host];
    if (entry === undefined) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`));
    const list = typeof entry === 'function' ? entry() : entry;
    return Promise.resolve(
      list.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })),
    );
  };
  return Object.assign(resolve, { calls });
}

/**
 * A bare Fastify app with the error mapping, the in-process rate limits and the media routes over a
 * proxy built from `opts`.
 */
export async function proxyApp(
  opts: Omit<ImageProxyOptions, 'cache' | 'clock'> & { cacheBytes?: number },
): Promise<{ app: FastifyInstance; proxy: ImageProxy; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sc-proxy-'));
  const cache = new ImageCache(dir, opts.cacheBytes ?? 50 * 1024 * 1024, 3600_000, () => Date.now());
  await cache.open();
  const proxy = new ImageProxy({ ...opts, cache, clock: systemClock });
  const app = Fastify({ logger: false });
  await app.register(errorsPlugin);
  await app.register(limitsPlugin, { prefix: '' });
  await app.register(rateLimit, { global: false });
  // The routes declare zod schemas, which the OpenAPI plugin documents and keeps from being compiled.
  await app.register(
    async (api) => {
      await api.register(openapiPlugin, { version: 'test' });
      registerMediaRoutes(api, proxy);
    },
    { prefix: '/api' },
  );
  await app.ready();
  return {
    app,
    proxy,
    async close() {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
