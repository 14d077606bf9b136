import { describe, expect, it } from 'vitest';
import { VenueAnswerUnreadable, readVenueAnswer } from '../exchange-error';
import { OrderAnswer, PositionRiskAnswer, UserTradesAnswer } from './binance-answers';
import { StreamFees } from './stream-fees';
import { VenueInfo } from './venue-info';

const row = {
  symbol: 'BTCUSDT',
  positionAmt: '0.004',
  entryPrice: '60000',
  markPrice: '60100',
  unRealizedProfit: '0.4',
  liquidationPrice: '0',
  isolatedMargin: '0',
  notional: '240.4',
  initialMargin: '12.02',
};

const unreadable = (fn: () => unknown): VenueAnswerUnreadable => {
  try {
    fn();
  } catch (err) {
    if (err instanceof VenueAnswerUnreadable) return err;
    throw err;
  }
  throw new Error('read without complaint');
};

describe('reading Binance answers', () => {
  it('names each missing or malformed field once, without array positions', () => {
    const err = unreadable(() =>
      readVenueAnswer(
        PositionRiskAnswer,
        [
          { ...row, initialMargin: undefined },
          { ...row, initialMargin: undefined, markPrice: 'abc' },
        ],
        'the positions',
      ),
    );
    expect(err.fields).toEqual(['initialMargin missing', 'markPrice not valid']);
    expect(err.detail).toBe(
      'Binance sent an answer we could not read for the positions (initialMargin missing, markPrice not valid). Nothing was changed.',
    );
  });

  it('gives fields the adapter can do without their defaults, and takes numbers for decimal text', () => {
    const [read] = readVenueAnswer(PositionRiskAnswer, [{ ...row, positionAmt: 0.004 }], 'the positions');
    expect(read).toMatchObject({
      positionAmt: '0.004',
      breakEvenPrice: '0',
      maintMargin: '0',
      updateTime: 0,
    });
  });

  it('says a setting may have been applied when its answer cannot be read', () => {
    const err = unreadable(() =>
      readVenueAnswer(OrderAnswer, {}, 'the leverage change', { changed: 'maybe' }),
    );
    expect(err.detail).toMatch(
      /^Binance sent an answer we could not read for the leverage change \(.+\)\. It may have been applied/,
    );
  });

  it('refuses an answer that is not the documented shape at all', () => {
    expect(
      unreadable(() => readVenueAnswer(UserTradesAnswer, { code: 0 }, "the order's trades")).fields,
    ).toEqual(['not the documented shape']);
  });
});

describe('exchangeInfo, read at the edge', () => {
  const info = (symbols: unknown[]) =>
    new VenueInfo(
      { publicGet: <T>() => Promise.resolve({ symbols } as T) },
      () => Promise.reject(new Error('not signed here')),
      60_000,
      () => 0,
    );
  const btc = {
    symbol: 'BTCUSDT',
    status: 'TRADING',
    filters: [
      { filterType: 'LOT_SIZE', stepSize: '0.001', minQty: '0.001', maxQty: '1000' },
      { filterType: 'MIN_NOTIONAL', notional: '100' },
    ],
  };

  it('a symbol whose lot filter is missing or unreadable cannot be sized (unreadable, naming it); an odd entry of another symbol is no matter', async () => {
    const filters = await info([{ symbol: 'ODDUSDT' }, btc]).filters('BTCUSDT');
    expect(filters.stepSize.toFixed()).toBe('0.001');
    expect(filters.minNotional.toFixed()).toBe('100');
    const noLot = { ...btc, filters: [{ filterType: 'MIN_NOTIONAL', notional: '100' }] };
    await expect(info([noLot]).filters('BTCUSDT')).rejects.toMatchObject({
      fields: ['LOT_SIZE filter missing'],
    });
    const badStep = {
      ...btc,
      filters: [{ filterType: 'LOT_SIZE', stepSize: null, minQty: '0', maxQty: '1' }],
    };
    await expect(info([badStep]).filters('BTCUSDT')).rejects.toMatchObject({
      fields: ['stepSize not valid'],
    });
  });
});

describe("the stream's report of an order's trades", () => {
  const trade = (i: number, l: string, n: string | undefined, rp = '0', N = 'USDT') => ({
    e: 'ORDER_TRADE_UPDATE',
    o: { i, x: 'TRADE', l, ...(n === undefined ? {} : { n, N }), rp },
  });

  it('tells the fee and realised PnL only once its trades add up to what the order executed', () => {
    const fees = new StreamFees(() => 0);
    fees.add('a', trade(7, '0.003', '0.09', '1.5'));
    expect(fees.of('a', '7', '0.004')).toBeNull();
    // A trade without commission (Binance leaves `n` out) adds nothing to the fee.
    fees.add('a', trade(7, '0.001', undefined, '0.5'));
    expect(fees.of('a', '7', '0.004')).toEqual({ commission: '0.09', realizedPnl: '2' });
    // Another account's order of the same id is another order.
    expect(fees.of('b', '7', '0.004')).toBeNull();
  });

  it('does not call a fee charged in another asset a USDT figure, and ignores what it cannot read', () => {
    const fees = new StreamFees(() => 0);
    fees.add('a', trade(8, '0.004', '0.0002', '0', 'BNB'));
    expect(fees.of('a', '8', '0.004')).toBeNull();
    fees.add('a', { e: 'ORDER_TRADE_UPDATE', o: { i: 9, x: 'TRADE', l: 'many' } });
    fees.add('a', { e: 'ACCOUNT_UPDATE', a: {} });
    expect(fees.of('a', '9', '0')).toBeNull();
  });

  it('forgets orders after a quarter of an hour', () => {
    let now = 0;
    const fees = new StreamFees(() => now);
    fees.add('a', trade(1, '0.001', '0.03'));
    now = 16 * 60_000;
    fees.add('a', trade(2, '0.001', '0.03'));
    expect(fees.of('a', '1', '0.001')).toBeNull();
    expect(fees.of('a', '2', '0.001')).toEqual({ commission: '0.03', realizedPnl: '0' });
  });
});
