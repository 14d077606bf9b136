import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WatchlistAdd, WatchlistItem, WatchlistItems } from '../../../src/contracts/watchlist';
import { appError } from '../../plugins/errors';
import type { WatchlistService } from './watchlist.service';

function userOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw appError('UNAUTHORIZED');
  return principal.userId;
}

const TickerParam = z.object({ ticker: z.string().trim().min(1).max(20) });

/** `GET/POST /watchlist/` and `DELETE /watchlist/{ticker}`, for the signed-in user only. */
export function registerWatchlistRoutes(instance: FastifyInstance, service: WatchlistService): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const authed = { preValidation: app.requireUser };

  const listSchema = { summary: 'Your watchlist', response: { 200: WatchlistItems } };
  app.get('/watchlist/', { ...authed, schema: listSchema }, async (request) => service.list(userOf(request)));

  const addSchema = {
    summary: 'Watch a ticker',
    body: WatchlistAdd,
    response: {
      200: WatchlistItem.describe('Already watched'),
      201: WatchlistItem.describe('Added'),
    },
  };
  app.post('/watchlist/', { ...authed, schema: addSchema }, async (request, reply) => {
    const body = request.body;
    const { item, created } = await service.add(userOf(request), body.ticker);
    reply.code(created ? 201 : 200);
    return item;
  });

  const removeSchema = {
    summary: 'Stop watching a ticker',
    params: TickerParam,
    response: { 204: z.undefined().describe('Removed') },
  };
  app.delete('/watchlist/:ticker', { ...authed, schema: removeSchema }, async (request, reply) => {
    const { ticker } = request.params;
    await service.remove(userOf(request), ticker);
    reply.code(204);
  });
}
