import type { FastifyInstance } from 'fastify';

/**
 * Session routes. The browser tries a refresh on every load; with no refresh cookie there is no session
 * to resume, which is an ordinary answer (204), not an error.
 */
export default async function authRoutes(app: FastifyInstance) {
  app.post('/auth/refresh', async (_request, reply) => reply.code(204).send());
}
