import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { KeyEnvironment } from '../../../src/contracts/exchanges';
import type { VenueName } from '../../../src/contracts/venues';
import { BinanceClient } from '../exchanges/binance-client';
import { BybitClient } from '../exchanges/bybit-client';
import { OkxClient } from '../exchanges/okx-client';
import { parseLiveAccount } from './accounts';
import type { LiveExchangeAdapter } from './exchange';
import type { ExchangeHealth } from './exchange-health';
import { BinanceUsdmExchange } from './live/binance-usdm';
import { BybitLinearExchange } from './live/bybit/bybit-linear';
import { OkxSwapExchange } from './live/okx/okx-swap';

/** Every venue's live adapter, per key environment (`live`, `demo`). */
export type LiveVenues = Record<VenueName, Record<KeyEnvironment, LiveExchangeAdapter>>;

/**
 * Builds one adapter per venue and environment, each on its configured hosts (`BINANCE_*`, `BYBIT_*`,
 * `OKX_*`), decrypting a key only for the call that signs with it. The app's own prices size an order
 * only when they are Binance's real ones; simulated prices never size a real order (each venue's ticker
 * does then).
 */
export function buildLiveVenues(
  app: FastifyInstance,
  health: ExchangeHealth,
  log: FastifyBaseLogger,
): LiveVenues {
  const c = app.config;
  const credentials = async (account: string) => {
    const { userId, keyId } = parseLiveAccount(account);
    return (await app.exchanges.use(userId, keyId)).credentials;
  };
  const price = (symbol: string) => (app.market.kind === 'binance' ? app.prices.last(symbol) : undefined);
  const onAnswer = (answer: Parameters<ExchangeHealth['record']>[0]) => health.record(answer);
  const streamProblem =
    (venue: string) =>
    ({ reason, retryInMs, dropped }: { reason: string; retryInMs: number; dropped?: string }) => {
      // An event that could not be read is lost for good (the reconciliation round catches up).
      if (dropped !== undefined) log.warn({ venue, reason, dropped }, 'private stream event dropped');
      else log.info({ venue, reason, retryInMs }, 'private stream');
    };

  const binance = (baseUrl: string, streamUrl: string) =>
    new BinanceUsdmExchange({
      client: new BinanceClient({ baseUrl, timeoutMs: c.BINANCE_TIMEOUT_MS, onAnswer }),
      credentials,
      price,
      userStream: {
        urlTemplate: streamUrl,
        keepAliveMs: c.BINANCE_LISTEN_KEY_KEEPALIVE_MS,
        onProblem: streamProblem('binance'),
      },
    });
  const bybit = (baseUrl: string, streamUrl: string) =>
    new BybitLinearExchange({
      client: new BybitClient({ baseUrl, timeoutMs: c.BINANCE_TIMEOUT_MS, onAnswer }),
      credentials,
      price,
      stream: { url: streamUrl, onProblem: streamProblem('bybit') },
    });
  // OKX demo trading is the live host with `x-simulated-trading: 1` on every signed call.
  const okx = (baseUrl: string, streamUrl: string, businessUrl: string, simulated: boolean) =>
    new OkxSwapExchange({
      client: new OkxClient({ baseUrl, simulated, timeoutMs: c.BINANCE_TIMEOUT_MS, onAnswer }),
      credentials,
      price,
      stream: { url: streamUrl, businessUrl, onProblem: streamProblem('okx') },
    });
  return {
    binance: {
      live: binance(c.BINANCE_FAPI_URL, c.BINANCE_USER_STREAM_URL),
      demo: binance(c.BINANCE_DEMO_FAPI_URL, c.BINANCE_DEMO_USER_STREAM_URL),
    },
    bybit: {
      live: bybit(c.BYBIT_API_URL, c.BYBIT_STREAM_URL),
      demo: bybit(c.BYBIT_DEMO_API_URL, c.BYBIT_DEMO_STREAM_URL),
    },
    okx: {
      live: okx(c.OKX_API_URL, c.OKX_STREAM_URL, c.OKX_BUSINESS_STREAM_URL, false),
      demo: okx(c.OKX_DEMO_API_URL, c.OKX_DEMO_STREAM_URL, c.OKX_DEMO_BUSINESS_STREAM_URL, true),
    },
  };
}

/** Each adapter once, for what runs over all of them (events, streams, shutdown). */
export function everyAdapter(venues: LiveVenues): LiveExchangeAdapter[] {
  return Object.values(venues).flatMap((byEnv) => Object.values(byEnv));
}
