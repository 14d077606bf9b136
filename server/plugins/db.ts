import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/client';
import { maintainEmbedded } from '../db/maintenance';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
  }
}

/**
 * Decorates `app.database`; on the embedded database, vacuums its tables as autovacuum would
 * (`maintainEmbedded`); closes (and so flushes) the database when the app closes, if the app owns it.
 */
export default fp(
  async function dbPlugin(app: FastifyInstance, opts: { database: Database; owned: boolean }) {
    app.decorate('database', opts.database);
    const stopUpkeep = maintainEmbedded(opts.database, app.log.child({ module: 'db' }));
    app.addHook('onClose', async () => {
      await stopUpkeep();
      if (opts.owned) await opts.database.close();
    });
  },
  { name: 'db' },
);
