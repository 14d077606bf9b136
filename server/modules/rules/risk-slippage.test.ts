import { describe, expect, it } from 'vitest';
import { DEFAULT_RISK } from '../../../src/contracts/rules';
import { loosens } from './rules.routes';

describe("the risk row's slippage cap", () => {
  const capped = { ...DEFAULT_RISK, max_slippage_pct: 0.3 };

  it('a wider cap, or none where there was one, loosens the envelope (and asks for step-up)', () => {
    expect(loosens(capped, { max_slippage_pct: 0.5 })).toBe(true);
    expect(loosens(capped, { max_slippage_pct: null })).toBe(true);
  });

  it('a first cap, or a tighter one, does not', () => {
    expect(loosens(DEFAULT_RISK, { max_slippage_pct: 0.3 })).toBe(false);
    expect(loosens(capped, { max_slippage_pct: 0.1 })).toBe(false);
    expect(loosens(DEFAULT_RISK, { max_slippage_pct: null })).toBe(false);
  });
});
