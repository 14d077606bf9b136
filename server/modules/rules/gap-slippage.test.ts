import { describe, expect, it } from 'vitest';
import { firedUpdate } from './rule-orders';
import { decisionRow } from '../../../tests/fixtures/decision-row';
import { gapReport } from './rule-reports';

describe("the reality gap's slippage guard", () => {
  const live = { account: 'k1', accountMode: 'live', accountVenue: 'bybit' } as const;

  it('a rule order with a cap records the estimate and the actual slippage of its fill', () => {
    const update = firedUpdate(
      {
        id: '9',
        price: 100.1,
        quantity: 1,
        fee: 0.05,
        note: null,
        timing: null,
        slippage: { estimated_pct: 0.12, cap_pct: 0.3, sent_as: 'market', actual_pct: 0.1 },
      },
      3,
      null,
      0,
    );
    expect(update).toMatchObject({ slippageEstimatedPct: '0.12', slippageActualPct: '0.1' });
    const plain = firedUpdate(
      { id: '9', price: 1, quantity: 1, fee: 0, note: null, timing: null },
      3,
      null,
      0,
    );
    expect(plain).not.toHaveProperty('slippageEstimatedPct');
  });

  it('reports estimated beside actual over the fills that have both; null with none', () => {
    const rows = [
      decisionRow({ ...live, slippageEstimatedPct: '0.1', slippageActualPct: '0.05' }),
      decisionRow({ ...live, id: 2, slippageEstimatedPct: '0.3', slippageActualPct: '0.35' }),
      decisionRow({ ...live, id: 3, slippageEstimatedPct: '0.2', slippageActualPct: null }),
      decisionRow({ ...live, id: 4 }),
    ];
    expect(gapReport('r', rows).slippage_guard).toEqual({ fills: 2, estimated_pct: 0.2, actual_pct: 0.2 });
    expect(gapReport('r', [decisionRow(live)]).slippage_guard).toBeNull();
  });
});
