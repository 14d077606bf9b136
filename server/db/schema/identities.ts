import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * Module auth: the ways besides a password to sign in to an account. A wallet is an identity of provider
 * `wallet` whose subject is its lower-case address; Google and Twitter identities carry the provider's
 * stable user id. One (provider, subject) belongs to one account.
 */
export const identities = pgTable(
  'identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['wallet', 'google', 'twitter'] }).notNull(),
    subject: text('subject').notNull(),
    /** The e-mail the provider vouched for when the identity was linked (social identities). */
    email: text('email'),
    /** Wallets: the chain the wallet signed on, its ENS name when one resolves, and the primary mark. */
    chainId: integer('chain_id'),
    ensName: text('ens_name'),
    isPrimary: boolean('is_primary').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('identities_provider_subject_idx').on(t.provider, t.subject),
    index('identities_user_idx').on(t.userId),
    /** At most one primary wallet per account. */
    uniqueIndex('identities_primary_wallet_idx')
      .on(t.userId)
      .where(sql`${t.isPrimary} and ${t.provider} = 'wallet'`),
  ],
);

/** Single-use SIWE nonces (5 minutes): the message the server wrote for the address that asked. */
export const web3Nonces = pgTable(
  'web3_nonces',
  {
    nonce: text('nonce').primaryKey(),
    address: text('address').notNull(),
    chainId: integer('chain_id').notNull(),
    message: text('message').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('web3_nonces_expires_idx').on(t.expiresAt)],
);
