import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * Module exchanges: each user's exchange API keys (docs/product.md §3 exchange API key) on Binance, Bybit
 * or OKX. The API key, the secret and OKX's passphrase are stored only as AES-256-GCM ciphertext under the
 * server's master key, whose id is kept beside them so that `npm run rotate-secrets-key` knows what to
 * re-encrypt.
 */
export const exchangeKeys = pgTable(
  'exchange_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `binance`, `bybit` or `okx`. */
    exchangeName: text('exchange_name').notNull(),
    /** `live` (the venue's real host) or `demo` (the venue's demo trading). */
    environment: text('environment').notNull(),
    /** First 4 + last 4 characters of the API key; the only plain-text trace of it. */
    keyHint: text('key_hint').notNull(),
    apiKeySealed: text('api_key_sealed').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    /** OKX only: the passphrase chosen when the key was made, sealed like the secret; null elsewhere. */
    passphraseSealed: text('passphrase_sealed'),
    /** Fingerprint of the master key that sealed both. */
    masterKeyId: text('master_key_id').notNull(),
    /** `verified` or `unverified`. */
    status: text('status').notNull(),
    permissions: jsonb('permissions').$type<string[]>().notNull(),
    warnings: jsonb('warnings').$type<string[]>().notNull(),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('exchange_keys_user_idx').on(t.userId), index('exchange_keys_master_idx').on(t.masterKeyId)],
);
