import { z } from 'zod';

/**
 * Exchange API keys on the wire (docs/product.md §3 exchange API key, §5 form rules, §7 `/exchanges/`):
 * `GET /api/exchanges/` lists the user's keys (never the secret, only a hint of the key),
 * `POST /api/exchanges/` saves one after checking it with the exchange, `DELETE /api/exchanges/{id}`.
 */
export const KEY_ENVIRONMENTS = ['live', 'demo'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** `verified`: the exchange accepted it on save; `unverified`: the exchange could not be reached. */
export const KEY_STATUSES = ['verified', 'unverified'] as const;

export const KeyWarning = z.enum(['withdrawals-enabled', 'no-ip-whitelist', 'expiry-near']);
export type KeyWarning = z.infer<typeof KeyWarning>;

export const ExchangeKey = z.object({
  id: z.string(),
  exchangeName: z.literal('binance'),
  environment: z.enum(KEY_ENVIRONMENTS),
  /** First 4 and last 4 characters of the API key. */
  keyHint: z.string(),
  permissions: z.array(z.string()),
  status: z.enum(KEY_STATUSES),
  warnings: z.array(KeyWarning),
  created_at: z.string(),
});
export type ExchangeKey = z.infer<typeof ExchangeKey>;
export const ExchangeKeys = z.array(ExchangeKey);

const trimmed = z
  .string({ error: 'API Key and Secret Key cannot be empty.' })
  .trim()
  .min(1, { error: 'API Key and Secret Key cannot be empty.' });

/** `POST /api/exchanges/` body; an empty key or secret is a 422 whose message is the §5 text. */
export const ExchangeKeyCreate = z.object({
  exchangeName: z.literal('binance', { error: 'only binance is supported' }),
  apiKey: trimmed.max(256, { error: 'at most 256 characters' }),
  secretKey: trimmed.max(256, { error: 'at most 256 characters' }),
  environment: z.enum(KEY_ENVIRONMENTS).default('live'),
  /** Must be true to save a key that can withdraw funds. */
  confirmWithdrawals: z.boolean().default(false),
});
export type ExchangeKeyCreate = z.input<typeof ExchangeKeyCreate>;

/** The server's and the modal's texts for keys (docs/product.md §5, §8). */
export const KEY_TEXTS = {
  empty: 'API Key and Secret Key cannot be empty.',
  loggedOut: 'You must be logged in.',
  saved: 'API Key saved successfully!',
  deleted: 'Key deleted successfully.',
  confirmDelete: 'Are you sure you want to delete this API key?',
  none: 'No API keys saved yet.',
  loading: 'Loading keys...',
  fetchFailed: 'Failed to fetch keys.',
  saveFailed: 'Failed to save key.',
  deleteFailed: 'Failed to delete key.',
  notFound: 'API key not found.',
  unverified:
    'Binance could not be reached, so the key was saved unverified. It will be checked again on first use.',
  unreachable: 'Binance could not be reached to check this key. Try again shortly.',
  withdrawalsRefused:
    'This key can withdraw funds. Signal Console never withdraws; restrict the key on Binance, or confirm to save it anyway.',
  warnings: {
    'withdrawals-enabled':
      'Withdrawals are enabled on this key. Signal Console never withdraws: turn them off.',
    'no-ip-whitelist': 'No IP whitelist is set on this key: restrict it to your server’s address.',
    'expiry-near': 'Binance will soon revoke trading on this unrestricted key: add an IP whitelist.',
  } satisfies Record<KeyWarning, string>,
} as const;
