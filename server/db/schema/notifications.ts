import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * Module notifications: what reaches a user away from the open tab (a linked Telegram chat, Web Push), and
 * which kinds of news and trading events they asked for. A user without a settings row has the defaults.
 */
export const notificationSettings = pgTable('notification_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  alerts: boolean('alerts').notNull().default(true),
  /** Alerts go out for completed signals at or above this impact (50–95, steps of 5, as the alert slider). */
  alertThreshold: integer('alert_threshold').notNull().default(80),
  fills: boolean('fills').notNull().default(true),
  retractions: boolean('retractions').notNull().default(true),
  liquidation: boolean('liquidation').notNull().default(true),
  dailyPnl: boolean('daily_pnl').notNull().default(false),
  /** Orders on a live key from a Telegram button or command: off until turned on with step-up in the browser. */
  telegramLiveOrders: boolean('telegram_live_orders').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One linked Telegram chat per user, and one user per chat. */
export const telegramLinks = pgTable(
  'telegram_links',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    /**
     * The Telegram user who linked the chat (`from.id` of their `/start`): the only sender whose commands
     * and button presses the bot takes from it. Null on links made before it was kept.
     */
    telegramUserId: bigint('telegram_user_id', { mode: 'number' }),
    username: text('username'),
    linkedAt: timestamp('linked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('telegram_links_chat_idx').on(t.chatId)],
);

/** One-time link codes (kept as hashes): 10 minutes, single use. */
export const telegramLinkCodes = pgTable('telegram_link_codes', {
  codeHash: text('code_hash').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** What an inline button does: an opaque single-use token (kept as a hash) bound to a user and one action. */
export const telegramActions = pgTable(
  'telegram_actions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    action: jsonb('action').$type<Record<string, unknown>>().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('telegram_actions_expiry_idx').on(t.expiresAt)],
);

/**
 * Bot API calls waiting to go out, so nothing is lost while Telegram is unreachable: sent in order per chat,
 * at Telegram's pace; `ref` names what a message is about ("proposal:12") so it can be edited later.
 */
export const telegramOutbox = pgTable(
  'telegram_outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    method: text('method').notNull(),
    params: jsonb('params').$type<Record<string, unknown>>().notNull(),
    ref: text('ref'),
    /**
     * `low`: a line to a chat that is not linked (how to link, a refused code). Sent only with what the
     * bot's rate leaves after the linked chats' messages, few at a time, and not queued at all when many
     * wait already, so that strangers' chatter never holds up a proposal.
     */
    priority: text('priority', { enum: ['normal', 'low'] })
      .notNull()
      .default('normal'),
    state: text('state', { enum: ['queued', 'sent', 'dead'] })
      .notNull()
      .default('queued'),
    attempts: integer('attempts').notNull().default(0),
    notBefore: timestamp('not_before', { withTimezone: true }).notNull().defaultNow(),
    messageId: bigint('message_id', { mode: 'number' }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    index('telegram_outbox_queue_idx').on(t.state, t.notBefore),
    index('telegram_outbox_ref_idx').on(t.chatId, t.ref),
  ],
);

/** A browser's Web Push subscription (RFC 8030 endpoint + RFC 8291 keys). */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastOkAt: timestamp('last_ok_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('push_subscriptions_endpoint_idx').on(t.endpoint),
    index('push_subscriptions_user_idx').on(t.userId),
  ],
);

/** Server-wide key pairs made once and kept sealed (the VAPID pair for Web Push). */
export const serverKeys = pgTable('server_keys', {
  name: text('name').primaryKey(),
  publicKey: text('public_key').notNull(),
  /** Sealed with the server's secret, as the exchange keys are. */
  privateKeySealed: text('private_key_sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
