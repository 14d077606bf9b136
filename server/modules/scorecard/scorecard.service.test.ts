import { describe, expect, it } from 'vitest';
import { SCORECARD_TEXTS } from '../../../src/contracts/scorecard';
import type { MarketSourceKind } from '../../../src/contracts/market';
import { ScorecardService } from './scorecard.service';

const clock = { now: () => Date.parse('2026-03-01T12:00:00Z'), setTimer: () => () => undefined };

function serviceOn(kind: MarketSourceKind) {
  return new ScorecardService({ repo: { aggregates: async () => [] }, market: { kind }, clock });
}

describe('ScorecardService', () => {
  it('says beside the figures that hit rates on the random walk are chance', async () => {
    const card = await serviceOn('sim').report({}, []);
    expect(card.price_source).toBe('sim');
    expect(card.note).toBe(SCORECARD_TEXTS.simulated);
  });

  it('adds no such note on the market’s own prices', async () => {
    const card = await serviceOn('binance').report({}, []);
    expect(card.note).toBeNull();
  });
});
