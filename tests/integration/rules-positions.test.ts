import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';
import { completedSignal, freshSignalId, ledger } from './rules.support';

const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN };

describe.each(dbTargets())('max positions opened by rules on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target, ENV);
  });
  afterAll(() => t.close());

  const send = (authorization: string, method: 'POST' | 'PUT', url: string, payload: object) =>
    t.app.inject({ method, url, headers: { authorization }, payload });
  const longOn = async (authorization: string, asset: string): Promise<Rule> => {
    const res = await send(authorization, 'POST', '/api/rules/', {
      ruleName: `any ${asset}`,
      conditions: { asset },
      action: { type: 'trade', side: 'long', amount_usd: 150 },
      isActive: true,
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json() as Rule;
  };

  it('counts only the positions rules opened, never the trader’s own, and says so when it skips', async () => {
    const { authorization } = await signUpAndLogIn(t.app, 'rule-positions');
    // Two positions the trader opened by hand.
    for (const symbol of ['BTC/USDT', 'SOL/USDT']) {
      const res = await send(authorization, 'POST', '/api/orders', { symbol, side: 'buy', amount: 200 });
      expect(res.statusCode, res.body).toBe(200);
    }
    await send(authorization, 'PUT', '/api/rules/risk', { max_positions: 1, cooldown_minutes: 0 });
    await longOn(authorization, 'ETH');
    await longOn(authorization, 'LINK');
    const engine = t.api.rules.engine;
    await engine.reload();

    // Two manual positions open, none by rules: the first rule's order goes out.
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['ETH'] }));
    // Now one rule position is open: the limit of 1 holds for the next.
    await engine.evaluate(completedSignal({ id: freshSignalId(), assets: ['LINK'] }));

    const rows = (await ledger(t, authorization)).reverse();
    expect(rows.map((r) => [r.asset, r.outcome, r.reason])).toEqual([
      ['ETH', 'fired', null],
      ['LINK', 'skipped', 'max_positions'],
    ]);
    expect(rows[1]?.detail).toBe('1 position opened by rules is open (max 1).');
  });
});
