import Decimal from 'decimal.js';
import type { MarketOrderRequest, PositionRisk, VenuePreview } from '../exchange';
import type { Bracket, SymbolFilters } from '../paper/filters';
import { liquidationPrice } from '../paper/math';
import { sizeLiveOrder } from './sizing';

export interface LiveVenueFacts {
  filters: SymbolFilters;
  brackets: Bracket[];
  price: Decimal;
  /** The symbol's leverage on this account (`GET /fapi/v1/symbolConfig`). */
  leverage: number;
  /** `GET /fapi/v1/commissionRate` takerCommissionRate. */
  takerRate: Decimal;
  /** The account's position in the symbol, if any. */
  position: PositionRisk | undefined;
}

/**
 * Sizes the order exactly as the live order will be sized (same rule, same venue filters) and works out
 * the position it leaves: the entry price averages in when adding, stays when reducing and restarts
 * when flipping; the margin added is the new exposure over the leverage; the liquidation price is the
 * isolated formula on the venue's maintenance brackets with that margin.
 */
export function previewLiveOrder(
  request: Pick<MarketOrderRequest, 'symbol' | 'side' | 'quoteAmount' | 'maxNotional'>,
  venue: LiveVenueFacts,
): VenuePreview {
  const { quantity, sizing } = sizeLiveOrder(request, venue.price, venue.filters);
  const signed = request.side === 'BUY' ? quantity : quantity.neg();
  const before = new Decimal(venue.position?.positionAmt ?? 0);
  const entryBefore = new Decimal(venue.position?.entryPrice ?? 0);
  const after = before.plus(signed);
  let entry: Decimal;
  if (before.isZero() || before.isNeg() === signed.isNeg()) {
    entry = before.abs().mul(entryBefore).plus(quantity.mul(venue.price)).div(after.abs());
  } else if (after.isZero() || after.isNeg() === before.isNeg()) {
    entry = entryBefore;
  } else {
    entry = venue.price;
  }
  const growth = Decimal.max(after.abs().minus(before.isNeg() === after.isNeg() ? before.abs() : 0), 0);
  const marginAdded = growth.mul(venue.price).div(venue.leverage);
  const notional = quantity.mul(venue.price);
  const filters = { ...venue.filters, brackets: venue.brackets };
  const wallet = after.abs().mul(entry).div(venue.leverage);
  return {
    quantity,
    price: venue.price,
    fee: notional.mul(venue.takerRate),
    sizing,
    minNotional: venue.filters.minNotional,
    stepSize: venue.filters.stepSize,
    marginAdded,
    leverage: venue.leverage,
    liquidationPrice:
      after.isZero() || venue.brackets.length === 0 ? null : liquidationPrice(after, entry, wallet, filters),
  };
}
