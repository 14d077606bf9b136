import { describe, expect, it } from 'vitest';
import { closeAllPositions, closedLines, closePosition, placeOrder } from './orders';
import { countingKeys, fakeTradingApi } from './testing/api';
import { recordedClose, recordedCloseAll, recordedFill } from './testing/serverAnswers';

const FILL = recordedFill('btc long 200');
const TICKET = { pair: 'BTC/USDT', side: 'long', amount: 5000 } as const;

describe('placing an order', () => {
  it('sends the market order with a fresh Idempotency-Key each time', async () => {
    const { server, trading } = fakeTradingApi();
    server.on('POST /orders', () => ({ status: 200, body: FILL }));
    const keys = countingKeys();
    expect(await placeOrder(trading, TICKET, keys)).toEqual({ ok: true, value: FILL });
    await placeOrder(trading, TICKET, keys);
    expect(server.requests.map((r) => r.idempotencyKey)).toEqual(['key-1', 'key-2']);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: 5000,
    });
  });

  it('retries a submission that got no answer with the same key', async () => {
    const { server, trading } = fakeTradingApi();
    let calls = 0;
    server.on('POST /orders', () => {
      calls += 1;
      if (calls < 3) throw new TypeError('network down');
      return { status: 200, body: FILL };
    });
    expect(await placeOrder(trading, TICKET, countingKeys())).toEqual({ ok: true, value: FILL });
    expect(server.requests.map((r) => r.idempotencyKey)).toEqual(['key-1', 'key-1', 'key-1']);
  });

  it('keeps the key when the call is retried after a token refresh', async () => {
    const { server, trading } = fakeTradingApi('old');
    server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'new' } }));
    server.on('POST /orders', (r) =>
      r.authorization === 'Bearer new'
        ? { status: 200, body: FILL }
        : { status: 401, body: { detail: 'Not authenticated' } },
    );
    expect((await placeOrder(trading, TICKET, countingKeys())).ok).toBe(true);
    const orders = server.requests.filter((r) => r.path === '/orders');
    expect(orders.map((r) => [r.authorization, r.idempotencyKey])).toEqual([
      ['Bearer old', 'key-1'],
      ['Bearer new', 'key-1'],
    ]);
  });

  it("answers the exchange's refusal once, without retrying, or the spec's fallback", async () => {
    const { server, trading } = fakeTradingApi();
    server.on('POST /orders', () => ({ status: 400, body: { detail: 'Margin is insufficient.' } }));
    expect(await placeOrder(trading, TICKET)).toEqual({ ok: false, message: 'Margin is insufficient.' });
    expect(server.count('POST /orders')).toBe(1);
    server.on('POST /orders', () => ({ status: 502, body: 'Bad gateway' }));
    expect(await placeOrder(trading, TICKET)).toEqual({ ok: false, message: 'Failed to place order.' });
    server.on('POST /orders', () => {
      throw new TypeError('offline');
    });
    expect(await placeOrder(trading, TICKET)).toEqual({ ok: false, message: 'Failed to place order.' });
  });
});

describe('closing', () => {
  it('closes one position, or says "Failed to close position: {detail or Unknown error}"', async () => {
    const { server, trading } = fakeTradingApi();
    const CLOSED = recordedClose();
    server.on('POST /close_position', () => ({ status: 200, body: CLOSED }));
    expect(await closePosition(trading, 'BTC/USDT')).toEqual({ ok: true, value: CLOSED });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ symbol: 'BTC/USDT' });
    server.on('POST /close_position', () => ({
      status: 404,
      body: { detail: 'No open BTC/USDT position.' },
    }));
    expect(await closePosition(trading, 'BTC/USDT')).toEqual({
      ok: false,
      message: 'Failed to close position: No open BTC/USDT position.',
    });
    server.on('POST /close_position', () => ({ status: 500, body: {} }));
    expect(await closePosition(trading, 'BTC/USDT')).toEqual({
      ok: false,
      message: 'Failed to close position: Unknown error',
    });
  });

  it("closes all: the server's message, the spec's fallback, or the failure", async () => {
    const { server, trading } = fakeTradingApi();
    const ALL = recordedCloseAll();
    server.on('POST /close_all_positions', () => ({ status: 200, body: ALL }));
    expect(await closeAllPositions(trading)).toEqual({ ok: true, value: ALL });
    server.on('POST /close_all_positions', () => ({ status: 200, body: {} }));
    expect(await closeAllPositions(trading)).toEqual({
      ok: true,
      value: { message: 'Successfully sent requests to close all positions.', fills: [] },
    });
    server.on('POST /close_all_positions', () => ({ status: 400, body: { detail: 'Exchange busy.' } }));
    expect(await closeAllPositions(trading)).toEqual({
      ok: false,
      message: 'Failed to close all positions: Exchange busy.',
    });
  });
});

describe('what a close prints', () => {
  it("states each fill's size, price, realised PnL and fee from the answer, the sum, and the venue", () => {
    const one = recordedClose().fill;
    expect(closedLines([one])).toEqual([
      `Closed SHORT 0.079 ETH ≈ 249.26 USDT of ETH/USDT at 3,155.20, realised -0.10 USDT, fee 0.12 USDT.`,
      'Paper exchange: no real funds.',
    ]);
    const all = recordedCloseAll().fills;
    const lines = closedLines(all);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^Closed LONG [\d.]+ BTC ≈ [\d,.]+ USDT of BTC\/USDT at [\d,.]+, realised [+-]?[\d.]+ USDT, fee [\d.]+ USDT\.$/,
    );
    expect(lines[2]).toMatch(
      /^Closed 2 positions: realised [+-]?\d+\.\d\d USDT, fee \d+\.\d\d USDT in all\.$/,
    );
    expect(lines[3]).toBe('Paper exchange: no real funds.');
    expect(closedLines([])).toEqual([]);
  });
});
