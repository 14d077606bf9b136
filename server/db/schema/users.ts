import { sql } from 'drizzle-orm';
import { boolean, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** Accounts (module users); sign-in data is added by the auth module's own tables. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Null for an account made by a wallet or a social sign-in that gave no verified e-mail. */
    email: text('email'),
    username: text('username').notNull(),
    passwordHash: text('password_hash'),
    role: text('role', { enum: ['user', 'admin'] })
      .notNull()
      .default('user'),
    /** Kept here so `GET /users/me` can answer without reading the auth module's tables. */
    twoFactorEnabled: boolean('two_factor_enabled').notNull().default(false),
    /** Set by an admin: the account can neither sign in nor use a token. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_lower_idx').on(sql`lower(${t.username})`),
  ],
);

/**
 * Module users: each account's feed filter (src/contracts/keywords.ts), one row per account; no row is
 * no filter.
 */
export const feedFilters = pgTable('feed_filters', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  include: jsonb('include').$type<string[]>().notNull(),
  exclude: jsonb('exclude').$type<string[]>().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
