import { performance } from 'node:perf_hooks';
import Decimal from 'decimal.js';
import { exchangeSymbol, positionChangeOf, type OrderResponse } from '../../../src/contracts/trading';
import { appError } from '../../plugins/errors';
import { VenueRateLimited } from '../exchanges/binance-client';
import type { Clock } from '../market/clock';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { ExchangeAdapter, MarketOrderRequest, OrderResult, PositionRisk } from './exchange';

/** A reduce-only order, as the adapter takes it. */
type ReduceOrderRequest = Parameters<ExchangeAdapter['reducePosition']>[1];
import { ExchangeError, OrderOutcomeUnknown } from './exchange-error';
import type { IdempotencyRepo } from './idempotency.repo';
import { awaitInFlight } from './in-flight';
import { LateFees } from './late-fees';
import {
  isFinal,
  noFill,
  orderExists,
  refusal,
  stillWorking,
  toResponse,
  UNKNOWN_TEXT,
  unknownOutcome,
} from './order-outcome';
import { tradeOf, type TradeLog, type TradeOrigin } from './trade-log';
import type { HeldRequest, StoredRequest } from './idempotency.repo';

/** How often a working order (NEW, PARTIALLY_FILLED) is looked up until it ends. */
const WORKING_POLL_MS = 100;

/** How long an answer waits, once, for a fill's fee the venue did not tell with the order. */
const FEES_WAIT_MS = 250;

/**
 * Binance's "ClientOrderId is duplicated." (-4116): an order with this client id is there already, by
 * the venue's own word, whatever a look-up says.
 */
const isDuplicate = (err: unknown): err is ExchangeError =>
  err instanceof ExchangeError && err.code === -4116;

export interface OrderSendOptions {
  /** How long an order of unknown outcome may still appear, and how long a working order is waited for. */
  settleMs: number;
  /** Time for the in-flight wait. */
  clock: Clock;
  /** Waits between look-ups. */
  sleep: (ms: number) => Promise<void>;
  /** The trade history every fill is written to (none: nothing is recorded). */
  trades: TradeLog | undefined;
  onRecordError: (err: unknown, userId: string, orderId: string) => void;
  /**
   * When a fill recorded with its fee unknown is asked about again, each wait after the one before
   * (default: at the settle time, then 5, 25 and 100 times it).
   */
  feeRetryMs?: readonly number[];
}

/**
 * One order's way to the venue: the Idempotency-Key is claimed, the order sent, an answer that does not
 * say what happened is looked up by client id, and the outcome is recorded on the key and in the trade
 * history, so a retry with the same key answers the same and never sends twice.
 */
export class OrderSender {
  /** Fills recorded with their fee unknown, asked about again until the venue tells it. */
  private readonly lateFees: LateFees | undefined;

  constructor(
    private readonly accounts: AccountResolver,
    private readonly idempotency: IdempotencyRepo,
    private readonly opts: OrderSendOptions,
  ) {
    const trades = opts.trades;
    this.lateFees =
      trades === undefined
        ? undefined
        : new LateFees({
            clock: opts.clock,
            delaysMs: opts.feeRetryMs ?? [1, 5, 25, 100].map((k) => k * opts.settleMs),
            trades,
            onError: opts.onRecordError,
          });
  }

  /** Stops asking about late fees (shutdown). */
  stop(): void {
    this.lateFees?.stop();
  }

  /** Sends an order no key protects: one try, its unknown outcome looked up. */
  sendUnkeyed(
    userId: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    return this.send(userId, undefined, where, order, origin);
  }

  /**
   * Sends a reduce-only order; its unknown outcome is looked up. Null: nothing of the position was left
   * to reduce.
   */
  async sendReduce(
    userId: string,
    where: ResolvedAccount,
    order: ReduceOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse | null> {
    let result: OrderResult | null;
    try {
      result = await where.adapter.reducePosition(where.account, order);
    } catch (err) {
      if (!(err instanceof OrderOutcomeUnknown) && !isDuplicate(err)) throw err;
      result = await this.lookUp(where, order.clientOrderId, order.symbol);
      if (result === null)
        throw err instanceof OrderOutcomeUnknown
          ? unknownOutcome(err, where.venue)
          : orderExists(where.venue);
    }
    return result === null ? null : this.conclude(userId, undefined, where, result, origin);
  }

  /**
   * Sends an order under an Idempotency-Key: the first use claims the key and sends to `target`; a retry
   * goes where the first try went and is answered from what that try did.
   */
  async sendKeyed(
    userId: string,
    key: string,
    target: ResolvedAccount,
    order: MarketOrderRequest,
    requestHash: string,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    const record: StoredRequest = {
      requestHash,
      clientOrderId: order.newClientOrderId,
      account: target.name,
      symbol: order.symbol,
    };
    if (target.adapter.placeKeyedMarketOrder !== undefined) {
      const placed = await this.placeWithKey(userId, key, target, order, record, origin);
      // Null: the key was used before; its earlier use answers, below.
      if (placed !== null) return placed;
    }
    // A first use is recorded as sent at once: nothing happens between taking the key and sending.
    const held = await this.idempotency.claim(userId, key, record, 'sent');
    let where = target;
    if (!held.fresh) {
      if (held.requestHash !== requestHash) {
        throw appError('CONFLICT', 'This Idempotency-Key was already used for a different order.');
      }
      // The same account keeps the caller's view of it (the slippage guard's IOC placement).
      if (held.account !== target.name) where = await this.accounts.byName(userId, held.account);
      // A try still in flight (a concurrent retry): wait for its outcome rather than race it.
      const latest = await awaitInFlight(this.opts.clock, held, () => this.idempotency.get(userId, key));
      const settled = await this.settleEarlier(userId, key, where, latest, order.symbol, origin);
      if (settled !== null) return settled;
    }
    return this.send(userId, key, where, order, origin);
  }

  /**
   * A venue that takes the key in the statement that books the order (the paper exchange): one write
   * instead of three (key taken, order booked, key filled), and an outcome that is never unknown. A
   * refusal is recorded on the key as the other venues' are, so that a retry answers the same. Null: the
   * key was taken already.
   */
  private async placeWithKey(
    userId: string,
    key: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    record: StoredRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse | null> {
    const place = where.adapter.placeKeyedMarketOrder?.bind(where.adapter);
    if (place === undefined) return null;
    let result: OrderResult | null;
    try {
      result = await place(where.account, order, {
        userId,
        idempotencyKey: key,
        requestHash: record.requestHash,
        account: record.account,
      });
    } catch (err) {
      if (err instanceof ExchangeError) {
        const refused = await this.idempotency.claim(userId, key, record, 'failed', err.msg);
        // Taken by a retry in the meantime: that one's outcome is the answer.
        if (!refused.fresh) return null;
      }
      throw refusal(err);
    }
    return result === null ? null : this.conclude(userId, key, where, result, origin, true);
  }

  /**
   * What to do with a retried key: answer a fill or a refusal from before, or (only when the earlier
   * try is known not to have placed anything) take the right to send again. Null: send now.
   */
  private async settleEarlier(
    userId: string,
    key: string,
    where: ResolvedAccount,
    held: HeldRequest,
    symbol: string,
    origin: TradeOrigin,
  ): Promise<OrderResponse | null> {
    if (held.state === 'failed') throw appError('BAD_REQUEST', held.error ?? 'Failed to place order.');
    // Filled, sent (outcome unknown) or claimed: look the order up by its client id before anything else.
    const earlier = await where.adapter.queryOrder(where.account, held.clientOrderId, symbol);
    // Found in any state: that order is the answer, and its client id is never sent again.
    if (earlier) return this.conclude(userId, key, where, earlier, origin);
    if (held.state === 'claimed') {
      // Nothing was sent yet (the first try stopped before sending): whoever moves it to sent sends.
      if (await this.idempotency.markSent(userId, key, 'claimed')) return null;
      throw appError('CONFLICT', 'This order is already being placed.');
    }
    if (held.state === 'filled') throw new Error('a filled order could not be found by its client id');
    // The venue said it has this order (-4116): it is looked up again on every retry, never sent again.
    if (held.state === 'exists') throw orderExists(where.venue);
    // Sent, not found: it may still arrive until Binance's recvWindow has passed; only then send again.
    if (this.opts.clock.now() - held.updatedAt.getTime() < this.opts.settleMs) {
      throw appError('OUTCOME_UNKNOWN', UNKNOWN_TEXT(where.venue));
    }
    if (await this.idempotency.markSent(userId, key, 'sent', held.updatedAt)) return null;
    throw appError('CONFLICT', 'This order is already being placed.');
  }

  /** Sends the order; `key` (when given) is moved to what came of it. */
  private async send(
    userId: string,
    key: string | undefined,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    let result: OrderResult;
    const started = performance.now();
    try {
      result = await where.adapter.placeMarketOrder(where.account, order);
      result = { ...result, venueMs: performance.now() - started };
    } catch (err) {
      if (isDuplicate(err)) {
        // Duplicate client id: the order is there already, by the venue's word, even when a look-up does
        // not show it yet. Never a failure, and never sent again under this key.
        const earlier = await this.lookUp(where, order.newClientOrderId, order.symbol);
        if (earlier) return this.conclude(userId, key, where, earlier, origin);
        if (key !== undefined) await this.idempotency.markExists(userId, key);
        throw orderExists(where.venue);
      }
      if (err instanceof OrderOutcomeUnknown) {
        const found = await this.lookUp(where, order.newClientOrderId, order.symbol);
        // Not found: left `sent`, so a retry with the same key looks it up again before sending anything.
        if (found === null) throw unknownOutcome(err, where.venue);
        return this.conclude(userId, key, where, found, origin);
      }
      if (key !== undefined) {
        // Rate-limited: refused before it reached the order book, so the key may be sent again later.
        if (err instanceof VenueRateLimited) await this.idempotency.release(userId, key);
        else if (err instanceof ExchangeError) await this.idempotency.markFailed(userId, key, err.msg);
      }
      throw refusal(err);
    }
    return this.conclude(userId, key, where, result, origin);
  }

  /**
   * Turns an order the venue knows into the answer: waits (within the settle time) for a working order
   * to end, then answers what it executed, whole or partial; an order that ended with nothing executed
   * is a refusal. Each is recorded on the key, so a retry answers the same.
   */
  async conclude(
    userId: string,
    key: string | undefined,
    where: ResolvedAccount,
    result: OrderResult,
    origin: TradeOrigin,
    /** The key was recorded filled with the order (see {@link placeWithKey}). */
    keyFilled = false,
  ): Promise<OrderResponse> {
    const final = await this.withLateFees(where, await this.untilFinal(where, result, result.symbol));
    if (Number(final.executedQty) > 0) {
      if (key !== undefined && !keyFilled) await this.idempotency.markFilled(userId, key, final.orderId);
      const fill = toResponse(final, where);
      await this.record(userId, where, fill, origin, final);
      // A person reads what their order did to the position; a rule's fill skips the extra look-up.
      return origin.source === 'rule'
        ? fill
        : this.withPositionChange(where, [fill]).then(([f]) => f ?? fill);
    }
    const refused = noFill(final, where.venue);
    if (key !== undefined) await this.idempotency.markFailed(userId, key, refused.msg);
    throw refusal(refused);
  }

  /** Looks a working order (NEW, PARTIALLY_FILLED) up until it ends, within the settle time. */
  async untilFinal(where: ResolvedAccount, result: OrderResult, symbol: string): Promise<OrderResult> {
    let current = result;
    const deadline = this.opts.clock.now() + this.opts.settleMs;
    while (!isFinal(current)) {
      if (this.opts.clock.now() >= deadline) throw stillWorking(current, where.venue);
      await this.opts.sleep(Math.min(WORKING_POLL_MS, this.opts.settleMs));
      const seen = await where.adapter
        .queryOrder(where.account, current.clientOrderId, symbol)
        .catch(() => null);
      if (seen !== null) current = { ...seen, sizing: current.sizing ?? seen.sizing };
    }
    return current;
  }

  /** Looks an order of unknown outcome up by client id: at once, then once more after the settle time. */
  async lookUp(where: ResolvedAccount, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await this.opts.sleep(this.opts.settleMs);
      const found = await where.adapter.queryOrder(where.account, clientOrderId, symbol).catch(() => null);
      if (found) return found;
    }
    return null;
  }

  /**
   * A final order whose fee and realised PnL the venue did not tell with it: asked once more after a
   * short wait (the user-data stream may have told them meanwhile); left unknown when still not told.
   */
  async withLateFees(where: ResolvedAccount, final: OrderResult): Promise<OrderResult> {
    const ask = where.adapter.orderFees?.bind(where.adapter);
    if (ask === undefined || (final.commission !== null && final.realizedPnl !== null)) return final;
    if (!(Number(final.executedQty) > 0)) return final;
    await this.opts.sleep(Math.min(FEES_WAIT_MS, this.opts.settleMs));
    const fees = await ask(where.account, final).catch(() => null);
    return fees === null ? final : { ...final, ...fees };
  }

  /**
   * Writes a fill to the trade history; a failure is reported, never turned into a failed order. With
   * the venue's `result`, a fee and realised PnL it has not told are written as unknown and asked for
   * again later.
   */
  async record(
    userId: string,
    where: ResolvedAccount,
    fill: OrderResponse,
    origin: TradeOrigin,
    result?: OrderResult,
  ): Promise<void> {
    if (this.opts.trades === undefined) return;
    const unknown = result !== undefined && (result.commission === null || result.realizedPnl === null);
    const fees = unknown ? { fee: null, realizedPnl: null } : undefined;
    try {
      await this.opts.trades.record(userId, tradeOf(where, fill, origin, fees));
    } catch (err) {
      this.opts.onRecordError(err, userId, fill.id);
      return;
    }
    if (unknown) this.lateFees?.follow(userId, where, result);
  }

  /**
   * The fills with what each did to its position: the venue's position right after, less the fill, is
   * the position before. Left without it when the venue cannot be read (the fill stands).
   */
  async withPositionChange(
    where: ResolvedAccount,
    fills: readonly OrderResponse[],
  ): Promise<OrderResponse[]> {
    let rows: PositionRisk[];
    try {
      rows = await where.adapter.positionRisk(where.account);
    } catch {
      return [...fills];
    }
    return fills.map((fill) => {
      const symbol = exchangeSymbol(fill.symbol);
      const after = new Decimal(rows.find((r) => r.symbol === symbol)?.positionAmt ?? 0);
      const before = after.minus(fill.side === 'buy' ? fill.quantity : -fill.quantity);
      return { ...fill, position: positionChangeOf(before.toNumber(), after.toNumber()) };
    });
  }
}
