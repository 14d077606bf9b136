import Decimal from 'decimal.js';
import type { ClosedTrade, CloseReason } from '../../../src/contracts/trading';
import type { HistoryFill } from './trades.repo';

/**
 * The Closed tab, worked out from the fills in the order they filled: each account's position on each
 * symbol is followed (signed size, average entry), and a fill against it closes at most what is open.
 * A fill larger than the position flips it: the position's size is the closed part (its PnL, its share
 * of the fee), the rest opens the other way and is no closed row.
 *
 * The history may miss fills (a stop or a liquidation on the venue, fills from before the history): a
 * fill the venue says realised PnL that the followed position cannot explain is taken as a whole close
 * of a position held outside it (its entry from the PnL), and one the venue says realised nothing
 * starts the position afresh.
 */

interface Held {
  /** Positive long, negative short. */
  size: Decimal;
  entry: Decimal;
}

const NONE: Held = { size: new Decimal(0), entry: new Decimal(0) };

/** A fill's own reason, else what its source says: a fill by hand, a card's or a rule's is `manual`. */
export function reasonOf(fill: Pick<HistoryFill, 'reason'>): CloseReason {
  return fill.reason ?? 'manual';
}

function closedRow(
  fill: HistoryFill,
  part: { quantity: Decimal; entry: Decimal | null; side: 'long' | 'short' },
): ClosedTrade {
  const share = part.quantity.div(fill.quantity);
  return {
    id: `${fill.id}-c`,
    time: fill.time,
    symbol: fill.symbol,
    side: part.side,
    quantity: part.quantity.toNumber(),
    entryPrice: part.entry === null ? null : part.entry.toNumber(),
    exitPrice: fill.price,
    realizedPnl: fill.realizedPnl,
    fee: fill.fee === null ? null : share.mul(fill.fee).toDecimalPlaces(8).toNumber(),
    reason: reasonOf(fill),
    accountId: fill.accountId,
    account: fill.account,
    source: fill.source,
    ruleName: fill.ruleName,
    orderId: fill.orderId,
  };
}

/** The entry a close of `quantity` at `exit` that realised `pnl` had (before fees). */
function entryFromPnl(fill: HistoryFill, closedSide: 'long' | 'short'): Decimal | null {
  if (fill.realizedPnl === null || !(fill.quantity > 0)) return null;
  const perUnit = new Decimal(fill.realizedPnl).div(fill.quantity);
  return closedSide === 'long'
    ? new Decimal(fill.price).minus(perUnit)
    : new Decimal(fill.price).plus(perUnit);
}

/** One fill applied to the held position: the position after it, and the closed part if it closed one. */
export function applyFill(held: Held, fill: HistoryFill): { held: Held; closed: ClosedTrade | null } {
  const qty = new Decimal(fill.quantity);
  const signed = fill.side === 'buy' ? qty : qty.neg();
  const price = new Decimal(fill.price);
  const against = !held.size.isZero() && held.size.isPositive() !== signed.isPositive();
  const realised = fill.realizedPnl !== null && fill.realizedPnl !== 0;
  if (!against) {
    if (realised) {
      // A close of a position the history does not hold.
      const side = fill.side === 'sell' ? 'long' : 'short';
      const closed = closedRow(fill, { quantity: qty, entry: entryFromPnl(fill, side), side });
      return { held: NONE, closed };
    }
    const size = held.size.plus(signed);
    const entry = held.size.abs().mul(held.entry).plus(qty.mul(price)).div(size.abs());
    return { held: { size, entry }, closed: null };
  }
  if (fill.realizedPnl === 0) {
    // The venue says nothing was closed: the position followed was gone already.
    return { held: { size: signed, entry: price }, closed: null };
  }
  const closedQty = Decimal.min(held.size.abs(), qty);
  const side = held.size.isPositive() ? 'long' : 'short';
  const closed = closedRow(fill, { quantity: closedQty, entry: held.entry, side });
  const size = held.size.plus(signed);
  const flipped = !size.isZero() && size.isPositive() !== held.size.isPositive();
  return { held: size.isZero() ? NONE : { size, entry: flipped ? price : held.entry }, closed };
}

/** Every closed part in `fills` (oldest first, as {@link TradesRepo.history} gives them), newest first. */
export function closedTrades(fills: readonly HistoryFill[]): ClosedTrade[] {
  const held = new Map<string, Held>();
  const out: ClosedTrade[] = [];
  for (const fill of fills) {
    const key = `${fill.accountId} ${fill.symbol}`;
    const step = applyFill(held.get(key) ?? NONE, fill);
    held.set(key, step.held);
    if (step.closed !== null) out.push(step.closed);
  }
  return out.reverse();
}
