import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { RuleExit } from '../../../src/contracts/rules';
import { users } from './users';

/** Module rules: each user's auto-trade rules (docs/product.md §3). Empty conditions are null ("any"). */
export const rules = pgTable(
  'rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    asset: text('asset'),
    sentiment: text('sentiment', { enum: ['positive', 'negative', 'neutral'] }),
    minImpact: real('min_impact'),
    maxImpact: real('max_impact'),
    /** Words or phrases of which one must be in the headline, and those none may be; null: any. */
    include: jsonb('include').$type<string[]>(),
    exclude: jsonb('exclude').$type<string[]>(),
    side: text('side', { enum: ['long', 'short'] }).notNull(),
    amountUsd: numeric('amount_usd').notNull(),
    exit: jsonb('exit').$type<RuleExit>(),
    /** Where the rule's orders go: 'paper', or the id of one of the user's exchange keys. */
    account: text('account').notNull().default('paper'),
    isActive: boolean('is_active').notNull().default(true),
    /** 'auto' places the order on a match; 'ask' proposes it and waits up to askWindowSec for an answer. */
    mode: text('mode', { enum: ['auto', 'ask'] })
      .notNull()
      .default('auto'),
    askWindowSec: integer('ask_window_sec').notNull().default(60),
    /** Bumped on every edit, so the ledger says which version of a rule decided. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('rules_user_idx').on(t.userId), index('rules_active_idx').on(t.isActive)],
);

/**
 * The decision ledger: one row per (rule, signal) whose conditions matched, fired or skipped. The unique
 * key is what makes a rule fire at most once per signal, whichever process or retry gets there first.
 */
export const ruleDecisions = pgTable(
  'rule_decisions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => rules.id, { onDelete: 'cascade' }),
    ruleName: text('rule_name').notNull(),
    ruleVersion: integer('rule_version').notNull(),
    signalId: bigint('signal_id', { mode: 'number' }).notNull(),
    asset: text('asset').notNull(),
    symbol: text('symbol').notNull(),
    side: text('side', { enum: ['long', 'short'] }).notNull(),
    amountUsd: numeric('amount_usd').notNull(),
    /** 'asking': an ask rule's proposal waiting for the user's answer until askExpiresAt. */
    outcome: text('outcome', { enum: ['pending', 'asking', 'fired', 'skipped'] }).notNull(),
    reason: text('reason'),
    detail: text('detail'),
    engine: text('engine'),
    sentiment: text('sentiment'),
    impact: real('impact'),
    price: numeric('price'),
    orderId: text('order_id'),
    quantity: numeric('quantity'),
    notional: numeric('notional'),
    latencyMs: real('latency_ms'),
    /** The account the order went to ('paper' or a key id) and its mode then (paper, demo, live). */
    account: text('account').notNull().default('paper'),
    accountMode: text('account_mode', { enum: ['paper', 'demo', 'live'] })
      .notNull()
      .default('paper'),
    /** Of the order's send → acknowledgement: the placement call to the venue, and the venue's own part when it says. */
    venueMs: real('venue_ms'),
    venueOwnMs: real('venue_own_ms'),
    /** The venue of that account when it decided: 'paper' or the key's exchange. */
    accountVenue: text('account_venue', { enum: ['paper', 'binance', 'bybit', 'okx'] })
      .notNull()
      .default('paper'),
    /** The asset's price when the news arrived: what slippage is measured from. */
    arrivalPrice: numeric('arrival_price'),
    fee: numeric('fee'),
    /** The news's own times, as the signal had them when the rule decided: the receipt's first stages. */
    signalPublishedAt: timestamp('signal_published_at', { withTimezone: true }),
    signalReceivedAt: timestamp('signal_received_at', { withTimezone: true }),
    signalAnalysedAt: timestamp('signal_analysed_at', { withTimezone: true }),
    /**
     * The news source the signal came from (its `source`): a premium source's decisions are shown only
     * to accounts whose plan receives that source.
     */
    signalSource: text('signal_source'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    ackedAt: timestamp('acked_at', { withTimezone: true }),
    /**
     * The shadow paper twin of a decision on a key: the fill the paper exchange would have given at the
     * same moment (price, quantity, fee), or why it would have refused.
     */
    twinPrice: numeric('twin_price'),
    twinQuantity: numeric('twin_quantity'),
    twinFee: numeric('twin_fee'),
    twinRefused: text('twin_refused'),
    /** The slippage guard's receipt of the fill (when the order had a cap): estimated and actual, in %. */
    slippageEstimatedPct: numeric('slippage_estimated_pct'),
    slippageActualPct: numeric('slippage_actual_pct'),
    /** The exit's own fill: its venue order id and realised PnL. */
    exitOrderId: text('exit_order_id'),
    exitPnl: numeric('exit_pnl'),
    /** Exits to run on the opened position, and once closed, how ("take_profit 3.1% at …"). */
    exitPlan: jsonb('exit_plan').$type<RuleExit>(),
    /**
     * The position's exit: `open` until a close is claimed, `closing` while one process closes it (a
     * conditional write: one process wins), `closed` only once the venue confirmed the fill or said that
     * nothing was left. A close that failed goes back to `open` and is tried again after `exitNextAt`.
     */
    exitState: text('exit_state', { enum: ['open', 'closing', 'closed'] }),
    exitNote: text('exit_note'),
    /**
     * The decision's stop loss and take profit rest on the exchange as its position's protection (legs
     * that outlive this server): the app does not fire them again on its own prices.
     */
    exitOnVenue: boolean('exit_on_venue').notNull().default(false),
    /** Why the close began ("stop loss: -2.10% at 98"): each try of it closes for that reason. */
    exitReason: text('exit_reason'),
    /** Tries of the close that failed so far; the user is told once at the third. */
    exitAttempts: integer('exit_attempts').notNull().default(0),
    /** Not tried again before this (the back-off after a failed try). */
    exitNextAt: timestamp('exit_next_at', { withTimezone: true }),
    /**
     * The client order id of the current close, the same across its tries: looked up on the venue before
     * any resend, so that a close that went through is found rather than repeated.
     */
    exitClientId: text('exit_client_id'),
    /** When the exit went to `closing`: a claim older than any close can last is a dead process's. */
    exitStartedAt: timestamp('exit_started_at', { withTimezone: true }),
    /** An ask rule's proposal: until when it waits, and where and when the first answer came from. */
    askExpiresAt: timestamp('ask_expires_at', { withTimezone: true }),
    answeredVia: text('answered_via', { enum: ['browser', 'terminal', 'telegram', 'api'] }),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    /**
     * The signal that retracted this decision's story, once one did. On a decision whose order was on
     * its way (`sent_at` set, still pending) it is what unwinds the fill when it lands.
     */
    retractedBy: bigint('retracted_by', { mode: 'number' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('rule_decisions_once_idx').on(t.ruleId, t.signalId),
    index('rule_decisions_user_idx').on(t.userId, t.id),
    // The risk envelope's fired totals read a user's decisions of the last two days: by time, not by
    // walking every decision the user ever had.
    index('rule_decisions_user_decided_idx').on(t.userId, t.decidedAt),
    index('rule_decisions_asking_idx')
      .on(t.askExpiresAt)
      .where(sql`${t.outcome} = 'asking'`),
    // The sweep looks for interrupted decisions every few seconds: the few still pending, not every
    // decision ever made.
    index('rule_decisions_pending_idx')
      .on(t.decidedAt)
      .where(sql`${t.outcome} = 'pending'`),
    // The exits watched (open) and those a dead process may have left closing: never the closed ones.
    index('rule_decisions_open_exit_idx')
      .on(t.exitState)
      .where(sql`${t.exitState} in ('open', 'closing')`),
  ],
);

/** Each user's risk envelope and kill switch; a user without a row has the defaults. */
export const riskSettings = pgTable('risk_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** The user's own maximum order; null: the default, which fits the account the order goes to. */
  maxOrderUsd: numeric('max_order_usd'),
  dailyBudgetUsd: numeric('daily_budget_usd').notNull(),
  maxPositions: integer('max_positions').notNull(),
  cooldownMinutes: integer('cooldown_minutes').notNull(),
  maxAgeSeconds: integer('max_age_seconds').notNull(),
  /** Limits of automated orders on LIVE keys, apart from paper's; null: the defaults. */
  liveMaxOrderUsd: numeric('live_max_order_usd'),
  liveDailyBudgetUsd: numeric('live_daily_budget_usd'),
  /** The slippage cap of every market order the user sends without one of its own, in %; null: none. */
  maxSlippagePct: numeric('max_slippage_pct'),
  killSwitch: boolean('kill_switch').notNull().default(false),
  resumeAt: timestamp('resume_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Where the rule engine has read the signal store up to (`signals.rev`), per consumer name. */
export const ruleCursor = pgTable('rule_cursor', {
  name: text('name').primaryKey(),
  rev: bigint('rev', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
