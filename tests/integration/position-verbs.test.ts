import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClosedTradesPage,
  CloseResponse,
  OrderResponse,
  Position,
  TradesPage,
} from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

type Auth = { authorization: string };

describe.each(dbTargets())('position verbs on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  const order = async (auth: Auth, body: object) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers: auth,
      payload: { type: 'market', ...body },
    });
    expect(res.statusCode, res.body).toBe(200);
    return OrderResponse.parse(res.json());
  };
  const close = (auth: Auth, body: object, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/close_position',
      headers: { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: body,
    });
  const btc = async (auth: Auth) => {
    const open = ((await t.app.inject({ url: '/api/positions', headers: auth })).json() as unknown[]).map(
      (p) => Position.parse(p),
    );
    return open.find((p) => p.symbol === 'BTC/USDT');
  };
  const fills = async (auth: Auth) =>
    TradesPage.parse((await t.app.inject({ url: '/api/trades', headers: auth })).json()).trades;
  /** A long of about `quantity` BTC: the amount from the price the first fill shows. */
  const longBtc = async (auth: Auth, quantity: number) => {
    const probe = await order(auth, { symbol: 'BTC/USDT', side: 'long', amount: 200 });
    await close(auth, { symbol: 'BTC/USDT' });
    const opened = await order(auth, { symbol: 'BTC/USDT', side: 'long', amount: quantity * probe.price });
    expect(opened.quantity).toBeCloseTo(quantity, 8);
    return opened;
  };

  it('close 50% places one reduce-only market order of half, down to the step, and keeps the rest', async () => {
    const auth = await signUpAndLogIn(t.app, 'halver');
    await longBtc(auth, 0.005);
    const before = (await fills(auth)).length;
    const res = await close(auth, { symbol: 'BTC/USDT', share: 0.5 });
    expect(res.statusCode, res.body).toBe(200);
    const closed = CloseResponse.parse(res.json());
    // Half of 0.005 is 0.0025: on BTC's 0.001 step that is 0.002, never more than asked.
    expect(closed.fill).toMatchObject({ side: 'sell', quantity: 0.002 });
    expect(closed.message).toMatch(/^Closed BTC\/USDT long: 0\.002 at /);
    expect((await fills(auth)).length).toBe(before + 1);
    expect(await btc(auth)).toMatchObject({ side: 'long', size: 0.003 });

    const thirdRes = await close(auth, { symbol: 'BTC/USDT', share: 1 / 3 });
    expect(thirdRes.statusCode, thirdRes.body).toBe(200);
    const third = CloseResponse.parse(thirdRes.json());
    expect(third.fill.quantity).toBe(0.001);
    expect(await btc(auth)).toMatchObject({ side: 'long', size: 0.002 });
  });

  it('refuses a share that rounds to nothing, naming the smallest order, and sends nothing', async () => {
    const auth = await signUpAndLogIn(t.app, 'tiny');
    await longBtc(auth, 0.002);
    const before = (await fills(auth)).length;
    const res = await close(auth, { symbol: 'BTC/USDT', share: 0.25 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail:
        '25% of 0.002 BTC rounds to nothing: the smallest BTC/USDT order on the paper exchange is 0.001 BTC. ' +
        'Close a larger share, or the whole position with close btc.',
    });
    expect((await fills(auth)).length).toBe(before);
    expect((await close(auth, { symbol: 'ETH/USDT', share: 0.5 })).json()).toEqual({
      detail: 'No open ETH/USDT position.',
    });
    expect((await close(auth, { symbol: 'BTC/USDT', share: 0 })).statusCode).toBe(422);
  });

  it('30 parallel close 50%, one Idempotency-Key each, never close more than is open nor flip it', async () => {
    const auth = await signUpAndLogIn(t.app, 'racer');
    await longBtc(auth, 0.1);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => close(auth, { symbol: 'BTC/USDT', share: 0.5 }, `half-${i}`)),
    );
    const done = answers.filter((r) => r.statusCode === 200).map((r) => CloseResponse.parse(r.json()).fill);
    expect(done.length).toBeGreaterThan(0);
    // The rest found nothing left, or too little to halve on the step.
    for (const r of answers.filter((a) => a.statusCode !== 200)) {
      expect((r.json() as { detail: string }).detail).toMatch(
        /^(No open BTC\/USDT position\.|50% of 0\.001 BTC rounds to nothing: the smallest BTC\/USDT order on the paper exchange is 0\.001 BTC\.)/,
      );
    }
    const sold = done.reduce((sum, f) => sum + f.quantity, 0);
    expect(sold).toBeLessThanOrEqual(0.1 + 1e-9);
    const left = await btc(auth);
    expect(left === undefined || left.side === 'long').toBe(true);
    expect(sold + (left?.size ?? 0)).toBeCloseTo(0.1, 8);
    // A retry under a key that filled answers that fill again; nothing more is sold.
    const retried = await close(auth, { symbol: 'BTC/USDT', share: 0.5 }, 'half-0');
    if (answers[0]!.statusCode === 200) {
      expect(CloseResponse.parse(retried.json()).fill.id).toBe(
        CloseResponse.parse(answers[0]!.json()).fill.id,
      );
    }
    expect((await btc(auth))?.size).toBe(left?.size);
  });

  it('the Closed tab after a flip shows the long that was closed, not the whole fill', async () => {
    const auth = await signUpAndLogIn(t.app, 'flipper');
    const opened = await longBtc(auth, 0.01);
    const flip = await order(auth, { symbol: 'BTC/USDT', side: 'short', amount: 0.014 * opened.price });
    expect(flip.quantity).toBeCloseTo(0.014, 8);
    const page = ClosedTradesPage.parse(
      (await t.app.inject({ url: '/api/trades/closed', headers: auth })).json(),
    );
    const [row] = page.closed;
    expect(row).toMatchObject({
      symbol: 'BTC/USDT',
      side: 'long',
      quantity: 0.01,
      entryPrice: opened.price,
      exitPrice: flip.price,
      realizedPnl: flip.realizedPnl,
      reason: 'manual',
    });
    expect(row!.fee).toBeCloseTo((flip.fee * 0.01) / 0.014, 8);
    expect(await btc(auth)).toMatchObject({ side: 'short', size: 0.004 });
  });
});
