import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEventMap } from '../../src/contracts/events';
import type { Signal } from '../../src/contracts/signals';
import { createFakeClock } from '../../src/services/testing/fakeClock';
import type { Database } from '../../server/db/client';
import { createAnalyzer, type Analyzer } from '../../server/modules/analysis/analysis.service';
import { sameStory, storyKey } from '../../server/modules/news/cluster';
import { NewsRepo } from '../../server/modules/news/news.repo';
import { NewsService } from '../../server/modules/news/news.service';
import { rawItem } from '../../server/modules/news/news.types';
import type { PriceSource } from '../../server/modules/news/prices-at';
import { RETRACTION_WINDOW_MS } from '../../server/modules/news/retraction';
import { MemoryBus } from '../../server/plugins/bus/memory';
import { dbTargets, useDatabase } from '../helpers/db';

describe.each(dbTargets())('retractions in the news pipeline (%s)', (name) => {
  const target = useDatabase(name);
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(async () => {
    await database?.close();
    await target.cleanup();
  });

  function setup(premiumSources?: ReadonlySet<string>, opts: { holdAnalysisOf?: RegExp } = {}) {
    const clock = createFakeClock(Date.parse('2026-01-09T21:00:00Z'));
    const bus = new MemoryBus();
    const published: BusEventMap['signal.published'][] = [];
    const retracted: BusEventMap['signal.retracted'][] = [];
    const disputed: BusEventMap['signal.disputed'][] = [];
    bus.subscribe('signal.published', (e) => void published.push(e));
    bus.subscribe('signal.retracted', (e) => void retracted.push(e));
    bus.subscribe('signal.disputed', (e) => void disputed.push(e));
    const prices: PriceSource = {
      snapshot: () => new Map([['BTCUSDT', 46_800]]),
      quote: () => Promise.resolve(1),
      onTicks: () => () => undefined,
    };
    const local = createAnalyzer({
      ANALYZER: 'local',
      LLM_BASE_URL: undefined,
      LLM_API_KEY: undefined,
      LLM_MODEL: undefined,
    });
    // The analysis of an item matching `holdAnalysisOf` waits until `release()`: what arrives meanwhile
    // finds it still analysing.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const analyzer: Analyzer = {
      ...local,
      analyze: async (input) => {
        if (opts.holdAnalysisOf?.test(input.content) === true) await held;
        return local.analyze(input);
      },
    };
    const service = new NewsService({
      repo: new NewsRepo(database.db),
      analyzer,
      bus,
      prices,
      clock,
      log: { info: () => undefined, warn: () => undefined },
      ...(premiumSources === undefined ? {} : { premiumSources }),
    });
    /** Ingests one item and waits for its analysis (and any link) to be stored and published. */
    const post = async (
      content: string,
      extra: { source_name?: string; username?: string; source?: 'webhook' | 'telegram' } = {},
    ) => {
      const out = await service.ingest(
        extra.source ?? 'webhook',
        rawItem({ content, source_name: extra.source_name ?? 'Wire', username: extra.username ?? null }),
      );
      await service.drain();
      await new Promise((r) => setImmediate(r));
      return out;
    };
    const latest = (id: string | null): Signal | undefined =>
      published.filter((e) => e.signal.id === id).at(-1)?.signal;
    return { clock, service, published, retracted, disputed, post, latest, release };
  }

  it('marks the rumour a hacked-account notice retracts, and says so once on the bus', async () => {
    const { clock, post, latest, retracted } = setup();
    const rumour = await post('SEC greenlights spot Bitcoin ETFs, trading to begin Thursday $BTC', {
      source_name: 'X',
      username: 'SECGov',
    });
    clock.advance(15 * 60_000);
    const notice = await post(
      "Statement: unauthorized access was gained to the SEC's X account; the ETF post did not come from the agency.",
      { source_name: 'SEC.gov' },
    );
    expect(notice.result).toBe('created');
    const marked = latest(rumour.id);
    expect(marked?.retraction).toEqual({
      signal_id: notice.id,
      received_at: '2026-01-09T21:15:00.000Z',
      reason: expect.stringContaining('unauthorized access') as string,
      kind: 'compromised',
    });
    const own = latest(notice.id);
    expect(own?.retracts).toBe(rumour.id);
    expect(own?.analysis.status).toBe('completed');
    expect(own?.retraction).toBeNull();
    expect(retracted).toEqual([
      {
        retractedId: rumour.id,
        retractionId: notice.id,
        kind: 'compromised',
        reason: own?.content,
        receivedAt: '2026-01-09T21:15:00.000Z',
      },
    ]);
  });

  it('links a "the filing is fake" denial, and a second denial of the same story changes nothing', async () => {
    const { clock, post, latest, retracted } = setup();
    const rumour = await post('Asset manager registers an XRP spot trust in Delaware, state records show');
    clock.advance(40 * 60_000);
    const denial = await post(
      'The Delaware XRP trust registration is fake, the asset manager told reporters',
      {
        source_name: 'Reuters',
      },
    );
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(denial.id);
    expect(latest(rumour.id)?.retraction?.kind).toBe('denial');
    clock.advance(60_000);
    const again = await post('Asset manager denies registering any XRP trust in Delaware', {
      source_name: 'Bloomberg',
    });
    expect(again.result).toBe('created');
    expect(latest(again.id)?.retracts).toBeNull();
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(denial.id);
    expect(retracted.map((e) => e.retractedId)).toEqual([rumour.id]);
  });

  it('never clusters a denial into the story it denies; reports of the denial cluster together', async () => {
    const rumourText = 'SEC approves spot Solana ETFs for listing on all US exchanges';
    const denialText = 'SEC denies it approves spot Solana ETFs for listing on all US exchanges';
    // Word for word they are one story: without the retraction check the denial would be "also reported by".
    expect(sameStory(storyKey(rumourText), storyKey(denialText))).toBe(true);
    const { clock, post, latest } = setup();
    const rumour = await post(rumourText, { source_name: 'Wire A' });
    clock.advance(5 * 60_000);
    const denial = await post(denialText, { source_name: 'Wire B' });
    expect(denial.result).toBe('created');
    expect(denial.id).not.toBe(rumour.id);
    expect(latest(rumour.id)?.also_reported_by).toEqual([]);
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(denial.id);
    const echo = await post('SEC denies that it approves spot Solana ETFs for listing on all US exchanges', {
      source_name: 'Wire C',
    });
    expect(echo).toEqual({ result: 'clustered', id: denial.id });
  });

  it('an unrelated item about the same coin retracts nothing', async () => {
    const { clock, post, latest, retracted } = setup();
    const rumour = await post('Spot Cardano ETF approved by SEC, ADA surges');
    clock.advance(10 * 60_000);
    const move = await post('ADA slips 4% as traders take profit after the rally');
    const other = await post('Cardano founder denies claims by a former employee of mismanaging funds');
    expect(latest(move.id)?.retracts).toBeNull();
    expect(latest(other.id)?.retracts).toBeNull();
    expect(latest(rumour.id)?.retraction).toBeNull();
    expect(retracted).toEqual([]);
  });

  it('looks back a day at most', async () => {
    const { clock, post, latest, retracted } = setup();
    const rumour = await post('Polkadot treasury to burn 20 million DOT next week');
    clock.advance(RETRACTION_WINDOW_MS + 60_000);
    const late = await post('Polkadot treasury has no plans to burn 20 million DOT; the report is false');
    expect(latest(late.id)?.retracts).toBeNull();
    expect(latest(rumour.id)?.retraction).toBeNull();
    expect(retracted).toEqual([]);
  });

  it('a retraction from a Premium-only source never marks a public story with its words', async () => {
    const { clock, post, latest, retracted } = setup(new Set(['telegram']));
    const rumour = await post('Binance will list Pepe (PEPE) with a seed tag, notice says');
    clock.advance(60_000);
    const insider = await post('Insider: Binance calls the PEPE listing notice fake', {
      source: 'telegram',
      source_name: 'Insider channel',
    });
    expect(insider.result).toBe('created');
    expect(latest(insider.id)?.retracts).toBeNull();
    expect(latest(rumour.id)?.retraction).toBeNull();
    expect(retracted).toEqual([]);
    // From a public source a denial marks it.
    const open = await post(
      'A Binance spokesperson told Reuters the PEPE listing notice is not genuine and no listing is planned',
      { source_name: 'Reuters' },
    );
    expect(open.result).toBe('created');
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(open.id);
  });

  it('answers the link in the history, on both signals', async () => {
    const { clock, post, service } = setup();
    const rumour = await post('Chainlink partners with Visa on LINK settlement, sources say');
    clock.advance(60_000);
    const denial = await post('Visa says it has no partnership with Chainlink on settlement');
    const list = await service.list({ limit: 10 });
    expect(list.find((s) => s.id === rumour.id)?.retraction?.signal_id).toBe(denial.id);
    expect(list.find((s) => s.id === denial.id)?.retracts).toBe(rumour.id);
  });

  it('a less trusted source only disputes a story: no retraction, a dispute on the bus; a source as trusted then retracts it', async () => {
    const { clock, post, latest, retracted, disputed } = setup();
    const rumour = await post(
      'Asset manager registers a Litecoin spot trust in Delaware, state records show',
      {
        source_name: 'Reuters',
      },
    );
    clock.advance(10 * 60_000);
    const weak = await post(
      'The Delaware Litecoin trust registration is fake, the asset manager told reporters',
      {
        source_name: 'X',
        username: 'xrp_insider',
      },
    );
    expect(weak.result).toBe('created');
    expect(latest(rumour.id)?.retraction).toBeNull();
    expect(latest(rumour.id)?.dispute).toEqual({
      signal_id: weak.id,
      received_at: '2026-01-09T21:10:00.000Z',
      reason: 'The Delaware Litecoin trust registration is fake, the asset manager told reporters',
      kind: 'denial',
      source_name: 'X',
    });
    expect(latest(weak.id)?.retracts).toBeNull();
    expect(retracted).toEqual([]);
    expect(disputed).toEqual([
      {
        disputedId: rumour.id,
        disputeId: weak.id,
        kind: 'denial',
        reason: 'The Delaware Litecoin trust registration is fake, the asset manager told reporters',
        sourceName: 'X',
        storySourceName: 'Reuters',
        headline: 'Asset manager registers a Litecoin spot trust in Delaware, state records show',
        receivedAt: '2026-01-09T21:10:00.000Z',
      },
    ]);
    clock.advance(60_000);
    const strong = await post(
      'The asset manager says the Litecoin trust registration in Delaware was not made by the firm',
      { source_name: 'Bloomberg' },
    );
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(strong.id);
    expect(latest(strong.id)?.retracts).toBe(rumour.id);
    expect(retracted.map((e) => [e.retractedId, e.retractionId])).toEqual([[rumour.id, strong.id]]);
    expect(disputed).toHaveLength(1);
  });

  it('the account a story names retracts it, whatever its source, where a stranger naming it only disputes; the same source retracts its own story', async () => {
    const { clock, post, latest, disputed } = setup();
    const rumour = await post(
      'Tesla buys $500 million of Dogecoin for its balance sheet, people familiar said',
      {
        source_name: 'Bloomberg',
      },
    );
    clock.advance(5 * 60_000);
    // Naming the account in the text is not speaking for it.
    const other = await post('@Tesla did not buy Dogecoin, the $500 million report is fake news', {
      source_name: 'X',
      username: 'doge_skeptic',
    });
    expect(latest(rumour.id)?.retraction).toBeNull();
    expect(latest(rumour.id)?.dispute?.signal_id).toBe(other.id);
    const own = await post('Tesla denies it bought Dogecoin; the $500 million report is false', {
      source_name: 'X',
      username: 'Tesla',
    });
    expect(own.result).toBe('created');
    expect(latest(own.id)?.retracts).toBe(rumour.id);
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(own.id);
    const second = await post('Binance will list Pepe (PEPE) perpetual futures on Friday, notice says', {
      source_name: 'Binance Announcements',
    });
    clock.advance(60_000);
    const withdrawn = await post(
      'Please disregard the earlier notice: Binance will not list Pepe (PEPE) perpetual futures on Friday',
      {
        source_name: 'Binance Announcements',
      },
    );
    expect([second.result, withdrawn.result]).toEqual(['created', 'created']);
    expect(latest(second.id)?.retraction?.signal_id).toBe(withdrawn.id);
    expect(disputed.map((e) => e.disputedId)).toEqual([rumour.id]);
  });

  it('a new report of a retracted story, past the cluster window, carries its retraction; of a disputed one, its dispute', async () => {
    const { clock, post, latest, retracted } = setup();
    const text = 'Galaxy Digital to buy $300 million of SOL from the FTX estate, sources say';
    const rumour = await post(text, { source_name: 'Wire' });
    clock.advance(5 * 60_000);
    const denial = await post(
      'Galaxy Digital denies it will buy SOL from the FTX estate; the report is false',
      {
        source_name: 'Reuters',
      },
    );
    expect(latest(rumour.id)?.retraction?.signal_id).toBe(denial.id);
    // Past the cluster window the same story is a new signal: it is stored retracted from the start.
    clock.advance(40 * 60_000);
    const again = await post(text, { source_name: 'Crypto Wire' });
    expect(again.result).toBe('created');
    expect(again.id).not.toBe(rumour.id);
    const copies = (await Promise.resolve(latest(again.id)))?.retraction;
    expect(copies).toMatchObject({ signal_id: denial.id, kind: 'denial' });
    expect(retracted.map((e) => [e.retractedId, e.retractionId])).toEqual([
      [rumour.id, denial.id],
      [again.id, denial.id],
    ]);
    // Another story about the coin is not marked.
    const other = await post('SOL staking yields climb as validators add capacity', {
      source_name: 'Crypto Wire',
    });
    expect(latest(other.id)?.retraction).toBeNull();

    const disputedText = 'Jump Trading to buy $200 million of AVAX from the foundation, sources say';
    const story = await post(disputedText, { source_name: 'Reuters' });
    clock.advance(60_000);
    const weak = await post('Jump Trading denies it will buy AVAX from the foundation; the report is false', {
      source_name: 'X',
      username: 'avax_watch',
    });
    expect(latest(story.id)?.dispute?.signal_id).toBe(weak.id);
    clock.advance(40 * 60_000);
    const repost = await post(disputedText, { source_name: 'Wire' });
    expect(latest(repost.id)?.dispute?.signal_id).toBe(weak.id);
    expect(latest(repost.id)?.retraction).toBeNull();
  });

  it('a trusted report of a denial that only disputed its story, clustered into it, retracts the story and its inherited copies; a weaker one does not', async () => {
    const { clock, post, latest, retracted, disputed } = setup();
    const storyText = 'Asset manager registers a Dogecoin spot trust in Delaware, state records show';
    const denialText = 'The Delaware Dogecoin trust registration is fake, the asset manager told reporters';
    const story = await post(storyText, { source_name: 'Reuters' });
    clock.advance(10 * 60_000);
    const weak = await post(denialText, { source_name: 'X', username: 'doge_insider' });
    expect(latest(story.id)?.dispute?.signal_id).toBe(weak.id);
    // Another stranger saying it too is one more report of the dispute, and still only a dispute.
    clock.advance(15 * 60_000);
    const echo = await post(`${denialText}, sources said`, { source_name: 'X', username: 'doge_watch' });
    expect(echo).toEqual({ result: 'clustered', id: weak.id });
    expect(latest(story.id)?.retraction).toBeNull();
    // Past the cluster window the story told again is a new signal that inherits the dispute.
    clock.advance(20 * 60_000);
    const copy = await post(storyText, { source_name: 'Crypto Wire' });
    expect(copy.result).toBe('created');
    expect(latest(copy.id)?.dispute?.signal_id).toBe(weak.id);
    expect(retracted).toEqual([]);

    // An outlet reports the same denial: it clusters into the dispute, which now retracts.
    clock.advance(5 * 60_000);
    const trusted = await post(`${denialText}, a spokesperson confirmed`, {
      source_name: 'Bloomberg',
    });
    expect(trusted).toEqual({ result: 'clustered', id: weak.id });
    expect(latest(weak.id)?.also_reported_by.map((r) => r.source_name)).toEqual(['X', 'Bloomberg']);
    expect(latest(story.id)?.retraction).toEqual({
      signal_id: weak.id,
      received_at: '2026-01-09T21:50:00.000Z',
      reason: denialText,
      kind: 'denial',
    });
    expect(latest(copy.id)?.retraction?.signal_id).toBe(weak.id);
    expect(latest(weak.id)?.retracts).toBe(story.id);
    expect(retracted).toEqual([
      {
        retractedId: story.id,
        retractionId: weak.id,
        kind: 'denial',
        reason: denialText,
        receivedAt: '2026-01-09T21:50:00.000Z',
      },
      {
        retractedId: copy.id,
        retractionId: weak.id,
        kind: 'denial',
        reason: denialText,
        receivedAt: '2026-01-09T21:50:00.000Z',
      },
    ]);
    expect(disputed.map((e) => e.disputedId)).toEqual([story.id]);
    // Once: another trusted report of it retracts nothing more.
    clock.advance(60_000);
    const again = await post(`${denialText}, the firm confirmed`, { source_name: 'Reuters' });
    expect(again).toEqual({ result: 'clustered', id: weak.id });
    expect(retracted).toHaveLength(2);
  });

  it('a trusted report that clusters into the dispute while it is still analysed retracts the story when the analysis completes', async () => {
    const denialText = 'The Delaware Tron trust registration is fake, the asset manager told reporters';
    const { clock, post, latest, retracted, disputed, service, release } = setup(undefined, {
      holdAnalysisOf: /^The Delaware Tron trust registration is fake/,
    });
    const story = await post(
      'Asset manager registers a Tron (TRX) spot trust in Delaware, state records show',
      {
        source_name: 'Reuters',
      },
    );
    clock.advance(10 * 60_000);
    const weak = await service.ingest(
      'webhook',
      rawItem({ content: denialText, source_name: 'X', username: 'trx_fan' }),
    );
    clock.advance(60_000);
    const trusted = await service.ingest(
      'webhook',
      rawItem({ content: `${denialText}, Bloomberg confirmed`, source_name: 'Bloomberg' }),
    );
    expect(trusted).toEqual({ result: 'clustered', id: weak.id });
    expect(latest(story.id)?.dispute ?? null).toBeNull();
    release();
    await service.drain();
    await new Promise((r) => setImmediate(r));
    expect(latest(story.id)?.retraction).toMatchObject({ signal_id: weak.id, kind: 'denial' });
    expect(latest(weak.id)?.retracts).toBe(story.id);
    expect(retracted.map((e) => [e.retractedId, e.retractionId])).toEqual([[story.id, weak.id]]);
    expect(disputed).toEqual([]);
  });

  it('a trusted report from a Premium-only source never retracts a public story its dispute names; a public one does', async () => {
    const denialText = 'The Delaware Polygon trust registration is fake, the asset manager told reporters';
    const { clock, post, latest, retracted } = setup(new Set(['telegram']));
    const story = await post(
      'Asset manager registers a Polygon (POL) spot trust in Delaware, state records show',
      {
        source_name: 'Reuters',
      },
    );
    clock.advance(10 * 60_000);
    const weak = await post(denialText, { source_name: 'X', username: 'pol_fan' });
    expect(latest(story.id)?.dispute?.signal_id).toBe(weak.id);
    clock.advance(60_000);
    const insider = await post(`${denialText}, Bloomberg confirmed`, {
      source: 'telegram',
      source_name: 'Bloomberg Terminal',
    });
    expect(insider).toEqual({ result: 'clustered', id: weak.id });
    expect(latest(story.id)?.retraction).toBeNull();
    expect(retracted).toEqual([]);
    // The same outlet's public report of it does.
    clock.advance(60_000);
    const open = await post(`${denialText}, a spokesperson confirmed`, { source_name: 'Bloomberg' });
    expect(open).toEqual({ result: 'clustered', id: weak.id });
    expect(latest(story.id)?.retraction?.signal_id).toBe(weak.id);
    expect(retracted.map((e) => e.retractedId)).toEqual([story.id]);
  });

  it('30 trusted reports of the dispute at once retract the story once', async () => {
    const denialText = 'The Delaware Cardano trust registration is fake, the asset manager told reporters';
    const { clock, post, latest, retracted, service } = setup();
    const story = await post(
      'Asset manager registers a Cardano (ADA) spot trust in Delaware, state records show',
      {
        source_name: 'Reuters',
      },
    );
    clock.advance(10 * 60_000);
    const weak = await post(denialText, { source_name: 'X', username: 'ada_fan' });
    expect(latest(story.id)?.dispute?.signal_id).toBe(weak.id);
    clock.advance(60_000);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        service.ingest(
          'webhook',
          rawItem({ content: `${denialText}, desk ${i + 1} confirmed`, source_name: `Reuters ${i + 1}` }),
        ),
      ),
    );
    await service.drain();
    await new Promise((r) => setImmediate(r));
    expect(outcomes.every((o) => o.result === 'clustered' && o.id === weak.id)).toBe(true);
    expect(retracted.map((e) => [e.retractedId, e.retractionId])).toEqual([[story.id, weak.id]]);
    expect(latest(story.id)?.retraction?.signal_id).toBe(weak.id);
  });
});
