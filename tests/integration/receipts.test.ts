import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../src/contracts/rules';
import { SourceReceipts } from '../../src/contracts/signals';
import { decisionReceipt } from '../../src/contracts/timeline';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN, openSse } from './news.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';

/** A webhook source whose p95 lag past a minute is degraded. */
const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN, SOURCE_LAG_DEGRADED_SECONDS: '60' };

describe.each(dbTargets())('receipts and headline age on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(target, ENV);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const ingest = (payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { source_name: 'Wire', ...payload },
    });
  const addRule = async (who: string, asset: string): Promise<Rule> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization: who },
      payload: {
        ruleName: `any ${asset}`,
        conditions: { asset },
        action: { type: 'trade', side: 'long', amount_usd: 100 },
        isActive: true,
      },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json() as Rule;
  };
  const settled = (who: string, n: number) =>
    until(async () => {
      const rows = await ledger(t, who);
      return rows.filter((r) => r.outcome !== 'pending').length >= n ? rows : undefined;
    });

  it('skips a headline published 10 minutes ago, and says so with its age', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'receipts-stale');
    await addRule(authorization, 'SOL');
    const published = new Date(Date.now() - 10 * 60_000).toISOString();
    const res = await ingest({
      content: 'Coinbase will list SOL perpetual futures with 20x leverage',
      published_at: published,
    });
    expect(res.statusCode).toBe(202);
    const [row] = await settled(authorization, 1);
    expect(row).toMatchObject({
      outcome: 'skipped',
      reason: 'stale',
      detail: 'published 10 min ago (max 15 s)',
    });
    expect(row?.timeline?.published_at).toBe(published);
    expect(row?.order_id).toBeNull();
  });

  it('fires on a fresh headline given in epoch ms, with a receipt whose stages add up', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'receipts-fresh');
    await addRule(authorization, 'AVAX');
    const res = await ingest({
      content: 'Avalanche Foundation buys back 5% of AVAX supply',
      published_at: Date.now() - 1500,
    });
    expect(res.statusCode).toBe(202);
    const [row] = await settled(authorization, 1);
    expect(row?.outcome).toBe('fired');
    const tl = row?.timeline;
    for (const at of [
      'published_at',
      'received_at',
      'analysed_at',
      'decided_at',
      'sent_at',
      'acked_at',
    ] as const)
      expect(tl?.[at], at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const ms = (iso: string | null | undefined) => Date.parse(iso ?? '');
    expect(ms(tl?.received_at) - ms(tl?.published_at)).toBeGreaterThanOrEqual(1400);
    expect(ms(tl?.analysed_at)).toBeGreaterThanOrEqual(ms(tl?.received_at));
    expect(ms(tl?.sent_at)).toBeGreaterThanOrEqual(ms(tl?.analysed_at));
    expect(ms(tl?.acked_at)).toBeGreaterThanOrEqual(ms(tl?.sent_at));
    const receipt = row?.timeline === undefined ? null : decisionReceipt(row.timeline, row.account_venue);
    expect(receipt).toMatch(/^\d+ ms after the news: analysed \d+, decided \d+, paper \d+$/);
  });

  it("never fires on an item of a source's first poll after start (backlog), however recent", async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'receipts-backlog');
    await addRule(authorization, 'DOGE');
    await t.api.rules.engine.reload();
    const signal = completedSignal({ id: freshSignalId(), assets: ['DOGE'], receivedAt: Date.now() - 2000 });
    await t.api.rules.engine.evaluate({
      ...signal,
      source: 'rss',
      published_at: new Date(Date.now() - 3 * 3_600_000).toISOString(),
      backlog: true,
    });
    const [row] = await settled(authorization, 1);
    expect(row).toMatchObject({
      outcome: 'skipped',
      reason: 'stale',
      detail: "published 3.0 h ago, waiting in rss's first poll after start (backlog)",
    });
  });

  it('treats a publication time far in the future as unknown: the age runs from receipt', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'receipts-future');
    await addRule(authorization, 'LINK');
    await ingest({
      content: 'Chainlink staking v3 opens to all LINK holders',
      published_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const [row] = await settled(authorization, 1);
    expect(row?.outcome).toBe('fired');
  });

  it('refuses a published_at that is neither ISO 8601 nor epoch milliseconds, with a clear 422', async () => {
    for (const bad of ['yesterday', '2026-03-05 14:02', 1_764_000_000]) {
      const res = await ingest({ content: 'Bad time on this one', published_at: bad });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        detail: [
          {
            loc: ['body', 'published_at'],
            msg: 'published_at must be an ISO 8601 time with its zone (2026-03-05T14:02:00Z) or epoch milliseconds.',
          },
        ],
      });
    }
  });

  it('sends every signal on the stream with its timeline and the send time', async () => {
    const sse = await openSse(`${base}/api/signals/stream`);
    await sse.waitFor((f) => f.length >= 1);
    const published = new Date(Date.now() - 2000).toISOString();
    await ingest({ content: 'Polygon zkEVM sequencer back after a 10-hour halt', published_at: published });
    await sse.waitFor(() => sse.signals().some((s) => s.analysis.status === 'completed'));
    const frames = sse.signals();
    for (const s of frames) {
      expect(s.timeline?.published_at).toBe(published);
      expect(Date.parse(s.timeline?.sent_at ?? '')).toBeGreaterThanOrEqual(Date.parse(s.received_at));
    }
    const done = frames.find((s) => s.analysis.status === 'completed');
    expect(Date.parse(done?.timeline?.analysed_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(done?.received_at ?? ''),
    );
    expect(Date.parse(done?.timeline?.sent_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(done?.timeline?.analysed_at ?? ''),
    );
    sse.close();
  });

  it("lists each source's lag, items per hour and newest item, and names a lagging one in health", async () => {
    const res = await t.app.inject('/api/signals/sources');
    expect(res.statusCode).toBe(200);
    const body = SourceReceipts.parse(res.json());
    expect(body.threshold_ms).toBe(60_000);
    const webhook = body.sources.find((s) => s.name === 'webhook');
    expect(webhook?.items_per_hour).toBeGreaterThanOrEqual(4);
    expect(webhook?.last_item_age_ms).toBeLessThan(60_000);
    // One headline of the hour was 10 minutes late: the p95 is minutes, past the minute allowed.
    expect(webhook?.lag_p50_ms).toBeLessThan(60_000);
    expect(webhook?.lag_p95_ms).toBeGreaterThan(60_000);
    expect(webhook?.lagging).toBe(true);
    const health = (await t.app.inject('/api/healthz')).json() as { status: string; degraded: string[] };
    expect(health.status).toBe('degraded');
    expect(health.degraded.join('; ')).toMatch(
      /news source lagging: webhook p95 \d+ min after publication \(max 1 min\)/,
    );
  });
});
