import Decimal from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeSizing, lotFiltersFor, noticeable, sizeOrder, type LotFilters, type Sizing } from './sizing';

const BTC = lotFiltersFor('BTCUSDT')!;

function accepted(s: Sizing): Extract<Sizing, { ok: true }> {
  if (!s.ok) throw new Error(`refused: ${s.refusal}`);
  return s;
}

describe('sizeOrder at fixed prices', () => {
  it('sizes btc long 200 to the nearest step, not down: 0.002 BTC at 100,700 is 201.40', () => {
    const s = accepted(sizeOrder({ amount: 200, price: 100_700, filters: BTC }));
    expect(s.quantity.toFixed()).toBe('0.002');
    expect(s.notional.toFixed()).toBe('201.4');
    expect(s.adjustment).toBe('nearest');
    expect(describeSizing('BTC/USDT', s)).toBe(
      'Not exactly 200 USDT: BTC trades in steps of 0.001 BTC ≈ 100.70 USDT (100.70 or 201.40), ' +
        'so the order is the nearest, 0.002 BTC ≈ 201.40 USDT.',
    );
  });

  it('names both neighbours when the amount falls between steps (btc long 260 → 302.10)', () => {
    const s = accepted(sizeOrder({ amount: 260, price: 100_700, filters: BTC }));
    expect(s.notional.toFixed()).toBe('302.1');
    expect(describeSizing('BTC/USDT', s)).toContain('(201.40 or 302.10)');
  });

  it('says nothing when the nearest step barely moves the amount (DOGE: 100 → 100.01)', () => {
    const s = accepted(sizeOrder({ amount: 100, price: '0.33449', filters: lotFiltersFor('DOGEUSDT')! }));
    expect(s.notional.toFixed()).toBe('100.01251');
    expect(describeSizing('DOGE/USDT', s)).toBeNull();
  });

  it('passes btc long 110 at 60,000 (0.002 BTC = 120), which flooring refused as 60 USDT', () => {
    const s = accepted(sizeOrder({ amount: 110, price: 60_000, filters: BTC }));
    expect(s.quantity.toFixed()).toBe('0.002');
    expect(s.notional.toFixed()).toBe('120');
  });

  it('raises an amount at the minimum to the smallest quantity worth it, and says so', () => {
    const s = accepted(sizeOrder({ amount: 100, price: 67_000, filters: BTC }));
    expect(s.quantity.toFixed()).toBe('0.002');
    expect(s.adjustment).toBe('up-to-minimum');
    expect(describeSizing('BTC/USDT', s)).toBe(
      'Raised from 100 USDT to 0.002 BTC ≈ 134.00 USDT: The minimum order for BTC/USDT is 100 USDT ' +
        'and BTC trades in steps of 0.001 BTC ≈ 67.00 USDT.',
    );
  });

  it('refuses an amount below the minimum, naming the symbol, the minimum and what it buys', () => {
    const s = sizeOrder({ amount: 10, price: 67_000, filters: BTC });
    expect(s.ok).toBe(false);
    expect(describeSizing('BTC/USDT', s)).toBe(
      'The minimum order for BTC/USDT is 100 USDT. At this price that buys 0.002 BTC ≈ 134.00 USDT ' +
        '(BTC trades in steps of 0.001 BTC ≈ 67.00 USDT).',
    );
    expect(describeSizing('BTC/USDT', s)).not.toMatch(/reduce/i);
  });

  it('rounds down to the fat-finger cap instead of above it', () => {
    const s = accepted(sizeOrder({ amount: 190, price: 100_000, filters: BTC, caps: { maxNotional: 190 } }));
    expect(s.notional.toFixed()).toBe('100');
    expect(s.adjustment).toBe('down-to-cap');
    expect(describeSizing('BTC/USDT', s)).toContain('fat-finger cap of 190 USDT');
  });

  it('rounds down to the free margin, and refuses an amount above it', () => {
    const s = accepted(
      sizeOrder({ amount: 500, price: 100_000, filters: BTC, caps: { marginNotional: 520 } }),
    );
    expect(s.notional.toFixed()).toBe('500');
    const down = accepted(
      sizeOrder({ amount: 460, price: 100_000, filters: BTC, caps: { marginNotional: 470 } }),
    );
    expect(down.notional.toFixed()).toBe('400');
    expect(down.adjustment).toBe('down-to-margin');
    const refused = sizeOrder({ amount: 600, price: 100_000, filters: BTC, caps: { marginNotional: 520 } });
    expect(refused.ok ? null : refused.refusal).toBe('above-margin');
  });

  it('refuses when a cap is below the smallest order', () => {
    const s = sizeOrder({ amount: 120, price: 67_000, filters: BTC, caps: { maxNotional: 120 } });
    expect(s.ok ? null : s.refusal).toBe('cap-below-minimum');
    expect(describeSizing('BTC/USDT', s)).toContain('0.002 BTC ≈ 134.00 USDT');
  });

  it('refuses without a price', () => {
    expect(sizeOrder({ amount: 200, price: 0, filters: BTC }).ok).toBe(false);
  });
});

/** Filters like Binance's: a power-of-ten step, minQty a multiple of it, a minimum of 5 to 100 USDT. */
const filtersArb = fc
  .record({
    stepExp: fc.integer({ min: -3, max: 2 }),
    minSteps: fc.integer({ min: 1, max: 5 }),
    minNotional: fc.constantFrom(5, 20, 100),
  })
  .map(({ stepExp, minSteps, minNotional }): LotFilters => {
    const step = new Decimal(10).pow(stepExp);
    return { stepSize: step, minQty: step.mul(minSteps), maxQty: '1e12', minNotional };
  });
const priceArb = fc
  .integer({ min: 1, max: 10_000_000 })
  .chain((cents) => fc.constantFrom(new Decimal(cents).div(100), new Decimal(cents).div(10_000)));
const amountArb = fc.integer({ min: 1, max: 10_000_000 }).map((c) => new Decimal(c).div(100));
const capArb = fc.option(
  fc.integer({ min: 1, max: 10_000_000 }).map((c) => new Decimal(c).div(100)),
  { nil: null },
);

describe('sizeOrder properties', () => {
  it('an accepted quantity is a multiple of the step, worth at least the minimum and never above a cap', () => {
    fc.assert(
      fc.property(filtersArb, priceArb, amountArb, capArb, capArb, (filters, price, amount, fat, margin) => {
        const s = sizeOrder({ amount, price, filters, caps: { maxNotional: fat, marginNotional: margin } });
        if (!s.ok) return;
        expect(s.quantity.mod(filters.stepSize).isZero()).toBe(true);
        expect(s.quantity.gte(filters.minQty)).toBe(true);
        expect(s.notional.eq(s.quantity.mul(price))).toBe(true);
        expect(s.notional.gte(filters.minNotional)).toBe(true);
        if (fat !== null) expect(s.notional.lte(fat)).toBe(true);
        if (margin !== null) expect(s.notional.lte(margin)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('without caps, the notional is within half a step of the amount unless raised to the minimum', () => {
    fc.assert(
      fc.property(filtersArb, priceArb, amountArb, (filters, price, amount) => {
        const s = sizeOrder({ amount, price, filters });
        if (!s.ok) {
          expect(s.refusal).toBe('below-minimum');
          expect(amount.lt(filters.minNotional)).toBe(true);
          return;
        }
        const gap = s.notional.minus(amount).abs();
        if (s.adjustment === 'up-to-minimum') {
          expect(s.notional.gt(amount)).toBe(true);
          expect(s.quantity.eq(s.smallestQuantity)).toBe(true);
        } else {
          expect(['exact', 'nearest']).toContain(s.adjustment);
          expect(gap.lte(s.stepNotional.div(2))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('every amount at or above the minimum passes when nothing caps it', () => {
    fc.assert(
      fc.property(filtersArb, priceArb, amountArb, (filters, price, amount) => {
        const s = sizeOrder({ amount, price, filters });
        expect(s.ok).toBe(amount.gte(filters.minNotional));
      }),
      { numRuns: 2000 },
    );
  });

  it('a cap binds by rounding down to the largest whole step within it', () => {
    fc.assert(
      fc.property(filtersArb, priceArb, amountArb, capArb, (filters, price, amount, cap) => {
        const s = sizeOrder({ amount, price, filters, caps: { maxNotional: cap } });
        if (!s.ok || s.adjustment !== 'down-to-cap' || cap === null) return;
        expect(s.notional.plus(s.stepNotional).gt(cap)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('always explains a refusal or an adjustment, and never mentions reduce-only', () => {
    fc.assert(
      fc.property(filtersArb, priceArb, amountArb, capArb, (filters, price, amount, cap) => {
        const s = sizeOrder({ amount, price, filters, caps: { maxNotional: cap } });
        const text = describeSizing('XYZ/USDT', s);
        if (!s.ok || (s.adjustment !== 'exact' && (s.adjustment !== 'nearest' || noticeable(s))))
          expect(text).toMatch(/\S/);
        else expect(text).toBeNull();
        expect(text ?? '').not.toMatch(/reduce/i);
      }),
      { numRuns: 500 },
    );
  });
});
