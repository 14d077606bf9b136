import { z } from 'zod';
import { decimal } from '../numbers';
import { ProtectionInput, ProtectionReceipt } from '../protection';
import { OrderVenue } from './account';
import {
  ORDER_TYPES,
  LIMIT_NEEDS_PRICE,
  MARKET_TAKES_NO_PRICE,
  SLIPPAGE_ONLY_MARKET,
  TIF_ONLY_LIMIT,
  TIME_IN_FORCE,
} from './limitOrders';

/** How a fill differs from the USDT amount asked (see `sizeOrder` in ../sizing). */
export const SizingAdjustmentSchema = z.enum([
  'exact',
  'nearest',
  'down-to-cap',
  'down-to-margin',
  'up-to-minimum',
]);

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
