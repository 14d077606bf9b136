import { performance } from 'node:perf_hooks';
import {
  exchangeSymbol,
  pairOf,
  type CancelOrdersResponse,
  type OpenOrder,
  type OrderPreview,
  type OrderRequest,
  type OrderResponse,
} from '../../../src/contracts/trading';
import { findSymbol } from '../../../src/contracts/symbols';
import { AppError, appError } from '../../plugins/errors';
import type { Clock } from '../market/clock';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { LimitOrderRequest, OrderResult, OrderTradeUpdateEvent, RestingOrder } from './exchange';
import { ExchangeError } from './exchange-error';
import type { HeldRequest, IdempotencyRepo } from './idempotency.repo';
import { awaitInFlight } from './in-flight';
import { limitOf, limitOrderFor, limitsNotOnVenue, restingAnswer, toOpenOrder } from './order-limit';
import { refusal, toResponse } from './order-outcome';
import { paperPreviewAnswer } from './order-preview';
import type { OrderSender } from './order-send';
import type { PaperExchange } from './paper/paper-exchange';
import type { TradeOrigin } from './trade-log';

const noOpenOrder = (id: string) => appError('NOT_FOUND', `No open order ${id}.`);

/** A limit order still working on the venue: resting, or part filled and resting on. */
const resting = (r: OrderResult) => r.status === 'NEW' || r.status === 'PARTIALLY_FILLED';

/**
 * Limit orders, from the request to the venue's answer: sized at their price, placed once per
 * Idempotency-Key (a retry answers the order the first try placed), listed and cancelled on the account
 * the user trades on. A fill at once is concluded as a market order's is (trade history, position change).
 */
export class LimitDesk {
  constructor(
    private readonly accounts: AccountResolver,
    private readonly idempotency: IdempotencyRepo,
    private readonly sender: OrderSender,
    private readonly clock: Clock,
  ) {}

  async place(
    userId: string,
    where: ResolvedAccount,
    symbol: string,
    request: OrderRequest,
    key: string | undefined,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    if (where.adapter.placeLimitOrder === undefined) throw limitsNotOnVenue(where.venue);
    const { order, requestHash, sizing } = limitOrderFor(userId, symbol, request, key);
    if (key !== undefined && requestHash !== undefined) {
      const record = { requestHash, clientOrderId: order.newClientOrderId, account: where.name, symbol };
      const held = await this.idempotency.claim(userId, key, record, 'sent');
      if (!held.fresh) {
        const earlier = await this.earlier(userId, key, held, requestHash, order, origin);
        if (earlier !== null) return earlier;
      }
    }
    const started = performance.now();
    let result: OrderResult;
    try {
      result = await where.adapter.placeLimitOrder(where.account, order);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === -4116) {
        // Placed already under this client id (a retry racing the first try): that order is the answer.
        const found = await where.adapter.queryOrder(where.account, order.newClientOrderId, symbol);
        if (found !== null) return this.answer(userId, key, where, found, order, origin);
      }
      if (key !== undefined && err instanceof ExchangeError) {
        await this.idempotency.markFailed(userId, key, err.msg);
      }
      throw refusal(err);
    }
    const timed = { ...result, sizing, venueMs: performance.now() - started };
    return this.answer(userId, key, where, timed, order, origin);
  }

  /**
   * What the limit order would do, from the paper engine (the sizing and fees of every venue's limit
   * order are the same sums): sized at its price, its maker fee when it rests, a taker fill when it crosses.
   */
  async preview(
    userId: string,
    where: ResolvedAccount,
    symbol: string,
    request: OrderRequest,
    paper: PaperExchange,
  ): Promise<OrderPreview> {
    if (where.adapter.placeLimitOrder === undefined) throw limitsNotOnVenue(where.venue);
    const { order, sizing } = limitOrderFor(userId, symbol, request, undefined);
    try {
      const p = await paper.previewLimitOrder(userId, order);
      const answer = paperPreviewAnswer(symbol, request, order.side, { ...p, sizing });
      const timeInForce = request.timeInForce ?? 'GTC';
      return { ...answer, limit: { price: Number(order.price), time_in_force: timeInForce, rests: p.rests } };
    } catch (err) {
      throw refusal(err);
    }
  }

  /** The Idempotency-Key was used before: its order, looked up by client id; null when none was placed. */
  private async earlier(
    userId: string,
    key: string,
    held: HeldRequest,
    requestHash: string,
    order: LimitOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse | null> {
    if (held.requestHash !== requestHash) {
      throw appError('CONFLICT', 'This Idempotency-Key was already used for a different order.');
    }
    const where = await this.accounts.byName(userId, held.account);
    const latest = await awaitInFlight(this.clock, held, () => this.idempotency.get(userId, key));
    if (latest.state === 'failed') throw appError('BAD_REQUEST', latest.error ?? 'Failed to place order.');
    const found = await where.adapter.queryOrder(where.account, held.clientOrderId, order.symbol);
    if (found !== null) return this.answer(userId, key, where, found, order, origin);
    return null;
  }

  private async answer(
    userId: string,
    key: string | undefined,
    where: ResolvedAccount,
    result: OrderResult,
    order: LimitOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    if (resting(result)) {
      // The venue holds it: a retry under this key only ever looks it up (and need not wait for an end).
      if (key !== undefined) await this.idempotency.markExists(userId, key);
      return restingAnswer(result, order, where);
    }
    const filled = await this.sender.conclude(userId, key, where, result, origin);
    return {
      ...filled,
      order_type: 'limit',
      limit: limitOf({ ...order, quantity: result.origQty ?? order.quantity }),
    };
  }

  /**
   * A paper limit order that filled off the book (the market traded through it): into the trade history,
   * as a fill placed by hand. A fill recorded already (one that crossed when placed) adds nothing.
   */
  async recordPaperFill(userId: string, event: OrderTradeUpdateEvent): Promise<void> {
    const o = event.o;
    if (o.o !== 'LIMIT' || o.X !== 'FILLED') return;
    const where = await this.accounts.byName(userId, 'paper');
    const result: OrderResult = {
      orderId: o.i,
      clientOrderId: o.c,
      symbol: o.s,
      side: o.S,
      type: 'LIMIT',
      status: 'FILLED',
      reduceOnly: o.R,
      executedQty: o.z,
      avgPrice: o.ap,
      cumQuote: String(Number(o.z) * Number(o.ap)),
      commission: o.n,
      realizedPnl: o.rp,
      updateTime: event.E,
    };
    await this.sender.record(userId, where, toResponse(result, where), { source: 'manual' }, result);
  }

  /**
   * `GET /api/orders/open`: the chosen account's (or `account`'s) resting limit orders, oldest first.
   * `cached`: this process's copy will do (the positions socket's snapshots).
   */
  async open(userId: string, account?: string, cached = false): Promise<OpenOrder[]> {
    const where =
      account === undefined
        ? await this.accounts.resolve(userId)
        : await this.accounts.byName(userId, account);
    return (await this.resting(where, cached)).map((r) => toOpenOrder(r, where));
  }

  /** `DELETE /api/orders/open/:id`: one order, by its id or client id. */
  async cancelOne(userId: string, id: string): Promise<OpenOrder> {
    const where = await this.accounts.resolve(userId);
    const order = (await this.resting(where)).find((r) => r.orderId === id || r.clientOrderId === id);
    if (!order) throw noOpenOrder(id);
    const cancelled = await this.cancel(where, order);
    if (cancelled === null) throw noOpenOrder(id);
    return toOpenOrder(cancelled, where);
  }

  /** `DELETE /api/orders/open[?symbol=]`: every resting order (of one symbol); each failure named. */
  async cancelAll(userId: string, pair?: string): Promise<CancelOrdersResponse> {
    const symbol = pair === undefined ? undefined : exchangeSymbol(pair);
    if (symbol !== undefined && !findSymbol(symbol)) throw appError('BAD_REQUEST', 'Invalid symbol.');
    const where = await this.accounts.resolve(userId);
    const orders = (await this.resting(where)).filter((r) => symbol === undefined || r.symbol === symbol);
    const answer: CancelOrdersResponse = { cancelled: [], failed: [] };
    for (const order of orders) {
      try {
        const cancelled = await this.cancel(where, order);
        // Gone meanwhile (filled, or cancelled elsewhere): nothing left to cancel, nothing failed.
        if (cancelled !== null) answer.cancelled.push(toOpenOrder(cancelled, where));
      } catch (err) {
        const detail = err instanceof AppError ? err.detail : 'The venue did not cancel it.';
        answer.failed.push({ id: order.orderId, symbol: pairOf(order.symbol), detail });
      }
    }
    return answer;
  }

  private async resting(where: ResolvedAccount, cached = false): Promise<RestingOrder[]> {
    if (where.adapter.openOrders === undefined) throw limitsNotOnVenue(where.venue);
    try {
      const rows = await where.adapter.openOrders(where.account, undefined, { cached });
      return [...rows].sort((a, b) => a.time - b.time);
    } catch (err) {
      throw refusal(err);
    }
  }

  private async cancel(where: ResolvedAccount, order: RestingOrder): Promise<RestingOrder | null> {
    if (where.adapter.cancelOrder === undefined) throw limitsNotOnVenue(where.venue);
    try {
      return await where.adapter.cancelOrder(where.account, order.symbol, { orderId: order.orderId });
    } catch (err) {
      throw refusal(err);
    }
  }
}
