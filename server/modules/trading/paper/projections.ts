import Decimal from 'decimal.js';
import type { AccountBalance, PositionRisk } from '../exchange';
import type { PaperAccountState, PaperPosition } from './account';
import { reservedIn } from './limits';
import { filtersFor } from './filters';
import type { SymbolFilters } from './filters';
import { liquidationPrice, maintenanceMargin, unrealizedPnl, ZERO } from './math';

/**
 * Positions are replaced, never changed, when a fill or a margin change touches them, so what does not
 * move with the mark is kept per position object: the liquidation price (a bracket search in decimals)
 * was worked out again for every socket's snapshot and every liquidation check on every mark move.
 */
const liquidations = new WeakMap<PaperPosition, { filters: SymbolFilters; price: Decimal }>();

/** The position's liquidation price under `filters`. */
export function liquidationPriceOf(p: PaperPosition, filters: SymbolFilters): Decimal {
  const known = liquidations.get(p);
  if (known !== undefined && known.filters === filters) return known.price;
  const price = liquidationPrice(p.size, p.entryPrice, p.isolatedWallet, filters);
  liquidations.set(p, { filters, price });
  return price;
}

/** A position as Binance's positionRisk shows it, at `mark`. */
export function positionRiskOf(
  p: PaperPosition,
  mark: Decimal,
  takerFeeRate: Decimal,
  now: number,
): PositionRisk {
  const filters = filtersFor(p.symbol, mark);
  const notional = p.size.mul(mark);
  const upnl = unrealizedPnl(p.size, p.entryPrice, mark);
  const fee = takerFeeRate.mul(2);
  return {
    symbol: p.symbol,
    positionSide: 'BOTH',
    positionAmt: p.size.toString(),
    entryPrice: p.entryPrice.toString(),
    breakEvenPrice: p.entryPrice.mul(p.size.gt(0) ? fee.plus(1) : new Decimal(1).minus(fee)).toString(),
    markPrice: mark.toString(),
    unRealizedProfit: upnl.toFixed(8),
    liquidationPrice: filters ? liquidationPriceOf(p, filters).toFixed(8) : '0',
    isolatedMargin: p.isolatedWallet.plus(upnl).toFixed(8),
    notional: notional.toFixed(8),
    initialMargin: notional.abs().div(p.leverage).toFixed(8),
    maintMargin: filters ? maintenanceMargin(notional.abs(), filters).toFixed(8) : '0',
    leverage: p.leverage,
    marginType: 'isolated',
    updateTime: now,
  };
}

/**
 * The last row worked out per position, with the mark (a number, undefined for none) and fee rate it
 * was worked out at. Every socket's snapshot prices all of a user's positions: those whose mark has
 * not moved since the last snapshot (most of them, between two ticks) get that row again.
 */
const risks = new WeakMap<PaperPosition, { price: number | undefined; fee: Decimal; row: PositionRisk }>();

/**
 * {@link positionRiskOf} at the mark `price` (the entry price while there is none), reusing the row of
 * the same position at the same mark.
 */
export function positionRiskAt(
  p: PaperPosition,
  price: number | undefined,
  takerFeeRate: Decimal,
  now: number,
): PositionRisk {
  const known = risks.get(p);
  if (known !== undefined && known.price === price && known.fee === takerFeeRate) {
    return { ...known.row, updateTime: now };
  }
  const row = positionRiskOf(p, price === undefined ? p.entryPrice : new Decimal(price), takerFeeRate, now);
  risks.set(p, { price, fee: takerFeeRate, row: { ...row } });
  return row;
}

/** The account's USDT balance as Binance's balance shows it, positions marked by `markOf`. */
export function balanceOf(
  state: PaperAccountState,
  markOf: (p: PaperPosition) => Decimal,
  now: number,
): AccountBalance {
  let locked = ZERO;
  let upnl = ZERO;
  for (const p of state.positions.values()) {
    locked = locked.plus(p.isolatedWallet);
    upnl = upnl.plus(unrealizedPnl(p.size, p.entryPrice, markOf(p)));
  }
  // Cash held by resting limit orders is the wallet's, but not available.
  const reserved = reservedIn(state.limits);
  return {
    asset: 'USDT',
    balance: state.cash.plus(locked).plus(reserved).toFixed(8),
    availableBalance: state.cash.toFixed(8),
    crossUnPnl: upnl.toFixed(8),
    updateTime: now,
  };
}
