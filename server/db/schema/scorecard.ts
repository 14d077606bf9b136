import {
  bigint,
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
