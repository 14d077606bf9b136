import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerHealthRoutes } from './health.routes';

/**
 * The health module: `GET /healthz`. Its service is built with the app (`app.health`), since every
 * plugin and module reports its parts to it from the start.
 */
export default fp(
  async function healthModule(app: FastifyInstance) {
    registerHealthRoutes(app);
  },
  { name: 'health' },
);
