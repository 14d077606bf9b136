import {
  bigint,
  jsonb,
  primaryKey,
  doublePrecision,
  index,
  integer,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * Module scorecard: the price of each asset of a completed signal at arrival (horizon 0) and 1, 5 and
 * 30 minutes later. The unique key makes each price recorded once, whichever process takes it first.
 * The signal's fields the scorecard groups by are copied here (like the rules' ledger does), so the
 * scorecard reads its own table only.
 */
export const signalScores = pgTable(
  'signal_scores',
  {
    signalId: bigint('signal_id', { mode: 'number' }).notNull(),
    asset: text('asset').notNull(),
    /** Seconds after arrival: 0 (the price at arrival), 60, 300 or 1800. */
    horizonS: integer('horizon_s').notNull(),
    price: doublePrecision('price').notNull(),
    /** `sim` or `binance`: the market source the price came from. */
    priceSource: text('price_source').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    /** When the price was due (arrival + horizon) and when it was actually read. */
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    takenAt: timestamp('taken_at', { withTimezone: true }).notNull(),
    /** The news source kind (`replay`, `rss`…), for the premium-source filter. */
    source: text('source').notNull(),
    sourceName: text('source_name').notNull(),
    sentiment: text('sentiment', { enum: ['positive', 'negative', 'neutral'] }).notNull(),
    impact: real('impact').notNull(),
    /** The analyzer's score before any calibration, the event type and the primary asset (null before). */
    impactRaw: real('impact_raw'),
    eventType: text('event_type'),
    primaryAsset: text('primary_asset'),
  },
  (t) => [
    uniqueIndex('signal_scores_key_idx').on(t.signalId, t.asset, t.horizonS),
    index('signal_scores_received_idx').on(t.receivedAt),
  ],
);

/**
 * Signals the scorecard counts apart: a story later retracted (`retracted`) and the retraction itself
 * (`retraction`), so that the hit rate of the rest is not blurred by them and theirs is seen on its own.
 * Filled from the bus's `signal.retracted`.
 */
export const signalScoreRoles = pgTable('signal_score_roles', {
  signalId: bigint('signal_id', { mode: 'number' }).primaryKey(),
  role: text('role', { enum: ['retracted', 'retraction'] }).notNull(),
});

/**
 * The latest impact calibration per market source and event type: an isotonic curve of the realised
 * |move| at `horizon_s` on the raw score (`points`, [[score, move %]…], increasing), fitted from the rows
 * above, and the global ratio of realised to expected moves it was fitted with. One fit replaces the rows
 * of its source at once; `fitted_at` is the same on every row of a fit.
 */
export const impactCalibrations = pgTable(
  'impact_calibrations',
  {
    priceSource: text('price_source').notNull(),
    eventType: text('event_type').notNull(),
    horizonS: integer('horizon_s').notNull(),
    points: jsonb('points').$type<[number, number][]>().notNull(),
    sampleCount: integer('sample_count').notNull(),
    ratio: doublePrecision('ratio').notNull(),
    fittedAt: timestamp('fitted_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.priceSource, t.eventType] })],
);
