import type { OrderSide } from './orders';

/**
 * A conditional order's state on the venue, as Binance's algo service names it: NEW (resting), TRIGGERING,
 * TRIGGERED (its market order was sent: `actualOrderId`), FINISHED (that order is done), or it ended
 * without firing: CANCELED, EXPIRED, REJECTED.
 */
export type ConditionalStatus =
  'NEW' | 'TRIGGERING' | 'TRIGGERED' | 'FINISHED' | 'CANCELED' | 'EXPIRED' | 'REJECTED';

/** The conditional states that still rest on the venue (may fire). */
export const RESTING_CONDITIONALS: ReadonlySet<ConditionalStatus> = new Set(['NEW', 'TRIGGERING']);
/** The conditional states of an order that fired. */
export const FIRED_CONDITIONALS: ReadonlySet<ConditionalStatus> = new Set(['TRIGGERED', 'FINISHED']);

export type ConditionalType = 'STOP_MARKET' | 'TAKE_PROFIT_MARKET' | 'TRAILING_STOP_MARKET';

/**
 * `POST /fapi/v1/algoOrder` (algoType CONDITIONAL, workingType MARK_PRICE): a stop or a target on the
 * whole position (`closePosition`, no quantity), or a trailing stop reduce-only with its quantity.
 */
export interface ConditionalOrderRequest {
  symbol: string;
  /** The side of the order it sends when it fires: SELL protects a long. */
  side: OrderSide;
  type: ConditionalType;
  /** STOP_MARKET and TAKE_PROFIT_MARKET: the mark price that fires it. */
  triggerPrice?: string;
  /** STOP_MARKET and TAKE_PROFIT_MARKET: close whatever is open when it fires. */
  closePosition?: boolean;
  /** TRAILING_STOP_MARKET: the quantity, reduce-only. */
  quantity?: string;
  /** TRAILING_STOP_MARKET: the callback in % (0.1–10). */
  callbackRate?: string;
  /** TRAILING_STOP_MARKET: the mark that arms it (none: armed at once). */
  activatePrice?: string;
  /** `^[.A-Z:/a-z0-9_-]{1,36}$`, unique among the account's open conditional orders: a retry is safe. */
  clientAlgoId: string;
}

/** A conditional order as the venue holds it (its answer, a look-up, an open-orders row, ALGO_UPDATE). */
export interface ConditionalOrder {
  algoId: string;
  clientAlgoId: string;
  symbol: string;
  side: OrderSide;
  type: ConditionalType;
  status: ConditionalStatus;
  triggerPrice: string | null;
  quantity: string | null;
  closePosition: boolean;
  callbackRate: string | null;
  activatePrice: string | null;
  /** Once it fired: the market order it sent. */
  actualOrderId: string | null;
  updateTime: number;
}
