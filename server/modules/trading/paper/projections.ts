import Decimal from 'decimal.js';
import type { AccountBalance, PositionRisk } from '../exchange';
import type { PaperAccountState, PaperPosition } from './account';
import { filtersFor } from './filters';
import { liquidationPrice, maintenanceMargin, unrealizedPnl, ZERO } from './math';

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
    liquidationPrice: filters
      ? liquidationPrice(p.size, p.entryPrice, p.isolatedWallet, filters).toFixed(8)
      : '0',
    isolatedMargin: p.isolatedWallet.plus(upnl).toFixed(8),
    notional: notional.toFixed(8),
    initialMargin: notional.abs().div(p.leverage).toFixed(8),
    maintMargin: filters ? maintenanceMargin(notional.abs(), filters).toFixed(8) : '0',
    leverage: p.leverage,
    marginType: 'isolated',
    updateTime: now,
  };
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
  return {
    asset: 'USDT',
    balance: state.cash.plus(locked).toFixed(8),
    availableBalance: state.cash.toFixed(8),
    crossUnPnl: upnl.toFixed(8),
    updateTime: now,
  };
}
