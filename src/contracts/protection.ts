import { z } from 'zod';
import { decimal } from './numbers';

/**
 * A position's protection: its stop-loss, take-profit and trailing stop, which rest on the exchange as
 * conditional orders (Binance's algo orders, or the paper exchange's own), and its time exit, which the
 * server runs. Set with an order (`POST /api/orders` `protection`) or on an open position
 * (`PUT /api/positions/{SYMBOL}/protection`); every row of `GET /api/positions` says what rests where.
 */

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

const pct = (name: string, min: number, max: number) =>
  z.preprocess(
    blank,
    decimal(
      z
        .number({ error: `${name} must be a number.` })
        .min(min, { error: `${name} must be between ${min}% and ${max}%.` })
        .max(max, { error: `${name} must be between ${min}% and ${max}%.` }),
    ).optional(),
  );

const price = (name: string) =>
  z.preprocess(
    blank,
    decimal(
      z.number({ error: `${name} must be a number.` }).gt(0, { error: `${name} must be above 0.` }),
    ).optional(),
  );

/** The bounds of a trailing stop's callback, as Binance takes them. */
export const TRAILING_MIN_PCT = 0.1;
export const TRAILING_MAX_PCT = 10;
/** The longest time exit: a week, as a rule's max hold. */
export const EXIT_AFTER_MAX_MIN = 10_080;

export const ProtectionInput = z
  .object({
    /** How far against the entry the stop sits, in % of price. */
    stop_loss_pct: pct('Stop loss', 0.05, 95),
    stop_loss_price: price('Stop loss price'),
    take_profit_pct: pct('Take profit', 0.05, 1000),
    take_profit_price: price('Take profit price'),
    trailing_pct: pct('Trailing stop', TRAILING_MIN_PCT, TRAILING_MAX_PCT),
    exit_after_min: z.preprocess(
      blank,
      decimal(
        z
          .number({ error: 'Exit after must be a number of minutes.' })
          .int({ error: 'Exit after must be a whole number of minutes.' })
          .min(1, { error: 'Exit after must be at least 1 minute.' })
          .max(EXIT_AFTER_MAX_MIN, { error: 'Exit after must be at most 7 days.' }),
      ).optional(),
    ),
  })
  .strict()
  .refine((p) => p.stop_loss_pct === undefined || p.stop_loss_price === undefined, {
    error: 'Give the stop loss as a percent or a price, not both.',
    path: ['stop_loss_price'],
  })
  .refine((p) => p.take_profit_pct === undefined || p.take_profit_price === undefined, {
    error: 'Give the take profit as a percent or a price, not both.',
    path: ['take_profit_price'],
  });
export type ProtectionInput = z.infer<typeof ProtectionInput>;

/** Whether a protection asks for anything at all. */
export const protectionAsked = (p: ProtectionInput | undefined): p is ProtectionInput =>
  p !== undefined && Object.values(p).some((v) => v !== undefined);

/**
 * Where a leg rests: `exchange` (a conditional order on the venue, which outlives our server) or `app`
 * (the server runs it: a time exit, or a trigger the venue cannot hold).
 */
export const LEG_PLACES = ['exchange', 'app'] as const;
export type LegPlace = (typeof LEG_PLACES)[number];

/**
 * A leg's state: `placing` (sent, not yet confirmed), `resting` (the venue confirmed it), `missing` (it
 * vanished from the venue and is being placed again), `triggered` (it fired), `refused` (the venue
 * refused it: the position was closed at market).
 */
export const LEG_STATES = ['placing', 'resting', 'missing', 'triggered', 'refused'] as const;
export type LegState = (typeof LEG_STATES)[number];

export const PriceLeg = z.object({ price: z.number(), on: z.enum(LEG_PLACES), state: z.enum(LEG_STATES) });
export type PriceLeg = z.infer<typeof PriceLeg>;
export const TrailingLeg = z.object({
  callback_pct: z.number(),
  on: z.enum(LEG_PLACES),
  state: z.enum(LEG_STATES),
});
export type TrailingLeg = z.infer<typeof TrailingLeg>;

export const PositionProtection = z.object({
  stop_loss: PriceLeg.nullable(),
  take_profit: PriceLeg.nullable(),
  trailing: TrailingLeg.nullable(),
  /** When the server closes the position (a time exit), ISO 8601; null for none. */
  exit_at: z.string().nullable(),
});
export type PositionProtection = z.infer<typeof PositionProtection>;

export const NO_PROTECTION: PositionProtection = {
  stop_loss: null,
  take_profit: null,
  trailing: null,
  exit_at: null,
};

/** Whether a position has a stop of any kind (a stop-loss or a trailing stop) that has not fired. */
export const hasStop = (p: PositionProtection): boolean =>
  (p.stop_loss !== null && p.stop_loss.state !== 'refused' && p.stop_loss.state !== 'triggered') ||
  (p.trailing !== null && p.trailing.state !== 'refused' && p.trailing.state !== 'triggered');

/**
 * What an order's protection did, in its answer: the legs as they now stand, how long the position was
 * open without them (from the entry's fill to the last leg confirmed), and what went wrong, if anything
 * (a leg refused and the position closed, a leg not confirmed yet).
 */
export const ProtectionReceipt = PositionProtection.extend({
  unprotected_ms: z.number().nullable(),
  note: z.string().nullable(),
});
export type ProtectionReceipt = z.infer<typeof ProtectionReceipt>;

/** The prices of a protection for a position of `side` entered at `entry`. */
export function protectionPrices(
  input: ProtectionInput,
  side: 'long' | 'short',
  entry: number,
): { stopLoss: number | null; takeProfit: number | null } {
  const dir = side === 'long' ? 1 : -1;
  const stopLoss =
    input.stop_loss_price ??
    (input.stop_loss_pct === undefined ? null : entry * (1 - (dir * input.stop_loss_pct) / 100));
  const takeProfit =
    input.take_profit_price ??
    (input.take_profit_pct === undefined ? null : entry * (1 + (dir * input.take_profit_pct) / 100));
  return { stopLoss, takeProfit };
}

/**
 * Why a stop or target at these prices cannot rest for a position of `side` at `mark` (it would fire at
 * once: Binance answers -2021), or null when both can.
 */
export function protectionProblem(
  prices: { stopLoss: number | null; takeProfit: number | null },
  side: 'long' | 'short',
  mark: number,
  fmt: (n: number) => string = (n) => String(n),
): string | null {
  const { stopLoss, takeProfit } = prices;
  if (side === 'long') {
    if (stopLoss !== null && stopLoss >= mark)
      return `A long's stop loss must be below the price (${fmt(mark)}).`;
    if (takeProfit !== null && takeProfit <= mark)
      return `A long's take profit must be above the price (${fmt(mark)}).`;
  } else {
    if (stopLoss !== null && stopLoss <= mark)
      return `A short's stop loss must be above the price (${fmt(mark)}).`;
    if (takeProfit !== null && takeProfit >= mark)
      return `A short's take profit must be below the price (${fmt(mark)}).`;
  }
  return null;
}
