import { z } from 'zod';
import { OrderVenue } from './account';

export const ORDER_TYPES = ['market', 'limit'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
export const TIME_IN_FORCE = ['GTC', 'IOC', 'POST'] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];
export const LIMIT_NEEDS_PRICE = 'A limit order needs a price.';
export const MARKET_TAKES_NO_PRICE = 'A market order takes no price: add type limit, or leave the price out.';
export const TIF_ONLY_LIMIT = 'Time in force applies to limit orders only.';
export const SLIPPAGE_ONLY_MARKET =
  'Max slippage applies to market orders only: a limit order has its price.';

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

/** `DELETE /api/orders/open` (all, or `?symbol=`): what was cancelled and what could not be. */
export const CancelOrdersResponse = z.object({
  cancelled: z.array(OpenOrder),
  /** Orders the venue did not cancel, each with the venue's reason. */
  failed: z.array(z.object({ id: z.string(), symbol: z.string(), detail: z.string() })),
});
export type CancelOrdersResponse = z.infer<typeof CancelOrdersResponse>;
