import { createHash, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import {
  exchangeSymbol,
  pairOf,
  type Balance,
  type OrderPreview,
  type OrderRequest,
  type OrderResponse,
  type Position,
} from '../../../src/contracts/trading';
import { lotFiltersFor } from '../../../src/contracts/sizing';
import { findSymbol } from '../../../src/contracts/symbols';
import { AppError, appError } from '../../plugins/errors';
import { BinanceRateLimited, BinanceUnreachable } from '../exchanges/binance-client';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { MarketOrderRequest, OrderResult, PositionRisk } from './exchange';
import { ExchangeError, OrderOutcomeUnknown } from './exchange-error';
import type { HeldRequest, IdempotencyRepo } from './idempotency.repo';
import type { PaperExchange } from './paper/paper-exchange';

/** How long a retry waits for a try of the same key that is still in flight, and how often it looks. */
const IN_FLIGHT_MS = 5_000;
const IN_FLIGHT_POLL_MS = 20;

/** Binance's client order id alphabet and length. */
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;

/** An Idempotency-Key as the browser sends it (a UUID) or any printable token up to 128 characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,128}$/;

/**
 * The trading rules: validates and routes orders to the user's exchange, makes retries safe with the
 * Idempotency-Key, and turns Binance-shaped answers into the product's. Exchange refusals become a 400
 * whose detail is the exchange's own message.
 */
/** A check every order passes before it is sent (the risk envelope's maximum order size); throws to refuse. */
export type OrderGuard = (userId: string, request: OrderRequest) => Promise<void>;

/** How long after sending an order whose outcome is unknown it may still appear (Binance's recvWindow + slack). */
export const UNKNOWN_SETTLE_MS = 6_000;

export interface TradingServiceOptions {
  /** Waits between look-ups of an order whose outcome is unknown (default {@link UNKNOWN_SETTLE_MS}). */
  settleMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export class TradingService {
  private guards: OrderGuard[] = [];
  private readonly settleMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    /** Each user's account: paper, or one of their keys. */
    private readonly accounts: AccountResolver,
    /** The paper exchange answers previews of paper accounts; live ones ask their venue. */
    private readonly paper: PaperExchange,
    private readonly idempotency: IdempotencyRepo,
    /** Makes sure a mark exists for the symbol (asks the market once when none was seen yet). */
    private readonly ensureMark: (symbol: string) => Promise<void>,
    opts: TradingServiceOptions = {},
  ) {
    this.settleMs = opts.settleMs ?? UNKNOWN_SETTLE_MS;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = opts.now ?? Date.now;
  }

  /** `account`: where this user's orders go. */
  account(userId: string) {
    return this.accounts.state(userId);
  }

  /** `account use paper|<key id>`. */
  chooseAccount(userId: string, account: string) {
    return this.accounts.choose(userId, account);
  }

  /** Adds a check that every order, from every entry point, passes; returns its remover. */
  addGuard(guard: OrderGuard): () => void {
    this.guards.push(guard);
    return () => {
      this.guards = this.guards.filter((g) => g !== guard);
    };
  }

  /** The order an Idempotency-Key placed, if it was placed: how a caller that crashed mid-order finds out. */
  async findOrder(userId: string, idempotencyKey: string): Promise<OrderResponse | null> {
    const held = await this.idempotency.get(userId, idempotencyKey);
    const where = held
      ? await this.accounts.byName(userId, held.account)
      : await this.accounts.resolve(userId);
    const clientOrderId = held?.clientOrderId ?? clientIdFor(userId, idempotencyKey);
    if (!held?.symbol) return null;
    const earlier = await where.adapter.queryOrder(where.account, clientOrderId, held.symbol);
    return earlier ? toResponse(earlier) : null;
  }

  async placeOrder(userId: string, request: OrderRequest, idempotencyKey?: string): Promise<OrderResponse> {
    try {
      return await this.placeOrderOnce(userId, request, idempotencyKey);
    } catch (err) {
      // A look-up of an earlier try that the exchange rate-limited or did not answer: say so, plainly.
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  private async placeOrderOnce(
    userId: string,
    request: OrderRequest,
    idempotencyKey?: string,
  ): Promise<OrderResponse> {
    const symbol = this.supported(request.symbol);
    const side = request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL';
    for (const guard of this.guards) await guard(userId, request);
    await this.ensureMark(symbol);
    const order = {
      symbol,
      side,
      quoteAmount: String(request.amount),
      ...(request.maxNotional === undefined ? {} : { maxNotional: String(request.maxNotional) }),
    } as const;
    if (idempotencyKey === undefined) {
      const where = await this.accounts.resolve(userId);
      const newClientOrderId = `sc-${randomUUID().replaceAll('-', '')}`;
      try {
        return toResponse(
          await where.adapter.placeMarketOrder(where.account, { ...order, newClientOrderId }),
        );
      } catch (err) {
        if (err instanceof OrderOutcomeUnknown) {
          const found = await this.lookUp(where, newClientOrderId, symbol);
          if (found) return toResponse(found);
          throw unknownOutcome(err);
        }
        throw refusal(err);
      }
    }
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw appError('BAD_REQUEST', 'Idempotency-Key must be 8 to 128 printable characters.');
    }
    const requestHash = hash(
      `${symbol}|${side}|${request.type}|${request.amount}` +
        (request.maxNotional === undefined ? '' : `|${request.maxNotional}`),
    );
    const clientOrderId = clientIdFor(userId, idempotencyKey);
    if (!CLIENT_ID.test(clientOrderId)) throw new Error(`bad client order id ${clientOrderId}`);
    const current = await this.accounts.resolve(userId);
    const held = await this.idempotency.claim(userId, idempotencyKey, {
      requestHash,
      clientOrderId,
      account: current.name,
      symbol,
    });
    let where = current;
    if (!held.fresh) {
      if (held.requestHash !== requestHash) {
        throw appError('CONFLICT', 'This Idempotency-Key was already used for a different order.');
      }
      // A retry goes where the first try went, and is answered from what that try did.
      where = await this.accounts.byName(userId, held.account);
      // A try still in flight (a concurrent retry): wait for its outcome rather than race it.
      const latest = await this.awaitInFlight(userId, idempotencyKey, held);
      const settled = await this.settleEarlier(userId, idempotencyKey, where, latest, symbol);
      if (settled !== null) return settled;
    } else if (!(await this.idempotency.markSent(userId, idempotencyKey, 'claimed'))) {
      // A concurrent retry took the right to send first: answer with what it did.
      const row = await this.idempotency.get(userId, idempotencyKey);
      const latest = row === undefined ? undefined : await this.awaitInFlight(userId, idempotencyKey, row);
      if (latest?.state === 'filled' || latest?.state === 'failed') {
        const settled = await this.settleEarlier(userId, idempotencyKey, where, latest, symbol);
        if (settled !== null) return settled;
      }
      throw appError('CONFLICT', 'This order is already being placed.');
    }
    return this.send(userId, idempotencyKey, where, { ...order, newClientOrderId: clientOrderId });
  }

  /**
   * While another request holds the key (claimed or sent, moved within `IN_FLIGHT_MS`), polls its state
   * until it is filled or failed, at most `IN_FLIGHT_MS`; answers the latest state seen.
   */
  private async awaitInFlight(userId: string, key: string, held: HeldRequest): Promise<HeldRequest> {
    let latest = held;
    for (let i = 0; i < IN_FLIGHT_MS / IN_FLIGHT_POLL_MS; i += 1) {
      if (latest.state === 'filled' || latest.state === 'failed') return latest;
      if (this.now() - latest.updatedAt.getTime() > IN_FLIGHT_MS) return latest;
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
      latest = (await this.idempotency.get(userId, key)) ?? latest;
    }
    return latest;
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
  ): Promise<OrderResponse | null> {
    if (held.state === 'failed') throw appError('BAD_REQUEST', held.error ?? 'Failed to place order.');
    // Filled, sent (outcome unknown) or claimed: look the order up by its client id before anything else.
    const earlier = await where.adapter.queryOrder(where.account, held.clientOrderId, symbol);
    if (earlier) {
      if (held.state !== 'filled') await this.idempotency.markFilled(userId, key, earlier.orderId);
      return toResponse(earlier);
    }
    if (held.state === 'claimed') {
      // Nothing was sent yet (the first try stopped before sending): whoever moves it to sent sends.
      if (await this.idempotency.markSent(userId, key, 'claimed')) return null;
      throw appError('CONFLICT', 'This order is already being placed.');
    }
    if (held.state === 'filled') throw new Error('a filled order could not be found by its client id');
    // Sent, not found: it may still arrive until Binance's recvWindow has passed; only then send again.
    if (this.now() - held.updatedAt.getTime() < this.settleMs) {
      throw appError('SERVICE_UNAVAILABLE', UNKNOWN_TEXT);
    }
    if (await this.idempotency.markSent(userId, key, 'sent', held.updatedAt)) return null;
    throw appError('CONFLICT', 'This order is already being placed.');
  }

  private async send(
    userId: string,
    key: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
  ): Promise<OrderResponse> {
    try {
      const result = await where.adapter.placeMarketOrder(where.account, order);
      await this.idempotency.markFilled(userId, key, result.orderId);
      return toResponse(result);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === -4116) {
        // Duplicate client id: the order is there already.
        const earlier = await where.adapter.queryOrder(where.account, order.newClientOrderId, order.symbol);
        if (earlier) {
          await this.idempotency.markFilled(userId, key, earlier.orderId);
          return toResponse(earlier);
        }
      }
      if (err instanceof OrderOutcomeUnknown) {
        const found = await this.lookUp(where, order.newClientOrderId, order.symbol);
        if (found) {
          await this.idempotency.markFilled(userId, key, found.orderId);
          return toResponse(found);
        }
        // Left `sent`: a retry with the same key looks it up again before sending anything.
        throw unknownOutcome(err);
      }
      // Rate-limited: refused before it reached the order book, so the key may be sent again later.
      if (err instanceof BinanceRateLimited) await this.idempotency.release(userId, key);
      else if (err instanceof ExchangeError) await this.idempotency.markFailed(userId, key, err.msg);
      throw refusal(err);
    }
  }

  /** Looks an order of unknown outcome up by client id: at once, then once more after the settle time. */
  private async lookUp(
    where: ResolvedAccount,
    clientOrderId: string,
    symbol: string,
  ): Promise<OrderResult | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await this.sleep(this.settleMs);
      const found = await where.adapter.queryOrder(where.account, clientOrderId, symbol).catch(() => null);
      if (found) return found;
    }
    return null;
  }

  async preview(userId: string, request: OrderRequest): Promise<OrderPreview> {
    const symbol = this.supported(request.symbol);
    const side = request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL';
    const order = {
      symbol,
      side,
      quoteAmount: String(request.amount),
      ...(request.maxNotional === undefined ? {} : { maxNotional: String(request.maxNotional) }),
    } as const;
    const where = await this.accounts.resolve(userId);
    try {
      if (where.adapter.previewOnVenue !== undefined) {
        const p = await where.adapter.previewOnVenue(where.account, order);
        return {
          symbol: pairOf(symbol),
          side: side === 'BUY' ? 'buy' : 'sell',
          quantity: p.quantity.toNumber(),
          price: p.price.toNumber(),
          notional: p.price.mul(p.quantity).toNumber(),
          requested: request.amount,
          adjustment: p.sizing.adjustment,
          note: p.sizing.note,
          minNotional: p.minNotional.toNumber(),
          stepNotional: p.stepSize.mul(p.price).toNumber(),
          margin: p.marginAdded.toNumber(),
          fee: p.fee.toNumber(),
          leverage: p.leverage,
          liquidationPrice: p.liquidationPrice === null ? null : p.liquidationPrice.toNumber(),
        };
      }
      await this.ensureMark(symbol);
      const p = await this.paper.previewMarketOrder(userId, order);
      const price = new Decimal(p.fill.price);
      const filters = lotFiltersFor(symbol, price);
      return {
        symbol: pairOf(symbol),
        side: side === 'BUY' ? 'buy' : 'sell',
        quantity: Number(p.fill.qty),
        price: price.toNumber(),
        notional: price.mul(p.fill.qty).toNumber(),
        requested: request.amount,
        adjustment: p.sizing?.adjustment ?? 'exact',
        note: p.sizing?.note ?? null,
        minNotional: filters?.minNotional.toNumber() ?? 0,
        stepNotional: filters ? filters.stepSize.mul(price).toNumber() : 0,
        margin: p.marginAdded.toNumber(),
        fee: Number(p.fill.fee),
        leverage: p.leverage,
        liquidationPrice: p.liquidationPrice === null ? null : p.liquidationPrice.toNumber(),
      };
    } catch (err) {
      throw refusal(err);
    }
  }

  async positions(userId: string): Promise<Position[]> {
    const where = await this.accounts.resolve(userId);
    const rows = await where.adapter.positionRisk(where.account).catch((err: unknown) => {
      throw refusal(err);
    });
    return rows.filter((r) => Number(r.positionAmt) !== 0).map(toPosition);
  }

  async closePosition(userId: string, pair: string): Promise<{ message: string }> {
    const symbol = this.supported(pair);
    await this.ensureMark(symbol);
    const where = await this.accounts.resolve(userId);
    try {
      const result = await where.adapter.closePosition(
        where.account,
        symbol,
        `sc-close-${randomUUID()}`.slice(0, 36),
      );
      if (!result) throw appError('NOT_FOUND', `No open ${pairOf(symbol)} position.`);
      const side = result.side === 'SELL' ? 'long' : 'short';
      return { message: `Closed ${pairOf(symbol)} ${side}: ${result.executedQty} at ${result.avgPrice}.` };
    } catch (err) {
      throw refusal(err);
    }
  }

  async closeAll(userId: string): Promise<{ message: string }> {
    const where = await this.accounts.resolve(userId);
    const open = await where.adapter.positionRisk(where.account);
    await Promise.all(open.map((p) => this.ensureMark(p.symbol)));
    try {
      const results = await where.adapter.closeAllPositions(
        where.account,
        `sc-all-${randomUUID().slice(0, 8)}`,
      );
      if (results.length === 0) return { message: 'There are no open positions to close.' };
      const n = results.length;
      return {
        message: `Closed ${n} position${n === 1 ? '' : 's'}: ${results.map((r) => pairOf(r.symbol)).join(', ')}.`,
      };
    } catch (err) {
      throw refusal(err);
    }
  }

  async balance(userId: string): Promise<Balance> {
    const where = await this.accounts.resolve(userId);
    const b = await where.adapter.balance(where.account).catch((err: unknown) => {
      throw refusal(err);
    });
    const wallet = Number(b.balance);
    const upnl = Number(b.crossUnPnl);
    return {
      asset: 'USDT',
      walletBalance: wallet,
      availableBalance: Number(b.availableBalance),
      unrealizedPnl: upnl,
      equity: wallet + upnl,
      exchange: where.adapter.kind,
    };
  }

  async setLeverage(userId: string, pair: string, leverage: number): Promise<{ message: string }> {
    const symbol = this.supported(pair);
    const where = await this.accounts.resolve(userId);
    try {
      await where.adapter.setLeverage(where.account, symbol, leverage);
    } catch (err) {
      throw refusal(err);
    }
    return { message: `Leverage for ${pairOf(symbol)} set to ${leverage}x.` };
  }

  private supported(pair: string): string {
    const symbol = exchangeSymbol(pair);
    if (!findSymbol(symbol)) throw appError('BAD_REQUEST', 'Invalid symbol.');
    return symbol;
  }
}

/** The exchange's client order id of an Idempotency-Key: the same key always names the same order. */
export function clientIdFor(userId: string, idempotencyKey: string): string {
  return `sc-${hash(`${userId}|${idempotencyKey}`).slice(0, 32)}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const UNKNOWN_TEXT =
  'Binance did not say whether the order was placed, and it was not found by its client order id yet. ' +
  'Check your positions; sending it again with the same Idempotency-Key looks it up first and never places it twice.';

function unknownOutcome(err: OrderOutcomeUnknown): unknown {
  return appError('SERVICE_UNAVAILABLE', `${UNKNOWN_TEXT} (${err.reason})`);
}

function refusal(err: unknown): unknown {
  if (err instanceof BinanceRateLimited) {
    const what = err.status === 418 ? 'has banned this server' : 'is limiting requests';
    return appError(
      'SERVICE_UNAVAILABLE',
      `Binance ${what} (${err.status}); nothing was placed. Try again in ${err.retryAfterSeconds} s.`,
      { 'retry-after': String(err.retryAfterSeconds) },
    );
  }
  if (err instanceof ExchangeError) return appError('BAD_REQUEST', err.msg);
  if (err instanceof BinanceUnreachable) return appError('SERVICE_UNAVAILABLE', UNREACHABLE_TEXT);
  return err;
}

/** A read from the exchange (never an order: those are looked up, see UNKNOWN_TEXT) that got no answer. */
const UNREACHABLE_TEXT = 'Binance did not answer in time. Try again in a moment.';

export function toResponse(r: OrderResult): OrderResponse {
  return {
    id: r.orderId,
    symbol: pairOf(r.symbol),
    side: r.side === 'BUY' ? 'buy' : 'sell',
    quantity: Number(r.executedQty),
    price: Number(r.avgPrice),
    notional: Number(r.cumQuote),
    fee: Number(r.commission),
    status: 'filled',
    realizedPnl: Number(r.realizedPnl),
    requested: r.sizing ? Number(r.sizing.requested) : null,
    adjustment: r.sizing?.adjustment ?? null,
    note: r.sizing?.note ?? null,
  };
}

export function toPosition(r: PositionRisk): Position {
  const size = Number(r.positionAmt);
  const mark = Number(r.markPrice);
  const upnl = Number(r.unRealizedProfit);
  const margin = Number(r.isolatedMargin) - upnl;
  const initial = (Math.abs(size) * mark) / r.leverage;
  return {
    symbol: pairOf(r.symbol),
    side: size > 0 ? 'long' : 'short',
    size: Math.abs(size),
    entryPrice: Number(r.entryPrice),
    markPrice: mark,
    liquidationPrice: Number(r.liquidationPrice),
    margin,
    unrealizedPnl: upnl,
    leverage: r.leverage,
    roe: initial === 0 ? 0 : upnl / initial,
    notional: Math.abs(Number(r.notional)),
  };
}
