import { z } from 'zod';
import { decimal } from './numbers';
import { VENUES } from './venues';
import { Decision } from './ruleReports';
import { NO_PROTECTION, PositionProtection, ProtectionInput, ProtectionReceipt } from './protection';

/** How a fill differs from the USDT amount asked (see `sizeOrder` in ./sizing). */
export const SizingAdjustmentSchema = z.enum([
  'exact',
  'nearest',
  'down-to-cap',
  'down-to-margin',
  'up-to-minimum',
]);

/**
 * Trading on the wire (docs/product.md §3, §7): `POST /api/orders`, `GET /api/positions`, `POST /api/close_position`,
 * `POST /api/close_all_positions`, the positions socket, and the paper account. Numbers are numbers;
 * the browser formats them.
 */

/** `BTC/USDT` (as the browser sends it) or `BTCUSDT`; normalised to the exchange symbol. */
export const PairSymbol = z
  .string({ error: 'Symbol is required.' })
  .trim()
  .min(1, { error: 'Symbol is required.' })
  .max(24, { error: 'Symbol is too long.' })
  .regex(/^[A-Za-z0-9]+(\/?USDT)$/i, { error: 'Symbol must look like BTC/USDT.' });

/** `BTC/USDT` → `BTCUSDT`. */
export function exchangeSymbol(pair: string): string {
  return pair.replace('/', '').toUpperCase();
}

/** `BTCUSDT` → `BTC/USDT`. */
export function pairOf(symbol: string): string {
  const upper = symbol.toUpperCase();
  return upper.endsWith('USDT') ? `${upper.slice(0, -4)}/USDT` : upper;
}

export const OrderSideInput = z.enum(['buy', 'sell', 'long', 'short'], {
  error: 'Side must be buy, sell, long or short.',
});
export type OrderSideInput = z.infer<typeof OrderSideInput>;

export const ORDER_TYPES = ['market', 'limit'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
export const TIME_IN_FORCE = ['GTC', 'IOC', 'POST'] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];
export const LIMIT_NEEDS_PRICE = 'A limit order needs a price.';
export const MARKET_TAKES_NO_PRICE = 'A market order takes no price: add type limit, or leave the price out.';
export const TIF_ONLY_LIMIT = 'Time in force applies to limit orders only.';
export const SLIPPAGE_ONLY_MARKET =
  'Max slippage applies to market orders only: a limit order has its price.';

export const OrderRequest = z
  .object({
    symbol: PairSymbol,
    side: OrderSideInput,
    type: z.enum(ORDER_TYPES, { error: 'Order type must be market or limit.' }).default('market'),
    /** A limit order's price, in USDT (put on the symbol's tick by the server: down to buy, up to sell). */
    price: decimal(
      z
        .number({ error: 'Limit price must be a number.' })
        .gt(0, { error: 'Limit price must be greater than zero.' }),
    ).optional(),
    /**
     * A limit order's life: `GTC` rests until filled or cancelled (the default), `IOC` fills what it can at
     * once and cancels the rest, `POST` only ever rests (refused by the venue if it would take liquidity).
     */
    timeInForce: z.enum(TIME_IN_FORCE, { error: 'Time in force must be GTC, IOC or POST.' }).optional(),
    /**
     * Ours: the slippage guard of a market order, in % of the price when sent. The fill is estimated from
     * the book before sending; past the cap the order is sent as an IOC limit at the cap (or refused).
     */
    maxSlippagePct: decimal(
      z
        .number({ error: 'Max slippage must be a number.' })
        .gt(0, { error: 'Max slippage must be greater than zero.' })
        .max(10, { error: 'Max slippage must be 10% or less.' }),
    ).optional(),
    /** USDT notional. */
    amount: decimal(
      z
        .number({ error: 'Amount must be a number.' })
        .gt(0, { error: 'Total must be greater than zero.' })
        .max(100_000_000, { error: 'Amount is too large.' }),
    ),
    /**
     * Ours: the user's fat-finger cap in USDT. Sizing to the nearest lot step never takes the order
     * above it (it rounds down instead); left out when the user confirmed an order above the cap.
     */
    maxNotional: decimal(
      z
        .number({ error: 'maxNotional must be a number.' })
        .gt(0, { error: 'maxNotional must be greater than zero.' }),
    ).optional(),
    /** Ours: what placed the order, for the trade history: typed or clicked (`manual`), or a news card. */
    source: z.enum(['manual', 'card']).optional(),
    /**
     * Ours: a stop-loss, take-profit and trailing stop to rest on the exchange as soon as the fill is known,
     * and a time exit the server runs (src/contracts/protection.ts).
     */
    protection: ProtectionInput.optional(),
  })
  .superRefine((o, ctx) => {
    if (o.type === 'limit' && o.price === undefined)
      ctx.addIssue({ code: 'custom', path: ['price'], message: LIMIT_NEEDS_PRICE });
    if (o.type === 'market' && o.price !== undefined)
      ctx.addIssue({ code: 'custom', path: ['price'], message: MARKET_TAKES_NO_PRICE });
    if (o.type === 'market' && o.timeInForce !== undefined)
      ctx.addIssue({ code: 'custom', path: ['timeInForce'], message: TIF_ONLY_LIMIT });
    if (o.type === 'limit' && o.maxSlippagePct !== undefined)
      ctx.addIssue({ code: 'custom', path: ['maxSlippagePct'], message: SLIPPAGE_ONLY_MARKET });
  });
export type OrderRequest = z.infer<typeof OrderRequest>;

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

/** A position on one symbol at one moment: its side and size (in the base asset). */
export const PositionSize = z.object({ side: z.enum(['long', 'short']), size: z.number() });
export type PositionSize = z.infer<typeof PositionSize>;

/**
 * What a fill did to the position on its symbol, as the venue held it right after the fill: opened it,
 * added to it, reduced it, closed it, or closed it and opened the other way (flip). `before` is null when
 * nothing was open, `after` when nothing is left.
 */
export const PositionChange = z.object({
  effect: z.enum(['open', 'add', 'reduce', 'close', 'flip']),
  before: PositionSize.nullable(),
  after: PositionSize.nullable(),
});
export type PositionChange = z.infer<typeof PositionChange>;

/** The change from a signed size `before` to a signed size `after` (long above zero, short below). */
export function positionChangeOf(before: number, after: number): PositionChange {
  const sized = (amount: number): PositionSize | null =>
    amount === 0 ? null : { side: amount > 0 ? 'long' : 'short', size: Math.abs(amount) };
  const effect: PositionChange['effect'] =
    before === 0
      ? 'open'
      : after === 0
        ? 'close'
        : before > 0 !== after > 0
          ? 'flip'
          : Math.abs(after) > Math.abs(before)
            ? 'add'
            : 'reduce';
  return { effect, before: sized(before), after: sized(after) };
}

/**
 * Where an order's time went, as this request saw it: ours and the venue's apart. Null when the order was
 * not sent by this request (an earlier one found again by its Idempotency-Key).
 */
export const OrderTiming = z.object({
  /** From the order reaching the server's order path to its answer (the legs placed, when asked). */
  total_ms: z.number().nullable(),
  /** The placement call to the venue: the network, the venue, and its look-ups until the order was final. */
  venue_ms: z.number(),
  /** What the venue says it spent itself (OKX's gateway `outTime − inTime`); null when it does not say. */
  venue_own_ms: z.number().nullable(),
});
export type OrderTiming = z.infer<typeof OrderTiming>;

/** What the slippage guard saw: estimate and cap in % of the price when sent; the fill's actual slippage. */
export const SlippageReceipt = z.object({
  estimated_pct: z.number(),
  cap_pct: z.number(),
  /** `market`: sent as asked; `ioc_limit`: the estimate passed the cap, sent as an IOC limit at it. */
  sent_as: z.enum(['market', 'ioc_limit']),
  actual_pct: z.number().nullable(),
});
export type SlippageReceipt = z.infer<typeof SlippageReceipt>;

export const OrderResponse = z.object({
  id: z.string(),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  quantity: z.number(),
  price: z.number(),
  /** quantity × price: what the order is actually worth, in USDT. */
  notional: z.number(),
  fee: z.number(),
  /**
   * `filled`: all of it; `partially_filled`: the venue ended the order with part of it executed (a thin
   * book): `quantity` is what was executed, `note` says so.
   */
  status: z.enum(['filled', 'partially_filled', 'open']),
  /** `market`, or `limit`: then `status: open` means it rests on the book (`quantity` executed so far). */
  order_type: z.enum(ORDER_TYPES).default('market'),
  /** A limit order as it rests: its price, the quantity asked and its time in force; null for a market order. */
  limit: z
    .object({ price: z.number(), quantity: z.number(), time_in_force: z.enum(TIME_IN_FORCE) })
    .nullable()
    .default(null),
  /** The slippage guard's receipt: the fill estimated from the book, the cap, and what the fill did. */
  slippage: SlippageReceipt.nullable().default(null),
  realizedPnl: z.number(),
  /** The USDT amount asked; null when unknown (an earlier order found again by its Idempotency-Key). */
  requested: z.number().nullable().default(null),
  adjustment: SizingAdjustmentSchema.nullable().default(null),
  /** Why the fill is not worth exactly what was asked (lot step, minimum, cap); null when it is. */
  note: z.string().nullable().default(null),
  /** Where the order went, from the server's own answer: what every fill line names, never a guess. */
  account: OrderVenue,
  /**
   * What the fill did to the position (opened, added, reduced, closed or flipped it), read from the venue
   * after the fill; null when the venue could not say.
   */
  position: PositionChange.nullable().default(null),
  /** What the order's protection did (its legs, the unprotected gap); null when none was asked. */
  protection: ProtectionReceipt.nullable().default(null),
  timing: OrderTiming.nullable().default(null),
});
export type OrderResponse = z.infer<typeof OrderResponse>;

/** What an order would do, before it is sent (the command line's preview). */
export const OrderPreview = z.object({
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  quantity: z.number(),
  price: z.number(),
  notional: z.number(),
  /** The USDT amount asked, and how the quantity differs from it (the same sizing as the fill). */
  requested: z.number(),
  adjustment: SizingAdjustmentSchema,
  note: z.string().nullable(),
  /** The symbol's minimum order, in USDT. */
  minNotional: z.number(),
  /** What one lot step is worth at this price, in USDT. */
  stepNotional: z.number(),
  /** Margin the order adds (0 when it only reduces). */
  margin: z.number(),
  fee: z.number(),
  leverage: z.number().int(),
  /** Liquidation price of the resulting position; null when the order closes it. */
  liquidationPrice: z.number().nullable(),
  /**
   * A limit order's: its price on the tick, its time in force, and whether it rests (then `price` is the
   * limit and `fee` the maker fee of its fill) or crosses at once (a taker fill at `price`).
   */
  limit: z.object({ price: z.number(), time_in_force: z.enum(TIME_IN_FORCE), rests: z.boolean() }).optional(),
});
export type OrderPreview = z.infer<typeof OrderPreview>;

export const Position = z.object({
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  size: z.number(),
  entryPrice: z.number(),
  markPrice: z.number(),
  liquidationPrice: z.number(),
  margin: z.number(),
  unrealizedPnl: z.number(),
  leverage: z.number().int(),
  /** Return on margin, as a fraction (0.12 = 12 %). */
  roe: z.number(),
  notional: z.number(),
  /** The position's stop, target, trailing stop and time exit, and where each rests. */
  protection: PositionProtection.default(NO_PROTECTION),
});
export type Position = z.infer<typeof Position>;

export const ClosePositionRequest = z.object({
  symbol: PairSymbol,
  /**
   * A share of the position to close (`0.5` for half, `1/3` as 0.333…), reduce-only, rounded down to the
   * symbol's step; left out, the whole position.
   */
  share: z
    .number({ error: 'The share must be a number above 0 and at most 1.' })
    .gt(0, { error: 'The share must be above 0 and at most 1.' })
    .max(1, { error: 'The share must be above 0 and at most 1.' })
    .optional(),
});
export const MessageResponse = z.object({ message: z.string() });

/** `POST /api/close_position`: the spec's message, and the closing fill as the venue answered it. */
export const CloseResponse = MessageResponse.extend({ fill: OrderResponse });
export type CloseResponse = z.infer<typeof CloseResponse>;
/** `POST /api/close_all_positions`: the message, and one fill per position closed (none: nothing was open). */
export const CloseAllResponse = MessageResponse.extend({ fills: z.array(OrderResponse) });
export type CloseAllResponse = z.infer<typeof CloseAllResponse>;

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

export const LeverageRequest = z.object({
  symbol: PairSymbol,
  leverage: decimal(
    z
      .number({ error: 'Leverage must be a number.' })
      .int({ error: 'Leverage must be a whole number.' })
      .min(1, { error: 'Leverage must be between 1 and 125.' })
      .max(125, { error: 'Leverage must be between 1 and 125.' }),
  ),
});

/** `GET /api/orders/open`: a limit order resting on the account's venue (paper's book or a key's). */
export const OpenOrder = z.object({
  /** The venue's order id. */
  id: z.string(),
  clientOrderId: z.string(),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  type: z.literal('limit'),
  price: z.number(),
  /** The quantity asked, in the base asset, and how much of it has filled. */
  quantity: z.number(),
  filled: z.number(),
  time_in_force: z.enum(TIME_IN_FORCE),
  reduce_only: z.boolean(),
  created_at: z.string(),
  account: OrderVenue,
});
export type OpenOrder = z.infer<typeof OpenOrder>;

/** What the positions socket sends. */
export const PositionsMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('snapshot'),
    positions: z.array(Position),
    /** The account's resting limit orders; left out when its venue cannot list them. */
    orders: z.array(OpenOrder).optional(),
    time: z.number(),
  }),
  z.object({ type: z.literal('liquidation'), symbol: z.string(), price: z.number(), time: z.number() }),
  /** A resting limit order filled off the book (the market traded through it), in words. */
  z.object({ type: z.literal('limit_filled'), symbol: z.string(), text: z.string(), time: z.number() }),
  /**
   * An ask rule proposes an order and waits for the user's answer until `decision.ask_expires_at`: the
   * proposed order is the decision's side, amount, asset and account; the news and its analysis come with it.
   */
  z.object({
    type: z.literal('proposal'),
    decision: Decision,
    headline: z.string().nullable(),
    reasoning: z.string().nullable(),
    time: z.number(),
  }),
  /**
   * A proposal was answered (here or in another channel: `decision.answered_via`), then ended fired or
   * skipped (rejected, no answer, or refused at confirmation: `decision.reason`).
   */
  z.object({
    type: z.literal('proposal_closed'),
    event: z.enum(['answered', 'fired', 'skipped']),
    decision: Decision,
    time: z.number(),
  }),
  /**
   * Something happened to a position's protection without the user asking: a leg fired, vanished from
   * the exchange and was placed again, was refused (and the position closed), or a time exit keeps failing.
   */
  z.object({
    type: z.literal('protection'),
    symbol: z.string(),
    event: z.enum(['fired', 'placed_again', 'refused', 'exit_failing', 'exited']),
    leg: z.enum(['stop_loss', 'take_profit', 'trailing', 'exit']),
    text: z.string(),
    time: z.number(),
  }),
]);
export type PositionsMessage = z.infer<typeof PositionsMessage>;

/** `DELETE /api/orders/open` (all, or `?symbol=`): what was cancelled and what could not be. */
export const CancelOrdersResponse = z.object({
  cancelled: z.array(OpenOrder),
  /** Orders the venue did not cancel, each with the venue's reason. */
  failed: z.array(z.object({ id: z.string(), symbol: z.string(), detail: z.string() })),
});
export type CancelOrdersResponse = z.infer<typeof CancelOrdersResponse>;
