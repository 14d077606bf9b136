import { signal } from '@preact/signals-core';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedSession } from '../../commands/testing/scripted';
import type { FakeReply } from '../testing/fakeServer';
import { createFakeClock } from '../testing/fakeClock';
import { createOrderPreview } from './orderPreview';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 6; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

const PREVIEW = {
  symbol: 'BTC/USDT',
  side: 'buy',
  quantity: 0.052,
  price: 96_150.5,
  notional: 4_999.826,
  margin: 499.98,
  fee: 2.5,
  leverage: 10,
  liquidationPrice: 87_010.1234,
};

describe('order preview under the command line', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  function setup(token: string | null = 'tok') {
    const s = scriptedSession();
    s.stores.session.setToken(token);
    const clock = createFakeClock();
    const draft = signal('');
    const preview = createOrderPreview({
      draft,
      readOrder: (line) => s.commands.readOrder(line),
      session: s.stores.session,
      trading: s.api.trading,
      clock,
    });
    stops.push(preview.start());
    const type = async (text: string, wait = 0) => {
      draft.value = text;
      clock.advance(wait);
      await settle();
      return preview.line.value;
    };
    return { ...s, clock, draft, preview, type };
  }

  it('asks the server after 250 ms of quiet and says what Enter will do', async () => {
    const { server, type } = setup();
    server.on('POST /orders/preview', () => ({ status: 200, body: PREVIEW }));
    expect(await type('btc long 5k', 249)).toEqual({ kind: 'pending', text: 'LONG BTC/USDT 5k USDT …' });
    expect(server.requests).toEqual([]);
    const ready = await type('btc long 5k', 1);
    expect(ready).toMatchObject({
      kind: 'ready',
      text: 'LONG 0.052 BTC/USDT @ 96,150.5000 ≈ 4,999.83 USDT · margin 499.98 · liq. 87,010.1234 · fee 2.50 · 10x',
    });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: 5000,
    });
  });

  it('previews the two-word form on the chosen symbol, and follows a change of symbol', async () => {
    const { server, stores, type, preview } = setup();
    server.on('POST /orders/preview', (r) => ({
      status: 200,
      body: { ...PREVIEW, symbol: JSON.parse(r.body ?? '{}').symbol },
    }));
    await type('short 250', 250);
    expect(JSON.parse(server.requests[0]?.body ?? '').symbol).toBe('BTC/USDT');
    stores.ui.chooseTicker('ETH');
    expect(preview.line.value).toEqual({ kind: 'pending', text: 'SHORT ETH/USDT 250 USDT …' });
  });

  it('only asks once while typing fast, and a late answer for an older line is ignored', async () => {
    const { server, type } = setup();
    const replies: ((r: FakeReply) => void)[] = [];
    server.on('POST /orders/preview', () => new Promise<FakeReply>((resolve) => replies.push(resolve)));
    await type('long 1', 100);
    await type('long 10', 100);
    await type('long 100', 250);
    expect(server.count('POST /orders/preview')).toBe(1);
    await type('long 1000', 250);
    expect(server.count('POST /orders/preview')).toBe(2);
    replies[1]?.({ status: 200, body: { ...PREVIEW, quantity: 0.0104 } });
    replies[0]?.({ status: 200, body: { ...PREVIEW, quantity: 0.00104 } });
    await settle();
    expect(JSON.parse(server.requests[1]?.body ?? '').amount).toBe(1000);
    expect(await type('long 1000')).toMatchObject({
      kind: 'ready',
      text: expect.stringContaining('LONG 0.0104 BTC/USDT'),
    });
  });

  it("shows the exchange's refusal before the order is sent", async () => {
    const { server, type } = setup();
    server.on('POST /orders/preview', () => ({
      status: 400,
      body: { detail: "Order's notional must be no smaller than 100 (unless you choose reduce only)." },
    }));
    expect(await type('long 10', 250)).toEqual({
      kind: 'refused',
      text: "LONG BTC/USDT 10 USDT · Order's notional must be no smaller than 100 (unless you choose reduce only).",
    });
  });

  it("shows the grammar's message for a bad order line, and nothing for other lines", async () => {
    const { server, type } = setup();
    expect(await type('eth up 5k')).toEqual({ kind: 'invalid', text: "Invalid side: 'up'." });
    expect(await type('long abc')).toEqual({ kind: 'invalid', text: 'Invalid asset or amount.' });
    expect(await type('long')).toEqual({ kind: 'invalid', text: 'Invalid command format.' });
    expect(await type('btc', 1_000)).toEqual({ kind: 'none' });
    expect(await type('help long', 1_000)).toEqual({ kind: 'none' });
    expect(await type('', 1_000)).toEqual({ kind: 'none' });
    expect(server.requests).toEqual([]);
  });

  it('tells a guest what the line means and to log in, without asking the server', async () => {
    const { server, type } = setup(null);
    expect(await type('sol short 2.5k', 1_000)).toEqual({
      kind: 'guest',
      text: 'SHORT SOL/USDT 2.5k USDT · log in to trade',
    });
    expect(server.requests).toEqual([]);
  });

  it('cancels the pending ask when stopped', async () => {
    const { server, type, clock } = setup();
    await type('long 100', 100);
    for (const stop of stops.splice(0)) stop();
    clock.advance(1_000);
    await settle();
    expect(server.requests).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
