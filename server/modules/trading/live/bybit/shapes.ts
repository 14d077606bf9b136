import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import type {
  ConditionalOrder,
  ConditionalStatus,
  ConditionalType,
  OrderResult,
  PositionRisk,
  VenueOrderStatus,
} from '../../exchange';
import type { OrderFees } from '../binance-shapes';
import type { BybitOrder, BybitPosition } from './answers';

/** Bybit's orderLinkId: up to 36 of letters, digits, `-` and `_`. */
const LINK_ID = /^[A-Za-z0-9_-]{1,36}$/;

/**
 * The app's client id as Bybit's orderLinkId. The app's ids (`sc-<32 hex>`, `pp-12-sl-1`) fit as they
 * are; any other (one with `.`, `:` or `/`, which the app's contract allows) becomes `m-` and 34
 * characters of its SHA-256 in base64url: the same id always maps to the same orderLinkId, so a retry
 * finds (or is refused as a duplicate of) the first try.
 */
export function linkIdOf(clientId: string): string {
  if (LINK_ID.test(clientId)) return clientId;
  return `m-${createHash('sha256').update(clientId).digest('base64url').slice(0, 34)}`;
}

/** Bybit's `Buy`/`Sell` in the product's words. */
export const sideOf = (side: 'Buy' | 'Sell'): 'BUY' | 'SELL' => (side === 'Buy' ? 'BUY' : 'SELL');
export const bybitSide = (side: 'BUY' | 'SELL'): 'Buy' | 'Sell' => (side === 'BUY' ? 'Buy' : 'Sell');

/**
 * An order's state in Binance's words. A market order is an IOC on Bybit: `Cancelled` after a part
 * filled (or none, on a thin book) is Binance's EXPIRED, unless the user cancelled it; `Untriggered` and
 * `Triggered` (a conditional order not yet a market one) read NEW; `Deactivated` is cancelled.
 */
export function orderStatusOf(o: Pick<BybitOrder, 'orderStatus' | 'cancelType'>): VenueOrderStatus {
  switch (o.orderStatus) {
    case 'New':
    case 'Untriggered':
    case 'Triggered':
      return 'NEW';
    case 'PartiallyFilled':
      return 'PARTIALLY_FILLED';
    case 'Filled':
      return 'FILLED';
    case 'Rejected':
      return 'REJECTED';
    case 'Deactivated':
      return 'CANCELED';
    case 'PartiallyFilledCanceled':
      return 'EXPIRED';
    case 'Cancelled':
      return o.cancelType === 'CancelByUser' ? 'CANCELED' : 'EXPIRED';
  }
}

/**
 * An order as Bybit holds it, under the app's client id, with its fees (null: not told yet). Bybit's
 * avgPrice is `""` until a fill: "0", as Binance says it.
 */
export function orderResultOf(o: BybitOrder, clientOrderId: string, fees: OrderFees | null): OrderResult {
  return {
    orderId: o.orderId,
    clientOrderId,
    symbol: o.symbol,
    side: sideOf(o.side),
    type: o.orderType === 'Limit' ? 'LIMIT' : 'MARKET',
    status: orderStatusOf(o),
    origQty: o.qty,
    reduceOnly: o.reduceOnly,
    executedQty: o.cumExecQty,
    avgPrice: o.avgPrice,
    cumQuote: o.cumExecValue,
    commission: fees?.commission ?? null,
    realizedPnl: fees?.realizedPnl ?? null,
    updateTime: o.updatedTime,
  };
}

/**
 * A `/v5/position/list` row in Binance's one-way shape: the amount signed (a short is negative), the
 * notional at the mark, signed too. Bybit's unified account margins across positions: `cross`, and the
 * margin shown is the position's initial margin plus its unrealised PnL, as for a Binance cross row.
 */
export function positionRiskOf(p: BybitPosition): PositionRisk {
  const size = new Decimal(p.size);
  const amt = p.side === 'Sell' ? size.neg() : size;
  const mark = new Decimal(p.markPrice);
  return {
    symbol: p.symbol,
    positionSide: 'BOTH',
    positionAmt: amt.toFixed(),
    entryPrice: p.avgPrice,
    breakEvenPrice: p.breakEvenPrice === '0' ? p.avgPrice : p.breakEvenPrice,
    markPrice: p.markPrice,
    unRealizedProfit: p.unrealisedPnl,
    liquidationPrice: p.liqPrice,
    isolatedMargin: new Decimal(p.positionIM).plus(p.unrealisedPnl).toFixed(),
    notional: amt.mul(mark).toFixed(),
    initialMargin: p.positionIM,
    maintMargin: p.positionMM,
    leverage: Number(p.leverage) || 1,
    marginType: 'cross',
    updateTime: p.updatedTime,
  };
}

/** The position's own TP/SL slots (one of each per position), by Bybit's stopOrderType. */
export const LEG_TYPES: Record<'StopLoss' | 'TakeProfit' | 'TrailingStop', ConditionalType> = {
  StopLoss: 'STOP_MARKET',
  TakeProfit: 'TAKE_PROFIT_MARKET',
  TrailingStop: 'TRAILING_STOP_MARKET',
};
export const STOP_ORDER_TYPE: Record<ConditionalType, keyof typeof LEG_TYPES> = {
  STOP_MARKET: 'StopLoss',
  TAKE_PROFIT_MARKET: 'TakeProfit',
  TRAILING_STOP_MARKET: 'TrailingStop',
};

/** Whether an order is one of a position's own legs (Full mode: it closes the whole position). */
export const isLeg = (o: Pick<BybitOrder, 'stopOrderType' | 'tpslMode'>): boolean =>
  o.stopOrderType in LEG_TYPES && o.tpslMode !== 'Partial';

/**
 * A leg's state in Binance's algo words: `Untriggered` rests (NEW); `Triggered`, then the market order
 * it became working, is TRIGGERED; `Filled` is FINISHED. One that ended without firing: `Deactivated`
 * when the position it guarded closed (Bybit's CancelByTpSlTsClear) is EXPIRED, as Binance expires a
 * flat position's close-position orders, else CANCELED; `Rejected` REJECTED. A triggered order Bybit
 * cancelled after executing part is FINISHED (it fired).
 */
export function legStatusOf(o: BybitOrder): ConditionalStatus {
  switch (o.orderStatus) {
    case 'Untriggered':
      return 'NEW';
    case 'Triggered':
    case 'New':
    case 'PartiallyFilled':
      return 'TRIGGERED';
    case 'Filled':
      return 'FINISHED';
    case 'Rejected':
      return 'REJECTED';
    case 'Deactivated':
      return o.cancelType === 'CancelByTpSlTsClear' ? 'EXPIRED' : 'CANCELED';
    case 'Cancelled':
    case 'PartiallyFilledCanceled':
      return new Decimal(o.cumExecQty).gt(0) ? 'FINISHED' : 'CANCELED';
  }
}

const given = (value: string): string | null => (new Decimal(value).isZero() ? null : value);

/**
 * A position's leg as Binance's conditional order, under `clientAlgoId` (Bybit keeps no client id on a
 * position's legs: '' when the caller has none to give). Every leg closes the whole position when it
 * fires. A trailing stop's `triggerPrice` on Bybit is its activation price; Bybit's order row names no
 * callback rate. A fired leg's market order is the same order on Bybit: `actualOrderId` is its own id.
 */
export function legOf(o: BybitOrder, clientAlgoId: string): ConditionalOrder | null {
  const type = LEG_TYPES[o.stopOrderType as keyof typeof LEG_TYPES];
  if (type === undefined) return null;
  const status = legStatusOf(o);
  const trailing = type === 'TRAILING_STOP_MARKET';
  return {
    algoId: o.orderId,
    clientAlgoId,
    symbol: o.symbol,
    side: sideOf(o.side),
    type,
    status,
    triggerPrice: trailing ? null : given(o.triggerPrice),
    quantity: null,
    closePosition: true,
    callbackRate: null,
    activatePrice: trailing ? given(o.triggerPrice) : null,
    actualOrderId: status === 'TRIGGERED' || status === 'FINISHED' ? o.orderId : null,
    updateTime: o.updatedTime || o.createdTime,
  };
}

/**
 * A trailing stop's callback (in %, Binance's) as Bybit's distance in price: that share of the
 * activation price (or of the mark when it arms at once), to the nearest tick and at least one tick.
 */
export function trailingDistance(callbackRate: string, reference: Decimal.Value, tickSize: Decimal): string {
  const raw = new Decimal(reference).mul(callbackRate).div(100);
  const ticks = Decimal.max(raw.div(tickSize).toDecimalPlaces(0, Decimal.ROUND_HALF_UP), 1);
  return ticks.mul(tickSize).toFixed();
}

/**
 * Gross realised PnL of one closing order from Bybit's closed-PnL record: exit value less entry value
 * for a Sell (it closed a long), the other way for a Buy. Binance's realizedPnl is before fees, as this
 * is; Bybit's own `closedPnl` has the open and close fees taken off already.
 */
export function grossPnlOf(r: { side: 'Buy' | 'Sell'; cumEntryValue: string; cumExitValue: string }): string {
  const exit = new Decimal(r.cumExitValue);
  const entry = new Decimal(r.cumEntryValue);
  return (r.side === 'Sell' ? exit.minus(entry) : entry.minus(exit)).toFixed();
}
