import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Bus } from './bus';
import { MemoryBus } from './memory';
import { RedisBus } from './redis';

export type { Bus, Disposer } from './bus';

declare module 'fastify' {
  interface FastifyInstance {
    bus: Bus;
  }
}

/** The configured bus: Redis pub/sub when a URL is given, otherwise in-process. */
export async function createBus(
  redisUrl: string | undefined,
  log: FastifyInstance['log'],
  prefix = '',
): Promise<Bus> {
  const onHandlerError = (topic: string, err: unknown) => log.error({ err, topic }, 'bus handler failed');
  if (!redisUrl) return new MemoryBus(onHandlerError);
  return RedisBus.connect({
    url: redisUrl,
    prefix: `${prefix}bus:`,
    onHandlerError,
    onInvalidMessage: (topic, reason) => log.warn({ topic, reason }, 'bus message dropped'),
    onConnectionProblem: (reason) => log.warn({ reason }, 'event bus: Redis unreachable; reconnecting'),
  });
}

export default fp(
  async function busPlugin(app: FastifyInstance, opts: { bus?: Bus; redisUrl?: string; prefix?: string }) {
    const bus = opts.bus ?? (await createBus(opts.redisUrl, app.log, opts.prefix));
    app.decorate('bus', bus);
    if (!opts.bus) app.addHook('onClose', async () => bus.close());
  },
  { name: 'bus' },
);
