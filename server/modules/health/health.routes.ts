import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Health } from '../../../src/contracts/health';

/** The contract's schema as JSON Schema, so Fastify serialises the answer with a compiled serialiser. */
const healthJsonSchema = z.toJSONSchema(Health, { target: 'draft-7' });

export default async function healthRoutes(app: FastifyInstance) {
  app.get(
    '/healthz',
    { schema: { response: { 200: healthJsonSchema, 503: healthJsonSchema } } },
    async (_request, reply) => {
      const health = await app.health.snapshot();
      if (health.status !== 'ok') reply.code(503);
      return health;
    },
  );
}
