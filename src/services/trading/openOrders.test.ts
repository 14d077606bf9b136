import { describe, expect, it } from 'vitest';
import type { OpenOrder, OrderResponse } from '../../contracts/trading';
import type { FakeReply } from '../testing/fakeServer';
import { createOpenOrdersStore } from './openOrdersStore';
import { limitPriceText, openOrderCells, restingText } from './openOrders';
import { createPositionsStore } from './positionsStore';
import { countingKeys, fakeTradingApi } from './testing/api';
import { recordedFill } from './testing/serverAnswers';
import { createTradePanelModel } from './tradePanel';

const order = (over: Partial<OpenOrder> = {}): OpenOrder => ({
  id: 'a1b2c3d4-1',
  clientOrderId: 'sc-1',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  price: 95_000,
  quantity: 0.053,
  filled: 0,
  time_in_force: 'GTC',
  reduce_only: false,
  created_at: '2026-01-01T00:00:00.000Z',
  account: { venue: 'paper', mode: 'paper', keyHint: null },
  ...over,
});

const RESTING: OrderResponse = {
  ...recordedFill('btc long 200'),
  status: 'open',
  order_type: 'limit',
  quantity: 0,
  price: 95_000,
  limit: { price: 95_000, quantity: 0.053, time_in_force: 'GTC' },
};

describe('open orders in words', () => {
  it('shows a limit price with every decimal it has, at least one', () => {
    expect(limitPriceText('BTC/USDT', 95_000)).toBe('95,000.0');
    expect(limitPriceText('BTCUSDT', 61_000.1)).toBe('61,000.1');
    expect(limitPriceText('ZIL/USDT', 0.02305)).toBe('0.02305');
  });

  it("says where a resting order rests, from the server's answer", () => {
    expect(restingText(RESTING)).toBe('Resting: BUY 0.053 BTC/USDT @ 95,000.0 GTC on Paper account');
    const live = { ...RESTING, account: { venue: 'bybit', mode: 'live', keyHint: 'ab…yz' } } as const;
    expect(restingText({ ...live, side: 'sell' })).toBe(
      'Resting: SELL 0.053 BTC/USDT @ 95,000.0 GTC on Bybit LIVE account',
    );
  });

  it('gives each row its cells and age', () => {
    const at = Date.parse('2026-01-01T00:02:05.000Z');
    expect(openOrderCells(order({ filled: 0.01, time_in_force: 'POST' }), at)).toEqual([
      'a1b2c3d4',
      'BTC/USDT',
      'BUY',
      '95,000.0',
      '0.053',
      '0.01',
      'POST',
      '2m',
    ]);
  });
});

describe('open orders store', () => {
  it('takes pushed lists, and a refresh that answers after a push does not overwrite it', async () => {
    const { server, trading } = fakeTradingApi('t');
    let answer: (v: FakeReply) => void = () => undefined;
    server.on('GET /orders/open', () => new Promise((resolve) => (answer = resolve)));
    const store = createOpenOrdersStore();
    const refreshing = store.refresh(trading);
    store.setOrders([order({ id: 'pushed' })]);
    answer({ status: 200, body: [order({ id: 'stale' })] });
    await refreshing;
    expect(store.orders.value.map((o) => o.id)).toEqual(['pushed']);
  });

  it('cancels one and all, and names a failure', async () => {
    const { server, trading } = fakeTradingApi('t');
    const store = createOpenOrdersStore();
    store.setOrders([order({ id: 'x' }), order({ id: 'y' }), order({ id: 'z' })]);
    server.on('DELETE /orders/open/x', () => ({ status: 200, body: order({ id: 'x' }) }));
    await store.cancel(trading, 'x');
    expect(store.orders.value.map((o) => o.id)).toEqual(['y', 'z']);
    server.on('DELETE /orders/open', () => ({
      status: 200,
      body: {
        cancelled: [order({ id: 'y' })],
        failed: [{ id: 'z', symbol: 'BTC/USDT', detail: 'Venue busy.' }],
      },
    }));
    await store.cancelAll(trading);
    expect(store.orders.value.map((o) => o.id)).toEqual(['z']);
    expect(store.problem.value).toBe('Venue busy.');
    server.on('DELETE /orders/open/z', () => ({ status: 404, body: { detail: 'No open order z.' } }));
    await store.cancel(trading, 'z');
    expect(store.problem.value).toBe('No open order z.');
  });
});

describe('trade panel limit mode', () => {
  function setup() {
    const { server, session, trading } = fakeTradingApi('t');
    const model = createTradePanelModel({
      session,
      trading,
      positions: createPositionsStore(),
      newKey: countingKeys(),
    });
    return { server, model };
  }

  it('sends a limit order with its price and time in force, and says it rests', async () => {
    const { server, model } = setup();
    server.on('POST /orders', () => ({ status: 200, body: RESTING }));
    await model.submit('buy', 5035, 'BTC/USDT', undefined, { price: 95_000, timeInForce: 'POST' });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'limit',
      price: 95_000,
      timeInForce: 'POST',
      amount: 5035,
    });
    expect(model.status.value).toEqual({
      state: 'success',
      message: `Success! Order ID: ${RESTING.id}. Resting: BUY 0.053 BTC/USDT @ 95,000.0 GTC on Paper account.`,
    });
  });

  it('needs a price, and no protection', async () => {
    const { server, model } = setup();
    await model.submit('buy', 500, 'BTC/USDT', undefined, { price: Number.NaN, timeInForce: 'GTC' });
    expect(model.status.value).toEqual({ state: 'error', message: 'Limit price must be greater than zero.' });
    await model.submit(
      'buy',
      500,
      'BTC/USDT',
      { stopLoss: '2%', takeProfit: '' },
      { price: 9, timeInForce: 'GTC' },
    );
    expect(model.status.value).toMatchObject({
      state: 'error',
      message: expect.stringContaining('filled position'),
    });
    expect(server.requests).toEqual([]);
  });
});
