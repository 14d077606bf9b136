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

/** Module rules: each user's auto-trade rules (spec §3). Empty conditions are null ("any"). */
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
    side: text('side', { enum: ['long', 'short'] }).notNull(),
    amountUsd: numeric('amount_usd').notNull(),
    exit: jsonb('exit').$type<RuleExit>(),
    isActive: boolean('is_active').notNull().default(true),
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
    outcome: text('outcome', { enum: ['pending', 'fired', 'skipped'] }).notNull(),
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
    /** Exits to run on the opened position, and once closed, how ("take_profit 3.1% at …"). */
    exitPlan: jsonb('exit_plan').$type<RuleExit>(),
    exitState: text('exit_state', { enum: ['open', 'closed'] }),
    exitNote: text('exit_note'),
    decidedAt: timestamp('decided_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('rule_decisions_once_idx').on(t.ruleId, t.signalId),
    index('rule_decisions_user_idx').on(t.userId, t.id),
    index('rule_decisions_open_exit_idx')
      .on(t.exitState)
      .where(sql`${t.exitState} = 'open'`),
  ],
);

/** Each user's risk envelope and kill switch; a user without a row has the defaults. */
export const riskSettings = pgTable('risk_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  maxOrderUsd: numeric('max_order_usd').notNull(),
  dailyBudgetUsd: numeric('daily_budget_usd').notNull(),
  maxPositions: integer('max_positions').notNull(),
  cooldownMinutes: integer('cooldown_minutes').notNull(),
  maxAgeSeconds: integer('max_age_seconds').notNull(),
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
