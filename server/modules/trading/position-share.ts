import { createHash, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { pairOf, type CloseResponse, type OrderResponse } from '../../../src/contracts/trading';
import { venueLabel, type AccountVenue } from '../../../src/contracts/venues';
import { appError } from '../../plugins/errors';
import type { ResolvedAccount } from './accounts';
import type { LiveExchangeAdapter, OrderResult } from './exchange';
import { ExchangeError } from './exchange-error';
import { filtersFor } from './paper/filters';
import { closedText, type TradeOrigin } from './trade-log';

/**
 * `close btc 50%`: a reduce-only market order of a share of the open position, rounded down to the
 * symbol's lot step (never more than the share, never more than what is open: the venue's reduce-only
 * caps it when closes race). A share that rounds below the smallest order is refused, naming it.
 */

/** `50%`, `1/3`: a share as the user reads it back. */
export function shareText(share: number): string {
  const pct = share * 100;
  return `${Number.isInteger(pct) ? pct : Number(pct.toFixed(2))}%`;
}

const venueWords = (venue: AccountVenue): string =>
  venue === 'paper' ? 'the paper exchange' : venueLabel(venue);

/**
 * The quantity `share` of `size` closes, down to the step; a refusal naming the minimum when that is
 * below the symbol's smallest order.
 */
export function shareQuantity(
  size: Decimal,
  share: number,
  filters: { stepSize: Decimal; minQty: Decimal },
  words: { pair: string; venue: AccountVenue },
): { quantity: Decimal } | { refused: string } {
  // `1/3` arrives as 0.333…: a hair of a step is forgiven, so a third of 0.003 is 0.001, not nothing.
  const steps = size.abs().div(filters.stepSize).mul(share).plus(1e-9).floor();
  const quantity = Decimal.min(size.abs(), steps.mul(filters.stepSize));
  if (quantity.gt(0) && quantity.gte(filters.minQty)) return { quantity };
  const base = words.pair.split('/')[0] ?? words.pair;
  return {
    refused:
      `${shareText(share)} of ${size.abs().toString()} ${base} rounds to nothing: the smallest ${words.pair} order ` +
      `on ${venueWords(words.venue)} is ${Decimal.max(filters.minQty, filters.stepSize).toString()} ${base}. ` +
      `Close a larger share, or the whole position with close ${base.toLowerCase()}.`,
  };
}

/** The lot step and minimum of `symbol` where `where` trades it, at `price`. */
async function lotOf(where: ResolvedAccount, symbol: string, price: Decimal.Value) {
  if (where.venue !== 'paper' && 'filters' in where.adapter) {
    return (where.adapter as LiveExchangeAdapter).filters(symbol);
  }
  const filters = filtersFor(symbol, price);
  if (filters === undefined) throw appError('BAD_REQUEST', `Unknown symbol: ${pairOf(symbol)}.`);
  return filters;
}

/** What closing a share needs of the trading service: sending, looking up and concluding a reduce. */
export interface ShareCloseDeps {
  sendReduce(
    where: ResolvedAccount,
    order: { symbol: string; opened: 'BUY' | 'SELL'; quantity: string; clientOrderId: string },
  ): Promise<OrderResponse | null>;
  conclude(where: ResolvedAccount, result: OrderResult): Promise<OrderResponse>;
  origin: TradeOrigin;
}

/** The client id of a share close: the Idempotency-Key's (a retry names the same order), or a fresh one. */
export function shareClientId(userId: string, key: string | undefined): string {
  if (key === undefined) return `sc-cut-${randomUUID()}`.slice(0, 36);
  return `sc-cut-${createHash('sha256').update(`${userId} ${key}`).digest('hex').slice(0, 28)}`;
}

/**
 * Closes `share` of the position on `symbol` at `where`; the closing fill and its sentence. A keyed
 * close (`retry`) looks its client id up first: a retry of one that filled answers that fill.
 */
export async function closeShareOn(
  deps: ShareCloseDeps,
  where: ResolvedAccount,
  request: { symbol: string; share: number; clientOrderId: string; retry: boolean },
): Promise<CloseResponse> {
  const { symbol, share, clientOrderId } = request;
  const pair = pairOf(symbol);
  const earlier = request.retry ? await where.adapter.queryOrder(where.account, clientOrderId, symbol) : null;
  if (earlier !== null && Number(earlier.executedQty) > 0) {
    const fill = await deps.conclude(where, earlier);
    return { message: closedText(fill), fill };
  }
  const open = (await where.adapter.positionRisk(where.account)).find((p) => p.symbol === symbol);
  const size = new Decimal(open?.positionAmt ?? 0);
  if (open === undefined || size.isZero()) throw appError('NOT_FOUND', `No open ${pair} position.`);
  const lot = await lotOf(where, symbol, open.markPrice);
  const sized = shareQuantity(size, share, lot, { pair, venue: where.venue });
  if ('refused' in sized) throw new ExchangeError(-4003, sized.refused);
  const fill = await deps.sendReduce(where, {
    symbol,
    opened: size.gt(0) ? 'BUY' : 'SELL',
    quantity: sized.quantity.toString(),
    clientOrderId,
  });
  if (fill === null) throw appError('NOT_FOUND', `No open ${pair} position.`);
  return { message: closedText(fill), fill };
}
