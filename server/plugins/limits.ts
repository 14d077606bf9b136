import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';

/**
 * The Redis every process counts its limits in (rate limits, the login throttle), so that N processes
 * behind a load balancer allow what one would, not N times as much.
 */
export interface SharedLimits {
  redis: Redis;
  /** Put before every limit's key: `REDIS_PREFIX` then `limits:`. */
  prefix: string;
  /**
   * Told when Redis did not answer a limit's call. The limit then counts in this process until Redis
   * answers again: never unlimited, at worst as loose as one count per process.
   */
  unreachable(err: unknown): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Null without `REDIS_URL`: every limit is then counted in this process alone. */
    sharedLimits: SharedLimits | null;
  }
}

export interface SharedLimitsOptions {
  url: string;
  /** `REDIS_PREFIX`; `limits:` is added to it. */
  prefix: string;
  /** Called once per outage, with the first error. */
  onUnreachable?: (reason: string) => void;
}

/** Connects; rejects if Redis does not answer, so a misconfigured URL stops the start, as for the bus. */
export async function connectSharedLimits(opts: SharedLimitsOptions): Promise<SharedLimits> {
  const redis = new Redis(opts.url, {
    lazyConnect: true,
    // A limit is asked on the request's path: while Redis is away a call fails at once (and the limit
    // counts in this process) rather than waiting in a queue for a reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
  });
  let reported = false;
  const report = (reason: string) => {
    if (reported) return;
    reported = true;
    opts.onUnreachable?.(reason);
  };
  redis.on('error', (err: Error) => report(err.message));
  redis.on('ready', () => {
    reported = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return {
    redis,
    prefix: `${opts.prefix}limits:`,
    unreachable: (err) => report(err instanceof Error ? err.message : String(err)),
  };
}

/** Decorates `app.sharedLimits`: a Redis connection when a URL is given, else null. */
export default fp(
  async function limitsPlugin(app: FastifyInstance, opts: { redisUrl?: string; prefix: string }) {
    const shared = opts.redisUrl
      ? await connectSharedLimits({
          url: opts.redisUrl,
          prefix: opts.prefix,
          onUnreachable: (reason) =>
            app.log.warn({ reason }, 'limits: Redis unreachable; counting in this process until it is back'),
        })
      : null;
    app.decorate('sharedLimits', shared);
    if (shared !== null) app.addHook('onClose', async () => void (await shared.redis.quit().catch(() => {})));
  },
  { name: 'limits' },
);
