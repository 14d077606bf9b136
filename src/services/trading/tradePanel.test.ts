import { describe, expect, it } from 'vitest';
import type { TradeStatus } from './tradePanel';
import { createPositionsStore } from './positionsStore';
import { countingKeys, fakeTradingApi } from './testing/api';
import { createTradePanelModel, validateTradeTotal } from './tradePanel';

describe('trade panel validation (spec §5)', () => {
  it('asks a guest to log in, whatever the total', () => {
    expect(validateTradeTotal(false, 10)).toEqual({ ok: false, message: 'Please log in to trade.' });
    expect(validateTradeTotal(false, 0)).toEqual({ ok: false, message: 'Please log in to trade.' });
  });

  it('needs a total above zero', () => {
    for (const total of [0, -5, Number.NaN]) {
      expect(validateTradeTotal(true, total)).toEqual({
        ok: false,
        message: 'Total must be greater than zero.',
      });
    }
    expect(validateTradeTotal(true, 0.5)).toEqual({ ok: true, total: 0.5 });
  });
});

describe('trade panel model', () => {
  function setup(token: string | null) {
    const { server, session, trading } = fakeTradingApi(token);
    const positions = createPositionsStore();
    const model = createTradePanelModel({ session, trading, positions, newKey: countingKeys() });
    const states: TradeStatus['state'][] = [];
    model.status.subscribe((s) => states.push(s.state));
    return { server, positions, model, states };
  }

  it('shows the validation message and sends nothing when the check fails', async () => {
    const { server, model } = setup(null);
    await model.submit('buy', 10, 'BTC/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Please log in to trade.' });
    expect(server.requests).toEqual([]);
  });

  it('goes idle → placing → success with the order id, and asks the positions to reload', async () => {
    const { server, positions, model, states } = setup('t');
    server.on('POST /orders', () => ({
      status: 200,
      body: {
        id: 'ord-1',
        symbol: 'ETH/USDT',
        side: 'sell',
        quantity: 0.1,
        price: 3400,
        fee: 0.17,
        status: 'filled',
        realizedPnl: 0,
      },
    }));
    await model.submit('sell', 340, 'ETH/USDT');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'ETH/USDT',
      side: 'sell',
      type: 'market',
      amount: 340,
    });
    expect(server.requests[0]?.idempotencyKey).toBe('key-1');
    expect(states).toEqual(['idle', 'placing', 'success']);
    expect(model.status.value).toEqual({ state: 'success', message: 'Success! Order ID: ord-1' });
    expect(positions.refreshRequests.value).toBe(1);
  });

  it('ignores a second click while placing', async () => {
    const { server, model } = setup('t');
    let release = (): void => undefined;
    server.on(
      'POST /orders',
      () => new Promise((resolve) => (release = () => resolve({ status: 400, body: { detail: 'No.' } }))),
    );
    const first = model.submit('buy', 100, 'BTC/USDT');
    await new Promise((r) => setTimeout(r, 0));
    await model.submit('buy', 100, 'BTC/USDT');
    release();
    await first;
    expect(server.count('POST /orders')).toBe(1);
  });

  it('shows "Error: {detail}", or "Error: Failed to place order." without one', async () => {
    const { server, model, states } = setup('t');
    server.on('POST /orders', () => ({
      status: 400,
      body: { detail: "Order's notional must be no smaller than 100 (unless you choose reduce only)." },
    }));
    await model.submit('buy', 10, 'BTC/USDT');
    expect(model.status.value).toEqual({
      state: 'error',
      message: "Error: Order's notional must be no smaller than 100 (unless you choose reduce only).",
    });
    expect(states).toEqual(['idle', 'placing', 'error']);
    server.on('POST /orders', () => ({ status: 500 }));
    await model.submit('buy', 10, 'BTC/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Error: Failed to place order.' });
  });
});
