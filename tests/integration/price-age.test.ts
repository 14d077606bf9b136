import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OrderResponse } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { TOKEN, collectPublished, ingest, item } from './news.support';

const pglite = useDatabase(dbTargets()[0]);
const MAX_AGE_MS = 300;

/**
 * One price book for the app, with an age bound: the stream says 60,000, then goes quiet while Binance's
 * REST ticker moves to 61,000. A young price is used as it is; an older one is asked again.
 */
describe('no order filled and no arrival priced on a price older than PRICE_MAX_AGE_MS (Binance double)', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let auth: { authorization: string };

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 60_000, ETHUSDT: 3_000 });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
      PRICE_MAX_AGE_MS: String(MAX_AGE_MS),
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    auth = await signUpAndLogIn(t.app, 'aged');
  });
  let doubleClosed = false;
  afterAll(async () => {
    await t?.close();
    if (!doubleClosed) await double?.close();
  });

  /** The stream sends BTC at 60,000 now; Binance's ticker then answers 61,000 with nothing streamed. */
  async function tickThenMove(): Promise<void> {
    double.prices.set('BTCUSDT', 60_000);
    let heard = false;
    const stop = t.app.bus.subscribe('price.tick', ({ ticks }) => {
      heard ||= ticks.some((tick) => tick.s === 'BTCUSDT' && tick.p === 60_000);
    });
    double.tick();
    // The market module heard it first: it subscribed when the app started.
    await vi.waitFor(() => expect(heard).toBe(true));
    stop();
    double.prices.set('BTCUSDT', 61_000);
  }

  const long = async (amount: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount },
    });
    expect(res.statusCode).toBe(200);
    return OrderResponse.parse(res.json());
  };
  const tickerAsks = () => double.requests.filter((r) => r.startsWith('/fapi/v1/ticker/price')).length;

  it('fills on the streamed price while it is young, and on a fresh ticker once it is older', async () => {
    await tickThenMove();
    const asked = tickerAsks();
    const young = await long(1_000);
    expect(young.price).toBeGreaterThan(59_900);
    expect(young.price).toBeLessThan(60_100);
    expect(tickerAsks()).toBe(asked);

    await new Promise((r) => setTimeout(r, MAX_AGE_MS + 50));
    const aged = await long(1_000);
    expect(aged.price).toBeGreaterThan(60_900);
    expect(aged.price).toBeLessThan(61_100);
    expect(tickerAsks()).toBe(asked + 1);
    // The answer is in the book for everyone now: the next order asks nothing.
    await long(1_000);
    expect(tickerAsks()).toBe(asked + 1);
  });

  it('prices a signal at its arrival on a fresh ticker, not on the last streamed price once that is older', async () => {
    await tickThenMove();
    await new Promise((r) => setTimeout(r, MAX_AGE_MS + 50));
    const published = collectPublished(t.app);
    const res = await ingest(t.app, item('Bitcoin (BTC) ETF inflows hit a record as institutions pile in'));
    expect(res.statusCode).toBeLessThan(300);
    await published.waitFor(() => published.events.some((e) => e.signal.initial_prices.BTC !== undefined));
    const priced = published.events.find((e) => e.signal.initial_prices.BTC !== undefined);
    expect(priced?.signal.initial_prices.BTC).toBe(61_000);
    published.dispose();
  });

  it('shows the last price seen when the source stops answering, but trades on none', async () => {
    await tickThenMove();
    await new Promise((r) => setTimeout(r, MAX_AGE_MS + 50));
    await double.close();
    doubleClosed = true;
    const shown = await t.app.inject({ url: '/api/price/BTCUSDT' });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ symbol: 'BTCUSDT', price: 60_000 });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 1_000 },
    });
    expect(refused.statusCode).toBe(503);
    expect(JSON.stringify(refused.json())).not.toContain('60000');
  });
});
