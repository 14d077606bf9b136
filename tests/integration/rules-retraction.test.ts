import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEventMap } from '../../src/contracts/events';
import { Rule, type Decision } from '../../src/contracts/rules';
import { IngestResponse } from '../../src/contracts/signals';
import type { Position } from '../../src/contracts/trading';
import { rawItem } from '../../server/modules/news/news.types';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { TOKEN } from './news.support';
import { ledger, until } from './rules.support';

const ENV = { NEWS_SOURCES: 'webhook', INGEST_TOKEN: TOKEN };

describe.each(dbTargets())('rules unwind what a retracted story opened on %s', (name) => {
  const target = useDatabase(name);
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

describe.each(dbTargets())('a retracted story is never traded again, on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let authorization = '';
  let userId = '';

  beforeAll(async () => {
    t = await startTestApp(target, ENV);
    ({ authorization } = await signUpAndLogIn(t.app, 'retract-again'));
    userId = (
      (await t.app.inject({ url: '/api/users/me', headers: { authorization } })).json() as { id: string }
    ).id;
    // A story of half an hour ago is still young enough for these rules.
    const risk = await t.app.inject({
      method: 'PUT',
      url: '/api/rules/risk',
      headers: { authorization },
      payload: { cooldown_minutes: 0, max_age_seconds: 3600 },
    });
    expect(risk.statusCode, risk.body).toBe(200);
  });
  afterAll(() => t.close());

  const addRule = async (name: string, asset: string): Promise<Rule> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/rules/',
      headers: { authorization },
      payload: {
        ruleName: name,
        conditions: { asset, sentiment: 'positive' },
        action: { type: 'trade', side: 'long', amount_usd: 300 },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return Rule.parse(res.json());
  };
  const ingest = async (
    content: string,
    source_name: string,
    extra: { username?: string; receivedAt?: number } = {},
  ): Promise<string> => {
    const out = await t.api.news.ingest(
      'webhook',
      rawItem({
        content,
        source_name,
        username: extra.username ?? null,
        ...(extra.receivedAt === undefined ? {} : { received_at: new Date(extra.receivedAt).toISOString() }),
      }),
    );
    if (out.result !== 'created' || out.id === null) throw new Error(`not stored: ${JSON.stringify(out)}`);
    return out.id;
  };
  const sizeOf = async (pair: string) =>
    ((await t.app.inject({ url: '/api/positions', headers: { authorization } })).json() as Position[]).find(
      (p) => p.symbol === pair,
    )?.size ?? 0;
  const decisionOf = async (ruleId: string, signalId: string) =>
    until(async () => {
      const row = (await ledger(t, authorization)).find(
        (d) => d.rule_id === ruleId && d.signal_id === signalId,
      );
      return row === undefined || row.outcome === 'pending' ? undefined : row;
    });
  const exitOf = async (id: string) => (await ledger(t, authorization)).find((d) => d.id === id)?.exit;
  const signalOf = async (id: string) => (await t.api.news.list({ limit: 50 })).find((s) => s.id === id);

  // First: the story window holds items in arrival order, and this one arrives half an hour late.
  it('a new report of the retracted story, past the cluster window, is not traded again', async () => {
    const rule = await addRule('LINK good news', 'LINK');
    await t.api.rules.engine.reload();
    const text = 'Swift partners with Chainlink to settle tokenized funds for 30 banks';
    const rumour = await ingest(text, 'Crypto Wire', { receivedAt: Date.now() - 35 * 60_000 });
    const opened = await decisionOf(rule.id, rumour);
    expect(opened.outcome, JSON.stringify(opened)).toBe('fired');
    const denial = await ingest(
      'Swift denies it partnered with Chainlink to settle tokenized funds; the report is false',
      'Reuters',
    );
    await until(async () => {
      const exit = await exitOf(opened.id);
      return exit?.includes('; closed ') === true ? exit : undefined;
    }, 5_000);
    const flat = await sizeOf('LINK/USDT');

    // The same story again, from another source: a signal of its own, stored as retracted.
    const again = await ingest(text, 'Chain Daily');
    expect(again).not.toBe(rumour);
    const stored = await until(async () => {
      const s = await signalOf(again);
      return s?.analysis.status === 'completed' ? s : undefined;
    });
    expect(stored.retraction?.signal_id).toBe(denial);
    await new Promise((r) => setTimeout(r, 500));
    expect((await ledger(t, authorization)).filter((d) => d.signal_id === again)).toEqual([]);
    expect(await sizeOf('LINK/USDT')).toBeCloseTo(flat, 8);
  });

  it('a paper order whose answer is held past the retraction ends closed', async () => {
    const rule = await addRule('ETH good news', 'ETH');
    await t.api.rules.engine.reload();
    // The paper fill is booked, and its answer held for two seconds on its way back to the rule.
    const place = t.api.trading.placeOrder.bind(t.api.trading);
    let filled = false;
    t.api.trading.placeOrder = async (...args: Parameters<typeof place>) => {
      const order = await place(...args);
      if (args[0] === userId) {
        filled = true;
        await new Promise((r) => setTimeout(r, 2_000));
      }
      return order;
    };
    try {
      const before = await sizeOf('ETH/USDT');
      const rumour = await ingest(
        'BlackRock files for a staked Ethereum ETF, paving the way for ETH staking in funds',
        'Crypto Wire',
      );
      await until(async () => (filled ? true : undefined));
      expect(await sizeOf('ETH/USDT')).toBeGreaterThan(before);
      const denial = await ingest(
        'BlackRock says the staked Ethereum ETF filing is fake and was not made by the firm',
        'Bloomberg',
      );
      const opened = await decisionOf(rule.id, rumour);
      expect(opened.outcome).toBe('fired');
      const closed = await until(async () => {
        const exit = await exitOf(opened.id);
        return exit?.includes('; closed ') === true ? exit : undefined;
      }, 5_000);
      expect(closed).toMatch(new RegExp(`^closed: retracted by #${denial}; closed `));
      expect(await sizeOf('ETH/USDT')).toBeCloseTo(before, 8);
    } finally {
      t.api.trading.placeOrder = place;
    }
  });

  it('a less trusted source disputes the story: the position stays and the dispute is told; a trusted one then closes it', async () => {
    const heard: BusEventMap['signal.disputed'][] = [];
    const stop = t.app.bus.subscribe('signal.disputed', (e) => void heard.push(e));
    try {
      const rule = await addRule('SOL good news', 'SOL');
      await t.api.rules.engine.reload();
      const rumour = await ingest(
        'Visa integrates Solana USDC settlement for merchants across Europe',
        'Reuters',
      );
      const opened = await decisionOf(rule.id, rumour);
      expect(opened.outcome).toBe('fired');
      const held = await sizeOf('SOL/USDT');
      expect(held).toBeGreaterThan(0);

      const weak = await ingest(
        'Visa did not integrate Solana settlement for merchants in Europe; the report is fake',
        'X',
        { username: 'sol_watch' },
      );
      await until(async () => (heard.length > 0 ? true : undefined), 5_000);
      expect(heard).toMatchObject([{ disputedId: rumour, disputeId: weak, sourceName: 'X' }]);
      await new Promise((r) => setTimeout(r, 300));
      expect((await exitOf(opened.id)) ?? '').not.toContain('closed');
      expect(await sizeOf('SOL/USDT')).toBeCloseTo(held, 8);
      expect((await signalOf(rumour))?.dispute?.signal_id).toBe(weak);

      // A trusted source's denial, read as good news for SOL by the analysis, closes the position and
      // does not open it again.
      const strong = await ingest(
        'Visa says it has no Solana settlement deal for merchants in Europe and the report is not accurate',
        'Bloomberg',
      );
      const closed = await until(async () => {
        const exit = await exitOf(opened.id);
        return exit?.includes('; closed ') === true ? exit : undefined;
      }, 5_000);
      expect(closed).toMatch(new RegExp(`^closed: retracted by #${strong}; `));
      await new Promise((r) => setTimeout(r, 300));
      expect((await ledger(t, authorization)).filter((d) => d.signal_id === strong)).toEqual([]);
      expect(await sizeOf('SOL/USDT')).toBeCloseTo(held - (opened.quantity ?? 0), 8);
    } finally {
      stop();
    }
  });

  it('the engine decides nothing on a retracted story, from its marked copy or a copy read before the mark', async () => {
    const rumour = await ingest(
      'Robinhood to list Avalanche (AVAX) for all US customers next week',
      'Crypto Wire',
    );
    await until(async () => ((await signalOf(rumour))?.analysis.status === 'completed' ? true : undefined));
    await ingest(
      'Robinhood did not list Avalanche (AVAX) for US customers; the report is false',
      'Robinhood',
    );
    const marked = await until(async () => {
      const s = await signalOf(rumour);
      return s?.retraction == null ? undefined : s;
    });
    // A rule saved since (the others off: a free account runs three), and a process that has never
    // seen the story (its memory empty after a failover).
    const rules = (await t.app.inject({ url: '/api/rules/', headers: { authorization } })).json() as Rule[];
    for (const r of rules) {
      const off = await t.app.inject({
        method: 'PATCH',
        url: `/api/rules/${r.id}`,
        headers: { authorization },
        payload: { isActive: false },
      });
      expect(off.statusCode, off.body).toBe(200);
    }
    const rule = await addRule('AVAX good news', 'AVAX');
    await t.api.rules.engine.reload();
    await t.api.rules.engine.evaluate(marked);
    await t.api.rules.engine.evaluate({ ...marked, retraction: null });
    await t.api.rules.engine.pump({ sweep: true });
    expect((await ledger(t, authorization)).filter((d) => d.rule_id === rule.id)).toEqual([]);
  });
});
