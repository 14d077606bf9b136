import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rule, type Decision } from '../../src/contracts/rules';
import { IngestResponse } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';
import { ledger, until } from './rules.support';

const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN };

describe.each(dbTargets())('rules unwind what a retracted story opened on $name', (target) => {
  let t: TestApp;
  let authorization = '';

  beforeAll(async () => {
    t = await startTestApp(target, ENV);
    ({ authorization } = await signUpAndLogIn(t.app, 'retract-rules'));
    const risk = await t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: { authorization },
      payload: { cooldown_minutes: 0 },
    });
    expect(risk.statusCode, risk.body).toBe(200);
  });
  afterAll(() => t.close());

  const addRule = async (name: string, exit?: object, asset = 'BTC'): Promise<Rule> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: {
        ruleName: name,
        conditions: { asset, sentiment: 'positive' },
        action: { type: 'trade', side: 'long', amount_usd: 300, ...(exit ? { exit } : {}) },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return Rule.parse(res.json());
  };
  const ingest = async (content: string, source_name: string): Promise<string> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/signals/ingest',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { content, source_name },
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = IngestResponse.parse(res.json()).results[0]?.id;
    if (id === null || id === undefined) throw new Error(`not stored: ${res.body}`);
    return id;
  };
  const sizeOf = async (pair: string) =>
    ((await t.app.inject({ url: '/api/positions', headers: { authorization } })).json() as Position[]).find(
      (p) => p.symbol === pair,
    )?.size ?? 0;
  const btc = () => sizeOf('BTC/USDT');
  const decisionOf = async (ruleId: string, signalId: string) =>
    until(async () => {
      const row = (await ledger(t, authorization)).find(
        (d) => d.rule_id === ruleId && d.signal_id === signalId,
      );
      return row === undefined || row.outcome === 'pending' ? undefined : row;
    });

  it('a hacked-account notice closes the position its rumour opened within a second; a rule that keeps, keeps', async () => {
    const closes = await addRule('BTC good news');
    const keeps = await addRule('BTC good news, keep', { on_retraction: 'keep' });
    const rumour = await ingest(
      'SEC approves spot Bitcoin ETFs for trading on US exchanges, the agency posted on X',
      'SEC (X)',
    );
    const opened: Decision = await decisionOf(closes.id, rumour);
    expect(opened.outcome, JSON.stringify(opened)).toBe('fired');
    expect((await decisionOf(keeps.id, rumour)).outcome).toBe('fired');
    const both = await btc();
    expect(both).toBeGreaterThan(0);

    // Another BTC story retracts nothing.
    await ingest('Bitcoin hashrate reaches a new high as miners add capacity', 'CoinDesk');
    await new Promise((r) => setTimeout(r, 300));
    expect(await btc()).toBeCloseTo(both, 8);

    const sent = Date.now();
    const denial = await ingest(
      "The SEC's X account was compromised and the post about spot Bitcoin ETF approval was unauthorized, the agency said",
      'Reuters',
    );
    const closed = await until(async () => {
      const row = (await ledger(t, authorization)).find((d) => d.id === opened.id);
      return row?.exit?.startsWith('closed: retracted by') ? row : undefined;
    }, 5_000);
    const tookMs = Date.now() - sent;
    expect(closed.exit).toContain(`closed: retracted by #${denial}`);
    expect(tookMs).toBeLessThan(1_000);
    // Only the closing rule's own quantity left; the keeping rule's stays open.
    expect(await btc()).toBeCloseTo(both - (opened.quantity ?? 0), 8);
    const kept = (await ledger(t, authorization)).find(
      (d) => d.rule_id === keeps.id && d.signal_id === rumour,
    );
    expect(kept?.exit).toBe('open');
  });

  it('a denial that the filing is fake closes what the filing opened; an XRP price story before it does not', async () => {
    const rule = await addRule('XRP good news', undefined, 'XRP');
    const rumour = await ingest(
      'BlackRock registers an iShares XRP Trust in Delaware, a state filing shows, paving the way for an XRP ETF',
      'Crypto Wire',
    );
    const opened = await decisionOf(rule.id, rumour);
    expect(opened.outcome, JSON.stringify(opened)).toBe('fired');
    const held = await sizeOf('XRP/USDT');
    expect(held).toBeGreaterThan(0);

    // A price story about the same coin is no denial: the rule may trade it, but the rumour's position stays.
    await ingest('XRP climbs 9% in an hour as traders pile into the token', 'Market Watch');
    await new Promise((r) => setTimeout(r, 300));
    const row = (await ledger(t, authorization)).find((d) => d.id === opened.id);
    expect(row?.exit ?? '').not.toContain('closed');
    const before = await sizeOf('XRP/USDT');
    expect(before).toBeGreaterThanOrEqual(held);

    const sent = Date.now();
    const denial = await ingest(
      'BlackRock says the Delaware registration of an "iShares XRP Trust" is fraudulent and was not made by the firm',
      'Bloomberg',
    );
    const closed = await until(async () => {
      const row = (await ledger(t, authorization)).find((d) => d.id === opened.id);
      return row?.exit?.startsWith('closed: retracted by') ? row : undefined;
    }, 5_000);
    expect(Date.now() - sent).toBeLessThan(1_000);
    expect(closed.exit).toContain(`closed: retracted by #${denial}`);
    // Only what the rumour opened is closed.
    expect(await sizeOf('XRP/USDT')).toBeCloseTo(before - (opened.quantity ?? 0), 8);
  });
});
