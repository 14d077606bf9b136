import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvent, emptyAccount, type LedgerEvent, type PaperAccountState } from './account';
import { EMPTY_BOOK, ENDED_KEPT } from './conditionals';
import { EMPTY_LIMITS } from './limits';
import { fromSnapshot, toSnapshot } from './snapshot';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;

/** Decimal strings of every scale the ledger meets, from satoshis to whole millions. */
const amount = fc
  .tuple(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 0, max: 9 }))
  .map(([n, scale]) => new Decimal(n).div(10 ** scale).toString());

/** A few algo ids, so that fills, trails and ends meet the orders placed before them. */
const algoId = fc.integer({ min: 1, max: 8 }).map((n) => `algo-${n}`);
const at = fc.integer({ min: 1, max: 2 ** 45 });

const event: fc.Arbitrary<LedgerEvent> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({
        symbol: fc.constantFrom(...SYMBOLS),
        side: fc.constantFrom('BUY' as const, 'SELL' as const),
        qty: amount,
        price: amount,
        fee: amount,
        reduceOnly: fc.boolean(),
        id: fc.nat(),
        fired: fc.option(algoId),
        at: fc.option(at),
      })
      .map(({ id, fired, at: time, ...f }) => ({
        type: 'fill' as const,
        orderId: `o${id}`,
        clientOrderId: `c${id}`,
        ...f,
        ...(fired === null ? {} : { algoId: fired }),
        ...(time === null ? {} : { at: time }),
      })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({
        algoId,
        clientAlgoId: fc.constantFrom('sl', 'tp', 'trail'),
        symbol: fc.constantFrom(...SYMBOLS),
        side: fc.constantFrom('BUY' as const, 'SELL' as const),
        type: fc.constantFrom(
          'STOP_MARKET' as const,
          'TAKE_PROFIT_MARKET' as const,
          'TRAILING_STOP_MARKET' as const,
        ),
        price: amount,
        quantity: fc.option(amount),
        armed: fc.option(amount),
        at,
      })
      .map(({ price, quantity, armed, at: time, ...o }) => {
        const trailing = o.type === 'TRAILING_STOP_MARKET';
        return {
          type: 'conditional' as const,
          order: {
            ...o,
            triggerPrice: trailing ? null : price,
            quantity,
            closePosition: quantity === null,
            callbackRate: trailing ? '1.5' : null,
            activatePrice: trailing && armed === null ? price : null,
            extreme: trailing ? armed : null,
          },
          at: time,
        };
      }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('conditional-trail' as const),
      algoId,
      symbol: fc.constantFrom(...SYMBOLS),
      extreme: amount,
      at,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('conditional-end' as const),
      algoId,
      symbol: fc.constantFrom(...SYMBOLS),
      status: fc.constantFrom('CANCELED' as const, 'REJECTED' as const),
      reason: fc.option(fc.constantFrom('ReduceOnly Order is rejected.', 'gone')),
      at,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('leverage' as const),
      symbol: fc.constantFrom(...SYMBOLS),
      leverage: fc.integer({ min: 1, max: 125 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('liquidation' as const),
      symbol: fc.constantFrom(...SYMBOLS),
      price: amount,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('deposit' as const),
      amount,
      reason: fc.constantFrom('initial' as const, 'reset' as const),
    }),
  },
);

/** Through JSON text, as the jsonb column stores it. */
const roundTrip = (state: PaperAccountState) => fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));

/** Every field, with each Decimal's exact digits and sign, and the maps' order. */
const fingerprint = (state: PaperAccountState) => ({
  cash: state.cash.valueOf(),
  positions: [...state.positions].map(([k, p]) => [
    k,
    p.symbol,
    p.size.valueOf(),
    p.entryPrice.valueOf(),
    p.isolatedWallet.valueOf(),
    p.leverage,
  ]),
  leverage: [...state.leverage],
  conditionals: [...state.conditionals.resting],
  ended: state.conditionals.ended,
});

describe('paper account snapshots', () => {
  it('give back the very state a long random ledger reaches, wherever they are taken', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 300, maxLength: 1500 }),
        fc.integer({ min: 1, max: 150 }),
        (events, every) => {
          let plain = emptyAccount();
          let resumed = emptyAccount();
          let restored = 0;
          events.forEach((e, i) => {
            plain = applyEvent(plain, e).state;
            resumed = applyEvent(resumed, e).state;
            if ((i + 1) % every === 0) {
              const back = roundTrip(resumed);
              expect(back).not.toBeNull();
              resumed = back!;
              restored += 1;
            }
          });
          expect(restored).toBe(Math.floor(events.length / every));
          expect(resumed).toEqual(plain);
          expect(fingerprint(resumed)).toEqual(fingerprint(plain));
          expect(fingerprint(roundTrip(plain)!)).toEqual(fingerprint(plain));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('ledgers whose random fills open, flip and close positions still hold some at the end', () => {
    // Guards the test above against comparing nothing but empty accounts.
    const sample = fc.sample(fc.array(event, { minLength: 300, maxLength: 300 }), { numRuns: 20, seed: 7 });
    const ends = sample.map((events) => events.reduce((s, e) => applyEvent(s, e).state, emptyAccount()));
    expect(ends.filter((s) => s.positions.size > 0).length).toBeGreaterThan(10);
    // …and conditional orders resting, and ended in every way, as many as are kept.
    expect(ends.filter((s) => s.conditionals.resting.size > 0).length).toBeGreaterThan(10);
    const statuses = new Set(ends.flatMap((s) => s.conditionals.ended.map((o) => o.status)));
    expect([...statuses].sort()).toEqual(['CANCELED', 'EXPIRED', 'FINISHED', 'REJECTED']);
    // The longest ledgers of the test above end more orders than an account keeps.
    const long = fc.sample(fc.array(event, { minLength: 1500, maxLength: 1500 }), { numRuns: 5, seed: 7 });
    const kept = long.map(
      (events) => events.reduce((s, e) => applyEvent(s, e).state, emptyAccount()).conditionals.ended.length,
    );
    expect(kept).toContain(ENDED_KEPT);
  });

  it('keeps a negative zero, which toString() would turn positive', () => {
    const state: PaperAccountState = {
      cash: new Decimal('-0'),
      positions: new Map([
        [
          'ETHUSDT',
          {
            symbol: 'ETHUSDT',
            size: new Decimal('-1.5e-9'),
            entryPrice: new Decimal('3000.123456789012345678901234567890123'),
            isolatedWallet: new Decimal('1e+25'),
            leverage: 7,
          },
        ],
      ]),
      leverage: new Map([
        ['SOLUSDT', 3],
        ['ETHUSDT', 7],
      ]),
      conditionals: EMPTY_BOOK,
      limits: EMPTY_LIMITS,
    };
    const back = roundTrip(state)!;
    expect(back.cash.isNegative() && back.cash.isZero()).toBe(true);
    expect(fingerprint(back)).toEqual(fingerprint(state));
    expect(back).toEqual(state);
  });

  it('refuses a snapshot of another version or shape, so that the ledger is replayed instead', () => {
    const good = toSnapshot(emptyAccount());
    expect(fromSnapshot(good)).toEqual(emptyAccount());
    expect(fromSnapshot({ ...good, v: 4 })).toBeNull();
    expect(fromSnapshot({ ...good, limits: [{ orderId: 'a' }] })).toBeNull();
    expect(fromSnapshot({ ...good, conditionals: [{ algoId: 'a' }] })).toBeNull();
    expect(fromSnapshot({ ...good, cash: 12 })).toBeNull();
    expect(fromSnapshot({ ...good, cash: 'NaN' })).toBeNull();
    expect(fromSnapshot(null)).toBeNull();
  });

  it('reads a version 1 snapshot, written before conditional orders, as an account that has none', () => {
    const {
      conditionals: _c,
      endedConditionals: _e,
      ...v1
    } = {
      ...toSnapshot(
        applyEvent(emptyAccount(), { type: 'deposit', amount: '10000', reason: 'initial' }).state,
      ),
      v: 1,
    };
    const back = fromSnapshot(v1);
    expect(back?.cash.toString()).toBe('10000');
    expect(back?.conditionals).toEqual(EMPTY_BOOK);
  });

  it('keeps resting and ended limit orders, and reads a version 2 snapshot as having none', () => {
    let state = applyEvent(emptyAccount(), { type: 'deposit', amount: '10000', reason: 'initial' }).state;
    const order = {
      orderId: 'o-1',
      clientOrderId: 'c-1',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      price: '59000',
      quantity: '0.05',
      timeInForce: 'GTC' as const,
      reduceOnly: false,
      reserved: '295.59',
      time: 1,
      updateTime: 1,
    };
    state = applyEvent(state, { type: 'limit', order, at: 1 }).state;
    state = applyEvent(state, {
      type: 'limit',
      order: { ...order, orderId: 'o-2', clientOrderId: 'c-2' },
      at: 2,
    }).state;
    state = applyEvent(state, {
      type: 'limit-end',
      orderId: 'o-2',
      symbol: 'BTCUSDT',
      status: 'CANCELED',
      reason: null,
      at: 3,
    }).state;
    expect(state.cash.toString()).toBe('9704.41');
    expect(roundTrip(state)).toEqual(state);
    const back = fromSnapshot({ ...toSnapshot(state), v: 2 });
    expect(back?.limits).toEqual(EMPTY_LIMITS);
  });
});
