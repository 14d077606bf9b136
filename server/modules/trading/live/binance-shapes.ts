import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { ConditionalOrder, ConditionalUpdateEvent, OrderResult, PositionRisk } from '../exchange';
import type {
  AlgoUpdateEvent,
  BinanceAlgoOrder,
  BinanceOrder,
  BinanceTrade,
  PositionRiskRow,
} from './binance-answers';

export type { BinanceAlgoOrder, BinanceOrder, BinanceTrade } from './binance-answers';

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
 * An order's trades summed, when they account for all of its executed quantity in USDT; null when they
 * cannot be read, are not all there yet, or are charged in another asset.
 */
export async function tradesFeesOf(
  read: () => Promise<readonly BinanceTrade[]>,
  executedQty: string,
): Promise<OrderFees | null> {
  let trades: readonly BinanceTrade[];
  try {
    trades = await read();
  } catch {
    return null;
  }
  const traded = trades.reduce((sum, t) => sum.plus(t.qty), new Decimal(0));
  if (!traded.eq(executedQty)) return null;
  if (trades.some((t) => t.commissionAsset !== undefined && t.commissionAsset !== 'USDT')) return null;
  return feesOf(trades);
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
    type: order.type === 'LIMIT' ? 'LIMIT' : 'MARKET',
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

/** A price or quantity Binance sends as `""`, `"0"` or not at all when the order has none: null. */
function given(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return new Decimal(value).isZero() ? null : value;
}

/** An id Binance sends as `""` (or not at all) until there is one: null. */
function idOf(value: string | number | '' | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : String(value);
}

/**
 * A conditional order as Binance's algo service answers it. A close-position order has no quantity of
 * its own (Binance answers `"0"`): null, as is a trailing stop's trigger price until Binance names one.
 */
export function conditionalOf(o: BinanceAlgoOrder): ConditionalOrder {
  return {
    algoId: String(o.algoId),
    clientAlgoId: o.clientAlgoId,
    symbol: o.symbol,
    side: o.side,
    type: o.orderType,
    status: o.algoStatus,
    triggerPrice: given(o.triggerPrice),
    quantity: o.closePosition ? null : given(o.quantity),
    closePosition: o.closePosition,
    callbackRate: given(o.callbackRate),
    activatePrice: given(o.activatePrice),
    actualOrderId: idOf(o.actualOrderId),
    updateTime: o.updateTime || o.createTime,
  };
}

/** `ALGO_UPDATE` read into our shape (the event names no callback rate or activation price). */
export function conditionalUpdateOf(e: z.output<typeof AlgoUpdateEvent>): ConditionalUpdateEvent {
  const o = e.o;
  return {
    e: 'ALGO_UPDATE',
    E: e.E,
    T: e.T,
    order: {
      algoId: String(o.aid),
      clientAlgoId: o.caid,
      symbol: o.s,
      side: o.S,
      type: o.o,
      status: o.X,
      triggerPrice: given(o.tp),
      quantity: o.cp ? null : given(o.q),
      closePosition: o.cp,
      callbackRate: null,
      activatePrice: null,
      actualOrderId: idOf(o.ai),
      updateTime: e.T || e.E,
    },
    reason: o.rm === undefined || o.rm === null || o.rm === '' ? null : o.rm,
  };
}
