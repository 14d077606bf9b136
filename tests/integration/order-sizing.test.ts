import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { users } from '../../server/db/schema';
import { LedgerRepo } from '../../server/modules/trading/paper/ledger.repo';
import { PaperExchange } from '../../server/modules/trading/paper/paper-exchange';
import { lotFiltersFor, sizeOrder } from '../../src/contracts/sizing';
import { OrderPreview, OrderResponse } from '../../src/contracts/trading';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

describe.each(dbTargets())('order sizing: preview equals fill on %s', (name) => {
  const target = useDatabase(name);
  describe('paper exchange at a fixed mark', () => {
    let database: Database;
    const marks = new Map<string, number>([['BTCUSDT', 100_700]]);
    const exchange = () =>
      new PaperExchange({ repo: new LedgerRepo(database.db), marks: { price: (s) => marks.get(s) } });
    let n = 0;
    const newUser = async (): Promise<string> => {
      n += 1;
      const [row] = await database.db
        .insert(users)
        .values({ email: `sizer${n}@example.com`, username: `sizer${n}` })
        .returning({ id: users.id });
      return row!.id;
    };

    beforeAll(async () => {
      database = await target.open();
    });
    afterAll(async () => {
      await database.close();
      await target.cleanup();
    });

    it.each([
      [100_700, 200, '0.002'],
      [100_700, 150, '0.001'],
      [100_700, 260, '0.003'],
      [60_000, 110, '0.002'],
      [67_000, 100, '0.002'],
    ])('at %d, %d USDT previews and fills the same quantity, %s BTC', async (mark, amount, qty) => {
      marks.set('BTCUSDT', mark);
      const paper = exchange();
      const user = await newUser();
      const request = { symbol: 'BTCUSDT', side: 'BUY' as const, quoteAmount: String(amount) };
      const preview = await paper.previewMarketOrder(user, request);
      const fill = await paper.placeMarketOrder(user, { ...request, newClientOrderId: `t-${n}` });
      expect(preview.fill.qty).toBe(qty);
      expect(fill.executedQty).toBe(preview.fill.qty);
      expect(fill.avgPrice).toBe(preview.fill.price);
      expect(fill.sizing).toEqual(preview.sizing);
      // The browser sizes its previews with the same function, at the same price, to the same quantity.
      const browser = sizeOrder({ amount, price: fill.avgPrice, filters: lotFiltersFor('BTCUSDT')! });
      expect(browser.ok && browser.quantity.toFixed()).toBe(qty);
    });

    it('never fills above the fat-finger cap: rounds down to a step within it', async () => {
      marks.set('BTCUSDT', 100_000);
      const paper = exchange();
      const user = await newUser();
      const request = { symbol: 'BTCUSDT', side: 'BUY' as const, quoteAmount: '190', maxNotional: '190' };
      const fill = await paper.placeMarketOrder(user, { ...request, newClientOrderId: `cap-${n}` });
      expect(Number(fill.cumQuote)).toBeLessThanOrEqual(190);
      expect(fill.sizing?.adjustment).toBe('down-to-cap');
      expect(fill.sizing?.note).toMatch(/fat-finger cap of 190 USDT/);
    });

    it('rounds down to what the free margin pays for, never refusing an order the margin covers', async () => {
      marks.set('BTCUSDT', 100_000);
      const paper = exchange();
      const user = await newUser();
      // 10 000 USDT at 10x pays for 99 502.49 USDT with the 0.05 % fee. At the fill price (100 020 with
      // 2 bps of slippage) the nearest step, 0.995 BTC, would be worth 99 519.90: one step less fills.
      const request = { symbol: 'BTCUSDT', side: 'BUY' as const, quoteAmount: '99500' };
      const preview = await paper.previewMarketOrder(user, request);
      const fill = await paper.placeMarketOrder(user, { ...request, newClientOrderId: `m-${n}` });
      expect(preview.fill.qty).toBe('0.994');
      expect(fill.executedQty).toBe('0.994');
      expect(fill.sizing?.adjustment).toBe('down-to-margin');
      expect(Number((await paper.balance(user)).availableBalance)).toBeGreaterThanOrEqual(0);
    });
  });

  describe('over HTTP', () => {
    let t: TestApp;
    let auth: { authorization: string };
    beforeAll(async () => {
      // One price for the whole test: the simulator ticks once a minute.
      t = await startTestApp(target, { MARKET_SIM_TICK_MS: '60000' });
      auth = await signUpAndLogIn(t.app, 'sizer');
    });
    afterAll(() => t.close());

    it.each([200, 150])(
      'btc long %d: the fill is the preview, within half a step of the amount',
      async (amount) => {
        const body = { symbol: 'BTC/USDT', side: 'long', type: 'market', amount };
        const previewed = await t.app.inject({
          method: 'POST',
          url: '/api/orders/preview',
          headers: auth,
          payload: body,
        });
        const preview = OrderPreview.parse(previewed.json());
        const placed = await t.app.inject({
          method: 'POST',
          url: '/api/orders',
          headers: auth,
          payload: body,
        });
        const fill = OrderResponse.parse(placed.json());
        expect(fill.quantity).toBe(preview.quantity);
        expect(fill.price).toBe(preview.price);
        expect(fill.notional).toBeCloseTo(preview.notional, 8);
        expect(fill).toMatchObject({ requested: amount, adjustment: preview.adjustment, note: preview.note });
        expect(Math.abs(fill.notional - amount)).toBeLessThanOrEqual(preview.stepNotional / 2 + 1e-9);
      },
    );
  });
});
