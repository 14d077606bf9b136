import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { systemClock, type Clock } from './clock';
import { registerMarketRoutes } from './market.routes';
import { resolveMarketSource } from './market-resolver';
import { MarketService } from './market.service';
import type { PriceBook } from './price-book';
import { PriceHub, type HubOptions } from './price-hub';

declare module 'fastify' {
  interface FastifyInstance {
    /** Prices and candles for other modules (trading's mark price, signals' price at arrival). */
    market: MarketService;
    /** The process's one book of prices, with their age: orders, exits, marks and arrival prices. */
    prices: PriceBook;
  }
}

export interface MarketPluginOptions {
  clock?: Clock;
  hub?: Omit<HubOptions, 'clock'>;
}

/**
 * The market module: resolves the source (Binance, or the simulator), reports it to the health check,
 * and serves /price, /klines, /symbols and the price socket. The process holding the `market-feed` lease
 * publishes the prices; every process reads them from the bus.
 */
export default fp(
  async function marketModule(app: FastifyInstance, opts: MarketPluginOptions) {
    const clock = opts.clock ?? systemClock;
    const log = app.log.child({ module: 'market' });
    const source = await resolveMarketSource(app.config, { clock, log });
    app.health.report('market', source.kind);
    const unwatch = app.health.watch('market', () => source.problem());
    const service = new MarketService(source, {
      bus: app.bus,
      log,
      // A slow simulator is not a stalled one: a few of its ticks may pass before the feed is called stalled.
      staleMs: Math.max(app.config.MARKET_STALE_MS, 3 * app.config.MARKET_SIM_TICK_MS),
      priceMaxAgeMs: app.config.PRICE_MAX_AGE_MS,
      now: () => clock.now(),
    });
    service.start();
    const releaseFeed = await app.leases.hold('market-feed', {
      start: () => service.lead(),
      stop: () => service.unlead(),
    });
    const hub = new PriceHub(service, {
      clock,
      ...opts.hub,
      onDrop: (reason) => log.info({ reason }, 'price socket client dropped'),
    });
    hub.start();
    app.decorate('market', service);
    app.decorate('prices', service.book);
    registerMarketRoutes(app, service, hub);
    app.addHook('onClose', async () => {
      await releaseFeed();
      unwatch();
      hub.close();
      await service.stop();
    });
  },
  { name: 'market' },
);
