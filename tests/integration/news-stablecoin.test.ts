import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignalList, type Signal } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { assetDetailsOf } from '../../src/contracts/tradability';
import { createAnalyzer } from '../../server/modules/analysis/analysis.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN, ingest, item } from './news.support';
import { ledger, until } from './rules.support';

const DEPEG =
  'USDC slips to $0.87 as Circle discloses $3.3B held at failed Silicon Valley Bank; BTC falls 5%';

describe.each(dbTargets())('a stablecoin tag through the news pipeline (%s)', (name) => {
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

  const addRule = async (authorization: string, body: object) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
  };

  it('tags USDC on a depeg, shows it without a price, and a rule on it skips with the reason', async () => {
    const analysis = await createAnalyzer({
      ANALYZER: 'local',
      LLM_BASE_URL: undefined,
      LLM_API_KEY: undefined,
      LLM_MODEL: undefined,
    }).analyze({ content: DEPEG, source_name: 'Reuters' });
    expect(analysis).toMatchObject({ asset: 'USDC', event_type: 'depeg', sentiment: 'negative' });
    expect(analysis.asset_details).toEqual([
      { symbol: 'USDC', tradable: false, stablecoin: true },
      { symbol: 'BTC', tradable: true, stablecoin: false },
    ]);

    const { authorization } = await signUpAndLogIn(t.app, 'stablecoin-rules');
    await t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: { authorization },
      payload: { daily_budget_usd: 5_000, cooldown_minutes: 0 },
    });
    // Without an asset, a rule trades the signal's first one: here the stablecoin.
    await addRule(authorization, {
      ruleName: 'any bad news',
      conditions: { sentiment: 'negative' },
      action: { type: 'trade', side: 'short', amount_usd: 200 },
      isActive: true,
    });
    await addRule(authorization, {
      ruleName: 'BTC bad news',
      conditions: { asset: 'BTC', sentiment: 'negative' },
      action: { type: 'trade', side: 'short', amount_usd: 150 },
      isActive: true,
    });
    expect((await ingest(t.app, item(DEPEG, { source_name: 'Reuters' }))).statusCode).toBe(202);

    const signal = await until(async () => {
      const list = SignalList.parse((await t.app.inject('/api/signals?limit=50')).json());
      return list.find((s): s is Signal => s.content === DEPEG && s.analysis.status === 'completed');
    });
    expect(signal.asset).toBe('USDC');
    expect(signal.assets).toEqual(['USDC', 'BTC']);
    expect(assetDetailsOf(signal.assets).map((d) => d.tradable)).toEqual([false, true]);
    // No contract, no price: the card shows the tag without a change since arrival.
    expect(signal.initial_prices).not.toHaveProperty('USDC');
    expect(signal.initial_prices.BTC).toBeGreaterThan(0);

    const rows = await until(async () => {
      const all = await ledger(t, authorization);
      return all.length === 2 && all.every((r) => r.outcome !== 'pending') ? all : undefined;
    });
    const byRule = new Map(rows.map((r) => [r.rule_name, r]));
    expect(byRule.get('any bad news')).toMatchObject({
      asset: 'USDC',
      outcome: 'skipped',
      reason: 'not_tradable',
      detail: 'USDC has no futures contract here.',
      order_id: null,
    });
    expect(byRule.get('BTC bad news')).toMatchObject({ asset: 'BTC', outcome: 'fired' });
    const open = (
      await t.app.inject({ url: '/api/positions', headers: { authorization } })
    ).json() as Position[];
    expect(open.map((p) => p.symbol)).toEqual(['BTC/USDT']);
  });

  it('refuses a rule on a stablecoin with the same sentence', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'stablecoin-rule-asset');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: {
        ruleName: 'USDC news',
        conditions: { asset: 'usdc' },
        action: { type: 'trade', side: 'long', amount_usd: 100 },
        isActive: true,
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('USDC has no futures contract here.');
  });
});
