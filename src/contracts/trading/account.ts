import { z } from 'zod';
import { VENUES } from '../venues';

/**
 * `GET /api/account` and `PUT /api/account`: where the user's orders go. `paper` is the built-in paper
 * exchange; otherwise the id of one of the user's exchange keys, trading LIVE (real funds) or DEMO.
 */
export const ACCOUNT_MODES = ['paper', 'live', 'demo'] as const;
export type AccountMode = (typeof ACCOUNT_MODES)[number];
/**
 * The account an order went to: its venue (`paper`, `binance`, `bybit`, `okx`), its mode and, for a key,
 * the key's hint (null on paper).
 */
export const OrderVenue = z.object({
  venue: z.enum(['paper', ...VENUES]),
  mode: z.enum(ACCOUNT_MODES),
  keyHint: z.string().nullable(),
});
export type OrderVenue = z.infer<typeof OrderVenue>;

export const Balance = z.object({
  asset: z.literal('USDT'),
  walletBalance: z.number(),
  availableBalance: z.number(),
  unrealizedPnl: z.number(),
  equity: z.number(),
  exchange: z.enum(['paper', 'binance-usdm', 'bybit-linear', 'okx-swap']),
});
export type Balance = z.infer<typeof Balance>;

export const AccountState = z.object({
  account: z.string(),
  /** `paper`, or the venue of the chosen key. */
  venue: z.enum(['paper', ...VENUES]),
  mode: z.enum(ACCOUNT_MODES),
  /** The chosen key's hint (first and last four characters); null on paper. */
  keyHint: z.string().nullable(),
});
export type AccountState = z.infer<typeof AccountState>;
export const AccountChoice = z.object({
  account: z
    .string({ error: 'account must be paper or a key id' })
    .trim()
    .min(1, { error: 'account must be paper or a key id' })
    .max(64, { error: 'account must be paper or a key id' }),
});
