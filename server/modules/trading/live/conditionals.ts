import type { BinanceCredentials } from '../../exchanges/binance-client';
import { z } from 'zod';
import { RESTING_CONDITIONALS, type ConditionalOrder, type ConditionalOrderRequest } from '../exchange';
import { ExchangeError, readVenueAnswer } from '../exchange-error';
import {
  AlgoCancelAnswer,
  AlgoOrderAnswer,
  CONDITIONAL_TYPES,
  OpenAlgoOrdersAnswer,
} from './binance-answers';
import { conditionalOf } from './binance-shapes';
import { outcomeOf } from './unknown-outcome';

/** A signed call on behalf of an account. */
export type SignedCall = (
  account: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  params: Record<string, string>,
  creds?: BinanceCredentials,
) => Promise<unknown>;

const ALGO_ORDER = '/fapi/v1/algoOrder';
/** -2013 "Order does not exist.": the algo service knows no order by that id. */
const NO_SUCH_ORDER = -2013;
/** A cancel of an id with no open order behind it: -2011 "Unknown order sent." or -2013. */
const NOTHING_OPEN: ReadonlySet<number> = new Set([-2011, NO_SUCH_ORDER]);
const HELD: ReadonlySet<string> = new Set(CONDITIONAL_TYPES);

/**
 * The parameters of `POST /fapi/v1/algoOrder`, always on the mark price in one-way mode: a stop or a
 * target closes the whole position (`closePosition`, no quantity, price protection on); a trailing stop is
 * reduce-only for its quantity. A request that cannot be one of these is the caller's bug.
 */
export function algoParams(r: ConditionalOrderRequest): Record<string, string> {
  const common = {
    algoType: 'CONDITIONAL',
    symbol: r.symbol,
    side: r.side,
    positionSide: 'BOTH',
    type: r.type,
    workingType: 'MARK_PRICE',
    clientAlgoId: r.clientAlgoId,
  };
  if (r.type === 'TRAILING_STOP_MARKET') {
    if (r.quantity === undefined || r.callbackRate === undefined) {
      throw new Error('a trailing stop needs its quantity and callback rate');
    }
    return {
      ...common,
      quantity: r.quantity,
      reduceOnly: 'true',
      callbackRate: r.callbackRate,
      ...(r.activatePrice === undefined ? {} : { activatePrice: r.activatePrice }),
    };
  }
  if (r.triggerPrice === undefined) throw new Error(`a ${r.type} needs its trigger price`);
  if (r.quantity !== undefined || r.closePosition === false) {
    throw new Error(`a ${r.type} closes the whole position: no quantity`);
  }
  return { ...common, triggerPrice: r.triggerPrice, closePosition: 'true', priceProtect: 'true' };
}

/**
 * An account's conditional orders on Binance's algo service (`/fapi/v1/algoOrder`, where stops, targets
 * and trailing stops live since 2025-12-09). Every answer is read at this edge: a field the app needs
 * that is missing is VenueAnswerUnreadable for a read, and an unknown outcome for a placement or a cancel.
 */
export class LiveConditionals {
  constructor(
    private readonly call: SignedCall,
    private readonly now: () => number,
  ) {}

  async place(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    const params = algoParams(request);
    try {
      const body = await this.call(account, 'POST', ALGO_ORDER, params);
      return conditionalOf(readVenueAnswer(AlgoOrderAnswer, body, 'the conditional order'));
    } catch (err) {
      throw outcomeOf(err);
    }
  }

  /** By client id (Binance looks an algo order up by its ids alone); null only on -2013. */
  async query(account: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    let body: unknown;
    try {
      body = await this.call(account, 'GET', ALGO_ORDER, { clientAlgoId });
    } catch (err) {
      if (err instanceof ExchangeError && err.code === NO_SUCH_ORDER) return null;
      throw err;
    }
    return conditionalOf(readVenueAnswer(AlgoOrderAnswer, body, 'the conditional-order look-up'));
  }

  /**
   * Looks the order up, then cancels it while it rests; null when there is none by that id, it no longer
   * rests, or Binance answers the cancel that it holds no open one (it fired or was cancelled in between).
   * A cancel without a clear answer is OrderOutcomeUnknown: look it up again.
   */
  async cancel(account: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    const before = await this.query(account, clientAlgoId);
    if (before === null || !RESTING_CONDITIONALS.has(before.status)) return null;
    try {
      const body = await this.call(account, 'DELETE', ALGO_ORDER, { clientAlgoId });
      readVenueAnswer(AlgoCancelAnswer, body, 'the conditional-order cancel', { changed: 'maybe' });
    } catch (err) {
      if (err instanceof ExchangeError && NOTHING_OPEN.has(err.code)) return null;
      throw outcomeOf(err);
    }
    return { ...before, status: 'CANCELED', updateTime: this.now() };
  }

  /** `GET /fapi/v1/openAlgoOrders`: those of the types the app holds (others are left out). */
  async open(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    const body = await this.call(
      account,
      'GET',
      '/fapi/v1/openAlgoOrders',
      symbol === undefined ? {} : { symbol },
    );
    const what = 'the open conditional orders';
    const rows = readVenueAnswer(OpenAlgoOrdersAnswer, body, what).filter((r) => HELD.has(r.orderType));
    return readVenueAnswer(z.array(AlgoOrderAnswer), rows, what).map(conditionalOf);
  }
}
