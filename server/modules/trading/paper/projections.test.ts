import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { PaperPosition } from './account';
import { positionRiskAt, positionRiskOf } from './projections';

const FEE = new Decimal('0.0005');
const position = (size: string): PaperPosition => ({
  symbol: 'BTCUSDT',
  size: new Decimal(size),
  entryPrice: new Decimal('60000'),
  isolatedWallet: new Decimal('120'),
  leverage: 10,
});

describe("a position's risk row, reused while its mark stands", () => {
  it('is the row positionRiskOf works out, at the mark or at the entry price without one', () => {
    const p = position('0.02');
    expect(positionRiskAt(p, 61_234.5, FEE, 1)).toEqual(positionRiskOf(p, new Decimal(61_234.5), FEE, 1));
    expect(positionRiskAt(p, undefined, FEE, 2)).toEqual(positionRiskOf(p, new Decimal(60_000), FEE, 2));
  });

  it('is worked out again when the mark moves or the position is replaced, never changed by a caller', () => {
    const p = position('-0.02');
    const first = positionRiskAt(p, 59_000, FEE, 1);
    first.unRealizedProfit = 'tampered';
    const again = positionRiskAt(p, 59_000, FEE, 5);
    expect(again).toEqual({ ...positionRiskOf(p, new Decimal(59_000), FEE, 5) });
    expect(again.updateTime).toBe(5);
    expect(positionRiskAt(p, 58_000, FEE, 6).unRealizedProfit).toBe(
      positionRiskOf(p, new Decimal(58_000), FEE, 6).unRealizedProfit,
    );
    const bigger = position('-0.03');
    expect(positionRiskAt(bigger, 58_000, FEE, 7).positionAmt).toBe('-0.03');
    expect(positionRiskAt(p, 58_000, new Decimal('0.0004'), 8).breakEvenPrice).toBe(
      positionRiskOf(p, new Decimal(58_000), new Decimal('0.0004'), 8).breakEvenPrice,
    );
  });
});
