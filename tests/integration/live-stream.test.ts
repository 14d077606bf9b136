import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ExchangeKey } from '../../src/contracts/exchanges';
import { OrderPreview, OrderResponse, TradesPage, type PositionsMessage } from '../../src/contracts/trading';
import { BinanceClient } from '../../server/modules/exchanges/binance-client';
import { UserDataStream } from '../../server/modules/trading/live/user-stream';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { BINANCE_ERRORS, startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';

const KEY = { apiKey: 'StreamKey0123456789abcdef', secret: 'stream-secret-0123456789abc' };
const KEEPALIVE_MS = 300;

async function until<T>(read: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(dbTargets())('live account: user-data stream and venue previews on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let auth: { authorization: string };
  let socketBase = '';

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    const streams = binance.url.replace('http://', 'ws://');
    t = await startTestApp(target, {
      // No price ticks during the test: a new snapshot can only come from the user-data stream.
      MARKET_SIM_TICK_MS: '60000',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_USER_STREAM_URL: `${streams}/private/ws?listenKey={listenKey}`,
      BINANCE_DEMO_USER_STREAM_URL: `${streams}/ws/{listenKey}`,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
      BINANCE_LISTEN_KEY_KEEPALIVE_MS: String(KEEPALIVE_MS),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    socketBase = `ws://127.0.0.1:${addr.port}/api/ws/positions`;
    auth = await signUpAndLogIn(t.app, 'streamer');
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/exchanges/',
      headers: auth,
      payload: { exchangeName: 'binance', apiKey: KEY.apiKey, secretKey: KEY.secret },
    });
    const keyId = ExchangeKey.parse(saved.json()).id;
    const chosen = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: auth,
      payload: { account: keyId },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await binance.close();
  });

  const openSocket = async () => {
    const ticket = await t.app.inject({ method: 'POST', url: '/api/ws/ticket', headers: auth });
    const ws = new WebSocket(`${socketBase}?ticket=${ticket.json<{ ticket: string }>().ticket}`);
    const messages: PositionsMessage[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as PositionsMessage));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return { ws, messages };
  };
  const sizeOf = (messages: PositionsMessage[], pair: string) => {
    const last = messages.filter((m) => m.type === 'snapshot').at(-1);
    return last?.type === 'snapshot' ? last.positions.find((p) => p.symbol === pair)?.size : undefined;
  };
  const calls = (route: string) => binance.requests.filter((r) => r.startsWith(route)).length;

  it('previews on the venue’s own filters, leverage, brackets and taker rate, and fills what it previewed', async () => {
    const saved = { ...binance.symbols.BTCUSDT! };
    // The venue's step differs from the bundled table's 0.001: the preview must follow the venue.
    binance.symbols.BTCUSDT = { step: '0.01', minQty: '0.01', maxQty: '100', minNotional: '100' };
    try {
      const lev = await t.app.inject({
        method: 'POST',
        url: '/api/account/leverage',
        headers: auth,
        payload: { symbol: 'BTC/USDT', leverage: 10 },
      });
      expect(lev.statusCode, lev.body).toBe(200);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/orders/preview',
        headers: auth,
        payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 1000 },
      });
      expect(res.statusCode, res.body).toBe(200);
      const preview = OrderPreview.parse(res.json());
      // 1000 / 60 000 = 0.01667 → nearest 0.01 step: 0.02 BTC = 1 200 USDT.
      expect(preview).toMatchObject({ quantity: 0.02, price: 60_000, notional: 1200, leverage: 10 });
      expect(preview.stepNotional).toBe(600);
      expect(preview.margin).toBeCloseTo(120, 8);
      expect(preview.fee).toBeCloseTo(1200 * 0.0005, 8);
      // Isolated long at 10x on the venue's first bracket (MMR 0.4 %): (0.02·60000 − 120) / (0.02·0.996).
      expect(preview.liquidationPrice).toBeCloseTo((1200 - 120) / (0.02 * 0.996), 4);
      expect(preview.note).toMatch(/0\.02 BTC/);
      expect(calls('GET /fapi/v1/symbolConfig')).toBeGreaterThan(0);
      expect(calls('GET /fapi/v1/commissionRate')).toBe(1);

      const placed = await t.app.inject({
        method: 'POST',
        url: '/api/orders',
        headers: { ...auth, 'idempotency-key': 'venue-preview-0001' },
        payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 1000 },
      });
      expect(placed.statusCode, placed.body).toBe(200);
      const fill = OrderResponse.parse(placed.json());
      expect(fill).toMatchObject({ quantity: preview.quantity, notional: preview.notional });
      expect(fill.note).toBe(preview.note);
    } finally {
      binance.symbols.BTCUSDT = saved;
    }
  });

  it('opens the user-data stream with the positions socket; a fill made elsewhere reaches the socket', async () => {
    const { ws, messages } = await openSocket();
    await until(() => binance.streams.connections(KEY.apiKey) === 1);
    expect(calls('POST /fapi/v1/listenKey')).toBe(1);
    await until(() => messages.length > 0);
    const seen = messages.length;
    // An order placed on Binance's own site: only the stream can tell the app.
    binance.trade(KEY.apiKey, 'ETHUSDT', 'BUY', '0.05');
    expect(await until(() => sizeOf(messages.slice(seen), 'ETH/USDT'), 5000)).toBe(0.05);

    // Kept alive while wanted.
    await until(() => calls('PUT /fapi/v1/listenKey') >= 1, KEEPALIVE_MS * 10);

    // Closing the last socket ends the stream and deletes the key.
    ws.close();
    await until(() => binance.streams.connections(KEY.apiKey) === 0);
    await until(() => calls('DELETE /fapi/v1/listenKey') === 1);
    expect(binance.streams.keys.has(KEY.apiKey)).toBe(false);
  });

  it('after listenKeyExpired, a forgotten key and a dropped connection it comes back with a new key', async () => {
    const { ws, messages } = await openSocket();
    await until(() => binance.streams.connections(KEY.apiKey) === 1);
    const posts = calls('POST /fapi/v1/listenKey');

    binance.streams.expire(KEY.apiKey);
    await until(
      () =>
        calls('POST /fapi/v1/listenKey') === posts + 1 &&
        binance.streams.connections(KEY.apiKey) === 1 &&
        binance.streams.onActiveKey(KEY.apiKey) === 1,
    );

    // Binance forgot the key without a word: the keep-alive hears -1125 and starts over.
    binance.streams.keys.delete(KEY.apiKey);
    // The old socket may still be closing when the new key is out: wait for the socket on the new key.
    await until(
      () =>
        calls('POST /fapi/v1/listenKey') === posts + 2 &&
        binance.streams.connections(KEY.apiKey) === 1 &&
        binance.streams.onActiveKey(KEY.apiKey) === 1,
    );

    binance.streams.drop();
    await until(
      () => calls('POST /fapi/v1/listenKey') === posts + 3 && binance.streams.connections(KEY.apiKey) === 1,
    );

    const seen = messages.length;
    binance.trade(KEY.apiKey, 'ETHUSDT', 'SELL', '0.02');
    // A snapshot the reconnect asked for may still arrive with the size before the sell: wait for the new one.
    const after = await until(() => {
      const size = sizeOf(messages.slice(seen), 'ETH/USDT');
      return size !== undefined && Math.abs(size - 0.03) < 1e-8 ? size : undefined;
    }, 5000);
    expect(after).toBeCloseTo(0.03, 8);
    ws.close();
    await until(() => binance.streams.connections(KEY.apiKey) === 0);
  }, 90_000);

  it('with the stream open, a fill whose trades cannot be read takes its fee from ORDER_TRADE_UPDATE, never 0', async () => {
    const { ws } = await openSocket();
    await until(() => binance.streams.connections(KEY.apiKey) === 1);
    // Every read of the order's trades fails; the stream's report of them is all there is.
    binance.fault({ route: 'GET /fapi/v1/userTrades', error: BINANCE_ERRORS.internal, count: 5 });
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { ...auth, 'idempotency-key': 'stream-fees-0001' },
      payload: { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: 250 },
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const fill = OrderResponse.parse(placed.json());
    // Taker 0.05 % of what filled: the commission the stream sent (n), and its realised profit (rp).
    const fee = fill.notional * 0.0005;
    expect(fee).toBeGreaterThan(0);
    expect(fill.fee).toBeCloseTo(fee, 8);
    expect(fill.note ?? '').not.toContain('has not reported the fee');
    const trades = TradesPage.parse((await t.app.inject({ url: '/api/trades', headers: auth })).json());
    expect(trades.trades.find((tr) => tr.orderId === fill.id)).toMatchObject({ realizedPnl: 0 });
    expect(trades.trades.find((tr) => tr.orderId === fill.id)?.fee).toBeCloseTo(fee, 8);
    ws.close();
    await until(() => binance.streams.connections(KEY.apiKey) === 0);
  });

  it('goes back to paper: the stream closes when the account changes under an open socket', async () => {
    const { ws } = await openSocket();
    await until(() => binance.streams.connections(KEY.apiKey) === 1);
    const use = await t.app.inject({
      method: 'PUT',
      url: '/api/account',
      headers: auth,
      payload: { account: 'paper' },
    });
    expect(use.statusCode).toBe(200);
    await until(() => binance.streams.connections(KEY.apiKey) === 0);
    ws.close();
  });
});

describe('user-data stream back-off', () => {
  it('waits a doubling delay with equal jitter while the listen key cannot be had', async () => {
    const waits: number[] = [];
    const stream = new UserDataStream({
      client: new BinanceClient({
        baseUrl: 'http://127.0.0.1:9',
        fetch: () => Promise.reject(new TypeError('fetch failed')),
      }),
      credentials: () => Promise.resolve({ apiKey: KEY.apiKey, secret: KEY.secret }),
      urlTemplate: 'ws://127.0.0.1:9/ws/{listenKey}',
      onEvent: () => undefined,
      onProblem: ({ retryInMs }) => waits.push(retryInMs),
      backoffMs: 20,
      maxBackoffMs: 80,
      // Three quarters of each doubled delay.
      random: () => 0.5,
    });
    stream.start();
    await until(() => waits.length >= 5);
    await stream.stop();
    expect(waits.slice(0, 5)).toEqual([15, 30, 60, 60, 60]);
  });
});
