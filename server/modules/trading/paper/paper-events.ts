import Decimal from 'decimal.js';
import type { AccountUpdateEvent, OrderResult, OrderTradeUpdateEvent } from '../exchange';
import type { LedgerEvent, PaperAccountState, PaperPosition } from './account';
import { toRestingOrder, reservedIn, type EndedLimit, type PaperLimit } from './limits';
import { unrealizedPnl, ZERO } from './math';

type Fill = Extract<LedgerEvent, { type: 'fill' }>;

/** The REST answer for a fill, as `POST /fapi/v1/order` with newOrderRespType=RESULT gives it. */
export function toOrderResult(fill: Fill, realizedPnl: string, at: number): OrderResult {
  const qty = fill.qty;
  return {
    orderId: fill.orderId,
    clientOrderId: fill.clientOrderId,
    symbol: fill.symbol,
    side: fill.side,
    type: fill.limit ? 'LIMIT' : 'MARKET',
    status: 'FILLED',
    ...(fill.limit ? { origQty: qty } : {}),
    reduceOnly: fill.reduceOnly,
    executedQty: qty,
    avgPrice: fill.price,
    cumQuote: new Decimal(qty).mul(fill.price).toString(),
    commission: fill.fee,
    realizedPnl,
    updateTime: at,
  };
}

/** ORDER_TRADE_UPDATE for a fill, or for a liquidation (given the position it closed). */
export function orderTradeUpdate(
  source: Fill | PaperPosition,
  price: string,
  realizedPnl: string,
  at: number,
): OrderTradeUpdateEvent {
  const isFill = 'type' in source;
  const qty = isFill ? source.qty : source.size.abs().toString();
  const side = isFill ? source.side : source.size.gt(0) ? 'SELL' : 'BUY';
  return {
    e: 'ORDER_TRADE_UPDATE',
    E: at,
    T: at,
    o: {
      s: source.symbol,
      c: isFill ? source.clientOrderId : `autoclose-${at}`,
      S: side,
      o: isFill ? (source.limit ? 'LIMIT' : 'MARKET') : 'LIQUIDATION',
      q: qty,
      ap: price,
      x: isFill ? 'TRADE' : 'CALCULATED',
      X: 'FILLED',
      i: isFill ? source.orderId : `liq-${at}`,
      l: qty,
      z: qty,
      L: price,
      n: isFill ? source.fee : '0',
      N: 'USDT',
      rp: realizedPnl,
      R: isFill ? source.reduceOnly : true,
      ...(isFill && source.limit
        ? { p: source.limit.price, f: source.limit.timeInForce, rested: source.limit.rested }
        : {}),
    },
  };
}

/** ORDER_TRADE_UPDATE for a limit order that starts resting (NEW) or ends without a fill. */
export function limitUpdate(order: PaperLimit | EndedLimit, at: number): OrderTradeUpdateEvent {
  const status = toRestingOrder(order).status;
  const X = status === 'CANCELED' || status === 'EXPIRED' ? status : 'NEW';
  return {
    e: 'ORDER_TRADE_UPDATE',
    E: at,
    T: at,
    o: {
      s: order.symbol,
      c: order.clientOrderId,
      S: order.side,
      o: 'LIMIT',
      q: order.quantity,
      ap: '0',
      x: X,
      X,
      i: order.orderId,
      l: '0',
      z: '0',
      L: '0',
      n: '0',
      N: 'USDT',
      rp: '0',
      R: order.reduceOnly,
      p: order.price,
      f: order.timeInForce,
    },
  };
}

/**
 * ACCOUNT_UPDATE with the wallet and every open position, at the marks of the moment it is emitted.
 * The positions (their unrealised PnL in decimals) are worked out when first read: every fill emits
 * one, and the process's own listener only reads the reason, so a rule's thirty fills no longer price
 * every position of every account.
 */
export function accountUpdate(
  reason: AccountUpdateEvent['a']['m'],
  state: PaperAccountState,
  at: number,
  mark: (symbol: string) => Decimal,
): AccountUpdateEvent {
  let locked = ZERO;
  for (const p of state.positions.values()) locked = locked.plus(p.isolatedWallet);
  const wallet = state.cash.plus(locked).plus(reservedIn(state.limits)).toFixed(8);
  const marks = new Map([...state.positions.keys()].map((symbol) => [symbol, mark(symbol)]));
  let positions: AccountUpdateEvent['a']['P'] | undefined;
  const a = { m: reason, B: [{ a: 'USDT', wb: wallet, cw: state.cash.toFixed(8), bc: '0' }] };
  Object.defineProperty(a, 'P', {
    enumerable: true,
    get: () => (positions ??= positionsOf(state, (symbol) => marks.get(symbol) ?? ZERO)),
  });
  return { e: 'ACCOUNT_UPDATE', E: at, T: at, a: a as AccountUpdateEvent['a'] };
}

function positionsOf(
  state: PaperAccountState,
  mark: (symbol: string) => Decimal,
): AccountUpdateEvent['a']['P'] {
  return [...state.positions.values()].map((p) => {
    const m = mark(p.symbol);
    return {
      s: p.symbol,
      pa: p.size.toString(),
      ep: p.entryPrice.toString(),
      bep: p.entryPrice.toString(),
      cr: '0',
      up: (m.isZero() ? ZERO : unrealizedPnl(p.size, p.entryPrice, m)).toFixed(8),
      mt: 'isolated',
      iw: p.isolatedWallet.toFixed(8),
      ps: 'BOTH',
    };
  });
}
