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
import type { LedgerEvent } from '../../modules/trading/paper/account';
import { users } from './users';

/**
 * Module trading. The paper ledger is append-only: every fill, liquidation, leverage change and deposit
 * is one row with the balance changes it caused; a paper account is rebuilt by replaying its rows.
 */
export const paperLedger = pgTable(
  'paper_ledger',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 1, 2, 3… per user: the order in which the rows are replayed. */
    seq: integer('seq').notNull(),
    type: text('type', { enum: ['deposit', 'leverage', 'fill', 'liquidation'] }).notNull(),
    event: jsonb('event').$type<LedgerEvent>().notNull(),
    /** Set for fills: the order's client id, unique per user, so a retried order can never fill twice. */
    clientOrderId: text('client_order_id'),
    symbol: text('symbol'),
    cashDelta: numeric('cash_delta').notNull(),
    realizedPnl: numeric('realized_pnl').notNull(),
    fee: numeric('fee').notNull(),
    marginDelta: numeric('margin_delta').notNull(),
    cashAfter: numeric('cash_after').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('paper_ledger_user_seq_idx').on(t.userId, t.seq),
    uniqueIndex('paper_ledger_client_order_idx')
      .on(t.userId, t.clientOrderId)
      .where(sql`${t.clientOrderId} is not null`),
    index('paper_ledger_symbol_idx').on(t.userId, t.symbol),
  ],
);

/** What an Idempotency-Key was first used for, so that reusing it for another order is refused. */
export const orderRequests = pgTable(
  'order_requests',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key').notNull(),
    requestHash: text('request_hash').notNull(),
    clientOrderId: text('client_order_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('order_requests_key_idx').on(t.userId, t.idempotencyKey)],
);
