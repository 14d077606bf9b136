import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BacktestResult, type Rule } from '../../src/contracts/rules';
import { signals } from '../../server/db/schema/news';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase, type TestDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const MIN = 60_000;

describe.each(dbTargets())('a backtest on the news stored here (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let auth: { authorization: string };
  let rule: Rule;

  beforeAll(async () => {
    const now = Date.now();
    // Two hours of stored SOL news, as a demo run holds: one item 10 min after another (inside the
    // cooldown), and the last too recent to have closed.
    const stored = (id: number, agoMin: number) => ({
      id,
      source: 'replay',
      fingerprint: `bt-${id}`,
      content: `Solana news ${id}`,
      sourceName: 'Wire',
      mediaUrls: [],
      receivedAt: new Date(now - agoMin * MIN),
      status: 'completed' as const,
      asset: 'SOL',
      assets: ['SOL'],
      impactScore: 80,
      sentiment: 'positive',
      reasoning: 'r',
      engine: 'local',
      initialPrices: { SOL: 150 },
      alsoReportedBy: [],
    });
    const seeded: TestDatabase = {
      ...target,
      async open() {
        const database = await target.open();
        await database.db
          .insert(signals)
          .values([
            stored(1, 118),
            stored(2, 108),
            stored(3, 90),
            stored(4, 70),
            stored(5, 50),
            stored(6, 5),
          ]);
        return database;
      },
    };
    t = await startTestApp(seeded, { NEWS_SOURCES: 'webhook' });
    auth = await signUpAndLogIn(t.app, 'backtester');
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: auth,
      payload: {
        ruleName: 'SOL good news',
        conditions: { asset: 'SOL', sentiment: 'positive' },
        action: { type: 'trade', side: 'long', amount_usd: 200 },
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    rule = made.json() as Rule;
  });
  afterAll(() => t.close());

  const run = async (payload?: object) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/rules/${rule.id}/backtest`,
      headers: auth,
      ...(payload === undefined ? {} : { payload }),
    });
    expect(res.statusCode, res.body).toBe(200);
    return BacktestResult.parse(res.json());
  };

  it('trades by default on the stored history, on minute candles, holding the cooldown and naming the rule', async () => {
    const r = await run();
    expect(r.trades.map((x) => x.signal_id)).toEqual(['1', '3', '4', '5']);
    expect(r).toMatchObject({
      rule_name: 'SOL good news',
      covers: '2 hours',
      cooldown_minutes: 15,
      cooldown_skipped: 1,
      price_source: 'simulated prices, 1m candles',
    });
    expect(r.note).toBe(
      'The news stored here covers 2 hours; the backtest ran on all of it. ' +
        '1 match within your 15 min cooldown per asset was left out, as the rules would. ' +
        '1 match is too recent to have closed. Fewer than 20 trades: too few to judge the rule by.',
    );
  });

  it('says in words how much of the days asked for is stored, never 0.0', async () => {
    const r = await run({ days: 30, hold_minutes: 30 });
    expect(r.trades).toHaveLength(4);
    expect(r.note).toContain('The news stored here covers 2 hours; the backtest ran on those.');
    expect(r.note).not.toMatch(/0\.0/);
  });
});
