import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { ruleDecisions } from '../../server/db/schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { GapReport, PromotionReport, RiskState, Rule, type Decision } from '../../src/contracts/rules';
import { OrderResponse } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { AuthClient } from './auth.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';

const KEY = { apiKey: 'RuleLiveKey0123456789abcdefg', secret: 'rule-live-secret-0123456789' };
const PASSWORD = 'correct horse battery';
const SETTLE_MS = 300;

describe.each(dbTargets())('rules on a live key on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: AuthClient;
  let annId = '';
  let keyId = '';

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_TIMEOUT_MS: '500',
      BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
      // The tests decide their own signals: a replayed ETH headline would fire their rules again.
      NEWS_SOURCES: 'webhook',
    });
    ann = new AuthClient(t.app);
    expect((await ann.signup('rule-live-ann', PASSWORD)).statusCode).toBe(201);
    expect((await ann.login('rule-live-ann', PASSWORD)).statusCode).toBe(200);
    annId = (await ann.send('GET', '/users/me')).json<{ id: string }>().id;
    const saved = await ann.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: KEY.apiKey,
      secretKey: KEY.secret,
    });
    keyId = ExchangeKey.parse(saved.json()).id;
    // Several rules trade ETH here one after another: no cooldown between them. The live limits are
    // under test: a max order of her own lets orders above five times the key's balance reach them.
    expect((await ann.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    expect(
      (await ann.send('PUT', '/rules/risk', { cooldown_minutes: 0, max_order_usd: 10_000 })).statusCode,
    ).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });
  // Each test leaves its rules off and automated trading on, whatever it asserted.
  afterEach(async () => {
    const rules = (await ann.send('GET', '/rules/')).json<Rule[]>();
    for (const r of rules.filter((x) => x.isActive)) await off(r);
    if (RiskState.parse((await ann.send('GET', '/rules/risk')).json()).kill_switch) {
      await stepUp();
      expect((await ann.send('POST', '/rules/kill-switch', { on: false })).statusCode).toBe(200);
    }
  });

  const auth = () => `Bearer ${ann.token ?? ''}`;
  /** Moves the sign-in's confirmation into the past, as five minutes going by would. */
  const expireStepUp = () =>
    t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${annId}`,
    );
  const stepUp = async () =>
    expect((await ann.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
  const addRule = async (name: string, action: object, asset = 'ETH'): Promise<Rule> => {
    const res = await ann.send('POST', '/rules/', {
      ruleName: name,
      conditions: { asset },
      action: { type: 'trade', side: 'long', ...action },
      isActive: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    return Rule.parse(res.json());
  };
  const off = async (rule: Rule) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/rules/${rule.id}`,
      headers: { authorization: auth() },
      payload: { isActive: false },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  /** Decides a fresh ETH signal now; answers the rule's ledger row for it. */
  const fire = async (rule: Rule, assets = ['ETH']): Promise<Decision> => {
    await t.api.rules.engine.reload();
    const signalId = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets }));
    const row = (await ledger(t, auth())).find((d) => d.signal_id === signalId && d.rule_id === rule.id);
    if (row === undefined) throw new Error('no decision');
    return row;
  };
  const liveOrders = () => binance.orders.filter((o) => o.apiKey === KEY.apiKey);
  const paperPositions = async () =>
    (await t.api.trading.positions(annId, 'paper')).filter((p) => p.symbol === 'ETH/USDT');
  const livePosition = async () =>
    (await t.api.trading.positions(annId, keyId)).find((p) => p.symbol === 'ETH/USDT')?.size ?? 0;

  it('going live needs step-up; the rule then fires one correctly sized order on its key while manual trading stays on paper', async () => {
    await expireStepUp();
    const refused = await ann.send('POST', '/rules/', {
      ruleName: 'ETH live',
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'long', amount_usd: 150, account: keyId },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'step_up_required' });
    const someoneElses = await ann.send('POST', '/rules/', {
      ruleName: 'ETH elsewhere',
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'long', amount_usd: 150, account: randomUUID() },
    });
    expect(someoneElses.statusCode).toBe(404);
    await stepUp();
    const rule = await addRule('ETH live', { amount_usd: 150, account: keyId });
    expect(rule.action.account).toBe(keyId);
    expect((await ann.send('GET', '/account')).json()).toMatchObject({ mode: 'paper' });

    const before = liveOrders().length;
    const row = await fire(rule);
    expect(row, JSON.stringify(row)).toMatchObject({ outcome: 'fired' });
    expect(liveOrders()).toHaveLength(before + 1);
    const sent = liveOrders().at(-1);
    // 150 USDT at the double's 3,000 is 0.05 ETH on the 0.001 step.
    expect(sent).toMatchObject({ symbol: 'ETHUSDT', side: 'BUY', quantity: '0.05', reduceOnly: false });
    expect(row).toMatchObject({
      outcome: 'fired',
      order_id: String(sent?.orderId),
      account: keyId,
      account_mode: 'live',
      quantity: 0.05,
      price: 3000,
    });
    // Its shadow paper twin: what the paper exchange would have filled at the same moment.
    expect(row.twin).toMatchObject({ quantity: expect.any(Number), price: expect.any(Number) });
    // The same signal again decides nothing more.
    await t.api.rules.engine.evaluate(completedSignal({ id: row.signal_id, assets: ['ETH'] }));
    expect(liveOrders()).toHaveLength(before + 1);
    expect(await paperPositions()).toEqual([]);

    const gap = GapReport.parse((await ann.send('GET', `/rules/${rule.id}/gap`)).json());
    expect(gap).toMatchObject({ fired: 1, fill_ratio: 1 });
    expect(gap.slippage_vs_twin_bps).not.toBeNull();
    expect(gap.fees_usd).toBe(0.08);
    await off(rule);
  });

  it("flatten closes only what rules opened, on each rule's own account: never the manual position's size", async () => {
    await stepUp();
    const manual = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: { authorization: auth() },
      payload: { account: keyId },
    });
    expect(manual.statusCode, manual.body).toBe(200);
    const bought = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { authorization: auth(), 'idempotency-key': randomUUID() },
      payload: { symbol: 'ETH/USDT', side: 'long', type: 'market', amount: 300 },
    });
    expect(OrderResponse.parse(bought.json()).account.mode).toBe('live');
    // What rules opened before (the first test's 0.05 ETH) is flattened too; the manual 0.1 ETH is not.
    const manualSize = 0.1;
    const held = await livePosition();
    const live = await addRule('ETH live flat', { amount_usd: 150, account: keyId });
    const paper = await addRule('ETH paper flat', { amount_usd: 200 });
    const liveRow = await fire(live);
    const paperRow = (await ledger(t, auth())).find(
      (d) => d.rule_id === paper.id && d.signal_id === liveRow.signal_id,
    );
    expect(paperRow).toMatchObject({ outcome: 'fired', account: 'paper' });
    expect(await livePosition()).toBeCloseTo(held + 0.05, 6);
    expect(await paperPositions()).toHaveLength(1);

    const sentBefore = liveOrders().length;
    const flat = await ann.send('POST', '/rules/flatten');
    expect(flat.statusCode, flat.body).toBe(200);
    expect(flat.json()).toMatchObject({ failed: [] });
    // Binance got reduce-only SELLs of exactly what each rule bought; the manual 0.1 ETH stays.
    const sells = liveOrders().slice(sentBefore);
    expect(sells.length).toBeGreaterThanOrEqual(1);
    for (const o of sells) expect(o).toMatchObject({ side: 'SELL', reduceOnly: true, quantity: '0.05' });
    expect(await livePosition()).toBeCloseTo(manualSize, 6);
    expect(held).toBeGreaterThan(manualSize);
    expect(await paperPositions()).toEqual([]);
    const risk = RiskState.parse((await ann.send('GET', '/rules/risk')).json());
    expect(risk.kill_switch).toBe(true);
    // Resuming is confirmed like a loosened limit.
    await expireStepUp();
    expect((await ann.send('POST', '/rules/kill-switch', { on: false })).statusCode).toBe(403);
    await stepUp();
    expect((await ann.send('POST', '/rules/kill-switch', { on: false })).statusCode).toBe(200);
    await off(live);
    await off(paper);
  });

  it("a paper rule's exit closes the paper position it opened even after the user moved manual trading to a live key", async () => {
    const rule = await addRule('ETH paper exit', {
      amount_usd: 200,
      exit: { take_profit_pct: 0.001, stop_loss_pct: 0.001 },
    });
    expect((await ann.send('GET', '/account')).json()).toMatchObject({ mode: 'live' });
    const before = liveOrders().length;
    const liveHeld = await livePosition();
    const row = await fire(rule);
    expect(row).toMatchObject({ outcome: 'fired', account: 'paper' });
    await t.api.rules.exits.reload();
    // The simulator's next tick moves ETH past 0.001 % one way or the other.
    const closed = await until(async () => {
      const now = (await ledger(t, auth())).find((d) => d.id === row.id);
      return now?.exit?.includes('closed') ? now : undefined;
    });
    expect(closed.exit).toMatch(/^(take profit|stop loss).*; closed 0\.\d+ at /);
    expect(await paperPositions()).toEqual([]);
    expect(liveOrders()).toHaveLength(before);
    expect(await livePosition()).toBeCloseTo(liveHeld, 6);
    await off(rule);
  });

  it('a position closed by hand ends its exit quietly: nothing else is closed', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: { authorization: auth() },
      payload: { account: 'paper' },
    });
    expect((await ann.send('POST', '/rules/kill-switch', { on: false })).statusCode).toBe(200);
    const rule = await addRule('ETH by hand', { amount_usd: 200 });
    const row = await fire(rule);
    expect(row.outcome).toBe('fired');
    const closedByHand = await ann.send('POST', '/close_position', { symbol: 'ETH/USDT' });
    expect(closedByHand.statusCode, closedByHand.body).toBe(200);
    const before = liveOrders().length;
    expect((await ann.send('POST', '/rules/flatten')).json()).toMatchObject({ closed: 0, gone: 1 });
    expect((await ledger(t, auth())).find((d) => d.id === row.id)?.exit).toBe(
      'flattened (rules flatten); already closed by hand',
    );
    expect(liveOrders()).toHaveLength(before);
    await stepUp();
    expect((await ann.send('POST', '/rules/kill-switch', { on: false })).statusCode).toBe(200);
    await off(rule);
  });

  it('-1006 after the fill: the decision is fired with the order Binance placed, once', async () => {
    const rule = await addRule('ETH live 1006', { amount_usd: 150, account: keyId });
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.messageBus });
    const before = liveOrders().length;
    const row = await fire(rule);
    expect(liveOrders()).toHaveLength(before + 1);
    expect(row).toMatchObject({ outcome: 'fired', order_id: String(liveOrders().at(-1)?.orderId) });
    await ann.send('POST', '/rules/flatten');
    await stepUp();
    await ann.send('POST', '/rules/kill-switch', { on: false });
    await off(rule);
  });

  it('an unknown outcome stays pending (its budget counted), then the look-up settles it: nothing was placed', async () => {
    const rule = await addRule('ETH live unknown', { amount_usd: 150, account: keyId });
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.messageBus });
    const spentBefore = RiskState.parse((await ann.send('GET', '/rules/risk')).json()).live_spent_today_usd;
    const before = liveOrders().length;
    const row = await fire(rule);
    expect(row.outcome).toBe('pending');
    expect(row.detail).toContain('Outcome unknown');
    const during = RiskState.parse((await ann.send('GET', '/rules/risk')).json());
    expect(during.live_spent_today_usd).toBeCloseTo(spentBefore + 150, 6);
    const settled = await until(async () => {
      const now = (await ledger(t, auth())).find((d) => d.id === row.id);
      return now?.outcome === 'pending' ? undefined : now;
    });
    expect(settled).toMatchObject({ outcome: 'skipped', reason: 'exchange' });
    expect(settled.detail).toContain('it was not');
    expect(liveOrders()).toHaveLength(before);
    await off(rule);
  });

  it('live limits of their own: above the live maximum order the rule skips, paper at the same size fires', async () => {
    const big = await addRule('ETH live big', { amount_usd: 600, account: keyId });
    const row = await fire(big);
    expect(row).toMatchObject({ outcome: 'skipped', reason: 'max_order' });
    expect(row.detail).toContain('live maximum order of 500 USDT');
    // Paper would have taken it: the gap report names it.
    const gap = GapReport.parse((await ann.send('GET', `/rules/${big.id}/gap`)).json());
    expect(gap.refused_live_not_paper.map((r) => r.decision_id)).toEqual([row.id]);
    await off(big);
    // Loosening a live limit needs step-up.
    await expireStepUp();
    expect((await ann.send('PUT', '/rules/risk', { live_max_order_usd: 1000 })).statusCode).toBe(403);
    expect((await ann.send('PUT', '/rules/risk', { live_max_order_usd: 400 })).statusCode).toBe(200);
  });

  it('risk changes write only their own columns: 30 limit edits racing the kill switch never undo it', async () => {
    await stepUp();
    await ann.send('PUT', '/rules/risk', { max_positions: 5 });
    const edits = Array.from({ length: 30 }, (_, i) =>
      ann.send('PUT', '/rules/risk', { max_positions: 5 + (i % 3), cooldown_minutes: 0 }),
    );
    const kill = ann.send('POST', '/rules/kill-switch', { on: true });
    const answers = await Promise.all([...edits, kill]);
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    t.api.rules.risk.forget(annId);
    expect(RiskState.parse((await ann.send('GET', '/rules/risk')).json()).kill_switch).toBe(true);
    await ann.send('POST', '/rules/kill-switch', { on: false });
  });

  it('the promotion report shows the paper record, the backtest and what the venue makes of the amount', async () => {
    const rule = await addRule('ETH promote', { amount_usd: 150 });
    const decided = await fire(rule);
    expect(decided, JSON.stringify(decided)).toMatchObject({ outcome: 'fired' });
    const res = await ann.send('GET', `/rules/${rule.id}/promotion?account=${keyId}`);
    expect(res.statusCode, res.body).toBe(200);
    const report = PromotionReport.parse(res.json());
    expect(report).toMatchObject({ mode: 'live', account: keyId, limits: { live_max_order_usd: 400 } });
    expect(report.paper.fired).toBe(1);
    expect(report.venue).toMatchObject({ symbol: 'ETH/USDT', min_notional: 20, fee_rate: 0.0005 });
    expect(report.venue.order).toContain('0.05 ETH');
    await stepUp();
    const moved = await ann.send('POST', `/rules/${rule.id}/account`, { account: keyId });
    expect(Rule.parse(moved.json()).action.account).toBe(keyId);
    const back = await ann.send('POST', `/rules/${rule.id}/account`, { account: 'paper' });
    expect(Rule.parse(back.json()).action.account).toBe('paper');
    await off(rule);
  });

  // Last: its stop closes the whole ETH position on the key, which the tests above build on.
  it("a rule's stop loss and take profit rest on Binance as its position's legs, and the app leaves them to it", async () => {
    await stepUp();
    const rule = await addRule('ETH guarded', {
      amount_usd: 150,
      account: keyId,
      exit: { stop_loss_pct: 2, take_profit_pct: 4 },
    });
    const legsBefore = binance.algoOrders.length;
    const row = await fire(rule);
    expect(row, JSON.stringify(row)).toMatchObject({ outcome: 'fired' });
    const legs = binance.algoOrders.slice(legsBefore).filter((o) => o.status === 'NEW');
    expect(legs.map((o) => o.type).sort()).toEqual(['STOP_MARKET', 'TAKE_PROFIT_MARKET']);
    expect(legs.every((o) => o.symbol === 'ETHUSDT' && o.side === 'SELL' && o.closePosition)).toBe(true);
    expect(Number(legs.find((o) => o.type === 'STOP_MARKET')?.triggerPrice)).toBeCloseTo(
      row.price! * 0.98,
      1,
    );
    const [stored] = await t.database.db
      .select({ onVenue: ruleDecisions.exitOnVenue })
      .from(ruleDecisions)
      .where(eq(ruleDecisions.id, Number(row.id)));
    expect(stored?.onVenue).toBe(true);
    // The stop fires on Binance: the position is closed there, once, and nothing of it rests.
    const reducesBefore = liveOrders().filter((o) => o.reduceOnly).length;
    binance.setMark('ETHUSDT', Number(legs.find((o) => o.type === 'STOP_MARKET')?.triggerPrice) - 1);
    await until(async () => ((await livePosition()) === 0 ? true : undefined));
    expect(liveOrders().filter((o) => o.reduceOnly)).toHaveLength(reducesBefore + 1);
    expect(binance.algoOrders.filter((o) => o.status === 'NEW' && o.symbol === 'ETHUSDT')).toEqual([]);
    binance.setMark('ETHUSDT', 3_000);
    await off(rule);
  });
});
