import { createHash, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { describeSizing, sizeOrder } from '../../../src/contracts/sizing';
import {
  pairOf,
  type OpenOrder,
  type OrderRequest,
  type OrderResponse,
  type OrderVenue,
  type TimeInForce,
} from '../../../src/contracts/trading';
import { venueLabel } from '../../../src/contracts/venues';
import { appError } from '../../plugins/errors';
import type {
  LimitOrderRequest,
  OrderResult,
  OrderSizing,
  OrderTradeUpdateEvent,
  RestingOrder,
} from './exchange';
import { clientIdFor } from './order-request';
import { filtersFor } from './paper/filters';

/** Ours to Binance's: post-only is `GTX`. */
const VENUE_TIF: Record<TimeInForce, LimitOrderRequest['timeInForce']> = {
  GTC: 'GTC',
  IOC: 'IOC',
  POST: 'GTX',
};
const OUR_TIF: Record<LimitOrderRequest['timeInForce'], TimeInForce> = {
  GTC: 'GTC',
  IOC: 'IOC',
  GTX: 'POST',
};

export const PROTECTION_NOT_ON_LIMIT =
  'Protection goes on a filled position: place the limit order without it, then set protection once it fills.';

/** A live venue whose adapter places no limit orders yet. */
export const limitsNotOnVenue = (venue: OrderVenue['venue']) =>
  appError(
    'BAD_REQUEST',
    `Limit orders are not available on ${venue === 'paper' ? 'the paper exchange' : venueLabel(venue)} yet: ` +
      'place a market order there, or switch to the paper account (account use paper).',
  );

/** A limit price on the symbol's tick: down for a buy (never pays more), up for a sell (never gets less). */
export function onTick(price: Decimal, tick: Decimal, side: 'BUY' | 'SELL'): Decimal {
  const steps = price.div(tick);
  return (side === 'BUY' ? steps.floor() : steps.ceil()).mul(tick);
}

export interface LimitToSend {
  order: LimitOrderRequest;
  /** Tells a retry of this order from a different one under the same Idempotency-Key. */
  requestHash: string | undefined;
  sizing: OrderSizing;
}

/**
 * The venue's limit order for `request`: the price on the symbol's tick, and the quantity sized from the
 * USDT amount at that price (the minimum order is checked there too, not at the market's price).
 */
export function limitOrderFor(
  userId: string,
  symbol: string,
  request: OrderRequest,
  idempotencyKey: string | undefined,
): LimitToSend {
  if (request.price === undefined) throw appError('BAD_REQUEST', 'A limit order needs a price.');
  if (request.protection !== undefined) throw appError('BAD_REQUEST', PROTECTION_NOT_ON_LIMIT);
  const side = request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL';
  const filters = filtersFor(symbol, request.price);
  if (!filters) throw appError('BAD_REQUEST', 'Invalid symbol.');
  const price = onTick(new Decimal(request.price), filters.tickSize, side);
  if (!price.gt(0)) {
    throw appError('BAD_REQUEST', `The limit price must be at least ${filters.tickSize.toString()} USDT.`);
  }
  const sizing = sizeOrder({
    amount: request.amount,
    price,
    filters,
    caps: { maxNotional: request.maxNotional ?? null },
  });
  if (!sizing.ok) throw appError('BAD_REQUEST', describeSizing(pairOf(symbol), sizing) ?? 'Order refused.');
  const timeInForce = VENUE_TIF[request.timeInForce ?? 'GTC'];
  const newClientOrderId =
    idempotencyKey === undefined
      ? `sc-${randomUUID().replaceAll('-', '')}`
      : clientIdFor(userId, idempotencyKey);
  const order: LimitOrderRequest = {
    symbol,
    side,
    price: price.toString(),
    quantity: sizing.quantity.toString(),
    timeInForce,
    newClientOrderId,
  };
  const requestHash =
    idempotencyKey === undefined
      ? undefined
      : createHash('sha256')
          .update(
            `${symbol}|${side}|limit|${request.amount}|${order.price}|${timeInForce}` +
              (request.maxNotional === undefined ? '' : `|${request.maxNotional}`),
          )
          .digest('hex');
  return {
    order,
    requestHash,
    sizing: {
      requested: sizing.requested.toString(),
      adjustment: sizing.adjustment,
      note: describeSizing(pairOf(symbol), sizing),
    },
  };
}

/** The `limit` of an answer: the order's price, the quantity asked and its time in force. */
export function limitOf(order: Pick<LimitOrderRequest, 'price' | 'quantity' | 'timeInForce'>) {
  return {
    price: Number(order.price),
    quantity: Number(order.quantity),
    time_in_force: OUR_TIF[order.timeInForce],
  };
}

/** The answer of a limit order that rests on the book: `status: open`, what it executed so far. */
export function restingAnswer(
  r: OrderResult,
  order: Pick<LimitOrderRequest, 'price' | 'quantity' | 'timeInForce'>,
  venue: OrderVenue,
): OrderResponse {
  return {
    id: r.orderId,
    symbol: pairOf(r.symbol),
    side: r.side === 'BUY' ? 'buy' : 'sell',
    quantity: Number(r.executedQty),
    price: Number(order.price),
    notional: Number(r.cumQuote),
    fee: Number(r.commission ?? 0),
    status: 'open',
    order_type: 'limit',
    limit: limitOf({ ...order, quantity: r.origQty ?? order.quantity }),
    slippage: null,
    realizedPnl: Number(r.realizedPnl ?? 0),
    requested: r.sizing ? Number(r.sizing.requested) : null,
    adjustment: r.sizing?.adjustment ?? null,
    note: r.sizing?.note ?? null,
    account: { venue: venue.venue, mode: venue.mode, keyHint: venue.keyHint },
    position: null,
    protection: null,
    timing:
      r.venueMs === undefined
        ? null
        : { total_ms: null, venue_ms: Math.round(r.venueMs * 10) / 10, venue_own_ms: null },
  };
}

/** A venue's resting order as `GET /api/orders/open` lists it. */
export function toOpenOrder(r: RestingOrder, venue: OrderVenue): OpenOrder {
  return {
    id: r.orderId,
    clientOrderId: r.clientOrderId,
    symbol: pairOf(r.symbol),
    side: r.side === 'BUY' ? 'buy' : 'sell',
    type: 'limit',
    price: Number(r.price),
    quantity: Number(r.origQty),
    filled: Number(r.executedQty),
    time_in_force: OUR_TIF[r.timeInForce],
    reduce_only: r.reduceOnly,
    created_at: new Date(r.time).toISOString(),
    account: { venue: venue.venue, mode: venue.mode, keyHint: venue.keyHint },
  };
}

/** `Limit filled: BUY 0.052 BTC/USDT @ 96,000.0, maker fee 1.00 USDT.`: a resting order the market reached. */
export function limitFilledText(o: OrderTradeUpdateEvent['o']): string {
  const price = Number(o.ap).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 8 });
  const fee = Number(o.n ?? 0).toFixed(2);
  return `Limit filled: ${o.S} ${Number(o.z)} ${pairOf(o.s)} @ ${price}, maker fee ${fee} USDT.`;
}
