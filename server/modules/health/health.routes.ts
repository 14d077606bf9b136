import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { Health } from '../../../src/contracts/health';
import { type HealthAnswer, HealthService } from './health.service';

/** The contract as JSON Schema: documents the answer in /api/openapi.json. */
const healthJsonSchema = z.toJSONSchema(Health, { target: 'draft-7' });

/**
 * Load balancers and every open page ask this many times a second, so the answer is sent as the body the
 * health service keeps serialised (a string skips Fastify's serialiser) from a handler that only waits
 * for the very first database probe.
 */
export function registerHealthRoutes(app: FastifyInstance): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Whether this server can serve, and what stands in for what',
        tags: ['health'],
        response: { 200: healthJsonSchema, 503: healthJsonSchema },
      },
    },
    (_request, reply) => {
      const ready = app.health.answer();
      if (ready !== null) {
        send(reply, ready);
        return;
      }
      return app.health.snapshot().then((health) => {
        send(reply, HealthService.toAnswer(health));
        return reply;
      });
    },
  );
}

function send(reply: FastifyReply, answer: HealthAnswer): void {
  void reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}
