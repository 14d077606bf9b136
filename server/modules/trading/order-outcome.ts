import { NO_PROTECTION } from '../../../src/contracts/protection';
import { venueLabel, type AccountVenue } from '../../../src/contracts/venues';
import { pairOf, type OrderResponse, type OrderVenue, type Position } from '../../../src/contracts/trading';
import { appError } from '../../plugins/errors';
import { VenueRateLimited, VenueUnreachable } from '../exchanges/binance-client';
import { FINAL_STATUSES, type OrderResult, type PositionRisk } from './exchange';
import { ExchangeError, VenueAnswerUnreadable, type OrderOutcomeUnknown } from './exchange-error';

/**
 * What an order's answer means to the user, in one place: a fill (whole or partial), a refusal with the
 * venue's own words, or an outcome nobody knows yet, which is never called a failure.
 */

/** Who an answer is about, in words: `Binance`, `Bybit`, `OKX` (the paper exchange: `Paper`). */
type Venue = AccountVenue;
const who = (venue: Venue): string => (venue === 'paper' ? 'The paper exchange' : venueLabel(venue));

export const UNKNOWN_TEXT = (venue: Venue = 'binance'): string =>
  `${who(venue)} did not say whether the order was placed, and it was not found by its client order id yet. ` +
  'Check your positions; sending it again with the same Idempotency-Key looks it up first and never places it twice.';

/** A read from the exchange (never an order: those are looked up, see UNKNOWN_TEXT) that got no answer. */
export const UNREACHABLE_TEXT = (venue = 'Binance'): string =>
  `${venue} did not answer in time. Try again in a moment.`;

export function unknownOutcome(err: OrderOutcomeUnknown, venue: Venue = 'binance'): unknown {
  return appError('OUTCOME_UNKNOWN', `${UNKNOWN_TEXT(venue)} (${err.reason})`);
}

/**
 * Binance refused a send as a duplicate client order id (-4116): by its own word an order with that id
 * exists, but looking it up has not shown it yet. It is never sent again under that id.
 */
export const EXISTS_TEXT = (venue: Venue = 'binance'): string =>
  `${who(venue)} says an order with this client order id already exists, but it has not shown it yet. ` +
  'Check your positions; sending it again with the same Idempotency-Key only looks it up, it never places a second order.';

export function orderExists(venue: Venue = 'binance'): unknown {
  return appError('OUTCOME_UNKNOWN', EXISTS_TEXT(venue));
}

/**
 * `close` / `close all`: closes that got no clear answer and were not found by their client ids yet,
 * after `before` (what the other closes of a close-all did).
 */
export function closeUnknown(
  pairs: readonly string[],
  reason: string,
  before = '',
  venue: Venue = 'binance',
): unknown {
  const which = pairs.length === 1 ? `the ${pairs[0]} close was` : `the closes of ${pairs.join(', ')} were`;
  const text = `${who(venue)} did not say whether ${which} placed, and looking up by client order id has not found ${
    pairs.length === 1 ? 'it' : 'them'
  } yet (${reason}). Check your positions before closing again.`;
  return appError('OUTCOME_UNKNOWN', before === '' ? text : `${before} ${text}`);
}

/** The venue took the order but has not finished it yet (NEW, or PARTIALLY_FILLED and still working). */
export function stillWorking(r: OrderResult, venue: Venue = 'binance'): unknown {
  return appError(
    'OUTCOME_UNKNOWN',
    `${who(venue)} accepted the order (${r.status}, ${r.executedQty} executed so far) but has not finished it yet. ` +
      'Check your positions; sending it again with the same Idempotency-Key looks it up and never places it twice.',
  );
}

const ENDED: Record<string, string> = {
  CANCELED: 'canceled',
  REJECTED: 'rejected',
  EXPIRED: 'expired',
  EXPIRED_IN_MATCH: 'expired',
};

/** A final order that executed nothing: a refusal in the venue's terms (nothing was bought or sold). */
export function noFill(r: OrderResult, venue: Venue = 'binance'): ExchangeError {
  return new ExchangeError(
    -2010,
    `${who(venue)} ${ENDED[r.status] ?? r.status.toLowerCase()} the order without filling any of it; nothing was placed.`,
  );
}

/** Whether the venue is done with the order (whatever it executed is all it will). */
export const isFinal = (r: OrderResult): boolean => FINAL_STATUSES.has(r.status);

export function refusal(err: unknown): unknown {
  if (err instanceof VenueRateLimited) {
    const what = err.status === 418 || err.status === 403 ? 'has banned this server' : 'is limiting requests';
    return appError(
      'SERVICE_UNAVAILABLE',
      `${err.venue} ${what} (${err.status}); nothing was placed. Try again in ${err.retryAfterSeconds} s.`,
      { 'retry-after': String(err.retryAfterSeconds) },
    );
  }
  if (err instanceof ExchangeError) return appError('BAD_REQUEST', err.msg);
  if (err instanceof VenueUnreachable) return appError('SERVICE_UNAVAILABLE', UNREACHABLE_TEXT(err.venue));
  if (err instanceof VenueAnswerUnreadable) return appError('BAD_GATEWAY', err.detail);
  return err;
}

/**
 * Ours, on a fill whose fee and realised PnL the venue has not told yet: the answer's figures then read
 * 0 (an order's answer has no room for "unknown"); the trade history keeps them unknown until they come.
 */
export const FEES_UNKNOWN_NOTE = (venue: Venue = 'binance'): string =>
  `${who(venue)} has not reported the fee and realised PnL of this fill yet; the trade history shows them once it does.`;

/** The answer of a final order that executed something: whole, or the part the venue filled. */
export function toResponse(r: OrderResult, venue: OrderVenue): OrderResponse {
  const partial = r.status !== 'FILLED';
  const quantity = Number(r.executedQty);
  const partialNote = partial
    ? `${who(venue.venue)} filled ${r.executedQty}${r.origQty === undefined ? '' : ` of ${r.origQty}`} and ${
        ENDED[r.status] ?? r.status.toLowerCase()
      } the rest.`
    : null;
  const feesNote = r.commission === null || r.realizedPnl === null ? FEES_UNKNOWN_NOTE(venue.venue) : null;
  const note = [r.sizing?.note ?? null, partialNote, feesNote].filter((n) => n !== null).join(' ');
  return {
    id: r.orderId,
    symbol: pairOf(r.symbol),
    side: r.side === 'BUY' ? 'buy' : 'sell',
    quantity,
    price: Number(r.avgPrice),
    notional: Number(r.cumQuote),
    fee: Number(r.commission ?? 0),
    status: partial ? 'partially_filled' : 'filled',
    order_type: 'market',
    limit: null,
    slippage: null,
    realizedPnl: Number(r.realizedPnl ?? 0),
    requested: r.sizing ? Number(r.sizing.requested) : null,
    adjustment: r.sizing?.adjustment ?? null,
    note: note === '' ? null : note,
    account: { venue: venue.venue, mode: venue.mode, keyHint: venue.keyHint },
    position: null,
    protection: null,
    timing:
      r.venueMs === undefined
        ? null
        : { total_ms: null, venue_ms: round1(r.venueMs), venue_own_ms: r.venueOwnMs ?? null },
  };
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

export function toPosition(r: PositionRisk): Position {
  const size = Number(r.positionAmt);
  const mark = Number(r.markPrice);
  const upnl = Number(r.unRealizedProfit);
  const margin = Number(r.isolatedMargin) - upnl;
  const initial = (Math.abs(size) * mark) / r.leverage;
  return {
    symbol: pairOf(r.symbol),
    side: size > 0 ? 'long' : 'short',
    size: Math.abs(size),
    entryPrice: Number(r.entryPrice),
    markPrice: mark,
    liquidationPrice: Number(r.liquidationPrice),
    margin,
    unrealizedPnl: upnl,
    leverage: r.leverage,
    roe: initial === 0 ? 0 : upnl / initial,
    notional: Math.abs(Number(r.notional)),
    protection: NO_PROTECTION,
  };
}
