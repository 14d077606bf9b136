import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { ResolvedAccount } from './accounts';
import type { ExchangeAdapter, OrderBookDepth } from './exchange';
import { ExchangeError } from './exchange-error';
import {
  SlippageGuard,
  adversePct,
  capPrice,
  planOf,
  receiptOf,
  slippageRefusalText,
  walkBook,
} from './slippage';

const book: OrderBookDepth = {
  bids: [
    ['99.9', '1'],
    ['99.5', '2'],
  ],
  asks: [
    ['100.1', '1'],
    ['100.5', '1'],
    ['101.0', '10'],
  ],
};

describe('the slippage guard', () => {
  it('walks the asks for a buy until the amount is filled, measured from the mid', () => {
    const small = walkBook(book, 'BUY', 50);
    expect(small?.reference.toNumber()).toBe(100);
    expect(small?.average.toNumber()).toBeCloseTo(100.1, 10);
    // 100.1 + 100.5 USDT of the first two levels, then 49.4 USDT at 101.
    const deep = walkBook(book, 'BUY', 250);
    const qty = 1 + 1 + 49.4 / 101;
    expect(deep?.average.toNumber()).toBeCloseTo(250 / qty, 8);
    expect(deep?.covered).toBe(true);
    expect(adversePct('BUY', 100, deep!.average)).toBeCloseTo(0.4, 1);
  });

  it('walks the bids for a sell; a book that runs out is not covered', () => {
    const sell = walkBook(book, 'SELL', 1_000);
    expect(sell?.covered).toBe(false);
    expect(adversePct('SELL', 100, '99.5')).toBeCloseTo(0.5, 10);
    expect(walkBook({ bids: [], asks: [] }, 'SELL', 10)).toBeNull();
  });

  it('within the cap sends market; past it, or on a book too thin, an IOC limit at the cap price', () => {
    const est = { reference: new Decimal(100), average: new Decimal('100.25'), covered: true };
    expect(planOf('BUY', 0.3, est).sentAs).toBe('market');
    expect(planOf('BUY', 0.2, est)).toMatchObject({ sentAs: 'ioc_limit', estimatedPct: 0.25 });
    expect(planOf('BUY', 1, { ...est, covered: false }).sentAs).toBe('ioc_limit');
    expect(capPrice('BUY', new Decimal(60_000), 0.3, new Decimal('0.1')).toNumber()).toBe(60_180);
    expect(capPrice('SELL', new Decimal('60000.05'), 0.3, new Decimal('0.1')).toNumber()).toBe(59_820.1);
  });

  it('the receipt says what was estimated, the cap, how it went and what the fill did', () => {
    const plan = planOf('SELL', 0.5, {
      reference: new Decimal(100),
      average: new Decimal('99.8'),
      covered: true,
    });
    expect(receiptOf(plan, { price: 99.9, quantity: 1 })).toEqual({
      estimated_pct: 0.2,
      cap_pct: 0.5,
      sent_as: 'market',
      actual_pct: 0.1,
    });
    expect(receiptOf(plan, { price: 0, quantity: 0 }).actual_pct).toBeNull();
  });

  it('past the cap on a venue without limit orders it refuses, in the words of the spec, and sends nothing', async () => {
    let sent = 0;
    const adapter = {
      kind: 'paper',
      depth: () =>
        Promise.resolve({
          bids: [['99', '1']],
          asks: [
            ['101', '0.1'],
            ['103', '10'],
          ],
        }),
      placeMarketOrder: () => {
        sent++;
        return Promise.reject(new Error('not to be sent'));
      },
    } as unknown as ExchangeAdapter;
    const where = {
      adapter,
      account: 'u',
      name: 'paper',
      venue: 'paper',
      mode: 'paper',
      keyHint: null,
    } as ResolvedAccount;
    const guard = new SlippageGuard(() => Promise.reject(new Error('unused')));
    const order = { symbol: 'BTCUSDT', side: 'BUY' as const, quoteAmount: '100', newClientOrderId: 'sc-1' };
    const refused = await guard.guard('u', where, order, 0.3).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ExchangeError);
    expect((refused as ExchangeError).msg).toBe(slippageRefusalText(2.794, 0.3));
    expect((refused as ExchangeError).msg).toBe(
      'Estimated slippage 2.79% is past your cap of 0.3%; not sent.',
    );
    expect(sent).toBe(0);
    // No cap, no guard: the order goes as it is.
    const open = await guard.guard('u', where, order, undefined);
    expect(open.where).toBe(where);
  });
});
