import type { FastifyPluginAsync } from 'fastify';
import activityModule from './activity';
import adminRoutes from './admin/admin.routes';
import authRoutes from './auth/auth.routes';
import socketTicketsPlugin from './auth/socket-tickets.plugin';
import exchangesModule from './exchanges';
import billingRoutes from './billing/billing.routes';
import plansPlugin from './billing/plans';
import healthRoutes from './health/health.routes';
import marketModule from './market';
import newsModule from './news';
import rulesModule from './rules';
import scorecardModule from './scorecard';
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
  // Before auth and every module that records what happened to an account, or mails its owner.
  { name: 'activity', routes: activityModule },
  { name: 'auth', routes: authRoutes },
  { name: 'plans', routes: plansPlugin },
  { name: 'market', routes: marketModule },
  { name: 'news', routes: newsModule },
  { name: 'scorecard', routes: scorecardModule },
  { name: 'users', routes: usersRoutes },
  { name: 'socket-tickets', routes: socketTicketsPlugin },
  // Before trading: orders go to the account each user chose, which may be one of their exchange keys.
  { name: 'exchanges', routes: exchangesModule },
  { name: 'trading', routes: tradingModule },
  { name: 'rules', routes: rulesModule },
  { name: 'watchlist', routes: watchlistRoutes },
  { name: 'billing', routes: billingRoutes },
  { name: 'admin', routes: adminRoutes },
];
