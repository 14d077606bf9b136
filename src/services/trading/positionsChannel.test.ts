import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../api';
import { systemClock } from '../clock';
import { createSessionStore } from '../stores/session';
import { createFakeServer } from '../testing/fakeServer';
import { createPositionsChannel, positionsSocketUrl } from './positionsChannel';
import { createPositionsStore } from './positionsStore';
import { countingKeys } from './testing/api';
import { createFakeWebSocket } from './testing/fakeWebSocket';
import { BTC_LONG, ETH_SHORT } from './testing/fixtures';
import { recordedReply } from './testing/serverAnswers';
import { createTradePanelModel } from './tradePanel';

/** Lets fetches and promise chains finish (real macrotasks; only timers and Date are faked). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 6; i += 1) await new Promise((resolve) => setImmediate(resolve));
};
const advance = async (ms: number): Promise<void> => {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
};

describe('positions channel', () => {
  let stop: (() => void) | null = null;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_700_000_000_000 });
  });
  afterEach(() => {
    stop?.();
    stop = null;
    vi.useRealTimers();
  });

  /** The channel over a fake server and fake sockets; the clock is the system's, on vitest's fake timers. */
  function setup() {
    const server = createFakeServer();
    const session = createSessionStore();
    const positions = createPositionsStore();
    const api = createApi({
      mainBase: '/api',
      tradingBase: '/api',
      fetch: server.fetch,
      tokens: session,
      navigate: () => undefined,
    });
    const ws = createFakeWebSocket(() => Date.now());
    const notices: string[] = [];
    const channel = createPositionsChannel({
      url: 'ws://127.0.0.1:8080/api/ws/positions',
      WebSocket: ws.WebSocket,
      session,
      positions,
      trading: api.trading,
      clock: systemClock,
      // Full jitter with the random number fixed at 0.5: each reconnect waits half of its delay.
      random: () => 0.5,
      notify: (text) => notices.push(text),
    });
    server.on('GET /positions', () => ({ status: 200, body: [BTC_LONG] }));
    let tickets = 0;
    server.on('POST /ws/ticket', () => ({ status: 200, body: { ticket: `tk-${++tickets}` } }));
    stop = channel.start();
    /** Logs in and lets the first load and the socket's zero-delay connect happen. */
    const logIn = async (token = 'tok-1') => {
      session.setToken(token);
      await advance(0);
    };
    return { server, session, positions, ws, notices, channel, logIn, trading: api.trading };
  }

  it('derives the socket address from the API base', () => {
    expect(positionsSocketUrl('/api', 'http://127.0.0.1:8080/x')).toBe(
      'ws://127.0.0.1:8080/api/ws/positions',
    );
    expect(positionsSocketUrl('https://t.example/v1/', 'http://a/')).toBe('wss://t.example/v1/ws/positions');
  });

  it('does nothing for a guest', async () => {
    const { server, ws } = setup();
    await advance(60_000);
    expect(server.requests).toEqual([]);
    expect(ws.sockets).toHaveLength(0);
  });

  it('loads by request on login, then connects with a ticket (never the token), goes live and applies snapshots', async () => {
    const { server, positions, ws, logIn } = setup();
    await logIn('tok-1');
    expect(server.count('GET /positions')).toBe(1);
    expect(server.requests[0]?.authorization).toBe('Bearer tok-1');
    expect(positions.positions.value).toEqual([BTC_LONG]);
    expect(positions.updatedText.value).toBe('Updated 0s ago');
    expect(ws.sockets).toHaveLength(1);
    expect(ws.last().url).toBe('ws://127.0.0.1:8080/api/ws/positions?ticket=tk-1');
    expect(server.requests.find((r) => r.path === '/ws/ticket')?.authorization).toBe('Bearer tok-1');
    expect(positions.live.value).toBe(false);
    ws.last().open();
    expect(positions.live.value).toBe(true);

    const marked = { ...BTC_LONG, markPrice: 96_500, unrealizedPnl: 18.19 };
    ws.last().receive({ type: 'snapshot', positions: [marked, ETH_SHORT], time: 1 });
    ws.last().receive('not json');
    ws.last().receive({ type: 'snapshot', positions: 'nonsense' });
    expect(positions.positions.value).toEqual([marked, ETH_SHORT]);
  });

  it('reconnects within 1, 2, 4, 8, 16 and then 30 s, each time with a new ticket, and never gives up', async () => {
    const { ws, logIn } = setup();
    await logIn();
    expect(ws.sockets).toHaveLength(1);
    // Half of each delay: the random number is fixed at 0.5.
    for (const delay of [500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000, 15_000]) {
      const before = ws.sockets.length;
      ws.last().drop();
      await advance(delay - 1);
      expect(ws.sockets).toHaveLength(before);
      await advance(1);
      expect(ws.sockets).toHaveLength(before + 1);
    }
    expect(ws.last().url).toContain('ticket=tk-10');
    expect(ws.sockets.map((s) => s.url).filter((u) => u.includes('token'))).toEqual([]);
  });

  it('comes back from polling to the socket when the server is reachable again', async () => {
    const { server, ws, positions, logIn } = setup();
    server.on('POST /ws/ticket', () => ({ status: 503, body: { detail: 'down' } }));
    await logIn();
    expect(ws.last().url).toBe('ws://127.0.0.1:8080/api/ws/positions');
    // 15 s: the longest wait, halved by the fixed random number.
    for (let i = 0; i < 8; i += 1) {
      ws.last().drop();
      await advance(15_000);
    }
    expect(positions.live.value).toBe(false);
    server.on('POST /ws/ticket', () => ({ status: 200, body: { ticket: 'back' } }));
    ws.last().drop();
    await advance(15_000);
    expect(ws.last().url).toContain('ticket=back');
    ws.last().open();
    expect(positions.live.value).toBe(true);
  });

  it('polls every 10 s while the socket is not live, and not while it is', async () => {
    const { server, ws, positions, logIn } = setup();
    await logIn();
    expect(server.count('GET /positions')).toBe(1);
    await advance(10_000);
    expect(server.count('GET /positions')).toBe(2);
    await advance(10_000);
    expect(server.count('GET /positions')).toBe(3);

    ws.last().open();
    await advance(60_000);
    expect(server.count('GET /positions')).toBe(3);

    ws.last().drop();
    expect(positions.live.value).toBe(false);
    await advance(9_999);
    expect(server.count('GET /positions')).toBe(3);
    await advance(1);
    expect(server.count('GET /positions')).toBe(4);
  });

  it('moves the "Updated … ago" stamp every 10 s: seconds, then minutes, then hours', async () => {
    const { ws, positions, logIn } = setup();
    await logIn();
    ws.last().open(); // no polling: only the ticks move the stamp
    expect(positions.updatedText.value).toBe('Updated 0s ago');
    await advance(9_999);
    expect(positions.updatedText.value).toBe('Updated 0s ago');
    await advance(1);
    expect(positions.updatedText.value).toBe('Updated 10s ago');
    await advance(50_000);
    expect(positions.updatedText.value).toBe('Updated 1m ago');
    await advance(3_540_000);
    expect(positions.updatedText.value).toBe('Updated 1h ago');
  });

  it('reconnects with a new ticket after a token refresh', async () => {
    const { ws, session, positions, logIn } = setup();
    await logIn('tok-1');
    ws.last().open();
    session.setToken('tok-2');
    await advance(0);
    expect(ws.sockets[0]?.readyState).toBe(3);
    expect(ws.sockets).toHaveLength(2);
    expect(ws.last().url).toBe('ws://127.0.0.1:8080/api/ws/positions?ticket=tk-2');
    expect(positions.live.value).toBe(false);
  });

  it('stops on logout: socket closed, polling and ticks stopped, positions forgotten', async () => {
    const { server, ws, session, positions, logIn } = setup();
    await logIn();
    ws.last().open();
    session.setToken(null);
    await settle();
    expect(ws.last().readyState).toBe(3);
    expect(positions.positions.value).toEqual([]);
    expect(positions.live.value).toBe(false);
    expect(positions.updatedText.value).toBeNull();
    const requests = server.requests.length;
    await advance(120_000);
    expect(server.requests).toHaveLength(requests);
    expect(ws.sockets).toHaveLength(1);
  });

  it('drops an answer that arrives after logout', async () => {
    const { server, session, positions } = setup();
    const answers: (() => void)[] = [];
    server.on(
      'GET /positions',
      () => new Promise((resolve) => answers.push(() => resolve({ status: 200, body: [BTC_LONG] }))),
    );
    session.setToken('tok');
    await settle();
    session.setToken(null);
    expect(answers).toHaveLength(1);
    for (const answer of answers) answer();
    await settle();
    expect(positions.positions.value).toEqual([]);
    expect(positions.load.value).toEqual({ status: 'idle' });
  });

  it('says "Failed to fetch positions." when the request fails, and recovers on the next poll', async () => {
    const { server, positions, logIn } = setup();
    server.on('GET /positions', () => ({ status: 500, body: { detail: 'Internal Server Error' } }));
    await logIn();
    expect(positions.load.value).toEqual({ status: 'error', message: 'Failed to fetch positions.' });
    server.on('GET /positions', () => ({ status: 200, body: [] }));
    await advance(10_000);
    expect(positions.load.value).toEqual({ status: 'ready' });
  });

  it('after an order loads once: by GET while the socket is down, by its snapshot while it is live', async () => {
    const { server, ws, positions, logIn } = setup();
    await logIn();
    positions.requestRefresh();
    await settle();
    expect(server.count('GET /positions')).toBe(2);
    ws.last().open();
    positions.requestRefresh();
    await settle();
    expect(server.count('GET /positions')).toBe(2);
  });

  it('an order refreshes the pane once: by the socket snapshot while live, by one GET while polling', async () => {
    const { server, session, ws, positions, logIn, trading } = setup();
    const panel = createTradePanelModel({ session, trading, positions, newKey: countingKeys() });
    server.on('POST /orders', () => recordedReply('btc long 150'));
    await logIn();
    ws.last().open();
    let updates = 0;
    const stopCounting = positions.positions.subscribe(() => (updates += 1));
    const counted = () => ({ gets: server.count('GET /positions'), updates: updates - 1 });
    expect(counted()).toEqual({ gets: 1, updates: 0 });

    // Live: the server pushes the new positions after the fill; no GET on top of it.
    await panel.submit('buy', 150, 'BTC/USDT');
    await advance(1);
    ws.last().receive({ type: 'snapshot', positions: [BTC_LONG], time: 2 });
    await settle();
    expect(counted()).toEqual({ gets: 1, updates: 1 });

    // The socket drops: polling mode, where the order's own GET is the one refresh.
    ws.last().drop();
    await panel.submit('buy', 150, 'BTC/USDT');
    await settle();
    expect(positions.live.value).toBe(false);
    expect(counted()).toEqual({ gets: 2, updates: 2 });
    stopCounting();
  });

  it('the Refresh button always loads, live or not', async () => {
    const { server, ws, positions, logIn } = setup();
    await logIn();
    ws.last().open();
    positions.requestRefresh(true);
    await settle();
    expect(server.count('GET /positions')).toBe(2);
  });

  it('tells the user about a liquidation', async () => {
    const { ws, notices, logIn } = setup();
    await logIn();
    ws.last().receive({ type: 'liquidation', symbol: 'BTCUSDT', price: 87_010.1234, time: 5 });
    expect(notices).toEqual(['Position BTC/USDT was liquidated at 87,010.1.']);
  });

  it('leaves no timer or socket behind once disposed', async () => {
    const { ws, logIn } = setup();
    await logIn();
    ws.last().open();
    stop?.();
    stop = null;
    expect(ws.last().readyState).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});
