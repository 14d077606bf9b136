import { describe, expect, it } from 'vitest';
import { createApi } from '../api';
import { createSessionStore } from '../stores/session';
import { createFakeServer } from '../testing/fakeServer';
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
    const server = createFakeServer();
    const session = createSessionStore();
    session.setToken(token);
    const api = createApi({
      mainBase: '/api',
      tradingBase: '/api',
      fetch: server.fetch,
      tokens: session,
      navigate: () => undefined,
    });
    return { server, model: createTradePanelModel(session, api.trading) };
  }

  it('shows the validation message and sends nothing when the check fails', async () => {
    const { server, model } = setup(null);
    await model.submit('buy', 10, 'BTC/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Please log in to trade.' });
    expect(server.requests).toEqual([]);
  });

  it('places a market order and reports its id, or the server detail', async () => {
    const { server, model } = setup('t');
    server.on('POST /orders', (req) =>
      JSON.parse(req.body ?? '{}').amount === 10
        ? { status: 200, body: { id: 'ord-1' } }
        : { status: 400, body: { detail: 'Insufficient margin' } },
    );
    await model.submit('sell', 10, 'ETH/USDT');
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'ETH/USDT',
      side: 'sell',
      type: 'market',
      amount: 10,
    });
    expect(model.status.value).toEqual({ state: 'success', message: 'Success! Order ID: ord-1' });
    await model.submit('buy', 99, 'ETH/USDT');
    expect(model.status.value).toEqual({ state: 'error', message: 'Error: Insufficient margin' });
  });
});
