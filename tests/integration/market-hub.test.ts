import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { Candle, Interval, PriceItem, PriceSocketMessage } from '../../src/contracts/market';
import { PriceHub, type HubFeed } from '../../server/modules/market/price-hub';
import { systemClock } from '../../server/modules/market/clock';
import { createFakeClock } from '../../src/services/testing/fakeClock';

/** A feed the test pushes ticks and candles into. */
function fakeFeed(known: readonly string[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']) {
  let onTicks: (ticks: readonly PriceItem[]) => void = () => undefined;
  const watches = new Map<string, (candle: Candle) => void>();
  const feed: HubFeed = {
    kind: 'sim',
    status: () => 'ok',
    onTicks(listener) {
      onTicks = listener;
      return () => undefined;
    },
    find: (symbol) => (known.includes(symbol.toUpperCase()) ? { symbol: symbol.toUpperCase() } : undefined),
    watchCandles(symbol: string, interval: Interval, listener) {
      watches.set(`${symbol}:${interval}`, listener);
      return () => watches.delete(`${symbol}:${interval}`);
    },
  };
  return { feed, tick: (ticks: PriceItem[]) => onTicks(ticks), watches };
}

/** A socket that records frames; `bufferedAmount` is set by the test. */
function fakeSocket() {
  const frames: PriceSocketMessage[] = [];
  const socket = {
    bufferedAmount: 0,
    terminated: false,
    closed: null as null | { code: number; reason: string },
    pings: 0,
    close(code: number, reason: string) {
      socket.closed = { code, reason };
    },
    send(data: string) {
      frames.push(JSON.parse(data) as PriceSocketMessage);
    },
    terminate() {
      socket.terminated = true;
    },
    ping() {
      socket.pings += 1;
    },
  };
  const prices = () => frames.filter((f) => f.type === 'prices');
  return { socket, frames, prices };
}

const sub = (symbols: string[] | '*') => JSON.stringify({ op: 'subscribe', symbols });

describe('price hub', () => {
  it('sends each client at most one frame per 50 ms, with the latest price of its symbols only', () => {
    const clock = createFakeClock(1_000);
    const { feed, tick } = fakeFeed();
    const hub = new PriceHub(feed, { clock });
    hub.start();
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    expect(a.frames[0]).toEqual({ type: 'hello', source: 'sim', status: 'ok', heartbeatMs: 15_000 });
    hub.receive(client, sub(['btcusdt']));

    const both = (i: number) => {
      tick([
        { s: 'BTCUSDT', p: 100 + i, t: clock.now() },
        { s: 'ETHUSDT', p: 10 + i, t: clock.now() },
      ]);
    };
    // A tick after a quiet spell goes out at once (on the next turn).
    both(0);
    clock.advance(0);
    expect(a.prices()).toEqual([{ type: 'prices', t: 1_000, data: [{ s: 'BTCUSDT', p: 100, t: 1_000 }] }]);
    // Ticks every 10 ms: one frame per 50 ms, holding the latest price of each symbol.
    for (let i = 1; i <= 10; i++) {
      clock.advance(10);
      both(i);
    }
    clock.advance(50);
    expect(a.prices().slice(1)).toEqual([
      { type: 'prices', t: 1_050, data: [{ s: 'BTCUSDT', p: 104, t: 1_040 }] },
      { type: 'prices', t: 1_100, data: [{ s: 'BTCUSDT', p: 109, t: 1_090 }] },
      { type: 'prices', t: 1_150, data: [{ s: 'BTCUSDT', p: 110, t: 1_100 }] },
    ]);

    clock.advance(1_000); // nothing new: nothing sent
    expect(a.prices()).toHaveLength(4);
    hub.close();
  });

  it('serialises one frame per distinct subscription and answers a subscribe with a snapshot', () => {
    const clock = createFakeClock();
    const { feed, tick } = fakeFeed();
    const hub = new PriceHub(feed, { clock });
    hub.start();
    tick([{ s: 'SOLUSDT', p: 150, t: 0 }]);
    const all = fakeSocket();
    hub.receive(hub.connect(all.socket), sub('*'));
    expect(all.prices()).toEqual([{ type: 'prices', t: 0, data: [{ s: 'SOLUSDT', p: 150, t: 0 }] }]);

    const clients = Array.from({ length: 5 }, () => fakeSocket());
    for (const c of clients) hub.receive(hub.connect(c.socket), sub(['ETHUSDT']));
    const sends = vi.spyOn(JSON, 'stringify');
    tick([{ s: 'ETHUSDT', p: 3_000, t: 1 }]);
    clock.advance(250);
    // One frame for the five ETH clients, one for the "*" client.
    expect(sends.mock.calls.filter(([m]) => (m as { type?: string }).type === 'prices')).toHaveLength(2);
    sends.mockRestore();
    for (const c of clients) expect(c.prices().at(-1)?.data).toEqual([{ s: 'ETHUSDT', p: 3_000, t: 1 }]);
    hub.close();
  });

  it('rejects unknown symbols and malformed requests with an error frame', () => {
    const { feed } = fakeFeed();
    const hub = new PriceHub(feed, { clock: createFakeClock() });
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    hub.receive(client, sub(['NOPEUSDT', 'BTCUSDT']));
    hub.receive(client, 'not json');
    hub.receive(client, JSON.stringify({ op: 'dance' }));
    expect(a.frames.filter((f) => f.type === 'error')).toEqual([
      { type: 'error', detail: 'Unknown symbol: NOPEUSDT.' },
      { type: 'error', detail: 'Messages must be JSON.' },
      { type: 'error', detail: 'Unknown request: expected op subscribe, unsubscribe or candles.' },
    ]);
    expect([...client.symbols]).toEqual(['BTCUSDT']);
  });

  it('answers a request naming many unknown symbols with one error frame', () => {
    const { feed } = fakeFeed();
    const hub = new PriceHub(feed, { clock: createFakeClock() });
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    const junk = Array.from({ length: 199 }, (_, i) => `JUNK${i}USDT`);
    hub.receive(client, sub([...junk, 'ETHUSDT']));
    hub.receive(client, sub([...junk, 'ETHUSDT', 'BTCUSDT']));
    expect(a.frames.filter((f) => f.type === 'error')).toEqual([
      {
        type: 'error',
        detail: 'Unknown symbols: JUNK0USDT, JUNK1USDT, JUNK2USDT, JUNK3USDT, JUNK4USDT and 194 more.',
      },
      { type: 'error', detail: 'At most 200 symbols in one request.' },
    ]);
    expect([...client.symbols]).toEqual(['ETHUSDT']);
  });

  it('limits how many symbols one connection follows by name', () => {
    const known = Array.from({ length: 12 }, (_, i) => `C${i}USDT`);
    const { feed } = fakeFeed(known);
    const hub = new PriceHub(feed, { clock: createFakeClock(), maxSymbolsPerClient: 10 });
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    hub.receive(client, sub(known.slice(0, 8)));
    hub.receive(client, sub(known.slice(8)));
    expect(client.symbols.size).toBe(8);
    expect(a.frames.at(-1)).toEqual({
      type: 'error',
      detail: 'At most 10 symbols per connection; subscribe to "*" for every symbol.',
    });
  });

  it('ignores requests past the rate with one error a second, and closes a client that keeps flooding', () => {
    const clock = createFakeClock();
    const { feed } = fakeFeed();
    const hub = new PriceHub(feed, { clock });
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    const junk = sub(Array.from({ length: 200 }, (_, i) => `JUNK${i}USDT`));
    for (let i = 0; i < 10_000; i++) hub.receive(client, junk);
    // The burst of 20 is answered (one error each), then one "too many" notice, then the socket is closed.
    const errors = a.frames.filter((f) => f.type === 'error');
    expect(errors).toHaveLength(21);
    expect(errors.at(-1)).toEqual({
      type: 'error',
      detail: 'Too many requests: at most 10 a second. This one was ignored.',
    });
    expect(a.socket.closed).toEqual({ code: 1008, reason: 'Too many requests.' });
    expect(hub.size).toBe(0);
    expect(hub.stats.droppedFlood).toBe(1);
  });

  it('refills the allowance over time, so a client within the rate is always answered', () => {
    const clock = createFakeClock();
    const { feed } = fakeFeed();
    const hub = new PriceHub(feed, { clock });
    const a = fakeSocket();
    const client = hub.connect(a.socket);
    for (let i = 0; i < 300; i++) {
      hub.receive(client, sub(i % 2 === 0 ? ['BTCUSDT'] : ['ETHUSDT']));
      clock.advance(100);
    }
    expect(a.frames.filter((f) => f.type === 'error')).toEqual([]);
    expect(hub.size).toBe(1);
  });

  it('drops a client whose unsent data exceeds the limit, and keeps serving the others', () => {
    const clock = createFakeClock();
    const { feed, tick } = fakeFeed();
    const drops: string[] = [];
    const hub = new PriceHub(feed, { clock, maxBufferedBytes: 1_000, onDrop: (r) => drops.push(r) });
    hub.start();
    const slow = fakeSocket();
    const fast = fakeSocket();
    hub.receive(hub.connect(slow.socket), sub('*'));
    hub.receive(hub.connect(fast.socket), sub('*'));

    slow.socket.bufferedAmount = 1_000; // at the limit: still served
    tick([{ s: 'BTCUSDT', p: 1, t: 0 }]);
    clock.advance(250);
    expect(slow.prices()).toHaveLength(1);

    slow.socket.bufferedAmount = 1_001;
    tick([{ s: 'BTCUSDT', p: 2, t: 0 }]);
    clock.advance(250);
    expect(slow.socket.terminated).toBe(true);
    expect(slow.prices()).toHaveLength(1);
    expect(fast.prices()).toHaveLength(2);
    expect(hub.stats.droppedSlow).toBe(1);
    expect(drops).toEqual(['slow']);
    expect(hub.size).toBe(1);
    hub.close();
  });

  it('sends a heartbeat with a ping, and drops a client that did not answer the last ping', () => {
    const clock = createFakeClock();
    const { feed } = fakeFeed();
    const hub = new PriceHub(feed, { clock, heartbeatMs: 10_000 });
    hub.start();
    const live = fakeSocket();
    const dead = fakeSocket();
    const liveClient = hub.connect(live.socket);
    hub.connect(dead.socket);
    clock.advance(10_000);
    expect(live.frames.at(-1)).toEqual({ type: 'heartbeat', t: 10_000, source: 'sim', status: 'ok' });
    expect([live.socket.pings, dead.socket.pings]).toEqual([1, 1]);
    hub.pong(liveClient);
    clock.advance(10_000);
    expect(dead.socket.terminated).toBe(true);
    expect(live.socket.terminated).toBe(false);
    expect(hub.stats.droppedDead).toBe(1);
    hub.close();
  });

  it('shares one upstream candle watch per symbol and interval, released with the last viewer', () => {
    const clock = createFakeClock();
    const { feed, watches } = fakeFeed();
    const hub = new PriceHub(feed, { clock });
    hub.start();
    const a = fakeSocket();
    const b = fakeSocket();
    const ca = hub.connect(a.socket);
    const cb = hub.connect(b.socket);
    const chart = JSON.stringify({ op: 'candles', symbol: 'btcusdt', interval: '15m' });
    hub.receive(ca, chart);
    hub.receive(cb, chart);
    expect([...watches.keys()]).toEqual(['BTCUSDT:15m']);
    const candle = { time: 900_000, open: 1, high: 2, low: 0.5, close: 1.5, volume: 10 };
    watches.get('BTCUSDT:15m')?.(candle);
    clock.advance(250);
    expect(a.frames.at(-1)).toEqual({ type: 'candle', s: 'BTCUSDT', i: '15m', candle });
    expect(b.frames.at(-1)).toEqual({ type: 'candle', s: 'BTCUSDT', i: '15m', candle });

    hub.receive(ca, JSON.stringify({ op: 'candles', symbol: null, interval: '15m' }));
    expect(watches.size).toBe(1);
    hub.disconnect(cb);
    expect(watches.size).toBe(0);
    hub.close();
  });
});

describe('price hub over real sockets', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('drops a client that stops reading once its unsent bytes pass the limit', async () => {
    const symbols = Array.from({ length: 2_000 }, (_, i) => `S${String(i).padStart(4, '0')}USDT`);
    const { feed, tick } = fakeFeed(symbols);
    const hub = new PriceHub(feed, { clock: systemClock, flushMs: 5, maxBufferedBytes: 64 * 1024 });
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    wss.on('connection', (ws) => {
      const client = hub.connect(ws);
      ws.on('message', (d) => hub.receive(client, d.toString()));
      ws.on('close', () => hub.disconnect(client));
    });
    hub.start();
    const pump = setInterval(
      () => tick(symbols.map((s, i) => ({ s, p: i + Math.random(), t: Date.now() }))),
      5,
    );
    cleanups.push(
      () => clearInterval(pump),
      () => hub.close(),
      () => wss.close(),
    );
    const { port } = wss.address() as AddressInfo;

    // A healthy client that reads everything.
    const good = new WebSocket(`ws://127.0.0.1:${port}`);
    let goodFrames = 0;
    good.on('message', () => (goodFrames += 1));
    await once(good, 'open');
    good.send(sub('*'));
    cleanups.push(() => good.terminate());

    // A raw client that completes the handshake, subscribes, then never reads again.
    const raw = connect(port, '127.0.0.1');
    cleanups.push(() => raw.destroy());
    raw.write(
      'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await once(raw, 'data');
    const payload = Buffer.from(sub('*'));
    const mask = Buffer.from([1, 2, 3, 4]);
    const masked = Buffer.from(payload.map((b, i) => b ^ (mask[i % 4] ?? 0)));
    raw.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
    raw.pause();
    const closed = once(raw, 'close');

    await vi.waitFor(() => expect(hub.stats.droppedSlow).toBe(1), { timeout: 15_000, interval: 50 });
    raw.resume(); // drain so the close is seen
    await closed;
    expect(good.readyState).toBe(WebSocket.OPEN);
    const before = goodFrames;
    await vi.waitFor(() => expect(goodFrames).toBeGreaterThan(before + 3));
    expect(hub.size).toBe(1);
  });
});
