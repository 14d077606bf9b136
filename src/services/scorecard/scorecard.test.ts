import { describe, expect, it } from 'vitest';
import {
  barsOf,
  createScorecardStore,
  formatMove,
  formatRate,
  formatSize,
  MAX_SOURCE_BARS,
} from './scorecard';
import { group, makeScorecard } from './testing/cards';
import { rowsAt, summaryText, windowText } from './view';

describe('scorecard figures', () => {
  it('formats rates, signed moves and neutral sizes, with a dash for none', () => {
    expect([formatRate(0.6667), formatRate(0), formatRate(1), formatRate(null)]).toEqual([
      '67%',
      '0%',
      '100%',
      '—',
    ]);
    expect([formatMove(0.4249), formatMove(-1.3), formatMove(0.0001), formatMove(null)]).toEqual([
      '+0.42%',
      '-1.30%',
      '0.00%',
      '—',
    ]);
    expect([formatSize(0.314), formatSize(null)]).toEqual(['±0.31%', '—']);
  });

  it('draws a bar per group at the chosen horizon; a group with no direction has an empty bar', () => {
    const groups = [group('a', 3, [4, 4, 3, 1]), group('b', 2, [2, 0, 0, null])];
    expect(barsOf(groups, '1m')).toEqual([
      { key: 'a', percent: 75, rate: '75%', directional: 4, signals: 3 },
      { key: 'b', percent: 0, rate: '—', directional: 0, signals: 2 },
    ]);
  });

  it('the store keeps the three impact bands in order and at most eight sources, following the horizon', () => {
    const store = createScorecardStore();
    expect(store.bars.value).toEqual({ byImpact: [], bySource: [] });
    const sources = Array.from({ length: 10 }, (_, i) => group(`S${i}`, 10 - i, [2, 2, 1, 0.1]));
    store.loaded(makeScorecard({ by_source: sources, by_impact: [group('<50', 1, [1, 1, 1, 1])] }));
    expect(store.bars.value.byImpact.map((b) => [b.key, b.rate])).toEqual([
      ['80+', '—'],
      ['50-79', '—'],
      ['<50', '100%'],
    ]);
    expect(store.bars.value.bySource).toHaveLength(MAX_SOURCE_BARS);
    store.loaded(makeScorecard());
    expect(store.bars.value.byImpact[0]?.rate).toBe('80%');
    store.chooseHorizon('30m');
    expect(store.bars.value.byImpact[0]?.rate).toBe('25%');
    store.loadStarted();
    store.failed('No.');
    expect([store.loading.value, store.error.value]).toEqual([false, 'No.']);
  });

  it('names the window in days, or by its start', () => {
    const card = makeScorecard();
    expect(windowText(card)).toBe('last 7 days');
    expect(windowText({ since: '2026-03-08T12:00:00.000Z', until: '2026-03-09T12:00:00.000Z' })).toBe(
      'last day',
    );
    expect(windowText({ since: '2026-03-09T09:30:00.000Z', until: card.until })).toBe(
      'since 2026-03-09 09:30:00 UTC',
    );
    expect(summaryText(card)).toBe('Last 7 days · 12 signals measured');
    expect(rowsAt(card.by_sentiment, '1m').map((r) => [r.key, r.hit, r.move, r.tone])).toEqual([
      ['positive', '75%', '+0.80%', 'up'],
      ['negative', '50%', '-0.20%', 'down'],
      ['neutral', '—', '±0.31%', 'flat'],
    ]);
  });
});
