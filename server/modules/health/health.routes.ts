import type { FastifyInstance } from 'fastify';
import type { HealthService } from './health.service';

export default async function healthRoutes(app: FastifyInstance, opts: { health: HealthService }) {
  app.get('/healthz', async (_request, reply) => {
    const health = await opts.health.snapshot();
    reply.header('cache-control', 'no-store');
    if (health.status !== 'ok') reply.code(503);
    return health;
  });
}
