import { z } from 'zod';
import { MarketSourceKind } from './market';
import { decimal } from './numbers';

/**
 * The signal scorecard, `GET /api/signals/scorecard`: how each asset of a completed signal moved after
 * it arrived, 1, 5 and 30 minutes later, measured against the direction of its sentiment (positive →
 * up, negative → down; neutral has no direction, so only the size of its moves is reported).
 */

export const SCORE_HORIZONS = ['1m', '5m', '30m'] as const;
export const ScoreHorizon = z.enum(SCORE_HORIZONS);
export type ScoreHorizon = z.infer<typeof ScoreHorizon>;

/** Milliseconds after arrival at which each price is taken. */
export const HORIZON_MS: Readonly<Record<ScoreHorizon, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '30m': 1_800_000,
};

/** The impact bands of docs/analysis.md (80-100 act now, 50-79 notable, 0-49 background). */
export const IMPACT_BANDS = ['80+', '50-79', '<50'] as const;
export const ImpactBand = z.enum(IMPACT_BANDS);
export type ImpactBand = z.infer<typeof ImpactBand>;

export function impactBandOf(impact: number): ImpactBand {
  if (impact >= 80) return '80+';
  return impact >= 50 ? '50-79' : '<50';
}

/**
 * Signals counted apart from every other grouping: stories later retracted, and the retractions. The
 * hit rate of the rest is not blurred by them, and theirs is seen on its own.
 */
export const RETRACTION_ROLES = ['retracted', 'retraction'] as const;
export type RetractionRole = (typeof RETRACTION_ROLES)[number];

/** The scorecard's notes beside its figures. */
export const SCORECARD_TEXTS = {
  simulated: 'Prices here are simulated (a random walk): these hit rates are chance, not the news.',
} as const;

/** Days the scorecard looks back when the query names no start. */
export const SCORECARD_DEFAULT_DAYS = 7;
export const SCORECARD_MAX_DAYS = 90;

/** `?since=<ISO time>` or `?days=<1-90>` (not both); the last 7 days when neither is given. */
export const ScorecardQuery = z
  .object({
    since: z.iso.datetime({ offset: true, error: 'an ISO time such as 2026-01-01T00:00:00Z' }).optional(),
    days: decimal(
      z
        .number({ error: `a whole number of days from 1 to ${SCORECARD_MAX_DAYS}` })
        .int({ error: `a whole number of days from 1 to ${SCORECARD_MAX_DAYS}` })
        .min(1, { error: `a whole number of days from 1 to ${SCORECARD_MAX_DAYS}` })
        .max(SCORECARD_MAX_DAYS, { error: `a whole number of days from 1 to ${SCORECARD_MAX_DAYS}` }),
    ).optional(),
  })
  .refine((q) => q.since === undefined || q.days === undefined, {
    error: 'Give since or days, not both.',
    path: ['days'],
  });
export type ScorecardQuery = z.infer<typeof ScorecardQuery>;

const Count = z.number().int().min(0);

/** One horizon of one group. A "move" is a percent change from the price at arrival. */
export const HorizonScore = z.object({
  horizon: ScoreHorizon,
  /** Asset moves measured (a signal with two assets counts twice), neutral ones included. */
  count: Count,
  /** Of those, the positive and negative ones: the ones with a direction. */
  directional: Count,
  /** Directional moves that went the sentiment's way (a flat price is not a hit). */
  hits: Count,
  /** hits / directional, 0-1; null without directional moves. */
  hit_rate: z.number().min(0).max(1).nullable(),
  /** Mean move in the sentiment's direction, in percent (negative: the market went the other way). */
  mean_move: z.number().nullable(),
  /** Neutral moves measured, and the mean of their size in percent. */
  neutral: Count,
  neutral_abs_move: z.number().nullable(),
});
export type HorizonScore = z.infer<typeof HorizonScore>;

export const ScoreGroup = z.object({
  /** The source's name, the sentiment, the impact band, or `all`. */
  key: z.string(),
  /** Completed signals of the group with at least one measured move. */
  signals: Count,
  horizons: z.array(HorizonScore),
});
export type ScoreGroup = z.infer<typeof ScoreGroup>;

export const Scorecard = z.object({
  /** Where the prices came from: `sim` means simulated prices (no market connection). */
  price_source: MarketSourceKind,
  /** Signals received in [since, until). */
  since: z.string(),
  until: z.string(),
  horizons: z.array(ScoreHorizon),
  /** Every signal but retracted stories and retractions (those are in `by_retraction` only). */
  overall: ScoreGroup,
  by_source: z.array(ScoreGroup),
  by_sentiment: z.array(ScoreGroup),
  by_impact: z.array(ScoreGroup),
  /** `retracted` (stories a later signal retracted) and `retraction` (the retractions), in that order. */
  by_retraction: z.array(ScoreGroup),
  /**
   * What a reader must know beside the figures: on simulated prices, that the hit rates are chance.
   * Null on the market's own prices.
   */
  note: z.string().nullable().optional(),
});
export type Scorecard = z.infer<typeof Scorecard>;
