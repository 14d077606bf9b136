import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { BinanceClient } from '../../exchanges/binance-client';
import { ExchangeError } from '../exchange-error';
import { UserDataStream } from './user-stream';

const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function streamServer(): Promise<{ url: string; connections: () => number }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  await new Promise((resolve) => wss.once('listening', resolve));
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/ws/{listenKey}`,
    connections: () => [...wss.clients].filter((c) => c.readyState === c.OPEN).length,
  };
}

describe('UserDataStream', () => {
  it('starts over once when keep-alives that overlap all hear -1125, never with two sockets', async () => {
    const server = await streamServer();
    const calls: string[] = [];
    let keys = 0;
    const client = {
      keyed: async (method: string) => {
        calls.push(method);
        if (method === 'POST') return { listenKey: `key-${++keys}` };
        // A slow answer: several keep-alives for the first key are in flight at once, and each says the
        // key is gone, also those that come back after a new key was taken.
        const forKey = keys;
        await new Promise((r) => setTimeout(r, 60));
        if (forKey === 1) throw new ExchangeError(-1125, 'This listenKey does not exist.');
        return {};
      },
    } as unknown as BinanceClient;
    const stream = new UserDataStream({
      client,
      credentials: async () => ({ apiKey: 'k', secret: 's' }),
      urlTemplate: server.url,
      onEvent: () => undefined,
      keepAliveMs: 10,
    });
    stream.start();
    const deadline = Date.now() + 5000;
    while (keys < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.filter((c) => c === 'POST')).toHaveLength(2);
    expect(server.connections()).toBe(1);
    await stream.stop();
  });
});
