import { z } from 'zod';
import { VENUES, VENUE_LABELS, type VenueName } from './venues';

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
  exchangeName: z.enum(VENUES),
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

/**
 * `POST /api/exchanges/` body; an empty key or secret is a 422 whose message is the §5 text. An OKX key
 * also needs its passphrase (a 422 without it); the other venues have none.
 */
export const ExchangeKeyCreate = z
  .object({
    exchangeName: z.enum(VENUES, { error: 'exchangeName must be binance, bybit or okx.' }),
    apiKey: trimmed.max(256, { error: 'at most 256 characters' }),
    secretKey: trimmed.max(256, { error: 'at most 256 characters' }),
    /** OKX only: the passphrase chosen when the key was made, sealed like the secret. */
    passphrase: z
      .string({ error: 'passphrase must be text.' })
      .trim()
      .max(64, { error: 'at most 64 characters' })
      .optional(),
    environment: z.enum(KEY_ENVIRONMENTS).default('live'),
    /** Must be true to save a key that can withdraw funds. */
    confirmWithdrawals: z.boolean().default(false),
  })
  .superRefine((body, ctx) => {
    const needs = body.exchangeName === 'okx';
    const has = body.passphrase !== undefined && body.passphrase !== '';
    if (needs && !has)
      ctx.addIssue({ code: 'custom', path: ['passphrase'], message: KEY_TEXTS.passphraseMissing });
    if (!needs && has) {
      ctx.addIssue({
        code: 'custom',
        path: ['passphrase'],
        message: KEY_TEXTS.passphraseUnused(body.exchangeName),
      });
    }
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
  /** Ours: an OKX key without its passphrase. */
  passphraseMissing: 'OKX keys need the passphrase chosen when the key was made.',
  /** Ours: a passphrase sent for a venue that has none. */
  passphraseUnused: (venue: VenueName) => `${VENUE_LABELS[venue]} keys have no passphrase: leave it empty.`,
  unverified: (venue: VenueName = 'binance') =>
    `${VENUE_LABELS[venue]} could not be reached, so the key was saved unverified. It will be checked again on first use.`,
  unreachable: (venue: VenueName = 'binance') =>
    `${VENUE_LABELS[venue]} could not be reached to check this key. Try again shortly.`,
  refused: (venue: VenueName, msg: string) => `${VENUE_LABELS[venue]} refused the key: ${msg}`,
  withdrawalsRefused: (venue: VenueName = 'binance') =>
    `This key can withdraw funds. Signal Console never withdraws; restrict the key on ${VENUE_LABELS[venue]}, or confirm to save it anyway.`,
  /** Ours: what picking Live means, in the form and in `key add live`. */
  liveWarning: (venue: VenueName) =>
    `Live: orders sent with this key trade real funds on your ${VENUE_LABELS[venue]} account.`,
  /** Ours: a demo key, and how to save a live one instead. */
  demoNote: (venue: VenueName) =>
    `Demo: this key trades simulated funds on ${VENUE_LABELS[venue]} demo trading. For real funds: key add ${venue} live.`,
  warnings: {
    'withdrawals-enabled':
      'Withdrawals are enabled on this key. Signal Console never withdraws: turn them off.',
    'no-ip-whitelist': 'No IP whitelist is set on this key: restrict it to your server’s address.',
    'expiry-near': 'Binance will soon revoke trading on this unrestricted key: add an IP whitelist.',
  } satisfies Record<KeyWarning, string>,
} as const;
