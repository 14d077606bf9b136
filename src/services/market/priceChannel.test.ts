import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { effect } from '@preact/signals-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { PriceItem } from '../../contracts/market';
import { createConnectionStore } from '../stores/connection';
import { createMarketStore } from '../stores/market';
import { createFakeClock } from '../testing/fakeClock';
import { createPriceChannel, priceSocketUrl, type CandleUpdate } from './priceChannel';

/** A local price-socket server that records what clients send. */
async function startServer() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const received: unknown[] = [];
  wss.on('connection', (ws) => {
    ws.on('message', (d) => received.push(JSON.parse(d.toString())));
    ws.send(JSON.stringify({ type: 'hello', source: 'sim', status: 'ok', heartbeatMs: 1_000 }));
  });
  const broadcast = (msg: unknown) => {
    for (const ws of wss.clients) ws.send(JSON.stringify(msg));
  };
  const { port } = wss.address() as AddressInfo;
  return { wss, received, broadcast, url: `ws://127.0.0.1:${port}/api/ws/prices` };
}

describe('price channel', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  function setup(url: string) {
    const market = createMarketStore();
    // Only the price channel is under test here; the app also requires the signal stream for "Live".
    const connection = createConnectionStore(['prices']);
    const clock = createFakeClock();
    const channel = createPriceChannel({
      url,
      WebSocket,
      market,
      connection,
      clock,
      minDelayMs: 20,
      maxDelayMs: 40,
    });
    return { market, connection, clock, channel };
  }

  it('the connection store is Live only when every required channel is up', () => {
    const both = createConnectionStore(['prices', 'signals']);
    both.setChannel('prices', true);
    expect(both.live.value).toBe(false);
    both.setChannel('signals', true);
    expect(both.live.value).toBe(true);
    both.setChannel('prices', false);
    expect(both.live.value).toBe(false);
  });

  it('derives the socket address from the API base', () => {
    expect(priceSocketUrl('/api', 'http://127.0.0.1:8080/')).toBe('ws://127.0.0.1:8080/api/ws/prices');
    expect(priceSocketUrl('/api/', 'https://console.example/x')).toBe('wss://console.example/api/ws/prices');
    expect(priceSocketUrl('https://prices.example/v1', 'http://a/')).toBe(
      'wss://prices.example/v1/ws/prices',
    );
  });

  it('goes live on open, stores the source and prices, and re-subscribes after a reconnect', async () => {
    const server = await startServer();
    cleanups.push(() => server.wss.close());
    const { market, connection, channel } = setup(server.url);
    const unwatch = channel.watch('BTCUSDT');
    channel.watch('BTCUSDT'); // a second watcher of the same symbol
    channel.setChart('BTCUSDT', '15m');
    const seen: (readonly PriceItem[])[] = [];
    const candles: CandleUpdate[] = [];
    channel.onPrices((items) => seen.push(items));
    channel.onCandle((u) => candles.push(u));
    expect(connection.live.value).toBe(false);
    const stop = channel.start();
    cleanups.push(stop);

    await vi.waitFor(() => expect(connection.live.value).toBe(true));
    await vi.waitFor(() => expect(market.simulated.value).toBe(true));
    await vi.waitFor(() =>
      expect(server.received).toEqual([
        { op: 'subscribe', symbols: ['BTCUSDT'] },
        { op: 'candles', symbol: 'BTCUSDT', interval: '15m' },
      ]),
    );
    server.broadcast({ type: 'prices', t: 5, data: [{ s: 'BTCUSDT', p: 97_000, t: 4 }] });
    const candle = { time: 0, open: 1, high: 2, low: 0.5, close: 1.5, volume: 3 };
    server.broadcast({ type: 'candle', s: 'BTCUSDT', i: '15m', candle });
    server.broadcast({ type: 'nonsense' });
    await vi.waitFor(() => expect(market.prices.value.get('BTCUSDT')?.p).toBe(97_000));
    await vi.waitFor(() => expect(candles).toEqual([{ type: 'candle', s: 'BTCUSDT', i: '15m', candle }]));
    expect(seen).toEqual([[{ s: 'BTCUSDT', p: 97_000, t: 4 }]]);

    // One watcher left: still subscribed.
    unwatch();
    expect(server.received).toHaveLength(2);

    server.received.length = 0;
    const history: boolean[] = [];
    cleanups.push(effect(() => void history.push(connection.live.value)));
    for (const ws of server.wss.clients) ws.terminate();
    await vi.waitFor(() => expect(history).toEqual([true, false, true]));
    await vi.waitFor(() =>
      expect(server.received).toEqual([
        { op: 'subscribe', symbols: ['BTCUSDT'] },
        { op: 'candles', symbol: 'BTCUSDT', interval: '15m' },
      ]),
    );

    stop();
    await vi.waitFor(() => expect(server.wss.clients.size).toBe(0));
    expect(connection.live.value).toBe(false);
  });

  it('reconnects when heartbeats stop arriving', async () => {
    const server = await startServer();
    cleanups.push(() => server.wss.close());
    const { connection, clock, channel } = setup(server.url);
    let connections = 0;
    server.wss.on('connection', () => (connections += 1));
    cleanups.push(channel.start());
    await vi.waitFor(() => expect(connection.live.value).toBe(true));
    await vi.waitFor(() => expect(connections).toBe(1));
    await new Promise((r) => setTimeout(r, 30)); // the hello has re-armed the watchdog
    clock.advance(2_499);
    expect(connections).toBe(1);
    clock.advance(1); // 2.5 heartbeats of 1 s without a frame
    await vi.waitFor(() => expect(connections).toBe(2));
  });

  it('asks for and drops subscriptions as symbols are watched and released', async () => {
    const server = await startServer();
    cleanups.push(() => server.wss.close());
    const { connection, channel } = setup(server.url);
    cleanups.push(channel.start());
    await vi.waitFor(() => expect(connection.live.value).toBe(true));
    const stopEth = channel.watch('ETHUSDT');
    stopEth();
    stopEth(); // idempotent
    channel.setChart(null, '1h');
    await vi.waitFor(() =>
      expect(server.received).toEqual([
        { op: 'subscribe', symbols: ['ETHUSDT'] },
        { op: 'unsubscribe', symbols: ['ETHUSDT'] },
        { op: 'candles', symbol: null, interval: '1h' },
      ]),
    );
  });
});
