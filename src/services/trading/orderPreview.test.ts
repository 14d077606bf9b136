import { signal } from '@preact/signals-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestConsole } from '../../commands/testing/scripted';
import type { FakeReply } from '../testing/fakeServer';
import { createFakeClock } from '../testing/fakeClock';
import { createOrderPreview } from './orderPreview';
import { recordedPreview, recordedRefusal } from './testing/serverAnswers';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 6; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** What the server previewed for `btc long 200`. */
const PREVIEW = recordedPreview('preview btc long 200');

describe('order preview under the command line', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  function setup(token: string | null = 'tok') {
    const s = createTestConsole();
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
    expect(await type('btc long 200', 249)).toEqual({
      kind: 'pending',
      text: 'LONG BTC/USDT 200 USDT (min. 100 USDT) …',
    });
    expect(server.requests).toEqual([]);
    const ready = await type('btc long 200', 1);
    expect(ready).toMatchObject({
      kind: 'ready',
      text:
        'LONG 0.002 BTC ≈ 201.37 USDT of BTC/USDT at 100,683.1 · margin 20.14 · liq. 90,978.7 · ' +
        'fee 0.10 · 10x · min. 100 USDT. Not exactly 200 USDT: BTC trades in steps of 0.001 BTC ≈ ' +
        '100.68 USDT (100.68 or 201.37), so the order is the nearest, 0.002 BTC ≈ 201.37 USDT.',
    });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: 200,
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
    expect(preview.line.value).toEqual({
      kind: 'pending',
      text: 'SHORT ETH/USDT 250 USDT (min. 20 USDT) …',
    });
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
      text: expect.stringContaining('LONG 0.0104 BTC ≈'),
    });
  });

  it("shows the stop's and target's prices, the loss and gain at each, and where each leg rests", async () => {
    const { server, type } = setup();
    server.on('POST /orders/preview', () => ({ status: 200, body: PREVIEW }));
    expect(await type('btc long 200 sl 2% tp 5%')).toEqual({
      kind: 'pending',
      text: 'LONG BTC/USDT 200 USDT (min. 100 USDT) · SL 2% · TP 5% …',
    });
    const ready = await type('btc long 200 sl 2% tp 5%', 250);
    // 100,683.10 × 0.98 and × 1.05; 0.002 BTC × the distance from the price.
    expect(ready).toMatchObject({
      kind: 'ready',
      text:
        'LONG 0.002 BTC ≈ 201.37 USDT of BTC/USDT at 100,683.1 · margin 20.14 · liq. 90,978.7 · ' +
        'fee 0.10 · 10x · min. 100 USDT · SL 98,669.4 (-4.03 USDT) on the paper exchange · ' +
        'TP 105,717.3 (+10.07 USDT) on the paper exchange. Not exactly 200 USDT: BTC trades in steps ' +
        'of 0.001 BTC ≈ 100.68 USDT (100.68 or 201.37), so the order is the nearest, 0.002 BTC ≈ 201.37 USDT.',
    });
    // The preview asks the server to size the order only; the protection is worked out here.
    expect(JSON.parse(server.requests[0]?.body ?? '')).not.toHaveProperty('protection');
    const legs = await type('btc long 200 sl 99000 trail 1% exit 2h', 250);
    expect(legs.kind === 'ready' && legs.text).toContain(
      'SL 99,000.0 (-3.37 USDT) on the paper exchange · trail 1% (-2.01 USDT from the best price) ' +
        'on the paper exchange · exit after 2h in the app',
    );
  });

  it('says the legs rest on Binance on a key account, and for a short below and above the price', async () => {
    const s = createTestConsole();
    s.stores.session.setToken('tok');
    const clock = createFakeClock();
    const draft = signal('');
    const model = createOrderPreview({
      draft,
      readOrder: (line) => s.commands.readOrder(line),
      session: s.stores.session,
      trading: s.api.trading,
      clock,
      accountVenue: signal('binance'),
    });
    stops.push(model.start());
    s.server.on('POST /orders/preview', () => ({ status: 200, body: { ...PREVIEW, side: 'sell' } }));
    draft.value = 'btc short 200 sl 1% tp 2%';
    clock.advance(250);
    await settle();
    expect(model.line.value).toMatchObject({
      kind: 'ready',
      text: expect.stringContaining(
        'SL 101,689.9 (-2.01 USDT) on Binance · TP 98,669.4 (+4.03 USDT) on Binance',
      ),
    });
  });

  it('refuses a stop or target on the wrong side of the price before the order is sent', async () => {
    const { server, type } = setup();
    server.on('POST /orders/preview', () => ({ status: 200, body: PREVIEW }));
    const line = await type('btc long 200 sl 101000', 250);
    expect(line.kind).toBe('refused');
    expect(line.kind !== 'none' && line.text).toMatch(
      /SL 101,000\.0 \(\+0\.63 USDT\) on the paper exchange.* · A long's stop loss must be below the price \(100,683\.1\)\.$/,
    );
    expect(await type('btc long 200 trail 20%')).toEqual({
      kind: 'invalid',
      text: 'Trailing stop must be between 0.1% and 10%.',
    });
  });

  it("shows the exchange's refusal before the order is sent", async () => {
    const { server, type } = setup();
    const refusal = recordedRefusal('preview btc long 10');
    server.on('POST /orders/preview', () => refusal);
    expect(await type('long 10', 250)).toEqual({
      kind: 'refused',
      text:
        'LONG BTC/USDT 10 USDT (min. 100 USDT) · The minimum order for BTC/USDT is 100 USDT. At this price ' +
        'that buys 0.001 BTC ≈ 100.68 USDT (BTC trades in steps of 0.001 BTC ≈ 100.68 USDT).',
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
      text: 'SHORT SOL/USDT 2.5k USDT (min. 5 USDT) · log in to trade',
    });
    expect(server.requests).toEqual([]);
  });

  it('sizes within the fat-finger cap when the amount is at or under it, and not above it', async () => {
    const s = createTestConsole();
    s.stores.session.setToken('tok');
    const clock = createFakeClock();
    const draft = signal('');
    const cap = signal(150);
    const model = createOrderPreview({
      draft,
      readOrder: (line) => s.commands.readOrder(line),
      session: s.stores.session,
      trading: s.api.trading,
      clock,
      fatFingerCap: cap,
    });
    stops.push(model.start());
    s.server.on('POST /orders/preview', () => ({ status: 200, body: PREVIEW }));
    for (const line of ['btc long 150', 'btc long 200']) {
      draft.value = line;
      clock.advance(250);
      await settle();
    }
    const bodies = s.server.requests.map((r) => JSON.parse(r.body ?? '{}') as Record<string, unknown>);
    expect(bodies.map((b) => b.maxNotional)).toEqual([150, undefined]);
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
