import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { LedgerEvent } from '../../modules/trading/paper/account';
import type { SnapshotState } from '../../modules/trading/paper/snapshot';
import { exchangeKeys } from './exchanges';
import { users } from './users';
import { CLOSE_REASONS } from '../../../src/contracts/trading';

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
    type: text('type', {
      enum: [
        'deposit',
        'leverage',
        'fill',
        'liquidation',
        'conditional',
        'conditional-trail',
        'conditional-end',
        'limit',
        'limit-end',
      ],
    }).notNull(),
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

/**
 * An account's state as of ledger row `seq`, so that loading it replays only the rows after the latest
 * one. Only a committed row's seq is ever recorded; a missing snapshot costs replay time, nothing else.
 */
export const paperSnapshots = pgTable(
  'paper_snapshots',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    state: jsonb('state').$type<SnapshotState>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.seq] })],
);

/**
 * `exists`: the venue refused a send as a duplicate client order id (-4116), so the order is there by its
 * own word, but a look-up has not shown it yet: it is only ever looked up again, never sent again.
 */
export const ORDER_REQUEST_STATES = ['claimed', 'sent', 'filled', 'failed', 'exists'] as const;
export type OrderRequestState = (typeof ORDER_REQUEST_STATES)[number];

/**
 * What an Idempotency-Key was first used for, so that reusing it for another order is refused, and how
 * far that order got: claimed (nothing sent yet) → sent (the exchange may have it) → filled | failed.
 */
export const orderRequests = pgTable(
  'order_requests',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    idempotencyKey: text('idempotency_key').notNull(),
    requestHash: text('request_hash').notNull(),
    clientOrderId: text('client_order_id').notNull(),
    /** `paper`, or the exchange key the order was sent with: a retry asks the same account. */
    account: text('account').notNull().default('paper'),
    /** The exchange symbol, which Binance needs to look an order up. */
    symbol: text('symbol'),
    state: text('state', { enum: ORDER_REQUEST_STATES }).notNull().default('claimed'),
    /** The exchange's order id once filled. */
    orderId: text('order_id'),
    /** The exchange's refusal once failed. */
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('order_requests_key_idx').on(t.userId, t.idempotencyKey)],
);

/**
 * The account each user's orders go to: the paper exchange (no row, or no key) or one of their exchange
 * keys. Deleting the key puts the user back on paper.
 */
export const tradingAccounts = pgTable('trading_accounts', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  keyId: uuid('key_id').references(() => exchangeKeys.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The trade history: every fill the server answered (orders, closes, rule entries and exits), as the
 * venue answered it, on the account it went to. A retry answered from an earlier try adds nothing: the
 * venue's order id is unique per user and account.
 */
export const trades = pgTable(
  'trades',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `paper` or the key id; the key's mode and hint as they were, since a key may be deleted later. */
    account: text('account').notNull(),
    accountMode: text('account_mode', { enum: ['paper', 'demo', 'live'] }).notNull(),
    /** `paper`, `binance`, `bybit` or `okx`; rows from before there were three venues are Binance's. */
    venue: text('venue', { enum: ['paper', 'binance', 'bybit', 'okx'] }),
    keyHint: text('key_hint'),
    orderId: text('order_id').notNull(),
    /** `BTC/USDT` */
    symbol: text('symbol').notNull(),
    side: text('side', { enum: ['buy', 'sell'] }).notNull(),
    quantity: numeric('quantity').notNull(),
    price: numeric('price').notNull(),
    /** Null while the venue has not told the fill's realised PnL and fee (unknown, never 0). */
    realizedPnl: numeric('realized_pnl'),
    fee: numeric('fee'),
    source: text('source', { enum: ['manual', 'card', 'rule'] }).notNull(),
    ruleId: uuid('rule_id'),
    ruleName: text('rule_name'),
    /** Why a closing fill was sent (stop, target, hold, flatten, retraction…); null: by hand, or an opening fill. */
    reason: text('reason', { enum: CLOSE_REASONS }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('trades_order_idx').on(t.userId, t.account, t.orderId),
    index('trades_user_idx').on(t.userId, t.id),
  ],
);
