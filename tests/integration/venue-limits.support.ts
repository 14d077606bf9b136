import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect, it, vi } from 'vitest';
import { OrderResponse } from '../../src/contracts/trading';
import { BinanceClient } from '../../server/modules/exchanges/binance-client';
import { BybitClient } from '../../server/modules/exchanges/bybit-client';
import { OkxClient } from '../../server/modules/exchanges/okx-client';
import type { VenueCredentials } from '../../server/modules/exchanges/credentials';
import type { LiveExchangeAdapter } from '../../server/modules/trading/exchange';
import { ExchangeError } from '../../server/modules/trading/exchange-error';
import { BinanceUsdmExchange } from '../../server/modules/trading/live/binance-usdm';
import { BybitLinearExchange } from '../../server/modules/trading/live/bybit/bybit-linear';
import { OkxSwapExchange } from '../../server/modules/trading/live/okx/okx-swap';
import type { VenueDouble } from '../fixtures/venue-double';

/**
 * The venue's live adapter on its double, signing with one key: what the limit-order contract drives
 * (the routes for open orders are the app's own; this is the seam under them, the same on every venue).
 */
export function adapterOn(venue: VenueDouble, creds: VenueCredentials): LiveExchangeAdapter {
  const credentials = () => Promise.resolve(creds);
  const timeoutMs = 500;
  if (venue.venue === 'binance') {
    return new BinanceUsdmExchange({
      client: new BinanceClient({ baseUrl: venue.url, timeoutMs }),
      credentials,
    });
  }
  if (venue.venue === 'bybit') {
    return new BybitLinearExchange({
      client: new BybitClient({ baseUrl: venue.url, timeoutMs }),
      credentials,
    });
  }
  return new OkxSwapExchange({ client: new OkxClient({ baseUrl: venue.url, timeoutMs }), credentials });
}

export interface LimitContext {
  venue: () => VenueDouble;
  apiKey: () => string;
  adapter: () => LiveExchangeAdapter;
  account: () => string;
}

const PRICE = 60_000;

/**
 * The limit-order contract every venue keeps: a GTC limit below the price rests and is listed, and is
 * cancelled; it fills once the price reaches it, and a cancel then answers null; an IOC that cannot
 * take expires at once; a post-only that would take is refused in the venue's words; a placement whose
 * answer is lost is looked up, and the venue holds one order.
 */
export function limitContract(ctx: LimitContext): void {
  const place = (over: { price: string; timeInForce?: 'GTC' | 'IOC' | 'GTX'; clientId?: string }) =>
    ctx.adapter().placeLimitOrder!(ctx.account(), {
      symbol: 'BTCUSDT',
      side: 'BUY',
      price: over.price,
      quantity: '0.010',
      timeInForce: over.timeInForce ?? 'GTC',
      newClientOrderId: over.clientId ?? `lim-${randomUUID().slice(0, 12)}`,
    });
  const open = () => ctx.adapter().openOrders!(ctx.account(), 'BTCUSDT');
  const all = () => ctx.venue().limitOrders(ctx.apiKey());
  const held = (orderId: string) => all().filter((o) => o.orderId === orderId);
  const resting = () => all().filter((o) => o.state === 'open').length;

  it('a GTC limit below the price rests on the venue, is listed, and is cancelled', async () => {
    const placed = await place({ price: String(PRICE - 1_000.05) });
    expect(placed).toMatchObject({ type: 'LIMIT', status: 'NEW', executedQty: '0', side: 'BUY' });
    expect(held(placed.orderId)).toEqual([
      expect.objectContaining({ state: 'open', price: PRICE - 1_000.1 }),
    ]);
    const listed = await open();
    expect(listed.map((o) => o.clientOrderId)).toContain(placed.clientOrderId);
    const row = listed.find((o) => o.clientOrderId === placed.clientOrderId);
    expect(row).toMatchObject({ side: 'BUY', timeInForce: 'GTC', status: 'NEW', reduceOnly: false });
    expect(Number(row?.price)).toBeCloseTo(PRICE - 1_000.1, 6);
    expect(Number(row?.origQty)).toBeCloseTo(0.01, 10);
    const cancelled = await ctx.adapter().cancelOrder!(ctx.account(), 'BTCUSDT', { orderId: placed.orderId });
    expect(cancelled).toMatchObject({ clientOrderId: placed.clientOrderId, status: 'CANCELED' });
    expect(held(placed.orderId)[0]?.state).toBe('cancelled');
    expect((await open()).map((o) => o.clientOrderId)).not.toContain(placed.clientOrderId);
  });

  it('a resting limit fills when the price reaches it; its cancel then answers null', async () => {
    const placed = await place({ price: String(PRICE - 500) });
    expect(placed.status).toBe('NEW');
    ctx.venue().setPrice('BTCUSDT', PRICE - 600);
    await vi.waitFor(() => expect(held(placed.orderId)[0]?.state).toBe('filled'), { timeout: 2_000 });
    const cancelled = await ctx.adapter().cancelOrder!(ctx.account(), 'BTCUSDT', {
      clientOrderId: placed.clientOrderId,
    });
    expect(cancelled).toBeNull();
    ctx.venue().setPrice('BTCUSDT', PRICE);
    const found = await ctx.adapter().queryOrder(ctx.account(), placed.clientOrderId, 'BTCUSDT');
    expect(found).toMatchObject({ status: 'FILLED' });
    expect(Number(found?.executedQty)).toBeCloseTo(0.01, 10);
    expect(Number(found?.avgPrice)).toBeCloseTo(PRICE - 500, 6);
    expect(
      await ctx.adapter().closePosition(ctx.account(), 'BTCUSDT', `lc-${randomUUID().slice(0, 8)}`),
    ).not.toBeNull();
  });

  it('an IOC that cannot take expires at once, with nothing executed and nothing resting', async () => {
    const placed = await place({ price: String(PRICE - 2_000), timeInForce: 'IOC' });
    expect(placed.status).toBe('EXPIRED');
    expect(Number(placed.executedQty)).toBe(0);
    expect((await open()).map((o) => o.clientOrderId)).not.toContain(placed.clientOrderId);
  });

  it("a post-only that would take is refused in the venue's words, and nothing rests", async () => {
    const clientId = `po-${randomUUID().slice(0, 12)}`;
    const before = resting();
    const refused = await place({ price: String(PRICE + 100), timeInForce: 'GTX', clientId }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ExchangeError);
    expect((refused as ExchangeError).msg.length).toBeGreaterThan(10);
    expect((await open()).map((o) => o.clientOrderId)).not.toContain(clientId);
    expect(resting()).toBe(before);
  });

  it('a placement whose answer is lost is looked up by its client id: one order on the venue', async () => {
    for (const fault of ['unknown-after-fill', 'timeout'] as const) {
      const clientId = `lu-${randomUUID().slice(0, 12)}`;
      const before = all().length;
      ctx.venue().failNextOrder(fault);
      const placed = await place({ price: String(PRICE - 700), clientId });
      expect(placed, fault).toMatchObject({ status: 'NEW' });
      expect(all().length, fault).toBe(before + 1);
      expect(held(placed.orderId), fault).toHaveLength(1);
      expect(placed.clientOrderId, fault).toBe(clientId);
      expect(
        await ctx.adapter().cancelOrder!(ctx.account(), 'BTCUSDT', { clientOrderId: clientId }),
      ).toMatchObject({
        status: 'CANCELED',
      });
    }
  });
}

export interface SlippageContext {
  venue: () => VenueDouble;
  apiKey: () => string;
  /** `POST /api/orders` of a market long on BTC/USDT through the app, under an Idempotency-Key. */
  order: (amount: number, idempotencyKey: string, extra: object) => Promise<LightMyRequestResponse>;
  close: () => Promise<unknown>;
  /** `PUT /api/rules/risk`. */
  setRisk: (change: object) => Promise<LightMyRequestResponse>;
}

/**
 * The slippage guard on every venue, through the app: a market order with a cap is estimated from the
 * venue's book; within the cap it goes as a market order, past it as an IOC limit at the cap price, and
 * the answer carries the receipt. Thirty retries at once of one such order leave one order on the venue.
 */
export function slippageContract(ctx: SlippageContext): void {
  const limits = () => ctx.venue().limitOrders(ctx.apiKey());

  it('a market order within its slippage cap goes as a market order, with the receipt', async () => {
    const before = limits().length;
    const res = await ctx.order(500, randomUUID(), { maxSlippagePct: 0.3 });
    expect(res.statusCode, res.body).toBe(200);
    const fill = OrderResponse.parse(res.json());
    expect(fill.slippage).toMatchObject({ cap_pct: 0.3, sent_as: 'market' });
    expect(fill.slippage?.estimated_pct).toBeGreaterThan(0);
    expect(fill.slippage?.estimated_pct).toBeLessThan(0.05);
    expect(fill.slippage?.actual_pct).toBeCloseTo(0, 2);
    expect(limits().length).toBe(before);
    await ctx.close();
  });

  it('past the cap on a thin book it goes as an IOC limit at the cap price, once for 30 retries at once', async () => {
    ctx.venue().setBook('BTCUSDT', { size: 0.001, gapPct: 0.2 });
    // The orders of the tests before may have spent this second's order budget (Bybit: 10 a second per
    // key), and the account then keeps off the venue until it resets: the burst starts on a fresh one.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    try {
      const before = limits().length;
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => ctx.order(500, key, { maxSlippagePct: 0.3 })),
      );
      const filled = answers.filter((r) => r.statusCode === 200);
      expect(filled.length, answers.map((r) => r.body).join('\n')).toBeGreaterThan(0);
      for (const r of answers) expect([200, 409, 503], r.body).toContain(r.statusCode);
      const fill = OrderResponse.parse(filled[0]!.json());
      expect(fill.slippage).toMatchObject({ cap_pct: 0.3, sent_as: 'ioc_limit' });
      expect(fill.slippage?.estimated_pct).toBeGreaterThan(0.3);
      expect(fill.slippage?.actual_pct).toBeLessThanOrEqual(0.3);
      const sent = limits().slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ side: 'BUY', state: 'filled', price: 60_180 });
    } finally {
      ctx.venue().setBook('BTCUSDT', { size: 0.5, gapPct: 0.01 });
      await ctx.close();
    }
  });

  it("the user's own cap, kept with their risk settings, guards an order sent without one", async () => {
    const saved = await ctx.setRisk({ max_slippage_pct: 0.25 });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json<{ max_slippage_pct: number }>().max_slippage_pct).toBe(0.25);
    const res = await ctx.order(300, randomUUID(), {});
    expect(res.statusCode, res.body).toBe(200);
    expect(OrderResponse.parse(res.json()).slippage).toMatchObject({ cap_pct: 0.25, sent_as: 'market' });
    // One of its own wins over the default.
    const own = await ctx.order(300, randomUUID(), { maxSlippagePct: 1 });
    expect(OrderResponse.parse(own.json()).slippage?.cap_pct).toBe(1);
    await ctx.close();
  });
}
