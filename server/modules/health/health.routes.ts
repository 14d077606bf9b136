import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Health } from '../../../src/contracts/health';

/** The contract's schema as JSON Schema, so Fastify serialises the answer with a compiled serialiser. */
const healthJsonSchema = z.toJSONSchema(Health, { target: 'draft-7' });

export default async function healthRoutes(app: FastifyInstance) {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Whether this server can serve, and what stands in for what',
        tags: ['health'],
        response: { 200: healthJsonSchema, 503: healthJsonSchema },
      },
    },
    async (_request, reply) => {
      const health = await app.health.snapshot();
      // 503 only when this server cannot serve (its database or its bus is gone), so that a load balancer
      // takes it out; a stalled market feed or a rate-limited exchange is named in `degraded` with a 200,
      // since every node would share it and taking them all out helps nobody.
      if (!health.dbOk || !health.busOk) reply.code(503);
      return health;
    },
  );
}
