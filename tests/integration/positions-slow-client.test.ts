import { NO_PROTECTION } from '../../src/contracts/protection';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { Position } from '../../src/contracts/trading';
import { PositionsHub } from '../../server/modules/trading/positions-hub';

/** A large book: each snapshot is tens of kilobytes, so a stalled reader falls behind fast. */
const book: Position[] = Array.from({ length: 200 }, (_, i) => ({
  symbol: `S${String(i).padStart(3, '0')}/USDT`,
  side: i % 2 === 0 ? 'long' : 'short',
  size: 1 + i,
  entryPrice: 100 + i,
  markPrice: 101 + i,
  liquidationPrice: 50 + i,
  margin: 10 + i,
  unrealizedPnl: i,
  leverage: 10,
  roe: 0.01 * i,
  notional: 1000 + i,
  protection: NO_PROTECTION,
}));

describe('positions socket over real sockets', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('closes a socket that stops reading once its unsent bytes pass the bound (1013 "too slow"), and keeps serving the others', async () => {
    const hub = new PositionsHub({
      positions: () => Promise.resolve(book),
      minIntervalMs: 1,
      maxBufferedBytes: 64 * 1024,
    });
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    wss.on('connection', (ws) => {
      const dispose = hub.connect('u1', ws);
      ws.on('close', dispose);
    });
    const symbols = new Set(book.map((p) => p.symbol.replace('/', '')));
    const pump = setInterval(() => hub.marksMoved(symbols), 2);
    cleanups.push(
      () => clearInterval(pump),
      () => hub.closeAll(),
      () => wss.close(),
    );
    const { port } = wss.address() as AddressInfo;

    const good = new WebSocket(`ws://127.0.0.1:${port}`);
    let goodFrames = 0;
    good.on('message', () => (goodFrames += 1));
    cleanups.push(() => good.terminate());
    await once(good, 'open');

    const slow = new WebSocket(`ws://127.0.0.1:${port}`);
    cleanups.push(() => slow.terminate());
    const closed = new Promise<[number, string]>((resolve) =>
      slow.on('close', (code, reason) => resolve([code, reason.toString()])),
    );
    await once(slow, 'open');
    slow.pause();

    // The kernel's buffers fill first, then the server's; past the bound the hub lets the socket go.
    await vi.waitFor(() => expect(hub.size).toBe(1), { timeout: 30_000, interval: 50 });
    slow.resume(); // read what was held, then the close frame behind it
    expect(await closed).toEqual([1013, 'too slow']);
    expect(good.readyState).toBe(WebSocket.OPEN);
    const before = goodFrames;
    await vi.waitFor(() => expect(goodFrames).toBeGreaterThan(before + 3));
  }, 60_000);
});
