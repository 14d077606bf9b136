import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestResponse, Signal, SignalList } from '../../src/contracts/signals';
import { signals } from '../../server/db/schema/news';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { TOKEN, collectPublished, ingest, item } from './news.support';
import { LOCAL_ENGINE_VERSION } from '../../server/modules/analysis/local-analyzer';

describe.each(dbTargets())('news pipeline through the webhook (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target, {
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: TOKEN,
      MARKET_SIM_TICK_MS: '50',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Waits until every stored signal is analysed. */
  const settle = async () => {
    for (let i = 0; i < 500; i++) {
      const list = SignalList.parse((await t.app.inject('/api/signals?limit=200')).json());
      if (list.every((s) => s.analysis.status === 'completed')) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('signals still analysing');
  };

  it('refuses a missing or wrong token with 401, bad items with 422 field errors, big bodies with 413', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/api/signals/ingest', payload: item('x') });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: 'Not authenticated' });
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect((await ingest(t.app, item('x'), 'wrong-token')).statusCode).toBe(401);

    const bad = await ingest(t.app, {
      items: [item('ok'), { content: '', source_name: 'X', url: 'javascript:alert(1)' }],
    });
    expect(bad.statusCode).toBe(422);
    const detail = (bad.json() as { detail: { loc: (string | number)[] }[] }).detail;
    expect(detail.map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.items.1.content', 'body.items.1.url']),
    );

    const big = await ingest(t.app, item('y'.repeat(300 * 1024)));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ detail: 'Request body is too large.' });
    // The token is checked before the body is read: a big body without it is still a 401.
    const bigNoToken = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(item('z'.repeat(300 * 1024))),
    });
    expect(bigNoToken.statusCode).toBe(401);
  });

  it('accepts one item or a batch, publishes analyzing then completed with assets and initial prices', async () => {
    const seen = collectPublished(t.app);
    const one = await ingest(
      t.app,
      item('Binance will list Kaspa (KAS) perpetual contracts with 20x leverage'),
    );
    expect(one.statusCode).toBe(202);
    const body = IngestResponse.parse(one.json());
    expect(body.results[0]?.result).toBe('created');
    const id = body.results[0]?.id ?? '';
    await settle();
    await seen.waitFor(() => seen.events.filter((e) => e.signal.id === id).length >= 2);
    const mine = seen.events.filter((e) => e.signal.id === id);
    expect(mine.map((e) => e.signal.analysis.status)).toEqual(['analyzing', 'completed']);
    expect(mine[1]!.rev).toBeGreaterThan(mine[0]!.rev);
    const done = Signal.parse(mine[1]!.signal);
    expect(done.asset).toBe('KAS');
    expect(done.event_type).toBe('listing');
    expect(done.analysis.status === 'completed' && done.analysis.nlp.sentiment).toBe('positive');
    // Stored with the analyzer's version, and read back with it.
    expect(done.analysis).toMatchObject({ engine: 'local', engine_version: LOCAL_ENGINE_VERSION });
    const [stored] = SignalList.parse((await t.app.inject(`/api/signals?limit=50`)).json()).filter(
      (s) => s.id === done.id,
    );
    expect(stored?.analysis).toMatchObject({ engine_version: LOCAL_ENGINE_VERSION });
    const quote = (await t.app.inject('/api/price/KASUSDT')).json() as { price: number };
    expect(done.initial_prices.KAS).toBeGreaterThan(0);
    expect(Math.abs((done.initial_prices.KAS ?? 0) / quote.price - 1)).toBeLessThan(0.05);
    seen.dispose();

    const batch = await ingest(t.app, [
      item('Ethereum developers schedule the next network upgrade for March'),
      item('Circle mints 500 million USDC on Solana'),
    ]);
    expect(IngestResponse.parse(batch.json()).results.map((r) => r.result)).toEqual(['created', 'created']);
    const wrapped = await ingest(t.app, { items: [item('Polkadot parachain slot auction ends early')] });
    expect(IngestResponse.parse(wrapped.json()).accepted).toBe(1);
  });

  it('normalises: unescapes entities, strips markup and tracking parameters, collapses whitespace but keeps paragraphs', async () => {
    const res = await ingest(
      t.app,
      item(
        '  Coinbase   lists &lt;b&gt;SEI&lt;/b&gt; &amp; <i>TIA</i>\n\n perps &#8212; trading opens today ',
        {
          url: 'https://example.com/news/1?utm_source=x&utm_medium=y&id=7&fbclid=abc#top',
          media_urls: ['https://example.com/a.png?utm_campaign=z'],
        },
      ),
    );
    const id = IngestResponse.parse(res.json()).results[0]?.id;
    await settle();
    const [signal] = SignalList.parse((await t.app.inject('/api/signals?limit=1')).json());
    expect(signal?.id).toBe(id);
    // Runs of spaces collapse; a blank line between paragraphs stays one.
    expect(signal?.content).toBe('Coinbase lists SEI & TIA\n\nperps — trading opens today');
    expect(signal?.metadata.url).toBe('https://example.com/news/1?id=7');
    expect(signal?.metadata.media_urls).toEqual(['https://example.com/a.png']);
  });

  it('drops exact duplicates: the same text in another case or spacing, or the same external id', async () => {
    const first = await ingest(
      t.app,
      item('Aave launches v4 on mainnet with a new liquidity hub', { external_id: 'a-1' }),
    );
    expect(IngestResponse.parse(first.json()).results[0]?.result).toBe('created');
    const again = await ingest(t.app, [
      item('AAVE launches   v4 on mainnet with a new liquidity hub!'),
      item('Totally different words, but the same id as before', { external_id: 'a-1' }),
    ]);
    expect(IngestResponse.parse(again.json())).toEqual({
      accepted: 0,
      results: [
        { result: 'duplicate', id: null },
        { result: 'duplicate', id: null },
      ],
    });
  });

  it('clusters a near-duplicate from another source as "also reported by", and keeps different stories apart', async () => {
    const first = await ingest(
      t.app,
      item('Bridge exploited: attacker drains $48M from Orbiter vaults', { source_name: 'Wire A' }),
    );
    const id = IngestResponse.parse(first.json()).results[0]?.id;
    const later = await ingest(t.app, [
      item('Orbiter vaults drained, $48 million taken by bridge exploit attacker', {
        source_name: 'Wire B',
        url: 'https://b.example/orbiter',
      }),
      item('Bridge exploited: attacker drains $48M from Orbiter vaults today', { source_name: 'Wire A' }),
      item('Bridge exploited: attacker drains $9M from Stellaris vaults', { source_name: 'Wire C' }),
    ]);
    const results = IngestResponse.parse(later.json()).results;
    expect(results.map((r) => r.result)).toEqual(['clustered', 'duplicate', 'created']);
    expect(results[0]?.id).toBe(id);
    await settle();
    const list = SignalList.parse((await t.app.inject('/api/signals?limit=5')).json());
    const story = list.find((s) => s.id === id);
    expect(story?.metadata.source_name).toBe('Wire A');
    expect(story?.also_reported_by).toEqual([
      expect.objectContaining({ source_name: 'Wire B', url: 'https://b.example/orbiter' }),
    ]);
  });

  it('answers history newest first with paging and filters', async () => {
    await ingest(t.app, [
      item('Solana ETF approved by the SEC, trading starts Monday'),
      item('Solana network halts for five hours after a consensus bug'),
      item('Weekend recap: markets were quiet and nothing happened'),
    ]);
    await settle();
    const all = SignalList.parse((await t.app.inject('/api/signals?limit=200')).json());
    expect(all.length).toBeGreaterThanOrEqual(10);
    const ids = all.map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const page1 = SignalList.parse((await t.app.inject('/api/signals?limit=4')).json());
    const page2 = SignalList.parse(
      (await t.app.inject(`/api/signals?limit=4&before=${page1[3]?.id}`)).json(),
    );
    expect(page1).toHaveLength(4);
    expect(page2.map((s) => s.id)).toEqual(all.slice(4, 8).map((s) => s.id));

    const sol = SignalList.parse((await t.app.inject('/api/signals?asset=sol')).json());
    expect(sol.length).toBeGreaterThanOrEqual(2);
    expect(sol.every((s) => s.assets.includes('SOL'))).toBe(true);
    const negative = SignalList.parse((await t.app.inject('/api/signals?sentiment=negative')).json());
    expect(negative.length).toBeGreaterThan(0);
    expect(
      negative.every((s) => s.analysis.status === 'completed' && s.analysis.nlp.sentiment === 'negative'),
    ).toBe(true);
    const strong = SignalList.parse((await t.app.inject('/api/signals?min_impact=50')).json());
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.length).toBeLessThan(all.length);
    expect(strong.every((s) => (s.analysis.impact_score ?? 0) >= 50)).toBe(true);

    const bad = await t.app.inject('/api/signals?limit=0&sentiment=great&before=abc');
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { detail: { loc: string[] }[] }).detail.map((d) => d.loc[1]).sort()).toEqual([
      'before',
      'limit',
      'sentiment',
    ]);
  });

  it('re-queues what a stopped process left analyzing, with no price at arrival once it is old', async () => {
    const stored = (content: string, receivedAt: Date) =>
      t.database.db
        .insert(signals)
        .values({
          source: 'webhook',
          fingerprint: `fp-${content}`,
          content,
          sourceName: 'Wire',
          mediaUrls: [],
          receivedAt,
          status: 'analyzing',
          assets: [],
          initialPrices: {},
          alsoReportedBy: [],
        })
        .returning({ id: signals.id });
    const [fresh] = await stored('Binance will list Sui (SUI) perpetual contracts', new Date());
    const [old] = await stored(
      'Ethereum (ETH) developers confirm the next upgrade date',
      new Date(Date.now() - 3_600_000),
    );
    expect(await t.api.news.resumeUnfinished()).toBeGreaterThanOrEqual(2);
    await t.api.news.drain();
    const list = SignalList.parse((await t.app.inject('/api/signals?limit=200')).json());
    const read = (id: number | undefined) => {
      const found = list.find((x) => x.id === String(id));
      if (found === undefined) throw new Error(`signal ${String(id)} not listed`);
      return found;
    };
    const a = read(fresh?.id);
    expect(a.analysis.status).toBe('completed');
    expect(a.initial_prices.SUI).toBeGreaterThan(0);
    const b = read(old?.id);
    expect(b.analysis.status).toBe('completed');
    expect(b.assets).toContain('ETH');
    expect(b.initial_prices).toEqual({});
    // A second pass (another node, a second start) finds nothing left and completes nothing twice.
    expect(await t.api.news.resumeUnfinished()).toBe(0);
  });

  it("reads the rule engine's cursor in full only for the signals it has not heard", async () => {
    const head = await t.api.news.headRev();
    const res = await ingest(t.app, [
      item('Aave governance passes fee switch vote'),
      item('Chainlink adds staking to its data feeds'),
      item('Arbitrum treasury moves 20M ARB to a grants fund'),
    ]);
    const ids = IngestResponse.parse(res.json()).results.map((r) => r.id);
    await settle();
    const read = await t.api.news.completedAfter(head, 50, (id) => id === ids[1]);
    expect(read.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
    expect(read.map((r) => r.rev)).toEqual([...read.map((r) => r.rev)].sort((a, b) => a - b));
    expect(read.filter((r) => r.signal !== null).map((r) => r.signal?.id)).toEqual([ids[1]]);
    expect(read.find((r) => r.id === ids[1])?.signal?.analysis.status).toBe('completed');
    // Without a filter, every one comes whole.
    const all = await t.api.news.completedAfter(head, 50);
    expect(all.every((r) => r.signal?.id === r.id)).toBe(true);
  });

  it('reports the webhook and the analyzer to the health check', async () => {
    const health = (await t.app.inject('/api/healthz')).json() as {
      news: string[];
      analyzer: string;
      standins: string[];
    };
    expect(health.news).toEqual(['webhook']);
    expect(health.analyzer).toBe('local');
    expect(health.standins).not.toContain('replayed news');
  });
});
