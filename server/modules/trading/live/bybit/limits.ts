import { z } from 'zod';
import type { VenueCredentials } from '../../../exchanges/credentials';
import type { LimitOrderRequest, OrderBookDepth, OrderResult, RestingOrder } from '../../exchange';
import { ExchangeError, OrderOutcomeUnknown, readVenueAnswer } from '../../exchange-error';
import type { SymbolFilters } from '../../paper/filters';
import { decimalText } from '../binance-answers';
import { depthOf, isResting, lookUpAfterUnknown, onGrid, timerSleep } from '../limit-grid';
import { outcomeOf } from '../unknown-outcome';
import { OrderAccepted, OrderRow, type BybitOrder } from './answers';
import { DUPLICATE_LINK_ID, VENUE, type BybitCall, type BybitOrders } from './orders';
import { bybitSide, linkIdOf, orderStatusOf, sideOf } from './shapes';

/** 110001 "order not exists or too late to cancel": no open order by that id (filled, cancelled, none). */
export const NO_OPEN_ORDER = 110001;
/** Bybit's reason on a post-only order it cancelled because it would have taken liquidity. */
const POST_ONLY_TOOK = 'EC_PostOnlyWillTakeLiquidity';

/** The product's time in force in Bybit's words (post-only is `PostOnly`). */
const TIF = { GTC: 'GTC', IOC: 'IOC', GTX: 'PostOnly' } as const;

/** An order row with what a limit order is told by: its price, time in force and why it ended. */
const LimitRow = OrderRow.extend({
  price: decimalText,
  timeInForce: z.string().default('GTC'),
  rejectReason: z.string().default(''),
});
type LimitRow = z.output<typeof LimitRow>;
const OpenPage = z.object({
  list: z.array(z.looseObject({ orderType: z.string(), stopOrderType: z.string().default('') })),
  nextPageCursor: z.string().optional().default(''),
});

/** `GET /v5/market/orderbook`: `b` bids and `a` asks, `[price, size]`, best first. */
const BookAnswer = z.object({
  b: z.array(z.tuple([decimalText, decimalText])),
  a: z.array(z.tuple([decimalText, decimalText])),
});

export function restingOf(o: LimitRow): RestingOrder {
  return {
    orderId: o.orderId,
    clientOrderId: o.orderLinkId,
    symbol: o.symbol,
    side: sideOf(o.side),
    price: o.price,
    origQty: o.qty,
    executedQty: o.cumExecQty,
    timeInForce: o.timeInForce === 'PostOnly' ? 'GTX' : o.timeInForce === 'GTC' ? 'GTC' : 'IOC',
    reduceOnly: o.reduceOnly,
    status: orderStatusOf(o),
    time: o.createdTime,
    updateTime: o.updatedTime,
  };
}

export interface BybitLimitDeps {
  call: BybitCall;
  publicGet(path: string, params: Record<string, string | number>): Promise<unknown>;
  orders: BybitOrders;
  credentials(account: string): Promise<VenueCredentials>;
  filters(symbol: string): Promise<SymbolFilters>;
  changed(account: string, result?: OrderResult): void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Limit orders on Bybit's linear book: `POST /v5/order/create` orderType Limit (GTC, IOC, PostOnly),
 * `GET /v5/order/realtime` for the open ones, `POST /v5/order/cancel`, and the public
 * `/v5/market/orderbook`. Bybit's acknowledgements only say accepted, so each placement and cancel is
 * looked up by its orderLinkId; a post-only Bybit cancelled for taking is told as its refusal.
 */
export class BybitLimits {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: BybitLimitDeps) {
    this.sleep = deps.sleep ?? timerSleep;
  }

  async place(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    const { price, quantity } = onGrid(request, await this.deps.filters(request.symbol));
    const creds = await this.deps.credentials(account);
    const linkId = linkIdOf(request.newClientOrderId);
    const find = () => this.row(account, request.symbol, linkId, creds);
    let row: LimitRow | null;
    let accepted = false;
    try {
      const body = await this.deps.call(
        account,
        'POST',
        '/v5/order/create',
        {
          category: 'linear',
          symbol: request.symbol,
          side: bybitSide(request.side),
          orderType: 'Limit',
          qty: quantity.toFixed(),
          price: price.toFixed(),
          timeInForce: TIF[request.timeInForce],
          orderLinkId: linkId,
          positionIdx: 0,
          ...(request.reduceOnly === true ? { reduceOnly: true } : {}),
        },
        creds,
      );
      readVenueAnswer(OrderAccepted, body, 'the order', VENUE);
      accepted = true;
      row = await lookUpAfterUnknown(
        new OrderOutcomeUnknown('Bybit accepted the order; it is not seen yet.'),
        find,
        this.sleep,
        [0, 50, 200, 500],
      );
    } catch (err) {
      if (err instanceof ExchangeError && err.code === DUPLICATE_LINK_ID)
        throw new ExchangeError(-4116, err.msg);
      // Once Bybit accepted the order, whatever fails after is an unknown outcome, never "not placed".
      const outcome = accepted
        ? new OrderOutcomeUnknown('Bybit accepted the order; its state could not be read yet.')
        : outcomeOf(err);
      if (!(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      row = await lookUpAfterUnknown(outcome, find, this.sleep);
    } finally {
      this.deps.changed(account);
    }
    if (request.timeInForce === 'GTX' && row.rejectReason === POST_ONLY_TOOK) {
      throw new ExchangeError(-5022, 'Bybit cancelled the post-only order: it would have taken liquidity.');
    }
    const result = await this.deps.orders.withFees(account, row, request.newClientOrderId, creds);
    if (Number(result.executedQty) > 0) this.deps.changed(account, result);
    return result;
  }

  async open(account: string, symbol?: string): Promise<RestingOrder[]> {
    const out: RestingOrder[] = [];
    let cursor = '';
    for (let n = 0; n < 10; n++) {
      const body = await this.deps.call(account, 'GET', '/v5/order/realtime', {
        category: 'linear',
        ...(symbol === undefined ? { settleCoin: 'USDT' } : { symbol }),
        limit: 50,
        ...(cursor === '' ? {} : { cursor }),
      });
      const page = readVenueAnswer(OpenPage, body, 'the open orders', VENUE);
      for (const raw of page.list) {
        if (raw.orderType !== 'Limit' || (raw.stopOrderType !== '' && raw.stopOrderType !== 'UNKNOWN'))
          continue;
        const row = restingOf(readVenueAnswer(LimitRow, raw, 'the open orders', VENUE));
        if (isResting(row)) out.push(row);
      }
      cursor = page.nextPageCursor;
      if (cursor === '' || page.list.length === 0) break;
    }
    return out;
  }

  /**
   * Cancels one resting order, then reads it back. 110001 means Bybit holds no open order by that id: it
   * is looked up, and null told when it is no longer open.
   */
  async cancel(
    account: string,
    symbol: string,
    ref: { orderId?: string; clientOrderId?: string },
  ): Promise<RestingOrder | null> {
    const creds = await this.deps.credentials(account);
    const by: Record<string, string> =
      ref.orderId !== undefined
        ? { orderId: ref.orderId }
        : { orderLinkId: linkIdOf(ref.clientOrderId ?? '') };
    const find = () => this.rowBy(account, symbol, by, creds);
    try {
      await this.deps.call(account, 'POST', '/v5/order/cancel', { category: 'linear', symbol, ...by }, creds);
    } catch (err) {
      const outcome = outcomeOf(err);
      const notOpen = outcome instanceof ExchangeError && outcome.code === NO_OPEN_ORDER;
      if (!notOpen && !(outcome instanceof OrderOutcomeUnknown)) throw outcome;
      const found = await find().catch(() => null);
      if (found !== null && isResting(restingOf(found))) throw outcome;
      if (notOpen || found === null) return null;
    } finally {
      this.deps.changed(account);
    }
    const row = await find();
    return row === null ? null : restingOf(row);
  }

  async depth(symbol: string, limit: number): Promise<OrderBookDepth> {
    const body = await this.deps.publicGet('/v5/market/orderbook', {
      category: 'linear',
      symbol,
      limit: Math.min(Math.max(limit, 1), 500),
    });
    const book = readVenueAnswer(BookAnswer, body, 'the order book', VENUE);
    return depthOf(book.b, book.a);
  }

  private row(account: string, symbol: string, linkId: string, creds: VenueCredentials) {
    return this.rowBy(account, symbol, { orderLinkId: linkId }, creds);
  }

  /** The order with its limit fields, open or recent (`/v5/order/realtime`), then from the history. */
  private async rowBy(
    account: string,
    symbol: string,
    by: Record<string, string>,
    creds: VenueCredentials,
  ): Promise<LimitRow | null> {
    for (const path of ['/v5/order/realtime', '/v5/order/history']) {
      const body = await this.deps.call(account, 'GET', path, { category: 'linear', symbol, ...by }, creds);
      const found = readVenueAnswer(OpenPage, body, 'the order look-up', VENUE).list.find((r) =>
        by.orderId !== undefined ? r.orderId === by.orderId : r.orderLinkId === by.orderLinkId,
      );
      if (found !== undefined) return readVenueAnswer(LimitRow, found, 'the order look-up', VENUE);
    }
    return null;
  }
}

export type { BybitOrder };
