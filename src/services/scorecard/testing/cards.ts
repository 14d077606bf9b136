import {
  SCORE_HORIZONS,
  Scorecard,
  type HorizonScore,
  type ScoreGroup,
  type Scorecard as ScorecardT,
} from '../../../contracts/scorecard';

type Figures = [
  count: number,
  directional: number,
  hits: number,
  meanMove: number | null,
  neutralAbs?: number,
];

/** One group with the same figures at every horizon unless `per` says otherwise. */
export function group(
  key: string,
  signals: number,
  figures: Figures,
  per: Partial<Record<string, Figures>> = {},
): ScoreGroup {
  return {
    key,
    signals,
    horizons: SCORE_HORIZONS.map((horizon): HorizonScore => {
      const [count, directional, hits, meanMove, neutralAbs] = per[horizon] ?? figures;
      const neutral = count - directional;
      return {
        horizon,
        count,
        directional,
        hits,
        hit_rate: directional === 0 ? null : Math.round((hits / directional) * 10_000) / 10_000,
        mean_move: directional === 0 ? null : meanMove,
        neutral,
        neutral_abs_move: neutral === 0 ? null : (neutralAbs ?? 0.25),
      };
    }),
  };
}

/**
 * A scorecard of the last 7 days on simulated prices: 12 signals, the strong ones called the price
 * best. Checked against the contract, so a change of the contract breaks the fixture first.
 */
export function makeScorecard(overrides: Partial<ScorecardT> = {}): ScorecardT {
  const until = '2026-03-09T12:00:00.000Z';
  return Scorecard.parse({
    price_source: 'sim',
    since: '2026-03-02T12:00:00.000Z',
    until,
    horizons: [...SCORE_HORIZONS],
    overall: group('all', 12, [14, 12, 8, 0.42, 0.31], { '30m': [10, 8, 4, -0.1, 0.5] }),
    by_source: [
      group('Binance Announcements', 5, [6, 6, 5, 1.2]),
      group('Blockwire News', 4, [4, 3, 2, 0.05, 0.2]),
      group('Whale Tracker', 3, [4, 3, 1, -0.35, 0.4]),
    ],
    by_sentiment: [
      group('positive', 7, [8, 8, 6, 0.8]),
      group('negative', 3, [4, 4, 2, -0.2]),
      group('neutral', 2, [2, 0, 0, null, 0.31]),
    ],
    by_impact: [
      group('80+', 4, [5, 5, 4, 1.5], { '30m': [4, 4, 1, -0.5] }),
      group('50-79', 5, [6, 5, 3, 0.2, 0.3]),
      group('<50', 3, [3, 2, 1, -0.1, 0.1]),
    ],
    by_retraction: [group('retracted', 0, [0, 0, 0, null]), group('retraction', 0, [0, 0, 0, null])],
    ...overrides,
  });
}
