import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/client';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
  }
}

/** Decorates `app.database`; closes (and so flushes) it when the app closes, if the app owns it. */
export default fp(
  async function dbPlugin(app: FastifyInstance, opts: { database: Database; owned: boolean }) {
    app.decorate('database', opts.database);
    if (opts.owned) app.addHook('onClose', async () => opts.database.close());
  },
  { name: 'db' },
);
