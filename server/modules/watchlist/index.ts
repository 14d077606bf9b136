import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { WatchlistRepo } from './watchlist.repo';
import { registerWatchlistRoutes } from './watchlist.routes';
import { WatchlistService } from './watchlist.service';

declare module 'fastify' {
  interface FastifyInstance {
    watchlist: WatchlistService;
  }
}

/** The watchlist module: the tickers each user watches. */
export default fp(
  async function watchlistModule(app: FastifyInstance) {
    const service = new WatchlistService(new WatchlistRepo(app.database.db));
    app.decorate('watchlist', service);
    registerWatchlistRoutes(app, service);
  },
  { name: 'watchlist', dependencies: ['auth-guard'] },
);
