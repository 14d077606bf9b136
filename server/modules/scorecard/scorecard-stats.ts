import type { MarketSourceKind } from '../../../src/contracts/market';
import {
  HORIZON_MS,
  IMPACT_BANDS,
  RETRACTION_ROLES,
  SCORE_HORIZONS,
  type HorizonScore,
  type ScoreGroup,
  type ScoreHorizon,
  type Scorecard,
} from '../../../src/contracts/scorecard';
import type { GroupKind, ScoreAggregate } from './scorecard.repo';

const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;

/** The horizon of a number of seconds, if it is one. */
const horizonOf = (seconds: number): ScoreHorizon | undefined =>
  SCORE_HORIZONS.find((h) => HORIZON_MS[h] === seconds * 1000);

/** Four decimals are plenty for a percent or a rate, and keep the answer short. */
const round = (n: number | null): number | null => (n === null ? null : Math.round(n * 10_000) / 10_000);

function emptyHorizon(horizon: ScoreHorizon): HorizonScore {
  return {
    horizon,
    count: 0,
    directional: 0,
    hits: 0,
    hit_rate: null,
    mean_move: null,
    neutral: 0,
    neutral_abs_move: null,
  };
}

function horizonScore(horizon: ScoreHorizon, a: ScoreAggregate): HorizonScore {
  return {
    horizon,
    count: a.count,
    directional: a.directional,
    hits: a.hits,
    hit_rate: a.directional === 0 ? null : round(a.hits / a.directional),
    mean_move: a.directional === 0 ? null : round(a.mean_move),
    neutral: a.neutral,
    neutral_abs_move: a.neutral === 0 ? null : round(a.neutral_abs_move),
  };
}

/** The groups of one kind from the aggregate rows: `keys` first (always listed), then any other key. */
function groupsOf(rows: readonly ScoreAggregate[], kind: GroupKind, keys: readonly string[]): ScoreGroup[] {
  const byKey = new Map<string, ScoreGroup>();
  const group = (key: string): ScoreGroup => {
    let g = byKey.get(key);
    if (g === undefined) {
      g = { key, signals: 0, horizons: SCORE_HORIZONS.map(emptyHorizon) };
      byKey.set(key, g);
    }
    return g;
  };
  for (const key of keys) group(key);
  for (const row of rows) {
    if (row.kind !== kind) continue;
    const g = group(row.key);
    if (row.horizon_s === null) {
      g.signals = row.signals;
      continue;
    }
    const horizon = horizonOf(row.horizon_s);
    if (horizon === undefined) continue;
    g.horizons[SCORE_HORIZONS.indexOf(horizon)] = horizonScore(horizon, row);
  }
  const fixed = keys.map(group);
  const others = [...byKey.values()]
    .filter((g) => !keys.includes(g.key))
    .sort((a, b) => b.signals - a.signals || a.key.localeCompare(b.key));
  return [...fixed, ...others];
}

/**
 * The scorecard from the aggregates: every horizon of every group is present (zero counts where
 * nothing was measured), sentiments and impact bands in a fixed order, sources by signal count.
 */
export function scorecardOf(
  rows: readonly ScoreAggregate[],
  window: { priceSource: MarketSourceKind; since: Date; until: Date },
): Scorecard {
  const [overall] = groupsOf(rows, 'all', ['all']);
  return {
    price_source: window.priceSource,
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    horizons: [...SCORE_HORIZONS],
    overall: overall ?? { key: 'all', signals: 0, horizons: SCORE_HORIZONS.map(emptyHorizon) },
    by_source: groupsOf(rows, 'source', []),
    by_sentiment: groupsOf(rows, 'sentiment', SENTIMENTS),
    by_impact: groupsOf(rows, 'impact', IMPACT_BANDS),
    by_retraction: groupsOf(rows, 'retraction', RETRACTION_ROLES),
  };
}
