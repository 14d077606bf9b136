import Decimal from 'decimal.js';
import { bracketFor, type SymbolFilters } from './filters';

/**
 * Binance USD-M formulas for one-way, isolated positions. Every amount is a Decimal: money and
 * quantities are never float sums.
 */

Decimal.set({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });

export const ZERO = new Decimal(0);

/** Rounds down to a multiple of `step` (Binance truncates quantities to the lot step). */
export function floorToStep(value: Decimal, step: Decimal): Decimal {
  return value.div(step).floor().mul(step);
}

/** Rounds to the nearest multiple of `tick`. */
export function roundToTick(value: Decimal, tick: Decimal): Decimal {
  return value.div(tick).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).mul(tick);
}

/** qty = floor((total / price) / step) × step, clamped to the lot bounds by the caller. */
export function quantityForTotal(total: Decimal, price: Decimal, filters: SymbolFilters): Decimal {
  return floorToStep(total.div(price), filters.stepSize);
}

/** Unrealised PnL = size × (mark − entry), with size signed (negative for shorts). */
export function unrealizedPnl(size: Decimal, entry: Decimal, mark: Decimal): Decimal {
  return size.mul(mark.minus(entry));
}

/** ROE = uPnL / (|size| × mark / leverage). */
export function roe(size: Decimal, entry: Decimal, mark: Decimal, leverage: number): Decimal {
  const margin = size.abs().mul(mark).div(leverage);
  return margin.isZero() ? ZERO : unrealizedPnl(size, entry, mark).div(margin);
}

/** Maintenance margin = notional × MMR − cum, in the bracket of that notional. */
export function maintenanceMargin(notional: Decimal, filters: SymbolFilters): Decimal {
  const b = bracketFor(filters, notional);
  return notional.mul(b.mmr).minus(b.cum);
}

/** The isolated liquidation price for a given maintenance rate and amount (one bracket). */
export function liquidationPriceAt(
  size: Decimal,
  entry: Decimal,
  isolatedWallet: Decimal,
  mmr: Decimal,
  cum: Decimal,
): Decimal {
  const pos = size.abs();
  return size.gt(0)
    ? pos
        .mul(entry)
        .minus(isolatedWallet)
        .minus(cum)
        .div(pos.mul(new Decimal(1).minus(mmr)))
    : pos
        .mul(entry)
        .plus(isolatedWallet)
        .plus(cum)
        .div(pos.mul(new Decimal(1).plus(mmr)));
}

/**
 * Isolated liquidation price. Long: (Pos·EP − WB − cum) / (Pos·(1 − MMR)); short: (Pos·EP + WB + cum) /
 * (Pos·(1 + MMR)), with Pos = |size| and WB the position's isolated wallet. The bracket is the one of
 * the notional at the liquidation price; if that differs from the entry bracket, it is computed again.
 */
export function liquidationPrice(
  size: Decimal,
  entry: Decimal,
  isolatedWallet: Decimal,
  filters: SymbolFilters,
): Decimal {
  if (size.isZero()) return ZERO;
  const pos = size.abs();
  const solve = (mmr: Decimal, cum: Decimal) => liquidationPriceAt(size, entry, isolatedWallet, mmr, cum);
  let bracket = bracketFor(filters, pos.mul(entry));
  let lp = solve(bracket.mmr, bracket.cum);
  for (let i = 0; i < 3; i++) {
    const atLp = bracketFor(filters, pos.mul(Decimal.max(lp, ZERO)));
    if (atLp === bracket) break;
    bracket = atLp;
    lp = solve(bracket.mmr, bracket.cum);
  }
  return Decimal.max(lp, ZERO);
}

/** True when the mark has reached the liquidation price (long: at or below; short: at or above). */
export function isLiquidated(size: Decimal, mark: Decimal, lp: Decimal): boolean {
  if (size.isZero()) return false;
  return size.gt(0) ? mark.lte(lp) : mark.gte(lp);
}
