import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { Rule, type Decision } from '../../src/contracts/rules';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { AuthClient } from './auth.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';

const KEY = { apiKey: 'RuleInFlightKey0123456789abc', secret: 'rule-in-flight-secret-0123456' };
const PASSWORD = 'correct horse battery';
const SETTLE_MS = 300;
/** How long the double holds the answer of an order it has already filled. */
const HOLD_MS = 2_000;

/**
 * A story retracted while its order is on its way to Binance: the order filled, its answer not back yet.
 * Whatever the order was doing when the retraction came, the position on the retracted story ends closed
 * and nothing more is sent for it.
 */
describe.each(dbTargets())('a retraction while the order is in flight, on a live key (%s)', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: AuthClient;
  let annId = '';
  let keyId = '';
  let ruleId = '';
  let retractions = 8_800_000;

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      // Longer than the hold: the answer arrives, late, rather than timing out.
      BINANCE_TIMEOUT_MS: '5000',
      BINANCE_ORDER_SETTLE_MS: String(SETTLE_MS),
      NEWS_SOURCES: 'webhook',
    });
    ann = new AuthClient(t.app);
    expect((await ann.signup('rule-flight-ann', PASSWORD)).statusCode).toBe(201);
    expect((await ann.login('rule-flight-ann', PASSWORD)).statusCode).toBe(200);
    annId = (await ann.send('GET', '/users/me')).json<{ id: string }>().id;
    const saved = await ann.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: KEY.apiKey,
      secretKey: KEY.secret,
    });
    keyId = ExchangeKey.parse(saved.json()).id;
    expect((await ann.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const risk = await ann.send('PUT', '/rules/risk', {
      cooldown_minutes: 0,
      live_daily_budget_usd: 100_000,
      daily_budget_usd: 100_000,
    });
    expect(risk.statusCode, risk.body).toBe(200);
    const rule = await ann.send('POST', '/rules/', {
      ruleName: 'BTC live',
      conditions: { asset: 'BTC' },
      action: { type: 'trade', side: 'long', amount_usd: 300, account: keyId },
      isActive: true,
    });
    expect(rule.statusCode, rule.body).toBe(201);
    ruleId = Rule.parse(rule.json()).id;
    await t.api.rules.engine.reload();
  });
  afterAll(async () => {
    await t?.close();
    await binance?.close();
  });

  const auth = () => `Bearer ${ann.token ?? ''}`;
  const liveOrders = () => binance.orders.filter((o) => o.apiKey === KEY.apiKey);
  const btc = async () =>
    (await t.api.trading.positions(annId, keyId)).find((p) => p.symbol === 'BTC/USDT')?.size ?? 0;
  const rowOf = async (signalId: string): Promise<Decision | undefined> =>
    (await ledger(t, auth())).find((d) => d.signal_id === signalId && d.rule_id === ruleId);
  /** Says on the bus that `signalId` was retracted, as the news pipeline does; answers the retraction's id. */
  const retract = async (signalId: string): Promise<string> => {
    const retractionId = String(++retractions);
    await t.app.bus.publish('signal.retracted', {
      retractedId: signalId,
      retractionId,
      kind: 'denial',
      reason: 'The report is false.',
      receivedAt: new Date().toISOString(),
    });
    return retractionId;
  };

  it('the fill that lands after the retraction is closed at once: reduce-only, exactly what it opened', async () => {
    const held = await btc();
    const before = liveOrders().length;
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, delayMs: HOLD_MS });
    const signalId = freshSignalId();
    const deciding = t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets: ['BTC'] }));
    // Binance has filled the order; its answer is on hold.
    await until(async () => (liveOrders().length > before ? true : undefined));
    const retractionId = await retract(signalId);
    await deciding;
    const closed = await until(async () => {
      const row = await rowOf(signalId);
      return row?.exit?.includes('; closed ') === true ? row : undefined;
    }, 5_000);
    expect(closed).toMatchObject({ outcome: 'fired', quantity: 0.005 });
    expect(closed.exit).toMatch(new RegExp(`^closed: retracted by #${retractionId}; closed 0\\.005 at `));
    const sent = liveOrders().slice(before);
    expect(sent.map((o) => [o.side, o.quantity, o.reduceOnly])).toEqual([
      ['BUY', '0.005', false],
      ['SELL', '0.005', true],
    ]);
    expect(await btc()).toBeCloseTo(held, 8);
  });

  it("a decision waiting in the user's chain behind an order in flight is not sent once retracted", async () => {
    const held = await btc();
    const before = liveOrders().length;
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, delayMs: HOLD_MS });
    const first = freshSignalId();
    const second = freshSignalId();
    const deciding = Promise.all([
      t.api.rules.engine.evaluate(completedSignal({ id: first, assets: ['BTC'] })),
      t.api.rules.engine.evaluate(completedSignal({ id: second, assets: ['BTC'] })),
    ]);
    await until(async () => (liveOrders().length > before ? true : undefined));
    // The second decision is claimed and waits its turn behind the first order.
    expect((await rowOf(second))?.outcome).toBe('pending');
    await retract(second);
    await deciding;
    await new Promise((r) => setTimeout(r, 300));
    expect(await rowOf(second)).toMatchObject({ outcome: 'skipped', reason: 'retracted' });
    expect(await rowOf(first)).toMatchObject({ outcome: 'fired' });
    // Only the first order went out; its position stands (its story was not retracted).
    expect(
      liveOrders()
        .slice(before)
        .map((o) => o.side),
    ).toEqual(['BUY']);
    expect(await btc()).toBeCloseTo(held + 0.005, 8);
  });

  it('an unknown outcome settled after the retraction is unwound when the look-up finds the fill', async () => {
    const held = await btc();
    const before = liveOrders().length;
    // Filled, then answered -1006, and the look-ups right after it fail too: the outcome stays unknown
    // until the look-up the settle time later finds the fill.
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.messageBus });
    binance.fault({ route: 'GET /fapi/v1/order', error: BINANCE_ERRORS.internal, count: 2 });
    const signalId = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets: ['BTC'] }));
    const retractionId = await retract(signalId);
    const unknown = await rowOf(signalId);
    expect(unknown?.outcome).toBe('pending');
    expect(unknown?.detail).toContain('Outcome unknown');
    const closed = await until(async () => {
      const row = await rowOf(signalId);
      return row?.exit?.includes('; closed ') === true ? row : undefined;
    }, 5_000);
    expect(closed.outcome).toBe('fired');
    expect(closed.exit).toMatch(new RegExp(`^closed: retracted by #${retractionId}; closed 0\\.005 at `));
    expect(
      liveOrders()
        .slice(before)
        .map((o) => [o.side, o.reduceOnly]),
    ).toEqual([
      ['BUY', false],
      ['SELL', true],
    ]);
    expect(await btc()).toBeCloseTo(held, 8);
  });
});
