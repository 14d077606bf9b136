import { describe, expect, it } from 'vitest';
import type { TradeStatus } from './tradePanel';
import { createPositionsStore } from './positionsStore';
import { countingKeys, fakeTradingApi } from './testing/api';
import { recordedFill, recordedRefusal, recordedReply } from './testing/serverAnswers';
import { createTradePanelModel, defaultTotal, totalHint, validateTradeTotal } from './tradePanel';

describe('trade panel validation (docs/product.md §5)', () => {
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
    const fill = recordedFill('eth short 250');
    server.on('POST /orders', () => recordedReply('eth short 250'));
    await model.submit('sell', 250, 'ETH/USDT');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'ETH/USDT',
      side: 'sell',
      type: 'market',
      amount: 250,
    });
    expect(server.requests[0]?.idempotencyKey).toBe('key-1');
    expect(states).toEqual(['idle', 'placing', 'success']);
    expect(model.status.value).toEqual({
      state: 'success',
      message: `Success! Order ID: ${fill.id}. Filled SHORT 0.079 ETH ≈ 249.16 USDT of ETH/USDT at 3,153.94, fee 0.12 USDT. Paper exchange: no real funds.`,
    });
    expect(positions.refreshRequests.value.count).toBe(1);
  });

  it('sends the stop loss and take profit typed, a percent or a price, and shows what the answer says of them', async () => {
    const { server, model } = setup('t');
    const fill = recordedFill('eth short 250');
    server.on('POST /orders', () => ({
      status: 200,
      body: {
        ...fill,
        protection: {
          stop_loss: { price: 3_217.02, on: 'exchange', state: 'resting' },
          take_profit: { price: 3_000, on: 'exchange', state: 'placing' },
          trailing: null,
          exit_at: null,
          unprotected_ms: 95,
          note: null,
        },
      },
    }));
    await model.submit('sell', 250, 'ETH/USDT', { stopLoss: '2%', takeProfit: ' 3000 ' });
    expect(JSON.parse(server.requests[0]?.body ?? '').protection).toEqual({
      stop_loss_pct: 2,
      take_profit_price: 3000,
    });
    expect(model.status.value).toMatchObject({
      state: 'success',
      message: expect.stringMatching(
        /Paper exchange: no real funds\. Stop loss 3,217\.02: resting on the paper exchange\. Take profit 3,000\.00: placing on the paper exchange\. Unprotected for 95 ms\.$/,
      ),
    });
    // Both blank: no protection at all.
    server.on('POST /orders', () => recordedReply('eth short 250'));
    await model.submit('sell', 250, 'ETH/USDT', { stopLoss: ' ', takeProfit: '' });
    expect(JSON.parse(server.requests[1]?.body ?? '')).not.toHaveProperty('protection');
  });

  it('refuses a mistyped stop or target without sending the order', async () => {
    const { server, model } = setup('t');
    await model.submit('buy', 100, 'BTC/USDT', { stopLoss: '2 %', takeProfit: '' });
    expect(model.status.value).toEqual({
      state: 'error',
      message: "Stop loss: '2 %' is neither a percent (2%) nor a price (98000).",
    });
    await model.submit('buy', 100, 'BTC/USDT', { stopLoss: '', takeProfit: '2000%' });
    expect(model.status.value).toEqual({
      state: 'error',
      message: 'Take profit must be between 0.05% and 1000%.',
    });
    expect(server.requests).toEqual([]);
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
    const refusal = recordedRefusal('sol long 150000');
    server.on('POST /orders', () => refusal);
    await model.submit('buy', 150_000, 'SOL/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: `Error: ${refusal.body.detail}` });
    expect(states).toEqual(['idle', 'placing', 'error']);
    server.on('POST /orders', () => ({ status: 500 }));
    await model.submit('buy', 100, 'BTC/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Error: Failed to place order.' });
  });
});

describe('trade panel minimum', () => {
  it('refuses a total under the symbol’s minimum without sending it, in the server’s words', async () => {
    const { server, session, trading } = fakeTradingApi('t');
    const model = createTradePanelModel({ session, trading, positions: createPositionsStore() });
    await model.submit('buy', 10, 'BTC/USDT');
    expect(model.status.value).toEqual({
      state: 'error',
      message: 'Error: The minimum order for BTC/USDT is 100 USDT.',
    });
    expect(recordedRefusal('btc long 10').body.detail).toMatch(
      /^The minimum order for BTC\/USDT is 100 USDT\./,
    );
    expect(server.requests).toEqual([]);
  });
});

describe('trade panel total', () => {
  it('starts at 10 USDT, or at the symbol’s minimum when that is higher', () => {
    expect(defaultTotal('ETH/USDT')).toBe(20);
    expect(defaultTotal('BTC/USDT')).toBe(100);
    expect(defaultTotal('SOL/USDT')).toBe(10);
  });

  it('shows the minimum and what the total buys at the last price, as the server will size it', () => {
    const fill = recordedFill('btc long 200');
    expect(totalHint('BTC/USDT', 200, fill.price)).toEqual({
      minimum: 'min. 100 USDT',
      sizing:
        '≈ 0.002 BTC ≈ 201.37 USDT. Not exactly 200 USDT: BTC trades in steps of 0.001 BTC ≈ 100.68 USDT ' +
        '(100.68 or 201.37), so the order is the nearest, 0.002 BTC ≈ 201.37 USDT.',
      refused: false,
    });
    expect(fill).toMatchObject({ quantity: 0.002, notional: 201.3662 });
    expect(totalHint('BTC/USDT', 150, 100_683.1).sizing).toMatch(/^≈ 0\.001 BTC ≈ 100\.68 USDT\./);
  });

  it('says before sending that a total under the minimum is refused, naming the symbol and minimum', () => {
    const hint = totalHint('BTC/USDT', 10, 100_683.1);
    expect(hint.refused).toBe(true);
    expect(hint.sizing).toBe(recordedRefusal('btc long 10').body.detail);
    expect(totalHint('BTC/USDT', 10, undefined)).toEqual({
      minimum: 'min. 100 USDT',
      sizing: null,
      refused: false,
    });
  });
});

describe('trade panel stale messages', () => {
  it('"Please log in to trade." goes away once logged in', async () => {
    const { server, session, trading } = fakeTradingApi(null);
    const model = createTradePanelModel({ session, trading, positions: createPositionsStore() });
    await model.submit('buy', 100, 'BTC/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Please log in to trade.' });
    session.setToken('t');
    expect(model.status.value).toEqual({ state: 'idle' });
    expect(server.requests).toEqual([]);
  });
});
