import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { checkNotImmediate, readConditionalRequest } from './conditional-request';
import {
  EMPTY_BOOK,
  ENDED_KEPT,
  endIn,
  placeIn,
  statusChanges,
  stepAt,
  type PaperConditional,
  type PlacedConditional,
} from './conditionals';
import { filtersFor } from './filters';

const order = (over: Partial<PaperConditional>): PaperConditional => ({
  algoId: 'a',
  clientAlgoId: 'c',
  symbol: 'BTCUSDT',
  side: 'SELL',
  type: 'STOP_MARKET',
  status: 'NEW',
  triggerPrice: '100',
  quantity: null,
  closePosition: true,
  callbackRate: null,
  activatePrice: null,
  actualOrderId: null,
  updateTime: 0,
  extreme: null,
  reason: null,
  ...over,
});

const step = (o: PaperConditional, mark: number) => {
  const s = stepAt(o, new Decimal(mark));
  return s === null ? null : s.kind === 'fire' ? 'fire' : `trail ${s.extreme.toString()}`;
};

describe('conditional orders on the mark', () => {
  const atTrigger: [PaperConditional['side'], PaperConditional['type'], [number, 'fire' | null][]][] = [
    [
      'SELL',
      'STOP_MARKET',
      [
        [100.1, null],
        [100, 'fire'],
        [99, 'fire'],
      ],
    ],
    [
      'SELL',
      'TAKE_PROFIT_MARKET',
      [
        [99.9, null],
        [100, 'fire'],
        [101, 'fire'],
      ],
    ],
    [
      'BUY',
      'STOP_MARKET',
      [
        [99.9, null],
        [100, 'fire'],
        [101, 'fire'],
      ],
    ],
    [
      'BUY',
      'TAKE_PROFIT_MARKET',
      [
        [100.1, null],
        [100, 'fire'],
        [99, 'fire'],
      ],
    ],
  ];
  it.each(atTrigger)('a %s %s with its trigger at 100', (side, type, marks) => {
    for (const [mark, expected] of marks) expect(step(order({ side, type }), mark)).toBe(expected);
  });

  it('a trailing stop arms at its activation price, follows the best mark, and fires the rate away from it', () => {
    const sell = order({
      type: 'TRAILING_STOP_MARKET',
      triggerPrice: null,
      callbackRate: '2',
      activatePrice: '110',
    });
    expect(step(sell, 109.9)).toBeNull();
    expect(step(sell, 110)).toBe('trail 110');
    const armed = { ...sell, extreme: '120' };
    expect(step(armed, 121)).toBe('trail 121');
    expect(step(armed, 117.61)).toBeNull();
    expect(step(armed, 117.6)).toBe('fire');
    const buy = { ...sell, side: 'BUY' as const, activatePrice: '90' };
    expect(step(buy, 90.1)).toBeNull();
    expect(step(buy, 90)).toBe('trail 90');
    const low = { ...buy, extreme: '80' };
    expect(step(low, 79)).toBe('trail 79');
    expect(step(low, 81.59)).toBeNull();
    expect(step(low, 81.6)).toBe('fire');
  });

  it('refuses at placing what the mark would fire at once, and takes what it would not', () => {
    const filters = filtersFor('BTCUSDT');
    const read = (type: PlacedConditional['type'], side: 'BUY' | 'SELL', price: string) =>
      readConditionalRequest(
        type === 'TRAILING_STOP_MARKET'
          ? {
              symbol: 'BTCUSDT',
              side,
              type,
              quantity: '1',
              callbackRate: '1',
              activatePrice: price,
              clientAlgoId: 'x',
            }
          : { symbol: 'BTCUSDT', side, type, triggerPrice: price, closePosition: true, clientAlgoId: 'x' },
        filters,
      );
    const mark = new Decimal(100);
    const cases = [
      ['STOP_MARKET', 'SELL', '99.9', true],
      ['STOP_MARKET', 'SELL', '100', false],
      ['TAKE_PROFIT_MARKET', 'SELL', '100.1', true],
      ['TAKE_PROFIT_MARKET', 'BUY', '99.9', true],
      ['STOP_MARKET', 'BUY', '100', false],
      ['TRAILING_STOP_MARKET', 'SELL', '100.1', true],
      ['TRAILING_STOP_MARKET', 'BUY', '100', false],
    ] as const;
    for (const [type, side, price, takes] of cases) {
      const placing = () => checkNotImmediate(read(type, side, price), mark);
      if (takes) expect(placing, `${side} ${type} at ${price}`).not.toThrow();
      else expect(placing, `${side} ${type} at ${price}`).toThrow('Order would immediately trigger.');
    }
  });
});

describe('the book of an account', () => {
  const placed = (n: number): PlacedConditional => {
    const { status: _s, actualOrderId: _a, updateTime: _u, reason: _r, ...o } = order({ algoId: `a${n}` });
    return o;
  };

  it('tells the orders placed and ended, not those that only moved', () => {
    const one = placeIn(EMPTY_BOOK, placed(1), 1);
    const two = placeIn(one, placed(2), 2);
    expect(statusChanges(one, two).map((o) => [o.algoId, o.status])).toEqual([['a2', 'NEW']]);
    const ended = endIn(two, 'a1', { status: 'CANCELED', reason: null, actualOrderId: null }, 3);
    expect(statusChanges(two, ended).map((o) => [o.algoId, o.status, o.updateTime])).toEqual([
      ['a1', 'CANCELED', 3],
    ]);
    expect(statusChanges(ended, ended)).toEqual([]);
    expect(endIn(ended, 'a1', { status: 'CANCELED', reason: null, actualOrderId: null }, 4)).toBe(ended);
  });

  it(`keeps the latest ${ENDED_KEPT} ended orders`, () => {
    let book = EMPTY_BOOK;
    for (let n = 0; n < ENDED_KEPT + 5; n++) {
      book = placeIn(book, placed(n), n);
      book = endIn(book, `a${n}`, { status: 'EXPIRED', reason: 'gone', actualOrderId: null }, n);
    }
    expect(book.resting.size).toBe(0);
    expect(book.ended.map((o) => o.algoId)).toEqual(
      Array.from({ length: ENDED_KEPT }, (_, i) => `a${i + 5}`),
    );
  });
});
