import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { StoredLegs } from '../../modules/trading/protection/legs';
import { users } from './users';

/**
 * Module trading: each open position's protection. The stop-loss, take-profit and trailing legs rest on
 * the venue as conditional orders; this row is what should rest there (prices, each leg's client id and
 * state), so that a leg that vanished is placed again. The time exit is ours: it goes `open → closing →
 * closed` and retries until the venue confirms the close. One row per position (user, account, symbol);
 * it is removed once the position is gone and its legs are cancelled.
 */
export const positionProtections = pgTable(
  'position_protections',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `paper` or the key id: the account's name, as an order's Idempotency-Key record remembers it. */
    account: text('account').notNull(),
    symbol: text('symbol').notNull(),
    /** The side of the position the legs protect: a flipped position is not theirs. */
    side: text('side', { enum: ['long', 'short'] }).notNull(),
    stopLossPrice: numeric('stop_loss_price'),
    takeProfitPrice: numeric('take_profit_price'),
    trailingPct: numeric('trailing_pct'),
    /** Each leg's client id, venue id, state and generation (a leg placed again gets a new client id). */
    legs: jsonb('legs').$type<StoredLegs>().notNull(),
    exitAt: timestamp('exit_at', { withTimezone: true }),
    exitState: text('exit_state', { enum: ['open', 'closing', 'closed'] }),
    exitAttempts: integer('exit_attempts').notNull().default(0),
    exitNextAt: timestamp('exit_next_at', { withTimezone: true }),
    exitClientId: text('exit_client_id'),
    exitStartedAt: timestamp('exit_started_at', { withTimezone: true }),
    exitNote: text('exit_note'),
    /** Bumped by every change: a write that read an older version loses (two processes, one position). */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('position_protections_position_idx').on(t.userId, t.account, t.symbol),
    index('position_protections_exit_idx')
      .on(t.exitAt)
      .where(sql`${t.exitState} in ('open', 'closing')`),
  ],
);
