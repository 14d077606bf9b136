import type { FastifyPluginAsync } from 'fastify';
import activityModule from './activity';
import adminModule from './admin';
import authModule from './auth';
import socketTicketsPlugin from './auth/socket-tickets-plugin';
import billingModule from './billing';
import plansPlugin from './billing/plans';
import exchangesModule from './exchanges';
import healthModule from './health';
import marketModule from './market';
import newsModule from './news';
import notificationsModule from './notifications';
import rulesModule from './rules';
import scorecardModule from './scorecard';
import tradingModule from './trading';
import usersModule from './users';
import watchlistModule from './watchlist';

/**
 * Every module, registered under /api in this order. A module is a Fastify plugin (its `index.ts`) that
 * builds its services from the app's shared parts (config, database, bus, health) and the modules before
 * it, decorates the app with them, then registers its routes; it talks to other modules only through
 * their services or the bus.
 */
export const MODULES: { name: string; plugin: FastifyPluginAsync }[] = [
  { name: 'health', plugin: healthModule },
  // Before auth and every module that records what happened to an account, or mails its owner.
  { name: 'activity', plugin: activityModule },
  { name: 'auth', plugin: authModule },
  { name: 'plans', plugin: plansPlugin },
  // Before news: the feed's list and stream leave out what each account's feed filter hides.
  { name: 'users', plugin: usersModule },
  { name: 'market', plugin: marketModule },
  { name: 'news', plugin: newsModule },
  { name: 'scorecard', plugin: scorecardModule },
  { name: 'socket-tickets', plugin: socketTicketsPlugin },
  // Before trading: orders go to the account each user chose, which may be one of their exchange keys.
  { name: 'exchanges', plugin: exchangesModule },
  { name: 'trading', plugin: tradingModule },
  { name: 'rules', plugin: rulesModule },
  { name: 'watchlist', plugin: watchlistModule },
  { name: 'billing', plugin: billingModule },
  // After rules and billing: it tells users what their rules did, and may place the orders they ask for.
  { name: 'notifications', plugin: notificationsModule },
  { name: 'admin', plugin: adminModule },
];
