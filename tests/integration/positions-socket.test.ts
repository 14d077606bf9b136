import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { PositionsMessage } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/** Opens a socket and collects its messages; resolves once open, or rejects with the HTTP status. */
function open(url: string): Promise<{ ws: WebSocket; messages: PositionsMessage[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const messages: PositionsMessage[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as PositionsMessage));
    ws.on('open', () => resolve({ ws, messages }));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

async function until<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(dbTargets())('positions socket on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let base: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(target);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = t.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    base = `ws://127.0.0.1:${addr.port}/api/ws/positions`;
    token = (await signUpAndLogIn(t.app, 'socketeer')).token;
  });
  afterAll(() => t.close());

  const ticket = async (): Promise<string> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ws/ticket',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    return res.json<{ ticket: string }>().ticket;
  };

  it('gives a ticket only for a valid access token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/ws/ticket' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toHaveProperty('detail');
  });

  it('refuses a missing, forged or access-token credential before upgrading', async () => {
    await expect(open(base)).rejects.toThrow('HTTP 401');
    await expect(open(`${base}?ticket=made-up`)).rejects.toThrow('HTTP 401');
    await expect(open(`${base}?token=${encodeURIComponent(token)}`)).rejects.toThrow('HTTP 401');
  });

  it('opens one socket per ticket: a ticket used once is refused the second time', async () => {
    const once = await ticket();
    const { ws } = await open(`${base}?ticket=${once}`);
    ws.close();
    await expect(open(`${base}?ticket=${once}`)).rejects.toThrow('HTTP 401');
  });

  it('sends a snapshot, then the new position after an order', async () => {
    const { ws, messages } = await open(`${base}?ticket=${await ticket()}`);
    const first = await until(() => messages[0]);
    expect(first).toMatchObject({ type: 'snapshot', positions: [] });
    await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: { authorization: `Bearer ${token}` },
      payload: { symbol: 'ETH/USDT', side: 'short', type: 'market', amount: 300 },
    });
    const update = await until(() =>
      messages.find((m) => m.type === 'snapshot' && m.positions.some((p) => p.symbol === 'ETH/USDT')),
    );
    expect(update.type === 'snapshot' && update.positions[0]?.side).toBe('short');
    ws.close();
  });
});
