import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEventMap } from '../../src/contracts/events';
import type { PriceItem } from '../../src/contracts/market';
import { IngestResponse, SignalList } from '../../src/contracts/signals';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import type { Database } from '../../server/db/client';
import { createAnalyzer } from '../../server/modules/analysis/analysis.service';
import { ARRIVAL_PRICE_MS, ASK_AGAIN_MS } from '../../server/modules/news/arrival-prices';
import { NewsRepo } from '../../server/modules/news/news.repo';
import { NewsService } from '../../server/modules/news/news.service';
import { rawItem } from '../../server/modules/news/news.types';
import type { PriceSource } from '../../server/modules/news/prices-at';
import { MemoryBus } from '../../server/plugins/bus/memory';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { TOKEN, ingest, item, openSse } from './news.support';

/** Lets the promises under way (a quote, an update and its publish) run. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

/** Waits (in real time: the database answers on its own schedule) until `pred` holds. */
async function until(pred: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(dbTargets())('prices at arrival the market did not have yet (%s)', (name) => {
  const target = useDatabase(name);
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
  });

  /** A pipeline whose market knows BTC only; the test sends ticks and answers quotes. */
  function setup() {
    const clock = createFakeClock(Date.parse('2025-01-01T00:00:00Z'));
    const bus = new MemoryBus();
    const published: BusEventMap['signal.published'][] = [];
    bus.subscribe('signal.published', (e) => {
      published.push(e);
    });
    const known = new Map([['BTCUSDT', 50_000]]);
    const quoted: string[] = [];
    const listeners = new Set<(ticks: readonly PriceItem[]) => void>();
    const prices: PriceSource = {
      snapshot: () => new Map(known),
      quote: (symbol) => {
        quoted.push(symbol);
        const p = known.get(symbol);
        return p === undefined ? Promise.reject(new Error('no price')) : Promise.resolve(p);
      },
      onTicks: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const service = new NewsService({
      repo: new NewsRepo(database.db),
      analyzer: createAnalyzer({
        ANALYZER: 'local',
        LLM_BASE_URL: undefined,
        LLM_API_KEY: undefined,
        LLM_MODEL: undefined,
      }),
      bus,
      prices,
      clock,
      log: { info: () => undefined, warn: () => undefined },
    });
    const tick = (s: string, p: number) => {
      for (const l of [...listeners]) l([{ s, p, t: clock.now() }]);
    };
    const of = (id: string | null) => published.filter((e) => e.signal.id === id);
    return { clock, service, published, quoted, known, tick, of, listeners };
  }

  it('fills a missing price with the first tick of that symbol, stores it and publishes the signal again', async () => {
    const { service, tick, of, clock } = setup();
    const out = await service.ingest(
      'webhook',
      rawItem({ content: 'Bitcoin and Ether ETFs see record inflows', source_name: 'W' }),
    );
    await service.drain();
    await settle();
    const [, done] = of(out.id);
    expect(done?.signal.initial_prices).toEqual({ BTC: 50_000 });
    expect(service.missingArrivalPrices).toBe(1);

    clock.advance(2_000);
    tick('SOLUSDT', 150);
    tick('ETHUSDT', 3_100);
    tick('ETHUSDT', 3_200);
    await until(() => of(out.id).length === 3);
    await service.close();
    const all = of(out.id);
    expect(all.map((e) => e.signal.analysis.status)).toEqual(['analyzing', 'completed', 'completed']);
    const patch = all[2];
    expect(patch?.signal.initial_prices).toEqual({ BTC: 50_000, ETH: 3_100 });
    expect(patch?.rev).toBeGreaterThan(done?.rev ?? Infinity);
    expect(service.missingArrivalPrices).toBe(0);
    const [stored] = await service.list({ limit: 1 });
    expect(stored?.initial_prices).toEqual({ BTC: 50_000, ETH: 3_100 });
  });

  it('asks the market once more when no tick came, and gives up at the deadline without inventing one', async () => {
    const { service, of, clock, quoted, known, tick, listeners } = setup();
    const out = await service.ingest(
      'webhook',
      rawItem({ content: 'Bitcoin slips while Ether (ETH) gas fees hit a yearly low', source_name: 'W' }),
    );
    await service.drain();
    await settle();
    expect(quoted).toEqual(['ETHUSDT']);
    known.set('ETHUSDT', 3_050);
    clock.advance(ASK_AGAIN_MS);
    await until(() => of(out.id).length === 3);
    expect(quoted).toEqual(['ETHUSDT', 'ETHUSDT']);
    expect(of(out.id).at(-1)?.signal.initial_prices).toEqual({ BTC: 50_000, ETH: 3_050 });

    // Another one whose market stays silent: nothing is filled after the deadline, and nothing waits.
    known.delete('ETHUSDT');
    const late = await service.ingest(
      'webhook',
      rawItem({ content: 'Ether treasury firm buys 10,000 ETH', source_name: 'W' }),
    );
    await service.drain();
    await settle();
    clock.advance(ARRIVAL_PRICE_MS);
    tick('ETHUSDT', 9_999);
    expect(service.missingArrivalPrices).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    await service.close();
    await settle();
    expect(of(late.id).map((e) => e.signal.initial_prices)).toEqual([{}, {}]);
    expect(listeners.size).toBe(0);
  });
});

describe('prices at arrival through the app (binance double on loopback)', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let ticking: ReturnType<typeof setInterval>;
  beforeAll(async () => {
    const pglite = useDatabase(dbTargets()[0]);
    double = await startBinanceDouble({ BTCUSDT: 97_000 });
    ticking = setInterval(() => double.tick(), 20);
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    clearInterval(ticking);
    await t?.close();
    await double?.close();
  });

  it('a signal whose asset had no price gets it with the first tick, and the stream sends the patch', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const sse = await openSse(`http://127.0.0.1:${address.port}/api/signals/stream`);
    try {
      await sse.waitFor((f) => f.some((x) => x.event === 'status'));
      const res = await ingest(t.app, item('Solana (SOL) and Bitcoin (BTC) rally as ETF flows return'));
      const id = IngestResponse.parse(res.json()).results[0]?.id;
      const mine = () => sse.signals().filter((s) => s.id === id);
      await sse.waitFor(() => mine().some((s) => s.analysis.status === 'completed'));
      const done = mine().find((s) => s.analysis.status === 'completed');
      expect(done?.assets).toEqual(expect.arrayContaining(['SOL', 'BTC']));
      expect(done?.initial_prices).toEqual({ BTC: 97_000 });

      double.prices.set('SOLUSDT', 187.25);
      await sse.waitFor(() => mine().some((s) => s.initial_prices.SOL !== undefined));
      const patch = mine().at(-1);
      expect(patch?.initial_prices).toEqual({ BTC: 97_000, SOL: 187.25 });
      expect(patch?.analysis).toEqual(done?.analysis);
      const frames = sse.frames.filter((f) => f.event === 'signal' && JSON.parse(f.data).id === id);
      expect(Number(frames.at(-1)?.id)).toBeGreaterThan(Number(frames.at(-2)?.id));

      const listed = SignalList.parse((await t.app.inject('/api/signals?limit=5')).json());
      expect(listed.find((s) => s.id === id)?.initial_prices).toEqual({ BTC: 97_000, SOL: 187.25 });
      // The price stays once set: a later tick at another price changes nothing.
      const count = mine().length;
      double.prices.set('SOLUSDT', 190);
      await new Promise((r) => setTimeout(r, 200));
      expect(mine()).toHaveLength(count);
    } finally {
      sse.close();
    }
  });
});
