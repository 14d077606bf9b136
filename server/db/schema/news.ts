import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  jsonb,
  pgSequence,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { AlsoReportedBy, Dispute, QuoteData } from '../../../src/contracts/signals';

/**
 * Every publish of a signal (created, analysed, reported again) takes the next value: the stream's
 * event id, so a client that reconnects with `Last-Event-ID` gets what changed since.
 */
export const signalsRevSeq = pgSequence('signals_rev_seq');

/** Module news: every signal, with its analysis once done. */
export const signals = pgTable(
  'signals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    rev: bigint('rev', { mode: 'number' })
      .notNull()
      .default(sql`nextval('signals_rev_seq')`),
    source: text('source').notNull(),
    /** The source's own id of the item (RSS guid, tweet id…); the same one twice is a duplicate. */
    externalId: text('external_id'),
    /** SHA-256 of the normalised text: the exact-duplicate key. */
    fingerprint: text('fingerprint').notNull(),
    content: text('content').notNull(),
    url: text('url'),
    icon: text('icon'),
    sourceName: text('source_name').notNull(),
    username: text('username'),
    mediaUrls: jsonb('media_urls').$type<string[]>().notNull(),
    quote: jsonb('quote').$type<QuoteData>(),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    /** When its analysis was stored: the receipt's second stage. */
    analysedAt: timestamp('analysed_at', { withTimezone: true }),
    /** From a source's first poll after start: news that was waiting there, which no rule trades. */
    backlog: boolean('backlog').notNull().default(false),
    status: text('status', { enum: ['analyzing', 'completed'] }).notNull(),
    asset: text('asset'),
    assets: jsonb('assets').$type<string[]>().notNull(),
    eventType: text('event_type'),
    impactScore: real('impact_score'),
    /** The analyzer's own score when a calibration changed it (null: the score is the analyzer's). */
    impactRaw: real('impact_raw'),
    sentiment: text('sentiment'),
    reasoning: text('reasoning'),
    engine: text('engine'),
    /** The analyzer's version (the local model's, or the LLM prompt's) that produced this analysis. */
    engineVersion: text('engine_version'),
    disagreement: boolean('disagreement'),
    initialPrices: jsonb('initial_prices').$type<Record<string, number>>().notNull(),
    alsoReportedBy: jsonb('also_reported_by').$type<AlsoReportedBy[]>().notNull(),
    /** The later signal that retracts this one (a denial, a correction, a hacked-account notice). */
    retractedBy: bigint('retracted_by', { mode: 'number' }),
    /** When that retraction arrived, its text (at most 500 characters) and its kind. */
    retractedAt: timestamp('retracted_at', { withTimezone: true }),
    retractionReason: text('retraction_reason'),
    retractionKind: text('retraction_kind'),
    /** On a retraction: the signal it retracts. */
    retractsId: bigint('retracts_id', { mode: 'number' }),
    /**
     * A later signal from a less trusted source that reads as its retraction: the card shows the story
     * disputed, and nothing is unwound on it (a source as trusted retracts it).
     */
    dispute: jsonb('dispute').$type<Dispute>(),
  },
  (t) => [
    uniqueIndex('signals_external_idx')
      .on(t.source, t.externalId)
      .where(sql`${t.externalId} is not null`),
    uniqueIndex('signals_rev_idx').on(t.rev),
    index('signals_fingerprint_idx').on(t.fingerprint, t.receivedAt),
    index('signals_received_idx').on(t.receivedAt),
    // The few stories retracted or disputed lately: what a new report of the same story inherits.
    index('signals_marked_idx')
      .on(t.receivedAt)
      .where(sql`${t.retractedBy} is not null or ${t.dispute} is not null`),
  ],
);
