import type { FastifyPluginAsync } from 'fastify';
import authRoutes from './auth/auth.routes';
import healthRoutes from './health/health.routes';
import marketModule from './market';
import newsModule from './news';
import tradingModule from './trading';
import usersRoutes from './users/users.routes';
import watchlistRoutes from './watchlist/watchlist.routes';

/**
 * Every module's routes, registered under /api in this order. A module is a Fastify plugin that reads
 * the shared parts from the app's decorators (config, database, bus, health) and talks to other
 * modules only through their services or the bus.
 */
export const MODULES: { name: string; routes: FastifyPluginAsync }[] = [
  { name: 'health', routes: healthRoutes },
  { name: 'auth', routes: authRoutes },
  { name: 'market', routes: marketModule },
  { name: 'news', routes: newsModule },
  { name: 'users', routes: usersRoutes },
  { name: 'trading', routes: tradingModule },
  { name: 'watchlist', routes: watchlistRoutes },
];
