import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { Health } from '../../src/contracts/health';
import { Rule, type Decision } from '../../src/contracts/rules';
import { ruleDecisions } from '../../server/db/schema';
import { TRIGGERS_PAUSED } from '../../server/modules/rules/rule-exits';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { AuthClient } from './auth.support';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';

const KEY = { apiKey: 'RuleExitKey0123456789abcdefgh', secret: 'rule-exit-secret-0123456789' };
const PASSWORD = 'correct horse battery';

/**
 * The exits of positions rules opened on a live key (the Binance USD-M double): a close Binance refuses,
 * rate-limits or leaves unanswered is tried again until the position is closed, with one reduce filled;
 * a simulated price never moves the stop of a position on a key.
 */
describe.each(dbTargets())('exits of rules on a live key on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: AuthClient;
  let keyId = '';
  let annId = '';

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_TIMEOUT_MS: '500',
      BINANCE_ORDER_SETTLE_MS: '300',
      NEWS_SOURCES: 'webhook',
    });
    ann = new AuthClient(t.app);
    expect((await ann.signup('rule-exit-ann', PASSWORD)).statusCode).toBe(201);
    expect((await ann.login('rule-exit-ann', PASSWORD)).statusCode).toBe(200);
    annId = (await ann.send('GET', '/users/me')).json<{ id: string }>().id;
    const saved = await ann.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: KEY.apiKey,
      secretKey: KEY.secret,
    });
    keyId = ExchangeKey.parse(saved.json()).id;
    expect((await ann.send('PUT', '/rules/risk', { cooldown_minutes: 0 })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });
  afterEach(async () => {
    const rules = (await ann.send('GET', '/rules/')).json<Rule[]>();
    for (const r of rules.filter((x) => x.isActive))
      expect((await ann.send('PATCH', `/rules/${r.id}`, { isActive: false })).statusCode).toBe(200);
  });

  const auth = () => `Bearer ${ann.token ?? ''}`;
  const addRule = async (name: string, exit: object): Promise<Rule> => {
    await ann.send('POST', '/auth/step-up', { password: PASSWORD });
    const res = await ann.send('POST', '/rules/', {
      ruleName: name,
      conditions: { asset: 'ETH' },
      action: { type: 'trade', side: 'long', amount_usd: 150, account: keyId, exit },
      isActive: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    return Rule.parse(res.json());
  };
  const fire = async (rule: Rule): Promise<Decision> => {
    await t.api.rules.engine.reload();
    const signalId = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets: ['ETH'] }));
    const row = (await ledger(t, auth())).find((d) => d.signal_id === signalId && d.rule_id === rule.id);
    if (row?.outcome !== 'fired') throw new Error(`not fired: ${JSON.stringify(row)}`);
    return row;
  };
  const decisionOf = async (id: string) => (await ledger(t, auth())).find((d) => d.id === id);
  const reduces = () => binance.orders.filter((o) => o.apiKey === KEY.apiKey && o.reduceOnly);
  const livePosition = async () =>
    (await t.api.trading.positions(annId, keyId)).find((p) => p.symbol === 'ETH/USDT')?.size ?? 0;
  /** Moves the decision's time into the past, as an hour going by would: its max hold is due now. */
  const holdPassed = async (d: Decision) => {
    await t.database.db.execute(
      sql`update ${ruleDecisions} set decided_at = now() - interval '2 hours' where id = ${Number(d.id)}`,
    );
    await t.api.rules.exits.reload();
  };
  const closedOf = (d: Decision, ms = 15_000) =>
    until(async () => {
      const now = await decisionOf(d.id);
      return now?.exit?.includes('; closed ') === true ? now : undefined;
    }, ms);
  const stateOf = async (d: Decision) => {
    const [row] = await t.database.db
      .select({ exit_state: ruleDecisions.exitState, exit_attempts: ruleDecisions.exitAttempts })
      .from(ruleDecisions)
      .where(eq(ruleDecisions.id, Number(d.id)));
    return row;
  };

  it('a reduce Binance answers with a 500, a 429 and a 500 again is tried again until the position is closed, with one reduce filled; the user is told once', async () => {
    const rule = await addRule('ETH exit 5xx', { max_hold_minutes: 5 });
    const d = await fire(rule);
    const held = await livePosition();
    const before = reduces().length;
    const told: string[] = [];
    const stop = t.app.bus.subscribe('rules.decided', (e) => {
      if (e.decision.id === d.id && e.event.startsWith('exit')) told.push(e.event);
    });
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.internal });
    binance.fault({
      route: 'POST /fapi/v1/order',
      error: BINANCE_ERRORS.tooMany,
      headers: { 'retry-after': '1' },
    });
    binance.fault({ route: 'POST /fapi/v1/order', error: BINANCE_ERRORS.internal });
    try {
      await holdPassed(d);
      // The first try fails: the exit is open again, its failure counted, not closed.
      const failed = await until(async () => {
        const s = await stateOf(d);
        return s !== undefined && s.exit_attempts >= 1 ? s : undefined;
      });
      expect(failed.exit_state).not.toBe('closed');
      expect((await decisionOf(d.id))?.exit).toBe('open');
      const closed = await closedOf(d);
      expect(closed.exit).toMatch(/^max hold of 5 min; closed 0\.05 at /);
      expect(await stateOf(d)).toMatchObject({ exit_state: 'closed', exit_attempts: 3 });
      expect(reduces().slice(before)).toHaveLength(1);
      expect(reduces().at(-1)).toMatchObject({
        side: 'SELL',
        quantity: '0.05',
        clientOrderId: `sc-exit-${d.id}`,
      });
      expect(await livePosition()).toBeCloseTo(held - 0.05, 6);
      await until(async () => (told.includes('exit') ? true : undefined));
      expect(told).toEqual(['exit_failing', 'exit']);
    } finally {
      stop();
    }
  });

  it('a reduce Binance holds past the timeout is looked up before anything is sent again: closed with its fill, once', async () => {
    const rule = await addRule('ETH exit timeout', { max_hold_minutes: 5 });
    const d = await fire(rule);
    const held = await livePosition();
    const before = reduces().length;
    // Filled only after the server stopped waiting, and after both of its look-ups.
    binance.fault({ route: 'POST /fapi/v1/order', delayMs: 1_200 });
    await holdPassed(d);
    const closed = await closedOf(d);
    expect(closed.exit).toMatch(/^max hold of 5 min; closed 0\.05 at /);
    expect((await stateOf(d))?.exit_attempts).toBeGreaterThanOrEqual(1);
    expect(reduces().slice(before)).toHaveLength(1);
    expect(closed.exit_pnl).not.toBeNull();
    expect(await livePosition()).toBeCloseTo(held - 0.05, 6);
  });

  it('an unknown outcome whose look-ups fail too stays open, and the next try finds the fill: one reduce', async () => {
    const rule = await addRule('ETH exit unknown', { max_hold_minutes: 5 });
    const d = await fire(rule);
    const before = reduces().length;
    binance.fault({ route: 'POST /fapi/v1/order', afterFill: true, error: BINANCE_ERRORS.messageBus });
    binance.fault({ route: 'GET /fapi/v1/order', error: BINANCE_ERRORS.internal, count: 2 });
    await holdPassed(d);
    const closed = await closedOf(d);
    expect(await stateOf(d)).toMatchObject({ exit_state: 'closed', exit_attempts: 1 });
    expect(reduces().slice(before)).toHaveLength(1);
    expect(closed.exit).toContain(`closed 0.05 at `);
  });

  it("a simulated price never fires the stop of a position on a key, and says why; Binance's own price does", async () => {
    const rule = await addRule('ETH live stop', { stop_loss_pct: 0.0001, take_profit_pct: 0.0001 });
    const d = await fire(rule);
    const before = reduces().length;
    expect(t.api.rules.livePriceTriggers()).toBe(false);
    const health = Health.parse((await t.app.inject({ url: '/api/healthz' })).json());
    expect(health.livePriceTriggers).toBe(false);
    await t.api.rules.exits.reload();
    // The simulator ticks every second, moving ETH well past 0.0001 % either way.
    let last: Decision | undefined;
    const waiting = await until(async () => {
      last = await decisionOf(d.id);
      return last?.exit_note?.startsWith(TRIGGERS_PAUSED) === true ? last : undefined;
    }).catch((err: unknown) => {
      throw new Error(`no paused note: ${JSON.stringify({ last, watched: t.api.rules.exits.count })}`, {
        cause: err,
      });
    });
    expect(waiting).toMatchObject({
      exit: 'open',
      exit_state: 'open',
      exit_note: `${TRIGGERS_PAUSED}: the prices here are simulated, not Binance's`,
    });
    await new Promise((r) => setTimeout(r, 2_500));
    expect(reduces()).toHaveLength(before);
    expect((await decisionOf(d.id))?.exit_note).toBe(waiting.exit_note);

    // A price from Binance's own stream: below the entry, the stop closes it.
    const entry = d.price ?? 3000;
    await t.app.bus.publish('price.tick', {
      source: 'binance',
      ticks: [{ s: 'ETHUSDT', p: entry * 0.99, t: Date.now() }],
    });
    const closed = await closedOf(d, 5_000);
    expect(closed.exit).toMatch(/^stop loss: -1\.00% at [\d.]+; closed 0\.05 at /);
    expect(reduces().slice(before)).toHaveLength(1);
  });
});
