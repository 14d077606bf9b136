import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createFakeClock, type FakeClock } from '../../../../src/services/testing/fakeClock';
import type { BinanceClient } from '../../exchanges/binance-client';
import type { ExchangeEvent } from '../exchange';
import { ExchangeError } from '../exchange-error';
import { UserDataStream } from './user-stream';

const KEEP_ALIVE_MS = 30 * 60_000;
const MAX_CONNECTION_MS = 23 * 3_600_000;

const servers: WebSocketServer[] = [];
const streams: UserDataStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) await s.stop();
  for (const s of servers.splice(0)) s.close();
});

/** Resolves when `ready` holds, checked each time `signal` is called; rejects after 5 s of I/O. */
function waiter() {
  const pending: { ready: () => boolean; resolve: () => void }[] = [];
  return {
    signal() {
      for (const p of [...pending]) {
        if (p.ready()) {
          pending.splice(pending.indexOf(p), 1);
          p.resolve();
        }
      }
    },
    until(ready: () => boolean, what: string): Promise<void> {
      if (ready()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const entry = { ready, resolve };
        pending.push(entry);
        // Loopback I/O only: a real deadline, so that a missing event fails the test instead of hanging it.
        const deadline = setTimeout(() => reject(new Error(`never saw: ${what}`)), 5_000);
        entry.resolve = () => {
          clearTimeout(deadline);
          resolve();
        };
      });
    },
  };
}

/** A loopback stand-in for Binance's stream host: it records every connection and can end or talk on them. */
async function streamServer(events: ReturnType<typeof waiter>) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  const sockets: { key: string; socket: WebSocket }[] = [];
  wss.on('connection', (socket, req) => {
    sockets.push({ key: req.url?.split('/').at(-1) ?? '', socket });
    socket.on('close', () => events.signal());
    events.signal();
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/ws/{listenKey}`,
    /** The listen keys of every connection so far, in order. */
    keys: () => sockets.map((s) => s.key),
    open: () => sockets.filter((s) => s.socket.readyState === s.socket.OPEN).map((s) => s.key),
    latest: () => {
      const last = sockets.at(-1);
      if (last === undefined) throw new Error('no connection yet');
      return last.socket;
    },
  };
}

/** Keep-alive answers that wait until the test says the key is gone (-1125). */
function heldKeepAlives() {
  const waiting: ((err: ExchangeError) => void)[] = [];
  return {
    answer: (method: string): Promise<unknown> =>
      method === 'PUT' ? new Promise((_, reject) => waiting.push(reject)) : Promise.resolve({}),
    forget: () => {
      for (const reject of waiting.splice(0))
        reject(new ExchangeError(-1125, 'This listenKey does not exist.'));
    },
  };
}

/** Lets the stream's awaited promises (credentials, REST answers) run after the clock fired a timer. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A stream on a fake clock against the loopback server, with a REST client whose listen-key answers
 * the test gives: `POST` answers `key-1`, `key-2`, …; `PUT` and `DELETE` answer what `answer` says.
 */
async function setUp(
  answer: (method: string, key: number) => Promise<unknown> = () => Promise.resolve({}),
  random = () => 0.5,
) {
  const events = waiter();
  const server = await streamServer(events);
  const clock: FakeClock = createFakeClock(1_000);
  const calls: string[] = [];
  const problems: { reason: string; retryInMs: number; dropped?: string }[] = [];
  const received: ExchangeEvent[] = [];
  let connected = 0;
  let keys = 0;
  let unreachable = false;
  const client = {
    keyed: (method: string) => {
      calls.push(method);
      events.signal();
      if (method === 'POST' && unreachable) {
        return Promise.reject(new ExchangeError(-1001, 'Internal error; unable to process your request.'));
      }
      if (method === 'POST') return Promise.resolve({ listenKey: `key-${++keys}` });
      return answer(method, keys);
    },
  } as unknown as BinanceClient;
  const stream = new UserDataStream({
    client,
    credentials: () => Promise.resolve({ apiKey: 'k', secret: 's' }),
    urlTemplate: server.url,
    onEvent: (event) => {
      received.push(event);
      events.signal();
    },
    onConnected: () => {
      connected += 1;
      events.signal();
    },
    onProblem: (p) => {
      problems.push(p);
      events.signal();
    },
    backoffMs: 1_000,
    maxBackoffMs: 60_000,
    random,
    clock,
  });
  streams.push(stream);
  return {
    stream,
    server,
    clock,
    calls,
    problems,
    received,
    connected: () => connected,
    count: (method: string) => calls.filter((c) => c === method).length,
    /** While on, every listen-key request fails, as when Binance cannot be reached. */
    unreachable: (on: boolean) => {
      unreachable = on;
    },
    until: events.until,
    /** Starts the stream and waits for its first connection. */
    async start() {
      stream.start();
      await events.until(() => connected === 1, 'the first connection');
    },
  };
}

describe('UserDataStream on an injected clock', () => {
  it('extends the listen key every keep-alive period of the clock, and not before', async () => {
    const t = await setUp();
    await t.start();
    expect(t.server.keys()).toEqual(['key-1']);
    t.clock.advance(KEEP_ALIVE_MS - 1);
    await settle();
    expect(t.count('PUT')).toBe(0);
    t.clock.advance(1);
    await t.until(() => t.count('PUT') === 1, 'the first keep-alive');
    await settle();
    t.clock.advance(KEEP_ALIVE_MS);
    await t.until(() => t.count('PUT') === 2, 'the second keep-alive');
    expect(t.count('POST')).toBe(1);
    expect(t.stream.connected).toBe(true);
  });

  it('starts over once when a keep-alive hears -1125, with one keep-alive in flight however long it takes', async () => {
    const held = heldKeepAlives();
    const t = await setUp(held.answer);
    await t.start();
    t.clock.advance(KEEP_ALIVE_MS);
    await t.until(() => t.count('PUT') === 1, 'a keep-alive');
    // Two more periods pass while Binance has not answered: no second keep-alive goes out.
    t.clock.advance(2 * KEEP_ALIVE_MS);
    await settle();
    expect(t.count('PUT')).toBe(1);
    held.forget();
    await t.until(() => t.connected() === 2, 'the new connection');
    expect(t.problems).toEqual([{ reason: 'listen key expired', retryInMs: 0 }]);
    expect(t.count('POST')).toBe(2);
    await t.until(() => t.server.open().length === 1, 'the old connection closed');
    expect(t.server.open()).toEqual(['key-2']);
  });

  it('ignores a -1125 that comes back for a key already replaced', async () => {
    const held = heldKeepAlives();
    const t = await setUp(held.answer);
    await t.start();
    t.clock.advance(KEEP_ALIVE_MS);
    await t.until(() => t.count('PUT') === 1, 'a keep-alive');
    // Binance says the key expired on the stream before the keep-alive's answer arrives.
    t.server.latest().send(JSON.stringify({ e: 'listenKeyExpired', E: 1 }));
    await t.until(() => t.connected() === 2, 'the connection after the expiry');
    held.forget();
    await settle();
    await settle();
    expect(t.count('POST')).toBe(2);
    expect(t.connected()).toBe(2);
    expect(t.problems).toEqual([{ reason: 'listen key expired', retryInMs: 0 }]);
    await t.until(() => t.server.open().length === 1, 'the old connection closed');
    expect(t.server.open()).toEqual(['key-2']);
  });

  it('after a drop, waits the back-off on the clock before a new key, doubling while the key cannot be had', async () => {
    const t = await setUp();
    await t.start();
    t.unreachable(true);
    t.server.latest().close();
    await t.until(() => t.problems.length === 1, 'the drop');
    // Equal jitter at 0.5: three quarters of 1 s.
    expect(t.problems[0]).toEqual({ reason: 'the user-data stream closed', retryInMs: 750 });
    t.clock.advance(749);
    await settle();
    expect(t.count('POST')).toBe(1);
    t.clock.advance(1);
    await t.until(() => t.problems.length === 2, 'the first failed attempt');
    expect(t.problems[1]?.retryInMs).toBe(1_500);
    t.clock.advance(1_500);
    await t.until(() => t.problems.length === 3, 'the second failed attempt');
    expect(t.problems[2]?.retryInMs).toBe(3_000);
    t.unreachable(false);
    t.clock.advance(3_000);
    await t.until(() => t.connected() === 2, 'the connection once the key is had');
    // A connection resets the back-off.
    t.server.latest().close();
    await t.until(() => t.problems.length === 4, 'the second drop');
    expect(t.problems[3]?.retryInMs).toBe(750);
  });

  it('renews the connection before Binance ends it at 24 h', async () => {
    const t = await setUp();
    await t.start();
    t.clock.advance(MAX_CONNECTION_MS - 1);
    await settle();
    expect(t.connected()).toBe(1);
    t.clock.advance(1);
    await t.until(() => t.connected() === 2, 'the renewed connection');
    expect(t.problems.at(-1)).toEqual({ reason: 'renewed before 24 h', retryInMs: 0 });
    await t.until(() => t.server.open().length === 1, 'the old connection closed');
    expect(t.server.open()).toEqual(['key-2']);
  });

  it('stop deletes the key and leaves no timer on the clock', async () => {
    const t = await setUp();
    await t.start();
    expect(t.clock.pendingTimers()).toBeGreaterThan(0);
    await t.stream.stop();
    expect(t.clock.pendingTimers()).toBe(0);
    expect(t.calls.at(-1)).toBe('DELETE');
    await t.until(() => t.server.open().length === 0, 'the connection closed');
    t.clock.advance(2 * MAX_CONNECTION_MS);
    await settle();
    expect(t.count('POST')).toBe(1);
  });

  it('reads ALGO_UPDATE into our shape, drops an unreadable one with a word, and ignores frames that are no event', async () => {
    const t = await setUp();
    await t.start();
    const socket = t.server.latest();
    for (const frame of ['null', '[1]', '7', '"text"', '{']) socket.send(frame);
    socket.send(
      JSON.stringify({ e: 'ALGO_UPDATE', E: 5, o: { caid: 'bad', o: 'STOP_MARKET', s: 'BTCUSDT' } }),
    );
    // A STOP limit order set on Binance's site: not one the app holds, left out without a word.
    socket.send(JSON.stringify({ e: 'ALGO_UPDATE', E: 6, o: { caid: 'limit', o: 'STOP' } }));
    socket.send(
      JSON.stringify({
        e: 'ALGO_UPDATE',
        T: 1750515742297,
        E: 1750515742303,
        o: {
          caid: 'pt-stop',
          aid: 2148719,
          at: 'CONDITIONAL',
          o: 'STOP_MARKET',
          s: 'BTCUSDT',
          S: 'SELL',
          ps: 'BOTH',
          f: 'GTE_GTC',
          q: '0',
          X: 'FINISHED',
          ai: 4000000001,
          ap: '58900',
          aq: '0.010',
          act: 'MARKET',
          tp: '59000',
          p: '0',
          V: 'EXPIRE_MAKER',
          wt: 'MARK_PRICE',
          pm: 'NONE',
          cp: true,
          pP: true,
          R: true,
          tt: 1750515742290,
          gtd: 0,
          rm: '',
          somethingNew: { nested: true },
        },
      }),
    );
    await t.until(() => t.received.length === 1, 'the readable ALGO_UPDATE');
    expect(t.received).toEqual([
      {
        e: 'ALGO_UPDATE',
        E: 1750515742303,
        T: 1750515742297,
        order: {
          algoId: '2148719',
          clientAlgoId: 'pt-stop',
          symbol: 'BTCUSDT',
          side: 'SELL',
          type: 'STOP_MARKET',
          status: 'FINISHED',
          triggerPrice: '59000',
          quantity: null,
          closePosition: true,
          callbackRate: null,
          activatePrice: null,
          actualOrderId: '4000000001',
          updateTime: 1750515742297,
        },
        reason: null,
      },
    ]);
    expect(t.problems).toEqual([
      {
        reason:
          'Binance sent an answer we could not read (a conditional-order update: o.aid missing, o.S missing, o.X missing); the event was dropped',
        retryInMs: 0,
        dropped: 'ALGO_UPDATE',
      },
    ]);
    expect(t.stream.connected).toBe(true);
  });
});
