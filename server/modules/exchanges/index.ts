import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BinanceClient } from './binance-client';
import { ExchangesRepo } from './exchanges.repo';
import { registerExchangeRoutes } from './exchanges.routes';
import { ExchangesService } from './exchanges.service';

declare module 'fastify' {
  interface FastifyInstance {
    exchanges: ExchangesService;
  }
}

const DAY_MS = 86_400_000;

/**
 * The exchanges module: users' exchange API keys, sealed under the master key, checked with Binance on
 * save and re-read daily for hygiene warnings. Other modules get a key for signing through
 * `app.exchanges.use(userId, keyId)`.
 */
export default fp(
  async function exchangesModule(app: FastifyInstance) {
    const log = app.log.child({ module: 'exchanges' });
    const service = new ExchangesService(new ExchangesRepo(app.database.db), app.secrets, {
      fapi: {
        live: new BinanceClient({ baseUrl: app.config.BINANCE_FAPI_URL }),
        demo: new BinanceClient({ baseUrl: app.config.BINANCE_DEMO_FAPI_URL }),
      },
      api: new BinanceClient({ baseUrl: app.config.BINANCE_API_URL }),
    });
    app.decorate('exchanges', service);
    registerExchangeRoutes(app, service);

    // One process re-checks every key once a day.
    let daily: NodeJS.Timeout | undefined;
    const release = await app.leases.hold('exchange-key-recheck', {
      start() {
        daily = setInterval(() => {
          service.recheckAll().then(
            (n) => log.info({ keys: n }, 'exchange keys re-checked'),
            (err: unknown) =>
              log.warn({ err: err instanceof Error ? err.name : 'error' }, 'key re-check failed'),
          );
        }, DAY_MS);
        daily.unref();
      },
      stop: () => clearInterval(daily),
    });
    app.addHook('onClose', async () => release());
  },
  { name: 'exchanges', dependencies: ['auth-guard'] },
);
