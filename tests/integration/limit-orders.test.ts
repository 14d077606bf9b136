import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  Balance,
  CancelOrdersResponse,
  OpenOrder,
  OrderPreview,
  OrderResponse,
  type PositionsMessage,
} from '../../src/contracts/trading';
import { startBinanceDouble, type BinanceDouble } from '../fixtures/binance-double';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

const pglite = useDatabase(dbTargets()[0]);

/** Limit orders through the API on the paper exchange, priced by Binance's local double. */
describe('limit orders through the API', () => {
  let double: BinanceDouble;
  let t: TestApp;
  let auth: { authorization: string };
  let messages: PositionsMessage[];
  let ws: WebSocket;

  beforeAll(async () => {
    double = await startBinanceDouble({ BTCUSDT: 60_000, ETHUSDT: 3_000 });
    t = await startTestApp(pglite, {
      MARKET_SOURCE: 'binance',
      BINANCE_FAPI_URL: double.restUrl,
      BINANCE_FSTREAM_URL: double.streamUrl,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    await vi.waitFor(() => expect(double.connections()).toBe(1));
    auth = await signUpAndLogIn(t.app, 'limits');
    const ticket = await t.app.inject({ method: 'POST', url: '/api/ws/ticket', headers: auth });
    const port = (t.app.server.address() as AddressInfo).port;
    messages = [];
    ws = new WebSocket(
      `ws://127.0.0.1:${port}/api/ws/positions?ticket=${ticket.json<{ ticket: string }>().ticket}`,
    );
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as PositionsMessage));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    await price('BTCUSDT', 60_000);
    await price('ETHUSDT', 3_000);
  });
  afterAll(async () => {
    ws?.close();
    await t?.close();
    await double?.close();
  });

  async function price(symbol: string, value: number) {
    double.marks.set(symbol, value);
    double.prices.set(symbol, value);
    double.tick();
    double.markPrice();
    await new Promise((r) => setTimeout(r, 80));
  }
  const order = (payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/orders', headers: { ...auth, ...headers }, payload });
  const open = async () =>
    ((await t.app.inject({ url: '/api/orders/open', headers: auth })).json() as unknown[]).map((o) =>
      OpenOrder.parse(o),
    );
  const balance = async () =>
    Balance.parse((await t.app.inject({ url: '/api/account/balance', headers: auth })).json());
  const cancelAll = (query = '') =>
    t.app.inject({ method: 'DELETE', url: `/api/orders/open${query}`, headers: auth });
  const lastOrders = () =>
    messages.findLast((m): m is Extract<PositionsMessage, { type: 'snapshot' }> => m.type === 'snapshot')
      ?.orders;

  it('rests a buy below the market, sized at its price on the tick, with its margin held', async () => {
    const before = await balance();
    const res = await order({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'limit',
      price: 59_000.07,
      amount: 5_900,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = OrderResponse.parse(res.json());
    // Down to BTC's 0.1 tick for a buy; 5 900 USDT at 59 000 is 0.1 BTC exactly.
    expect(body).toMatchObject({
      status: 'open',
      order_type: 'limit',
      quantity: 0,
      price: 59_000,
      limit: { price: 59_000, quantity: 0.1, time_in_force: 'GTC' },
      requested: 5_900,
      account: { venue: 'paper' },
    });
    expect(await open()).toEqual([
      expect.objectContaining({ id: body.id, symbol: 'BTC/USDT', side: 'buy', price: 59_000, quantity: 0.1 }),
    ]);
    // 590 of margin at 10x and 1.18 of maker fee are held, not spent.
    const after = await balance();
    expect(after.walletBalance).toBeCloseTo(before.walletBalance, 6);
    expect(after.availableBalance).toBeCloseTo(before.availableBalance - 591.18, 6);
    await vi.waitFor(() => expect(lastOrders()).toEqual([expect.objectContaining({ id: body.id })]));
  });

  it('fills at its price when the market trades through it, and the socket and history show it', async () => {
    await price('BTCUSDT', 59_500);
    expect(await open()).toHaveLength(1);
    await price('BTCUSDT', 58_990);
    await vi.waitFor(async () => expect(await open()).toEqual([]));
    await vi.waitFor(() => expect(lastOrders()).toEqual([]));
    expect(messages.filter((m) => m.type === 'limit_filled')).toEqual([
      expect.objectContaining({
        symbol: 'BTC/USDT',
        text: 'Limit filled: BUY 0.1 BTC/USDT @ 59,000.0, maker fee 1.18 USDT.',
      }),
    ]);
    const positions = (await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[];
    expect(positions).toEqual([
      expect.objectContaining({ symbol: 'BTC/USDT', size: 0.1, entryPrice: 59_000 }),
    ]);
    await vi.waitFor(async () => {
      const trades = (await t.app.inject({ url: '/api/trades', headers: auth })).json() as {
        trades: { price: number; fee: number }[];
      };
      // The maker fee: 0.02 % of 5 900.
      expect(trades.trades).toEqual([expect.objectContaining({ price: 59_000, fee: 1.18 })]);
    });
  });

  it('a sell above the market goes up to the tick; cancels answer the order, then a 404', async () => {
    const res = await order({
      symbol: 'BTC/USDT',
      side: 'short',
      type: 'limit',
      price: 61_000.01,
      amount: 1_000,
    });
    const body = OrderResponse.parse(res.json());
    expect(body.limit?.price).toBe(61_000.1);
    const gone = await t.app.inject({ method: 'DELETE', url: `/api/orders/open/${body.id}`, headers: auth });
    expect(gone.statusCode).toBe(200);
    expect(OpenOrder.parse(gone.json())).toMatchObject({ id: body.id, price: 61_000.1 });
    const again = await t.app.inject({ method: 'DELETE', url: `/api/orders/open/${body.id}`, headers: auth });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ detail: `No open order ${body.id}.` });
  });

  it("cancels one symbol's orders, then all", async () => {
    await order({ symbol: 'BTC/USDT', side: 'long', type: 'limit', price: 50_000, amount: 500 });
    await order({ symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_500, amount: 500 });
    await order({ symbol: 'ETH/USDT', side: 'short', type: 'limit', price: 3_500, amount: 500 });
    const btc = CancelOrdersResponse.parse((await cancelAll('?symbol=BTC/USDT')).json());
    expect(btc.cancelled.map((o) => o.symbol)).toEqual(['BTC/USDT']);
    expect((await open()).map((o) => o.symbol)).toEqual(['ETH/USDT', 'ETH/USDT']);
    const all = CancelOrdersResponse.parse((await cancelAll()).json());
    expect(all).toMatchObject({ failed: [] });
    expect(all.cancelled).toHaveLength(2);
    expect(await open()).toEqual([]);
  });

  it('thirty requests under one Idempotency-Key place one order and all answer it', async () => {
    const headers = { 'idempotency-key': 'limit-key-0001' };
    const payload = { symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_800, amount: 560 };
    const answers = await Promise.all(Array.from({ length: 30 }, () => order(payload, headers)));
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    const ids = new Set(answers.map((a) => OrderResponse.parse(a.json()).id));
    expect(ids.size).toBe(1);
    expect(await open()).toEqual([expect.objectContaining({ id: [...ids][0], quantity: 0.2 })]);
    const other = await order({ ...payload, price: 2_700 }, headers);
    expect(other.statusCode).toBe(409);
    await cancelAll();
  });

  it('thirty different limit orders at once hold no more margin than the account has', async () => {
    const free = (await balance()).availableBalance;
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        order({ symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_000, amount: 5_000 }),
      ),
    );
    const placed = answers.filter((a) => a.statusCode === 200).length;
    // Each holds 500 of margin and 1 of fee.
    expect(placed).toBe(Math.floor(free / 501));
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.json()).toEqual({ detail: 'Margin is insufficient.' });
    }
    expect((await balance()).availableBalance).toBeGreaterThanOrEqual(0);
    await cancelAll();
  });

  it('refuses what a limit order cannot be, in words', async () => {
    const cases: [object, number, string][] = [
      [{ price: 2_000, amount: 5 }, 400, 'minimum'],
      [{ price: 3_100, amount: 500, timeInForce: 'POST' }, 400, 'would take liquidity'],
      [{ price: 2_900, amount: 500, timeInForce: 'IOC' }, 400, 'expired the order without filling'],
      [{ amount: 500 }, 422, 'A limit order needs a price.'],
    ];
    for (const [over, status, text] of cases) {
      const res = await order({ symbol: 'ETH/USDT', side: 'long', type: 'limit', ...over });
      expect(res.statusCode, JSON.stringify(over)).toBe(status);
      expect(res.body).toContain(text);
    }
    const ioc = await order({
      symbol: 'ETH/USDT',
      side: 'long',
      type: 'limit',
      price: 3_100,
      amount: 300,
      timeInForce: 'IOC',
    });
    // Crossing at once: a taker fill at the market (2 bps of paper slippage), better than its limit.
    expect(OrderResponse.parse(ioc.json())).toMatchObject({
      status: 'filled',
      order_type: 'limit',
      price: 3_000.6,
      limit: { price: 3_100, time_in_force: 'IOC' },
    });
  });

  it('previews a resting limit at its price with the maker fee, and a crossing one as a taker fill', async () => {
    const preview = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/orders/preview', headers: auth, payload });
    const rests = OrderPreview.parse(
      (
        await preview({ symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 2_500, amount: 1_000 })
      ).json(),
    );
    expect(rests).toMatchObject({
      price: 2_500,
      quantity: 0.4,
      limit: { price: 2_500, time_in_force: 'GTC', rests: true },
    });
    expect(rests.fee).toBeCloseTo(0.2, 8);
    expect(rests.margin).toBeCloseTo(100, 8);
    const crosses = OrderPreview.parse(
      (await preview({ symbol: 'ETH/USDT', side: 'long', type: 'limit', price: 3_200, amount: 320 })).json(),
    );
    expect(crosses).toMatchObject({ price: 3_000.6, limit: { rests: false } });
    expect(crosses.fee).toBeCloseTo(crosses.notional * 0.0005, 8);
    expect(await open()).toEqual([]);
  });
});
