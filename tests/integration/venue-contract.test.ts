import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { AccountState, OrderResponse, Position, Trade } from '../../src/contracts/trading';
import { decisionReceipt } from '../../src/contracts/timeline';
import { VENUE_LABELS } from '../../src/contracts/venues';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { completedSignal, freshSignalId, ledger, until } from './rules.support';
import { startBinanceVenueDouble } from '../fixtures/binance-venue-double';
import { startBybitDouble } from '../fixtures/bybit-double';
import { startOkxDouble } from '../fixtures/okx-double';
import type { VenueDouble } from '../fixtures/venue-double';
import type { LiveExchangeAdapter } from '../../server/modules/trading/exchange';
import { adapterOn, limitContract, slippageContract } from './venue-limits.support';

/**
 * The one contract every venue keeps, through the whole app: a key saved verified against the venue's
 * double, `account use`, a market order sized on the venue's own filters and sent once, the fill naming
 * the venue, positions, protection resting on the venue and firing there, close and close all, the trade
 * history, and the faults (an unknown outcome looked up, a refusal in the venue's words, a duplicate
 * client id, a rate limit, a symbol the venue does not list). Venue specifics live in each adapter's own
 * test.
 */
const VENUES: { name: string; start: () => Promise<VenueDouble> }[] = [
  { name: 'binance', start: startBinanceVenueDouble },
  { name: 'bybit', start: startBybitDouble },
  { name: 'okx', start: startOkxDouble },
];

const PRICE = 60_000;
const TIMEOUT_MS = 500;
type Auth = { authorization: string };

describe.each(VENUES)('venue contract: $name', ({ start }) => {
  const target = useDatabase(dbTargets()[0]);
  let t: TestApp;
  let venue: VenueDouble;
  let auth: Auth;
  let keyId = '';
  const key = { apiKey: `Contract${randomUUID().replaceAll('-', '')}`, secret: `s-${randomUUID()}` };
  let label = '';
  let adapter: LiveExchangeAdapter;

  beforeAll(async () => {
    venue = await start();
    adapter = adapterOn(venue, { ...key, passphrase: 'Contract-pass-1' });
    label = VENUE_LABELS[venue.venue];
    t = await startTestApp(target, {
      MARKET_SOURCE: 'sim',
      ...venue.settings,
      BINANCE_TIMEOUT_MS: String(TIMEOUT_MS),
      BINANCE_ORDER_SETTLE_MS: '400',
      PROTECTION_RECONCILE_S: '1',
    });
    auth = await signUpAndLogIn(t.app, 'carol');
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: auth,
      payload: venue.addKey({ ...key, passphrase: 'Contract-pass-1' }),
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const body = ExchangeKey.parse(saved.json());
    expect(body).toMatchObject({ exchangeName: venue.venue, status: 'verified' });
    keyId = body.id;
  }, 30_000);
  afterAll(async () => {
    await adapter?.stopStreams();
    await t?.close();
    await venue?.close();
  });

  const order = (
    amount: number,
    symbol = 'BTC/USDT',
    idempotencyKey: string = randomUUID(),
    extra: object = {},
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...auth, 'idempotency-key': idempotencyKey },
      payload: { symbol, side: 'long', type: 'market', amount, ...extra },
    });
  const positions = async () =>
    ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[]).map((p) =>
      Position.parse(p),
    );
  const close = (symbol: string) =>
    t.app.inject({ method: 'POST', url: '/api/close_position', headers: auth, payload: { symbol } });
  const placed = () => venue.orders(key.apiKey).length;

  it('`account use` names the venue of the key', async () => {
    const chosen = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: auth,
      payload: { account: keyId },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(AccountState.parse(chosen.json())).toMatchObject({
      account: keyId,
      venue: venue.venue,
      mode: 'live',
    });
  });

  it('`btc long 500` sends exactly one order, sized on the venue, and the fill names the venue', async () => {
    const before = placed();
    const res = await order(500);
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.account).toEqual({ venue: venue.venue, mode: 'live', keyHint: expect.any(String) });
    expect(fill.symbol).toBe('BTC/USDT');
    expect(fill.price).toBeCloseTo(PRICE, -2);
    // Within one lot step of 500 USDT, on the venue's own step.
    expect(Math.abs(fill.notional - 500)).toBeLessThan(0.001 * PRICE);
    expect(placed()).toBe(before + 1);
    const sent = venue.orders(key.apiKey).at(-1);
    expect(sent).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', reduceOnly: false });
    expect(sent?.quantity).toBeCloseTo(fill.quantity, 10);
    expect(venue.position(key.apiKey, 'BTCUSDT')).toBeCloseTo(fill.quantity, 10);
    const [row] = await positions();
    expect(row).toMatchObject({ symbol: 'BTC/USDT', side: 'long' });
    expect(row?.size).toBeCloseTo(fill.quantity, 10);
    // The receipt splits the venue's call from ours; OKX alone says what it spent itself (the double's
    // gateway answers 1.5 ms between inTime and outTime).
    expect(fill.timing?.venue_ms).toBeGreaterThan(0);
    expect(fill.timing?.total_ms).toBeGreaterThanOrEqual(fill.timing?.venue_ms ?? Infinity);
    expect(fill.timing?.venue_own_ms).toBe(venue.venue === 'okx' ? 1.5 : null);
  });

  it('an unknown outcome after the fill is looked up and answered as the fill, never sent twice', async () => {
    for (const fault of ['unknown-after-fill', 'timeout'] as const) {
      venue.failNextOrder(fault);
      const before = placed();
      const idempotencyKey = randomUUID();
      const res = await order(200, 'ETH/USDT', idempotencyKey);
      expect(res.statusCode, `${fault}: ${res.body}`).toBe(200);
      expect(OrderResponse.parse(res.json()).status).toBe('filled');
      const again = await order(200, 'ETH/USDT', idempotencyKey);
      expect(again.statusCode).toBe(200);
      expect(placed(), fault).toBe(before + 1);
    }
  });

  it("a duplicate client id is the order already there: one order, the venue's word", async () => {
    venue.failNextOrder('duplicate');
    const before = placed();
    const res = await order(200, 'ETH/USDT');
    expect([200, 503], res.body).toContain(res.statusCode);
    expect(placed()).toBe(before + 1);
  });

  it("a refusal is a 400 in the venue's words, and nothing is placed", async () => {
    venue.failNextOrder('refused');
    const before = placed();
    const res = await order(200);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ detail: string }>().detail.length).toBeGreaterThan(5);
    expect(placed()).toBe(before);
  });

  it('a rate limit is a 503 with Retry-After naming the venue; nothing is placed', async () => {
    venue.rateLimit(1);
    const before = placed();
    const res = await order(200);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.json<{ detail: string }>().detail).toContain(label);
    expect(placed()).toBe(before);
    // The account's calls keep off the venue until then.
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers['retry-after']) * 1000 + 100));
  });

  it('a symbol the venue does not list is refused before anything is sent, naming the venue', async () => {
    const requests = venue.requests().length;
    const res = await order(200, 'ZIL/USDT');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ detail: `${label} does not list ZIL/USDT.` });
    expect(
      venue
        .requests()
        .slice(requests)
        .some((r) => r.startsWith('POST')),
    ).toBe(false);
  });

  it('rests the stop and the target on the venue; the stop fires there and closes the position', async () => {
    await close('BTC/USDT');
    const res = await order(1_000, 'BTC/USDT', randomUUID(), {
      protection: { stop_loss_pct: 2, take_profit_pct: 4 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.protection).toMatchObject({
      stop_loss: { on: 'exchange', state: 'resting' },
      take_profit: { on: 'exchange', state: 'resting' },
    });
    const legs = venue.restingLegs(key.apiKey, 'BTCUSDT');
    expect(legs.map((l) => l.kind).sort()).toEqual(['sl', 'tp']);
    const stop = legs.find((l) => l.kind === 'sl')?.trigger ?? 0;
    expect(stop).toBeCloseTo(fill.price * 0.98, -1);
    venue.setPrice('BTCUSDT', stop - 10);
    await vi.waitFor(() => expect(venue.position(key.apiKey, 'BTCUSDT')).toBe(0), { timeout: 4_000 });
    await vi.waitFor(async () => expect((await positions()).map((p) => p.symbol)).not.toContain('BTC/USDT'), {
      timeout: 4_000,
    });
    venue.setPrice('BTCUSDT', PRICE);
  });

  it('closes one position with a reduce-only order, then all of them', async () => {
    expect((await order(300)).statusCode).toBe(200);
    const closed = await close('BTC/USDT');
    expect(closed.statusCode, closed.body).toBe(200);
    expect(venue.orders(key.apiKey).at(-1)).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'SELL',
      reduceOnly: true,
    });
    expect(venue.position(key.apiKey, 'BTCUSDT')).toBe(0);
    expect((await order(300)).statusCode).toBe(200);
    const all = await t.app.inject({ method: 'POST', url: '/api/close_all_positions', headers: auth });
    expect(all.statusCode, all.body).toBe(200);
    await vi.waitFor(async () => expect(await positions()).toEqual([]), { timeout: 3_000 });
    expect(venue.position(key.apiKey, 'ETHUSDT')).toBeCloseTo(0, 10);
  });

  it('a positions answer in a shape the venue never promised is a 502 naming the venue, never a 500', async () => {
    // A few answers, since the reconciliation reads positions too; past the adapters' reuse (1 to 2 s).
    venue.unreadablePositions(8);
    await sleep(2_100);
    const res = await t.app.inject({ url: '/api/positions', headers: auth });
    expect(res.statusCode, res.body).toBe(502);
    expect((res.json() as { detail: string }).detail).toMatch(
      new RegExp(
        `^${label} sent an answer we could not read for the positions \\(.+\\)\\. Nothing was changed\\.$`,
      ),
    );
    // Once the venue answers in its shape again, so does the app.
    await vi.waitFor(
      async () => expect((await t.app.inject({ url: '/api/positions', headers: auth })).statusCode).toBe(200),
      { timeout: 10_000, interval: 300 },
    );
  });

  it('a rule bound to the key fires one order on the venue, and its ledger row names the venue', async () => {
    const send = (method: 'POST' | 'PUT', url: string, payload: object) =>
      t.app.inject({ method, url, headers: auth, payload });
    const risk = await send('PUT', '/api/rules/risk', {
      cooldown_minutes: 0,
      live_daily_budget_usd: 100_000,
    });
    expect(risk.statusCode, risk.body).toBe(200);
    const saved = await send('POST', '/api/rules/', {
      ruleName: `BTC on ${label}`,
      conditions: { asset: 'BTC' },
      action: { type: 'trade', side: 'long', amount_usd: 500, account: keyId },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const before = placed();
    await t.api.rules.engine.reload();
    const signalId = freshSignalId();
    await t.api.rules.engine.evaluate(completedSignal({ id: signalId, assets: ['BTC'] }));
    const row = await until(async () =>
      (await ledger(t, auth.authorization)).find((d) => d.signal_id === signalId && d.outcome === 'fired'),
    );
    expect(row).toMatchObject({ account: keyId, account_mode: 'live', account_venue: venue.venue });
    expect(row.timeline?.venue_ms).toBeGreaterThan(0);
    expect(row.timeline?.venue_own_ms).toBe(venue.venue === 'okx' ? 1.5 : null);
    expect(decisionReceipt(row.timeline!, row.account_venue)).toMatch(
      new RegExp(`^\\d+ ms after the news: .*ours \\d+, ${label} \\d+`),
    );
    expect(placed()).toBe(before + 1);
    expect(venue.orders(key.apiKey).at(-1)).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY' });
    expect((await close('BTC/USDT')).statusCode).toBe(200);
  });

  it('the trade history names the venue of every fill', async () => {
    const res = await t.app.inject({ url: '/api/trades?limit=100', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    const rows = (res.json() as { trades: unknown[] }).trades.map((r) => Trade.parse(r));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(new Set(rows.map((r) => r.account.venue))).toEqual(new Set([venue.venue]));
  });

  it('never sends a secret in the clear', () => {
    const all = venue.requests().join('\n');
    expect(all).not.toContain(key.secret);
    expect(all).not.toContain('Contract-pass-1');
  });

  describe('limit orders', () => {
    limitContract({
      venue: () => venue,
      apiKey: () => key.apiKey,
      adapter: () => adapter,
      account: () => `contract:${keyId}`,
    });
  });

  describe('the slippage guard', () => {
    slippageContract({
      venue: () => venue,
      apiKey: () => key.apiKey,
      order: (amount, idempotencyKey, extra) => order(amount, 'BTC/USDT', idempotencyKey, extra),
      close: () => close('BTC/USDT'),
      setRisk: (change) =>
        t.app.inject({ method: 'PUT', url: '/api/rules/risk', headers: auth, payload: change }),
    });
  });
});
