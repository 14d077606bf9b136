import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEventMap } from '../../src/contracts/events';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import type { Database } from '../../server/db/client';
import { createAnalyzer } from '../../server/modules/analysis/analysis.service';
import { sameStory, storyKey } from '../../server/modules/news/cluster';
import { NewsRepo } from '../../server/modules/news/news.repo';
import {
  CLUSTER_WINDOW_MS,
  lockedAdmission,
  NewsService,
  type NewsServiceDeps,
} from '../../server/modules/news/news.service';
import { rawItem } from '../../server/modules/news/news.types';
import { cleanUrl, normalizeText } from '../../server/modules/news/normalize';
import type { PriceSource } from '../../server/modules/news/prices-at';
import { MemoryBus } from '../../server/plugins/bus/memory';
import { dbTargets, useDatabase } from '../helpers/db';

describe('story matching', () => {
  const same: [string, string][] = [
    ['Binance will list Foo (FOO) with a seed tag applied', 'BREAKING: Binance to list $FOO with seed tag'],
    ['Hacker drains $120M from ProtoX bridge', 'ProtoX bridge exploited, $120 million drained by hacker'],
    ['SEC approves spot Ether ETFs from eight issuers', 'US SEC approves eight spot Ether ETFs'],
  ];
  const different: [string, string][] = [
    ['Binance will list Foo (FOO)', 'Binance will list Bar (BAR)'],
    ['BREAKING: Binance lists FOO', 'BREAKING: Binance lists BAR'],
    ['ETH drops 5% to $3,000 as liquidations pile up', 'BTC drops 5% to $60,000 as liquidations pile up'],
    ['Hacker drains $120M from ProtoX bridge', 'Hacker drains $9M from ProtoX bridge'],
    ['Fed holds rates steady at 5.25%', 'Solana network outage enters third hour'],
    [
      'Binance will list 1inch (1INCH) perpetual contracts',
      'Binance will list dYdX (DYDX) perpetual contracts',
    ],
    [
      'Exchange will list Ethereum perpetual contracts today',
      'Exchange will list Solana perpetual contracts today',
    ],
  ];
  it.each(same)('same story: %s ~ %s', (a, b) => expect(sameStory(storyKey(a), storyKey(b))).toBe(true));
  it.each(different)('different: %s ≠ %s', (a, b) => expect(sameStory(storyKey(a), storyKey(b))).toBe(false));

  it('normalises text and links', () => {
    expect(normalizeText('<p>Fed&nbsp;holds</p><p>rates &#x2014; again</p>\u200b')).toBe(
      'Fed holds rates — again',
    );
    expect(cleanUrl('https://x.com/a/status/1?s=20&t=abc&lang=en')).toBe('https://x.com/a/status/1?lang=en');
    expect(cleanUrl('javascript:alert(1)')).toBeNull();
    expect(cleanUrl('not a url')).toBeNull();
  });
});

describe.each(dbTargets())('news service with a fake clock and prices (%s)', (name) => {
  const target = useDatabase(name);
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
  });

  function setup(opts: { shared?: boolean; exclusive?: NewsServiceDeps['exclusive'] } = {}) {
    const clock = createFakeClock(Date.parse('2025-01-01T00:00:00Z'));
    const bus = new MemoryBus();
    const published: BusEventMap['signal.published'][] = [];
    bus.subscribe('signal.published', (e) => {
      published.push(e);
    });
    const quoted: string[] = [];
    const prices: PriceSource = {
      snapshot: () => new Map([['BTCUSDT', 50_000]]),
      quote: (symbol) => {
        quoted.push(symbol);
        if (symbol === 'ETHUSDT') return Promise.resolve(3000);
        return Promise.reject(new Error('no price'));
      },
      onTicks: () => () => undefined,
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
      ...(opts.shared ? { exclusive: lockedAdmission(database.db, '7310001') } : {}),
      ...(opts.exclusive ? { exclusive: opts.exclusive } : {}),
    });
    return { clock, service, published, quoted };
  }

  it('prices tagged assets from the arrival snapshot, asking the market only for those missing', async () => {
    const { service, published, quoted } = setup();
    const out = await service.ingest(
      'webhook',
      rawItem({ content: 'Bitcoin and Ether ETFs see record inflows', source_name: 'W' }),
    );
    await service.drain();
    await new Promise((r) => setImmediate(r));
    const done = published.find((e) => e.signal.id === out.id && e.signal.analysis.status === 'completed');
    expect(done?.signal.initial_prices).toEqual({ BTC: 50_000, ETH: 3000 });
    expect(quoted).toEqual(['ETHUSDT']);
  });

  it('clusters within 30 minutes only, drops exact repeats only within the window', async () => {
    const { clock, service } = setup();
    const text = 'Kraken suspends withdrawals of DOT after a wallet incident';
    const first = await service.ingest('webhook', rawItem({ content: text, source_name: 'Wire A' }));
    expect(first.result).toBe('created');
    clock.advance(CLUSTER_WINDOW_MS - 60_000);
    const near = await service.ingest(
      'webhook',
      rawItem({ content: 'Wallet incident: Kraken suspends DOT withdrawals', source_name: 'Wire B' }),
    );
    expect(near).toEqual({ result: 'clustered', id: first.id });
    expect((await service.ingest('webhook', rawItem({ content: text, source_name: 'Wire C' }))).result).toBe(
      'duplicate',
    );
    clock.advance(2 * CLUSTER_WINDOW_MS);
    const later = await service.ingest(
      'webhook',
      rawItem({ content: 'Wallet incident: Kraken suspends DOT withdrawals again', source_name: 'Wire B' }),
    );
    expect(later.result).toBe('created');
    // The old text is no longer an exact duplicate: it joins the story of the window it falls in.
    expect(await service.ingest('webhook', rawItem({ content: text, source_name: 'Wire A' }))).toEqual({
      result: 'clustered',
      id: later.id,
    });
    await service.drain();
  });

  it('asks the store for the copies its window does not hold', async () => {
    const a = setup();
    const text = 'Bybit delists the ZETA perpetual after a liquidity review';
    const first = await a.service.ingest(
      'webhook',
      rawItem({ content: text, source_name: 'Wire A', external_id: 'wire-77' }),
    );
    expect(first.result).toBe('created');
    // The source's id again, in other words and under another name: a copy, not one more report.
    const resent = await a.service.ingest(
      'webhook',
      rawItem({
        content: 'Bybit delists ZETA perpetual after a review of its liquidity',
        source_name: 'Wire B',
        external_id: 'wire-77',
      }),
    );
    expect(resent.result).toBe('duplicate');
    // And in the words of another story altogether: still the source's id, still a copy.
    const reused = await a.service.ingest(
      'webhook',
      rawItem({
        content: 'Kraken lists the PYTH perpetual for clients in Canada',
        source_name: 'Wire A',
        external_id: 'wire-77',
      }),
    );
    expect(reused.result).toBe('duplicate');
    await a.service.drain();
    // A process whose window never saw the text (not warmed up) still finds it in the store.
    const b = setup();
    expect(
      (await b.service.ingest('webhook', rawItem({ content: text, source_name: 'Wire C' }))).result,
    ).toBe('duplicate');
  });

  it('lets two copies that arrive together through only once', async () => {
    const { service } = setup();
    const text = 'Mantle treasury moves 50 million tokens to a new multisig';
    const outcomes = await Promise.all(
      ['A', 'B', 'C'].map((s) => service.ingest('webhook', rawItem({ content: text, source_name: s }))),
    );
    expect(outcomes.map((o) => o.result).sort()).toEqual(['created', 'duplicate', 'duplicate']);
    await service.drain();
  });

  it('warms the window from the store, so clustering survives a restart', async () => {
    const a = setup();
    const text = 'Upbit halts deposits of ONDO during a network upgrade';
    const first = await a.service.ingest('webhook', rawItem({ content: text, source_name: 'Wire A' }));
    await a.service.drain();
    const b = setup();
    expect(await b.service.warmUp()).toBeGreaterThan(0);
    const again = await b.service.ingest(
      'webhook',
      rawItem({ content: 'Network upgrade: Upbit halts ONDO deposits', source_name: 'Wire Z' }),
    );
    expect(again).toEqual({ result: 'clustered', id: first.id });
  });

  it('makes one story of near-duplicates that reach different processes at the same moment', async () => {
    // Two services on one database stand for two api nodes; each warmed its window before the story.
    const nodes = [setup({ shared: true }), setup({ shared: true })];
    for (const n of nodes) await n.service.warmUp();
    const reports = [
      'Coinbase pauses SUI withdrawals after validator fault',
      'Validator fault: Coinbase pauses withdrawals of SUI',
      'Coinbase pauses SUI withdrawals following a validator fault',
      'SUI withdrawals paused at Coinbase after validator fault',
    ];
    const outcomes = await Promise.all(
      reports.map((content, i) =>
        nodes[i % 2]!.service.ingest('webhook', rawItem({ content, source_name: `Wire ${i}` })),
      ),
    );
    const created = outcomes.filter((o) => o.result === 'created');
    expect(created).toHaveLength(1);
    expect(outcomes.filter((o) => o.result === 'clustered').map((o) => o.id)).toEqual([
      created[0]!.id,
      created[0]!.id,
      created[0]!.id,
    ]);
    // What one process credited to the story, the other knows: the same reporter again is a duplicate.
    const again = await nodes[0]!.service.ingest(
      'webhook',
      rawItem({
        content: 'Coinbase has paused SUI withdrawals after a validator fault',
        source_name: 'Wire 1',
      }),
    );
    expect(again.result).toBe('duplicate');
    const row = await new NewsRepo(database.db).receivedSince(new Date(0), 5000);
    const story = row.find((r) => String(r.id) === created[0]!.id);
    expect(story?.alsoReportedBy.map((r) => r.source_name).sort()).toEqual(
      ['Wire 0', 'Wire 1', 'Wire 2', 'Wire 3'].filter((w) => w !== story?.sourceName),
    );
    for (const n of nodes) await n.service.drain();
  });

  it('admits a batch in one transaction; an item that fails there fails alone and leaves no story', async () => {
    class PoisonRepo extends NewsRepo {
      override insertUnlessCopy(row: Parameters<NewsRepo['insertUnlessCopy']>[0], since: Date) {
        if (row.content.includes('poison')) return Promise.reject(new Error('insert refused'));
        return super.insertUnlessCopy(row, since);
      }
    }
    let transactions = 0;
    const { service } = setup({
      exclusive: (admission) =>
        database.db.transaction((tx) => {
          transactions += 1;
          return admission(new PoisonRepo(tx));
        }),
    });
    const texts = [
      'Gemini lists PYTH spot trading against USD today',
      'OKX delists three margin pairs for LUNC next week',
      'poison: Huobi wallet maintenance for ATOM tonight',
      'Gemini has listed PYTH for spot trading against USD today',
    ];
    const settled = await Promise.allSettled(
      texts.map((content, i) => service.ingest('webhook', rawItem({ content, source_name: `Desk ${i}` }))),
    );
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.result : 'failed'))).toEqual([
      'created',
      'created',
      'failed',
      'clustered',
    ]);
    // The first item went alone (the queue was empty), the other three in one batch that failed, then
    // each of them again on its own.
    expect(transactions).toBe(1 + 1 + 3);
    // What the failed batch did is not counted: only what the retries stored.
    expect(service.stats).toMatchObject({ created: 2, clustered: 1 });
    const [first, , , fourth] = settled.map((r) => (r.status === 'fulfilled' ? r.value.id : null));
    expect(fourth).toBe(first);
    // Nothing of the failed batch stayed in the window: the refused item is a new story when it comes
    // again, and the item clustered in the failed batch was credited once.
    const retry = await service.ingest(
      'webhook',
      rawItem({ content: 'Huobi wallet maintenance for ATOM tonight (update)', source_name: 'Desk 9' }),
    );
    expect(retry.result).toBe('created');
    const rows = await new NewsRepo(database.db).receivedSince(new Date(0), 5000);
    expect(rows.find((r) => String(r.id) === first)?.alsoReportedBy.map((r) => r.source_name)).toEqual([
      'Desk 3',
    ]);
    await service.drain();
  });
});
