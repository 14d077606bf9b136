import Decimal from 'decimal.js';
import type { OrderResult, PositionRisk } from '../exchange';
import type { BinanceOrder, BinanceTrade, PositionRiskRow } from './binance-answers';

export type { BinanceOrder, BinanceTrade } from './binance-answers';

/**
 * A v3 positionRisk row in the adapter's shape. v3 carries no leverage and, for cross positions, no
 * isolated margin: leverage is notional / initial margin, and the margin shown is the initial margin.
 */
export function fromPositionRisk(r: PositionRiskRow): PositionRisk {
  const initial = Number(r.initialMargin);
  const notional = Math.abs(Number(r.notional));
  const leverage = Number(r.leverage) || (initial > 0 ? Math.round(notional / initial) : 1);
  const isolated = Number(r.isolatedMargin);
  return {
    symbol: r.symbol,
    positionSide: 'BOTH',
    positionAmt: r.positionAmt,
    entryPrice: r.entryPrice,
    breakEvenPrice: r.breakEvenPrice,
    markPrice: r.markPrice,
    unRealizedProfit: r.unRealizedProfit,
    liquidationPrice: r.liquidationPrice,
    notional: r.notional,
    initialMargin: r.initialMargin,
    maintMargin: r.maintMargin,
    updateTime: r.updateTime,
    leverage,
    marginType: isolated > 0 ? 'isolated' : 'cross',
    isolatedMargin: isolated > 0 ? r.isolatedMargin : String(initial + Number(r.unRealizedProfit)),
  };
}

/** The commission and realised PnL of an order, summed over its trades. */
export interface OrderFees {
  commission: string;
  realizedPnl: string;
}

export function feesOf(trades: readonly BinanceTrade[]): OrderFees {
  const sum = (pick: (t: BinanceTrade) => string) =>
    trades.reduce((acc, t) => acc.plus(pick(t)), new Decimal(0)).toFixed();
  return { commission: sum((t) => t.commission), realizedPnl: sum((t) => t.realizedPnl) };
}

/**
 * An order as Binance answers it, with the commission and realised PnL of its trades; both null when
 * its trades could not be read (unknown, never 0).
 */
export function orderResultOf(order: BinanceOrder, fees: OrderFees | null): OrderResult {
  return {
    orderId: String(order.orderId),
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    type: 'MARKET',
    status: order.status,
    ...(order.origQty === undefined ? {} : { origQty: order.origQty }),
    reduceOnly: order.reduceOnly,
    executedQty: order.executedQty,
    avgPrice: order.avgPrice,
    cumQuote: order.cumQuote,
    commission: fees?.commission ?? null,
    realizedPnl: fees?.realizedPnl ?? null,
    updateTime: order.updateTime,
  };
}
