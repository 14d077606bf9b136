import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BinanceClient } from './binance-client';
import { BybitClient } from './bybit-client';
import { binanceKeyChecker } from './key-check';
import { bybitKeyChecker } from './key-check-bybit';
import { okxKeyChecker } from './key-check-okx';
import { OkxClient } from './okx-client';
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
 * The exchanges module: users' exchange API keys on Binance, Bybit or OKX, sealed under the master key,
 * checked with their venue on save and re-read daily for hygiene warnings. Other modules get a key for signing through
 * `app.exchanges.use(userId, keyId)`.
 */
export default fp(
  async function exchangesModule(app: FastifyInstance) {
    const log = app.log.child({ module: 'exchanges' });
    const c = app.config;
    const service = new ExchangesService(new ExchangesRepo(app.database.db), app.secrets, {
      binance: binanceKeyChecker({
        fapi: {
          live: new BinanceClient({ baseUrl: c.BINANCE_FAPI_URL }),
          demo: new BinanceClient({ baseUrl: c.BINANCE_DEMO_FAPI_URL }),
        },
        api: new BinanceClient({ baseUrl: c.BINANCE_API_URL }),
      }),
      bybit: bybitKeyChecker({
        live: new BybitClient({ baseUrl: c.BYBIT_API_URL, timeoutMs: c.BINANCE_TIMEOUT_MS }),
        demo: new BybitClient({ baseUrl: c.BYBIT_DEMO_API_URL, timeoutMs: c.BINANCE_TIMEOUT_MS }),
      }),
      okx: okxKeyChecker({
        live: new OkxClient({ baseUrl: c.OKX_API_URL, timeoutMs: c.BINANCE_TIMEOUT_MS }),
        demo: new OkxClient({
          baseUrl: c.OKX_DEMO_API_URL,
          timeoutMs: c.BINANCE_TIMEOUT_MS,
          simulated: true,
        }),
      }),
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
