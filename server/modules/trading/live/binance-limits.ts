import { z } from 'zod';
import type { BinanceCredentials } from '../../exchanges/binance-client';
import type {
  LimitOrderRequest,
  OrderBookDepth,
  OrderResult,
  RestingOrder,
  VenueOrderStatus,
} from '../exchange';
import { ExchangeError, OrderOutcomeUnknown, readVenueAnswer } from '../exchange-error';
import type { SymbolFilters } from '../paper/filters';
import { ORDER_STATUSES, OrderAnswer, decimalText, type BinanceOrder } from './binance-answers';
import { depthOf, isResting, lookUpAfterUnknown, onGrid, timerSleep } from './limit-grid';
import { outcomeOf } from './unknown-outcome';

/** -2011 "Unknown order sent.": the cancel found no open order by that id (filled, cancelled, or none). */
export const UNKNOWN_ORDER = -2011;
/** -2013 "Order does not exist.": the look-up's proof that there is none. */
const NO_SUCH_ORDER = -2013;

const ms = z.number().int().nonnegative();

/**
 * One row of `GET /fapi/v1/openOrders` (and the answer of `DELETE /fapi/v1/order`): the parts a resting
 * limit order is told by. Binance's GTD rests as GTC does; FOK never rests and reads as IOC.
 */
export const RestingOrderAnswer = z.object({
  orderId: z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String),
  clientOrderId: z.string().min(1),
  symbol: z.string().min(1),
  side: z.enum(['BUY', 'SELL']),
  type: z.string(),
  status: z.enum(ORDER_STATUSES),
  price: decimalText,
  origQty: decimalText,
  executedQty: decimalText,
  timeInForce: z
    .enum(['GTC', 'IOC', 'FOK', 'GTX', 'GTD'])
    .transform((t) => (t === 'GTD' ? 'GTC' : t === 'FOK' ? 'IOC' : t)),
  reduceOnly: z.boolean().default(false),
  time: ms.default(0),
  updateTime: ms.default(0),
});

/** `GET /fapi/v1/openOrders`: rows read loosely, then strictly when they are limit orders. */
const OpenOrdersAnswer = z.array(z.looseObject({ type: z.string() }));

/** `GET /fapi/v1/depth`: `[price, qty]` levels, best first. */
const DepthAnswer = z.object({
  bids: z.array(z.tuple([decimalText, decimalText])),
  asks: z.array(z.tuple([decimalText, decimalText])),
});

export function restingOf(o: z.output<typeof RestingOrderAnswer>): RestingOrder {
  return {
    orderId: o.orderId,
    clientOrderId: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    price: o.price,
    origQty: o.origQty,
    executedQty: o.executedQty,
    timeInForce: o.timeInForce,
    reduceOnly: o.reduceOnly,
    status: o.status as VenueOrderStatus,
    time: o.time || o.updateTime,
    updateTime: o.updateTime,
  };
}

export interface BinanceLimitDeps {
  signed(
    account: string,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    params: Record<string, string | number>,
    creds?: BinanceCredentials,
  ): Promise<unknown>;
  publicGet(path: string, params: Record<string, string | number>): Promise<unknown>;
  credentials(account: string): Promise<BinanceCredentials>;
  filters(symbol: string): Promise<SymbolFilters>;
  /** The order with its fill's fee and PnL (its trades, or the stream's report of them). */
  withFees(account: string, order: BinanceOrder, creds: BinanceCredentials): Promise<OrderResult>;
  /** The account's orders changed (the cached positions go, a fill reaches the subscribers). */
  changed(account: string, result?: OrderResult): void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Limit orders on Binance USD-M: `POST /fapi/v1/order` type LIMIT (GTC, IOC, or GTX: post-only, refused
 * by Binance with -5022 when it would take), `GET /fapi/v1/openOrders`, `DELETE /fapi/v1/order`, and the
 * public `GET /fapi/v1/depth` the slippage guard walks. A placement with no clear answer is looked up by
 * its client id, never sent again.
 */
export class BinanceLimits {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: BinanceLimitDeps) {
    this.sleep = deps.sleep ?? timerSleep;
  }

  async place(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    const { price, quantity } = onGrid(request, await this.deps.filters(request.symbol));
    const creds = await this.deps.credentials(account);
    const params = {
      symbol: request.symbol,
      side: request.side,
      type: 'LIMIT',
      timeInForce: request.timeInForce,
      price: price.toFixed(),
      quantity: quantity.toFixed(),
      newClientOrderId: request.newClientOrderId,
      newOrderRespType: 'RESULT',
      ...(request.reduceOnly === true ? { reduceOnly: 'true' } : {}),
    };
    let order: BinanceOrder;
    try {
      const body = await this.deps.signed(account, 'POST', '/fapi/v1/order', params, creds);
      order = readVenueAnswer(OrderAnswer, body, 'the order');
    } catch (err) {
      const outcome = outcomeOf(err);
      if (!(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      order = await lookUpAfterUnknown(
        outcome,
        () => this.find(account, request.symbol, { clientOrderId: request.newClientOrderId }, creds),
        this.sleep,
      );
    } finally {
      this.deps.changed(account);
    }
    const result = await this.deps.withFees(account, order, creds);
    if (Number(result.executedQty) > 0) this.deps.changed(account, result);
    return result;
  }

  async open(account: string, symbol?: string): Promise<RestingOrder[]> {
    const body = await this.deps.signed(
      account,
      'GET',
      '/fapi/v1/openOrders',
      symbol === undefined ? {} : { symbol },
    );
    return readVenueAnswer(OpenOrdersAnswer, body, 'the open orders')
      .filter((row) => row.type === 'LIMIT')
      .map((row) => restingOf(readVenueAnswer(RestingOrderAnswer, row, 'the open orders')));
  }

  /**
   * Cancels one resting order. -2011 means Binance holds no open order by that id: it is looked up, and
   * null told when it is no longer open (filled, cancelled or never there). A cancel with no clear answer
   * is looked up too: the order as it then stands, or the unknown outcome raised again while it rests.
   */
  async cancel(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
  ): Promise<RestingOrder | null> {
    const creds = await this.deps.credentials(account);
    const by = refParams(ref);
    try {
      const body = await this.deps.signed(account, 'DELETE', '/fapi/v1/order', { symbol, ...by }, creds);
      return restingOf(readVenueAnswer(RestingOrderAnswer, body, 'the cancel', { changed: 'maybe' }));
    } catch (err) {
      const outcome = outcomeOf(err);
      if (outcome instanceof ExchangeError && outcome.code === UNKNOWN_ORDER) {
        const found = await this.findResting(account, symbol, ref, creds);
        if (found !== null && isResting(found)) throw outcome;
        return null;
      }
      if (!(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      const found = await this.findResting(account, symbol, ref, creds).catch(() => null);
      if (found === null || isResting(found)) throw outcome;
      return found.status === 'CANCELED' ? found : null;
    } finally {
      this.deps.changed(account);
    }
  }

  async depth(symbol: string, limit: number): Promise<OrderBookDepth> {
    // Binance serves 5, 10, 20, 50, 100, 500 or 1000 levels.
    const levels = [5, 10, 20, 50, 100, 500, 1000].find((n) => n >= limit) ?? 1000;
    const body = await this.deps.publicGet('/fapi/v1/depth', { symbol, limit: levels });
    const book = readVenueAnswer(DepthAnswer, body, 'the order book');
    return depthOf(book.bids, book.asks);
  }

  /** The order by its id or client id, in whatever state; null when Binance says there is none. */
  private async find(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
    creds: BinanceCredentials,
  ): Promise<BinanceOrder | null> {
    const body = await this.lookUp(account, symbol, ref, creds);
    return body === null ? null : readVenueAnswer(OrderAnswer, body, 'the order look-up');
  }

  private async findResting(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
    creds: BinanceCredentials,
  ): Promise<RestingOrder | null> {
    const body = await this.lookUp(account, symbol, ref, creds);
    if (body === null) return null;
    const row = RestingOrderAnswer.safeParse(body);
    return row.success
      ? restingOf(row.data)
      : fallbackResting(readVenueAnswer(OrderAnswer, body, 'the order look-up'));
  }

  private async lookUp(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
    creds: BinanceCredentials,
  ): Promise<unknown> {
    try {
      return await this.deps.signed(account, 'GET', '/fapi/v1/order', { symbol, ...refParams(ref) }, creds);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === NO_SUCH_ORDER) return null;
      throw err;
    }
  }
}

/** Binance cancels and looks up by orderId when it is known, else by the client id. */
function refParams(ref: { orderId?: string; clientOrderId?: string }): Record<string, string> {
  if (ref.orderId !== undefined) return { orderId: ref.orderId };
  if (ref.clientOrderId !== undefined) return { origClientOrderId: ref.clientOrderId };
  throw new ExchangeError(-1102, 'An order id or a client order id is needed to cancel an order.');
}

/** A look-up's order whose limit fields were not all given: its state is what the cancel needs. */
function fallbackResting(o: BinanceOrder): RestingOrder {
  return {
    orderId: String(o.orderId),
    clientOrderId: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    price: '0',
    origQty: o.origQty ?? o.executedQty,
    executedQty: o.executedQty,
    timeInForce: 'GTC',
    reduceOnly: o.reduceOnly,
    status: o.status,
    time: o.updateTime,
    updateTime: o.updateTime,
  };
}
