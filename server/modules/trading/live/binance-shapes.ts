import Decimal from 'decimal.js';
import type { OrderResult, OrderSide, PositionRisk, VenueOrderStatus } from '../exchange';

/**
 * A v3 positionRisk row in the adapter's shape. v3 carries no leverage and, for cross positions, no
 * isolated margin: leverage is notional / initial margin, and the margin shown is the initial margin.
 */
export function fromPositionRisk(r: PositionRisk): PositionRisk {
  const initial = Number(r.initialMargin);
  const notional = Math.abs(Number(r.notional));
  const leverage = Number(r.leverage) || (initial > 0 ? Math.round(notional / initial) : 1);
  const isolated = Number(r.isolatedMargin);
  return {
    ...r,
    positionSide: 'BOTH',
    leverage,
    marginType: isolated > 0 ? 'isolated' : 'cross',
    isolatedMargin: isolated > 0 ? r.isolatedMargin : String(initial + Number(r.unRealizedProfit)),
  };
}

/** `POST /fapi/v1/order` / `GET /fapi/v1/order` answer, the parts used. */
export interface BinanceOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  status: VenueOrderStatus;
  origQty?: string;
  side: OrderSide;
  type: string;
  reduceOnly: boolean;
  executedQty: string;
  avgPrice: string;
  cumQuote: string;
  updateTime: number;
}

export interface BinanceTrade {
  commission: string;
  realizedPnl: string;
}

/** An order as Binance answers it, with the commission and realised PnL of its trades. */
export function orderResultOf(order: BinanceOrder, trades: readonly BinanceTrade[]): OrderResult {
  const sum = (pick: (t: BinanceTrade) => string) =>
    trades.reduce((acc, t) => acc.plus(pick(t)), new Decimal(0)).toFixed();
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
    commission: sum((t) => t.commission),
    realizedPnl: sum((t) => t.realizedPnl),
    updateTime: order.updateTime,
  };
}
