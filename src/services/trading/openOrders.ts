import { z } from 'zod';
import { CancelOrdersResponse, OpenOrder, type OrderResponse } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { formatAgo, formatPrice, formatSize } from './format';
import type { Outcome } from './orders';
import { accountName } from './venueNames';

/**
 * Limit orders resting on the account: the calls every entry point shares (the `orders` and `cx`
 * commands, the Open Orders tab), and their words.
 */

export const OPEN_ORDERS_TEXT = {
  none: 'No open orders.',
  fetchFailed: 'Failed to fetch open orders.',
  cancelFailed: 'Failed to cancel.',
  noneToCancel: (what: string) => `No open orders to cancel${what === '' ? '' : ` on ${what}`}.`,
  /** `Cancelled: BUY 0.053 BTC/USDT @ 95,000.0 GTC.` */
  cancelled: (o: OpenOrder) => `Cancelled: ${orderText(o)}.`,
  /** `Cancelled 3 orders.`, with each failure after it. */
  cancelledMany: (n: number) => `Cancelled ${n} order${n === 1 ? '' : 's'}.`,
  failed: (symbol: string, id: string, detail: string) => `Not cancelled: ${symbol} ${id}: ${detail}`,
  confirmAll: (n: number) => `Cancel all ${n} open order${n === 1 ? '' : 's'}?`,
} as const;

/** A limit price at its symbol's tick, as every price is shown (`95,000.0`, `0.02305`). */
export function limitPriceText(symbol: string, price: number): string {
  return formatPrice(symbol, price);
}

const tifText = (tif: OpenOrder['time_in_force']) => tif;

/** `BUY 0.053 BTC/USDT @ 95,000.0 GTC` */
export function orderText(o: Pick<OpenOrder, 'side' | 'quantity' | 'symbol' | 'price' | 'time_in_force'>) {
  return `${o.side.toUpperCase()} ${formatSize(o.quantity)} ${o.symbol} @ ${limitPriceText(o.symbol, o.price)} ${tifText(o.time_in_force)}`;
}

/** `Resting: BUY 0.053 BTC/USDT @ 95,000.0 GTC on Paper account`: a limit order's answer that rests. */
export function restingText(fill: OrderResponse): string {
  const limit = fill.limit;
  const text = orderText({
    side: fill.side,
    quantity: limit?.quantity ?? fill.quantity,
    symbol: fill.symbol,
    price: limit?.price ?? fill.price,
    time_in_force: limit?.time_in_force ?? 'GTC',
  });
  return `Resting: ${text} on ${accountName(fill.account)} account`;
}

/** The columns of the `orders` listing and the Open Orders tab. */
export const OPEN_ORDER_COLUMNS = ['ID', 'SYMBOL', 'SIDE', 'PRICE', 'QTY', 'FILLED', 'TIF', 'AGE'] as const;

/** One order's cells, in {@link OPEN_ORDER_COLUMNS}' order; the id shortened to its first 8 characters. */
export function openOrderCells(o: OpenOrder, now: number): string[] {
  const age = Math.max(0, now - Date.parse(o.created_at));
  return [
    o.id.slice(0, 8),
    o.symbol,
    o.side.toUpperCase(),
    limitPriceText(o.symbol, o.price),
    formatSize(o.quantity),
    o.filled === 0 ? '0' : formatSize(o.filled),
    o.time_in_force,
    formatAgo(age),
  ];
}

/** `GET /orders/open`: the chosen account's resting orders. */
export async function fetchOpenOrders(trading: ApiClient): Promise<Outcome<OpenOrder[]>> {
  try {
    return { ok: true, value: await trading.call(z.array(OpenOrder), '/orders/open') };
  } catch (error) {
    return { ok: false, message: errorMessage(error, OPEN_ORDERS_TEXT.fetchFailed) };
  }
}

/** `DELETE /orders/open/:id`: one order, by its id (or a prefix the listing shows, resolved by the caller). */
export async function cancelOpenOrder(trading: ApiClient, id: string): Promise<Outcome<OpenOrder>> {
  try {
    const path = `/orders/open/${encodeURIComponent(id)}`;
    return { ok: true, value: await trading.call(OpenOrder, path, { method: 'DELETE' }) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, OPEN_ORDERS_TEXT.cancelFailed) };
  }
}

/** `DELETE /orders/open[?symbol=]`: every order, or one symbol's (`BTC/USDT`). */
export async function cancelOpenOrders(
  trading: ApiClient,
  pair?: string,
): Promise<Outcome<CancelOrdersResponse>> {
  try {
    const path = pair === undefined ? '/orders/open' : `/orders/open?symbol=${encodeURIComponent(pair)}`;
    return { ok: true, value: await trading.call(CancelOrdersResponse, path, { method: 'DELETE' }) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, OPEN_ORDERS_TEXT.cancelFailed) };
  }
}

/** The lines a cancel of many prints: how many went, then each that did not. */
export function cancelledLines(answer: CancelOrdersResponse): { ok: string[]; failed: string[] } {
  return {
    ok: answer.cancelled.map((o) => OPEN_ORDERS_TEXT.cancelled(o)),
    failed: answer.failed.map((f) => OPEN_ORDERS_TEXT.failed(f.symbol, f.id.slice(0, 8), f.detail)),
  };
}
