import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CandleList, KlinesQuery, PriceQuote, SymbolList } from '../../../src/contracts/market';
import type { MarketService } from './market.service';
import type { PriceHub } from './price-hub';

const PriceParams = z.object({ symbol: z.string().min(1).max(20) });

/** HTTP and WebSocket routes of the market module: parse, call the service or the hub, answer. */
export function registerMarketRoutes(instance: FastifyInstance, service: MarketService, hub: PriceHub): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/symbols',
    { schema: { summary: 'The tradable symbols', response: { 200: SymbolList } } },
    async () => [...(await service.symbols())],
  );

  const priceSchema = {
    summary: 'Last price of a symbol',
    params: PriceParams,
    response: { 200: PriceQuote },
  };
  app.get('/price/:symbol', { schema: priceSchema }, async (request) => {
    const { symbol } = request.params;
    return service.price(symbol);
  });

  const klinesSchema = {
    summary: 'Candles of a symbol',
    querystring: KlinesQuery,
    response: { 200: CandleList },
  };
  app.get('/klines', { schema: klinesSchema }, async (request) => {
    const query = request.query;
    return service.klines(query);
  });

  app.get('/ws/prices', { websocket: true }, (socket) => {
    const client = hub.connect(socket);
    socket.on('message', (data, isBinary) => {
      if (!isBinary) hub.receive(client, data.toString());
    });
    socket.on('pong', () => hub.pong(client));
    socket.on('close', () => hub.disconnect(client));
    socket.on('error', (err) => app.log.debug({ err }, 'price socket error'));
  });
}
