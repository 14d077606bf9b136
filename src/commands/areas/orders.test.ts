import { describe, expect, it } from 'vitest';
import type { OpenOrder, OrderResponse } from '../../contracts/trading';
import type { RecordedRequest } from '../../services/testing/fakeServer';
import { recordedFill } from '../../services/trading/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

/** `btc long 5035 @ 95000` as the server answers it while it rests. */
const RESTING: OrderResponse = {
  ...recordedFill('btc long 200'),
  id: '3f9a1c2e-0000-4000-8000-000000000001',
  quantity: 0,
  price: 95_000,
  notional: 0,
  fee: 0,
  status: 'open',
  order_type: 'limit',
  limit: { price: 95_000, quantity: 0.053, time_in_force: 'GTC' },
  requested: 5_035,
  adjustment: 'exact',
  note: null,
  position: null,
};

const openOrder = (over: Partial<OpenOrder> = {}): OpenOrder => ({
  id: '3f9a1c2e-0000-4000-8000-000000000001',
  clientOrderId: 'sc-1',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  price: 95_000,
  quantity: 0.053,
  filled: 0,
  time_in_force: 'GTC',
  reduce_only: false,
  created_at: new Date(Date.now() - 90_000).toISOString(),
  account: { venue: 'paper', mode: 'paper', keyHint: null },
  ...over,
});

function session() {
  const s = createTestConsole({ token: 'tok' });
  s.server.on('POST /orders', () => ({ status: 200, body: RESTING }));
  s.server.on('GET /orders/open', () => ({ status: 200, body: [openOrder()] }));
  const orderBody = (r: RecordedRequest | undefined) =>
    JSON.parse(r?.body ?? '{}') as Record<string, unknown>;
  return { ...s, orderBody };
}

describe('limit orders at the prompt', () => {
  it.each([
    [
      'btc long 5k @ 95000',
      { symbol: 'BTC/USDT', side: 'long', amount: 5000, price: 95_000, timeInForce: 'GTC' },
    ],
    [
      'btc long 5k @95000',
      { symbol: 'BTC/USDT', side: 'long', amount: 5000, price: 95_000, timeInForce: 'GTC' },
    ],
    [
      'btc long 5k @ 95k',
      { symbol: 'BTC/USDT', side: 'long', amount: 5000, price: 95_000, timeInForce: 'GTC' },
    ],
    [
      'btc short 2k @ 101000 post',
      { symbol: 'BTC/USDT', side: 'short', amount: 2000, price: 101_000, timeInForce: 'POST' },
    ],
    [
      'eth long 1k @3.2k ioc',
      { symbol: 'ETH/USDT', side: 'long', amount: 1000, price: 3_200, timeInForce: 'IOC' },
    ],
    [
      'long 500 @ 94000',
      { symbol: 'BTC/USDT', side: 'long', amount: 500, price: 94_000, timeInForce: 'GTC' },
    ],
    ['nope long 5k @ 1', null],
  ])('%s places a limit order', async (line, order) => {
    const s = session();
    const out = await s.type(line);
    if (order === null) {
      expect(out).toEqual(['error: Invalid asset or amount.']);
      return;
    }
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toContain('POST /orders');
    const sent = s.server.requests.find((r) => r.path === '/orders');
    expect(s.orderBody(sent)).toEqual({ ...order, type: 'limit', maxNotional: 25_000 });
  });

  it("prints the server's answer for a resting order", async () => {
    const s = session();
    expect(await s.type('btc long 5035 @ 95000')).toEqual([
      `success: Success! Order ID: ${RESTING.id}`,
      'info: Resting: BUY 0.053 BTC/USDT @ 95,000.0 GTC on Paper account',
    ]);
  });

  it.each([
    ['btc long 5k @', 'Missing price after @: e.g. @ 95000 or @95k.'],
    ['btc long 5k @ cheap', "Invalid limit price: 'cheap'."],
    ['btc long 5k @ 95000 sl 2%', 'Protection goes on a filled position'],
    ['btc long 5k @ 95000 fok', "Invalid order option: 'fok'. After the price, add ioc or post if wanted."],
  ])('%s is refused before anything is sent', async (line, message) => {
    const s = session();
    const [out] = await s.type(line);
    expect(out).toContain(message);
    expect(s.server.requests.filter((r) => r.path === '/orders')).toEqual([]);
  });
});

describe('orders and cx', () => {
  it('orders lists the resting orders', async () => {
    const s = session();
    const out = await s.type('orders');
    expect(out[0]).toMatch(/ID\s+SYMBOL\s+SIDE\s+PRICE\s+QTY\s+FILLED\s+TIF\s+AGE/);
    expect(out[out.length - 1]).toMatch(/3f9a1c2e\s+BTC\/USDT\s+BUY\s+95,000\.0\s+0\.053\s+0\s+GTC\s+1m/);
    s.server.on('GET /orders/open', () => ({ status: 200, body: [] }));
    expect(await s.type('orders')).toEqual(['muted: No open orders.']);
  });

  it("cx btc cancels BTC's orders, cx all every one, each line the server's answer", async () => {
    const s = session();
    s.server.on('DELETE /orders/open', (r) => ({
      status: 200,
      body: {
        cancelled:
          r.search === ''
            ? [openOrder(), openOrder({ id: 'b2', symbol: 'ETH/USDT', price: 3_000 })]
            : [openOrder()],
        failed: [],
      },
    }));
    expect(await s.type('cx btc')).toEqual(['success: Cancelled: BUY 0.053 BTC/USDT @ 95,000.0 GTC.']);
    const btc = s.server.requests.find((r) => r.method === 'DELETE');
    expect(btc?.search).toBe('?symbol=BTC%2FUSDT');
    expect(await s.type('cx all')).toEqual([
      'success: Cancelled: BUY 0.053 BTC/USDT @ 95,000.0 GTC.',
      'success: Cancelled: BUY 0.053 ETH/USDT @ 3,000.00 GTC.',
      'muted: Cancelled 2 orders.',
    ]);
    s.server.on('DELETE /orders/open', () => ({ status: 200, body: { cancelled: [], failed: [] } }));
    expect(await s.type('cx eth')).toEqual(['info: No open orders to cancel on ETH/USDT.']);
  });

  it('cx <id> cancels one by the id orders shows, and says when it is gone', async () => {
    const s = session();
    s.server.on(`DELETE /orders/open/${RESTING.id}`, () => ({ status: 200, body: openOrder() }));
    expect(await s.type('cx 3f9a1c2e')).toEqual(['success: Cancelled: BUY 0.053 BTC/USDT @ 95,000.0 GTC.']);
    s.server.on('GET /orders/open', () => ({ status: 200, body: [] }));
    s.server.on('DELETE /orders/open/zz999', () => ({
      status: 404,
      body: { detail: 'No open order zz999.' },
    }));
    expect((await s.type('cx zz999')).join(' ')).toContain('No open order zz999.');
  });
});
