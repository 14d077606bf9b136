import { describe, expect, it } from 'vitest';
import type { Trade } from '../../contracts/trading';
import { fakeTradingApi } from './testing/api';
import { signal } from '@preact/signals-core';
import { createTradesHistory, startTradesWatch } from './tradesHistory';

const trade = (id: number): Trade => ({
  id: String(id),
  time: Date.UTC(2026, 10, 26, 12, 0, id),
  symbol: 'BTC/USDT',
  side: id % 2 === 0 ? 'buy' : 'sell',
  quantity: 0.002,
  price: 100_700,
  realizedPnl: id % 2 === 0 ? 0 : 1.5,
  fee: 0.1,
  accountId: 'paper',
  account: { venue: 'paper', mode: 'paper', keyHint: null },
  source: 'card',
  ruleId: null,
  ruleName: null,
  orderId: `o-${id}`,
});

describe('the Trades tab', () => {
  it('downloads every fill as CSV with the sign-in, and says when it cannot', async () => {
    const { server, trading } = fakeTradingApi();
    server.on('GET /trades.csv', () => ({ status: 200, body: 'time,symbol' }));
    const history = createTradesHistory({ trading });
    const file = await history.csv();
    expect(file.ok && file.value instanceof Blob).toBe(true);
    expect(file.ok ? await file.value.text() : '').toContain('time,symbol');
    expect(server.requests.map((r) => [r.path, r.authorization])).toEqual([['/trades.csv', 'Bearer tok']]);
    server.on('GET /trades.csv', () => ({ status: 500, body: {} }));
    expect(await history.csv()).toEqual({ ok: false, message: 'Failed to fetch trades.' });
  });

  it('loads the newest page, then older ones with the cursor until none remain', async () => {
    const { server, trading } = fakeTradingApi();
    server.on('GET /trades', (r) =>
      r.search.includes('cursor=4')
        ? { status: 200, body: { trades: [trade(3)], nextCursor: null } }
        : { status: 200, body: { trades: [trade(5), trade(4)], nextCursor: '4' } },
    );
    const history = createTradesHistory({ trading, pageSize: 2 });
    expect(history.load.value).toEqual({ status: 'idle' });
    await history.reload();
    expect(history.rows.value.map((r) => r.id)).toEqual(['5', '4']);
    expect(history.rows.value[0]?.cells).toEqual([
      '11-26 12:00:05',
      'BTC/USDT',
      'SELL',
      '0.002',
      '100,700.0',
      '+1.50',
      '0.10',
      'PAPER',
      'card',
    ]);
    expect(history.hasMore.value).toBe(true);
    await history.more();
    expect(history.rows.value.map((r) => r.id)).toEqual(['5', '4', '3']);
    expect(history.hasMore.value).toBe(false);
    expect(server.requests.map((r) => r.search)).toEqual(['?limit=2', '?limit=2&cursor=4']);
    await history.more();
    expect(server.requests).toHaveLength(2);
    history.clear();
    expect(history.rows.value).toEqual([]);
  });

  it('loads the Closed tab from the closed parts the server worked out, and forgets them on clear', async () => {
    const { server, trading } = fakeTradingApi();
    const part = {
      id: '5-c',
      time: Date.UTC(2026, 10, 26, 12, 0, 5),
      symbol: 'BTC/USDT',
      side: 'long',
      quantity: 0.1,
      entryPrice: 100_000,
      exitPrice: 101_000.05,
      realizedPnl: 100,
      fee: 4.04,
      reason: 'manual',
      accountId: 'paper',
      account: { venue: 'paper', mode: 'paper', keyHint: null },
      source: 'manual',
      ruleName: null,
      orderId: 'o-5',
    };
    server.on('GET /trades/closed', () => ({ status: 200, body: { closed: [part] } }));
    const history = createTradesHistory({ trading });
    await history.reloadClosed();
    expect(server.requests.map((r) => r.path + r.search)).toEqual(['/trades/closed?limit=200']);
    expect(history.closedLoad.value).toEqual({ status: 'ready' });
    expect(history.closedRows.value.map((r) => r.cells)).toEqual([
      [
        '11-26 12:00:05',
        'BTC/USDT',
        'LONG',
        '0.1',
        '100,000.0',
        '101,000.1',
        '+100.00',
        '4.04',
        'manual',
        'PAPER',
        'manual',
      ],
    ]);
    history.clear();
    expect(history.closedRows.value).toEqual([]);
    server.on('GET /trades/closed', () => ({ status: 503, body: { detail: 'Database unavailable.' } }));
    await history.reloadClosed();
    expect(history.closedLoad.value).toEqual({ status: 'error', message: 'Database unavailable.' });
  });

  it("says when the server refuses, in the server's words", async () => {
    const { server, trading } = fakeTradingApi();
    server.on('GET /trades', () => ({ status: 503, body: { detail: 'Database unavailable.' } }));
    const history = createTradesHistory({ trading });
    await history.reload();
    expect(history.load.value).toEqual({ status: 'error', message: 'Database unavailable.' });
  });
});

describe('keeping the Trades tab current', () => {
  it('loads when shown and after a fill, not while hidden, and forgets on logout', async () => {
    const { server, trading } = fakeTradingApi();
    server.on('GET /trades', () => ({ status: 200, body: { trades: [trade(1)], nextCursor: null } }));
    const history = createTradesHistory({ trading });
    const loggedIn = signal(true);
    const shown = signal(false);
    const holdings = signal('');
    const stop = startTradesWatch({ history, loggedIn, shown, holdings });
    const settle = () => new Promise((r) => setTimeout(r, 0));
    await settle();
    expect(server.count('GET /trades')).toBe(0);
    shown.value = true;
    await settle();
    expect(server.count('GET /trades')).toBe(1);
    holdings.value = 'BTC/USDT long 0.002';
    await settle();
    expect(server.count('GET /trades')).toBe(2);
    expect(history.rows.value).toHaveLength(1);
    loggedIn.value = false;
    await settle();
    expect(history.rows.value).toEqual([]);
    stop();
    loggedIn.value = true;
    await settle();
    expect(server.count('GET /trades')).toBe(2);
  });
});
