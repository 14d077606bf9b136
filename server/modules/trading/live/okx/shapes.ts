import Decimal from 'decimal.js';
import type { OkxGatewayTimes } from '../../../exchanges/okx-client';
import type { OrderResult, PositionRisk, VenueOrderStatus } from '../../exchange';
import type { OrderFees } from '../binance-shapes';
import type { OkxInstrument, OkxOrder, OkxPosition } from './answers';
import { coinsOf } from './symbols';

/** An order's result, with OKX's gateway times of the call that placed it (when it was placed here). */
export type OkxOrderResult = OrderResult & { venueTimes?: OkxGatewayTimes };

export const sideOf = (side: 'buy' | 'sell'): 'BUY' | 'SELL' => (side === 'buy' ? 'BUY' : 'SELL');
export const okxSide = (side: 'BUY' | 'SELL'): 'buy' | 'sell' => (side === 'BUY' ? 'buy' : 'sell');

/** OKX's kinds of limit order (a price of their own): `limit` rests, `post_only` only rests, `ioc` takes. */
export const LIMIT_TYPES: ReadonlySet<string> = new Set(['limit', 'post_only', 'ioc', 'fok']);

/** Kinds of order that are immediate-or-cancel on OKX: ended early, they expired (Binance's word). */
const IMMEDIATE: ReadonlySet<string> = new Set(['market', 'optimal_limit_ioc', 'ioc', 'fok']);

/**
 * An order's state in Binance's words. A market order is immediate-or-cancel: `canceled` (after a part
 * filled, or none, on a thin book) is Binance's EXPIRED; any other order cancelled is CANCELED.
 */
export function orderStatusOf(o: Pick<OkxOrder, 'state' | 'ordType'>): VenueOrderStatus {
  switch (o.state) {
    case 'live':
      return 'NEW';
    case 'partially_filled':
      return 'PARTIALLY_FILLED';
    case 'filled':
      return 'FILLED';
    case 'canceled':
    case 'mmp_canceled':
      return IMMEDIATE.has(o.ordType) ? 'EXPIRED' : 'CANCELED';
  }
}

/**
 * An order's fee and realised PnL as OKX keeps them on the order, once it is done: `fee` is negative
 * when charged (a rebate is positive), `pnl` the PnL it realised before fees, as Binance's realizedPnl
 * is. Null while it still works, or when the fee is in another coin than USDT.
 */
export function orderFeesOf(o: OkxOrder): OrderFees | null {
  if (o.state === 'live' || o.state === 'partially_filled') return null;
  if (o.feeCcy !== '' && o.feeCcy !== 'USDT') return null;
  return { commission: new Decimal(o.fee).neg().toFixed(), realizedPnl: new Decimal(o.pnl).toFixed() };
}

/** An order as OKX holds it, in coins, under the app's client id, with its fees (null: not known yet). */
export function orderResultOf(
  o: OkxOrder,
  clientOrderId: string,
  symbol: string,
  i: Pick<OkxInstrument, 'ctVal'>,
  fees: OrderFees | null,
): OrderResult {
  const executed = coinsOf(o.accFillSz, i);
  return {
    orderId: o.ordId,
    clientOrderId,
    symbol,
    side: sideOf(o.side),
    type: LIMIT_TYPES.has(o.ordType) ? 'LIMIT' : 'MARKET',
    status: orderStatusOf(o),
    origQty: coinsOf(o.sz, i).toFixed(),
    reduceOnly: o.reduceOnly,
    executedQty: executed.toFixed(),
    avgPrice: o.avgPx,
    cumQuote: executed.mul(o.avgPx).toFixed(),
    commission: fees?.commission ?? null,
    realizedPnl: fees?.realizedPnl ?? null,
    updateTime: o.uTime || o.cTime,
  };
}

/**
 * A net-mode `/account/positions` row in Binance's one-way shape: `pos` (contracts, signed: a short is
 * negative) in coins, the notional at the mark, signed too. The margin shown is OKX's initial margin plus
 * the unrealised PnL, as for a Binance cross row; the break-even price is OKX's `bePx` when it sends one.
 */
export function positionRiskOf(
  p: OkxPosition,
  symbol: string,
  i: Pick<OkxInstrument, 'ctVal'>,
): PositionRisk {
  const amt = coinsOf(p.pos, i);
  return {
    symbol,
    positionSide: 'BOTH',
    positionAmt: amt.toFixed(),
    entryPrice: p.avgPx,
    breakEvenPrice: new Decimal(p.bePx).isZero() ? p.avgPx : p.bePx,
    markPrice: p.markPx,
    unRealizedProfit: p.upl,
    liquidationPrice: p.liqPx,
    isolatedMargin: p.mgnMode === 'isolated' ? p.margin : new Decimal(p.imr).plus(p.upl).toFixed(),
    notional: amt.mul(p.markPx).toFixed(),
    initialMargin: p.mgnMode === 'isolated' ? p.margin : p.imr,
    maintMargin: p.mmr,
    leverage: Number(p.lever) || 1,
    marginType: p.mgnMode,
    updateTime: p.uTime,
  };
}
