import { z } from 'zod';
import { OrderVenue } from './account';

/** What placed a fill: the user by hand (terminal, panel, CLI), a news card, or one of their rules. */
export const TRADE_SOURCES = ['manual', 'card', 'rule'] as const;
export type TradeSource = (typeof TRADE_SOURCES)[number];

/** One fill of the trade history (`GET /api/trades`), as the venue answered it. */
export const Trade = z.object({
  id: z.string(),
  /** When the fill was answered, in ms since the epoch. */
  time: z.number(),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  quantity: z.number(),
  price: z.number(),
  /** Null while the venue has not told the fill's realised PnL and fee (unknown: shown as "—", never 0). */
  realizedPnl: z.number().nullable(),
  fee: z.number().nullable(),
  /** `paper` or the id of the key it went to, and that account's mode and hint. */
  accountId: z.string(),
  account: OrderVenue,
  source: z.enum(TRADE_SOURCES),
  /** The rule that placed it (source `rule`): its id and its name then. */
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  orderId: z.string(),
});
export type Trade = z.infer<typeof Trade>;

/**
 * Why a position (or part of it) was closed: by hand, its stop or target, its time exit (`hold`), the
 * rules' flatten, a retracted story, or a liquidation.
 */
export const CLOSE_REASONS = [
  'manual',
  'stop',
  'target',
  'hold',
  'flatten',
  'retraction',
  'liquidation',
] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

/**
 * One row of the Closed tab (`GET /api/trades/closed`): the part of a position one fill closed, worked
 * out from the fills in order (a fill that flips a position closes the old one and opens the rest).
 */
export const ClosedTrade = z.object({
  /** The closing fill's id, with `-c` (one fill closes at most one position). */
  id: z.string(),
  time: z.number(),
  symbol: z.string(),
  /** The side of the position that was closed. */
  side: z.enum(['long', 'short']),
  /** How much of the position this fill closed (the rest of a flip opened the other way). */
  quantity: z.number(),
  /** The position's average entry; null when its opening fills are not in the history. */
  entryPrice: z.number().nullable(),
  exitPrice: z.number(),
  /** Null while the venue has not told it. */
  realizedPnl: z.number().nullable(),
  /** The closing fill's fee, its share for the part closed; null while not told. */
  fee: z.number().nullable(),
  reason: z.enum(CLOSE_REASONS),
  accountId: z.string(),
  account: OrderVenue,
  source: z.enum(TRADE_SOURCES),
  ruleName: z.string().nullable(),
  orderId: z.string(),
});
export type ClosedTrade = z.infer<typeof ClosedTrade>;
export const ClosedTradesQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number.' })
    .int({ error: 'limit must be a whole number.' })
    .min(1, { error: `limit must be between 1 and 200.` })
    .max(200, { error: `limit must be between 1 and 200.` })
    .default(50),
  account: z.string().trim().min(1).max(64).optional(),
});
export const ClosedTradesPage = z.object({ closed: z.array(ClosedTrade) });
export type ClosedTradesPage = z.infer<typeof ClosedTradesPage>;

export const TRADES_PAGE_MAX = 200;
export const TradesQuery = z.object({
  /** The `nextCursor` of the page before: the fills older than it. */
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, { error: 'cursor must be a nextCursor from an earlier page.' })
    .optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number.' })
    .int({ error: 'limit must be a whole number.' })
    .min(1, { error: `limit must be between 1 and ${TRADES_PAGE_MAX}.` })
    .max(TRADES_PAGE_MAX, { error: `limit must be between 1 and ${TRADES_PAGE_MAX}.` })
    .default(50),
  /** Only the fills of this account: `paper` or a key id. */
  account: z.string().trim().min(1).max(64).optional(),
});
export type TradesQuery = z.infer<typeof TradesQuery>;

/** Rows a page of `GET /api/trades.csv` may hold: a spreadsheet takes a year of fills in one file. */
export const TRADES_CSV_PAGE_MAX = 10_000;
/** `GET /api/trades.csv`: the same query, with pages up to {@link TRADES_CSV_PAGE_MAX} (all by default). */
export const TradesCsvQuery = TradesQuery.extend({
  limit: z.coerce
    .number({ error: 'limit must be a number.' })
    .int({ error: 'limit must be a whole number.' })
    .min(1, { error: `limit must be between 1 and ${TRADES_CSV_PAGE_MAX}.` })
    .max(TRADES_CSV_PAGE_MAX, { error: `limit must be between 1 and ${TRADES_CSV_PAGE_MAX}.` })
    .default(TRADES_CSV_PAGE_MAX),
});
export const TradesPage = z.object({
  trades: z.array(Trade),
  /** Pass it as `cursor` for the next, older page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type TradesPage = z.infer<typeof TradesPage>;
