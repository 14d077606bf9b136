import { createHash, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import {
  exchangeSymbol,
  pairOf,
  positionChangeOf,
  type OrderVenue,
  type Balance,
  type OrderPreview,
  type OrderRequest,
  type OrderResponse,
  type Position,
  type CloseAllResponse,
  type CloseResponse,
  type TradesPage,
  type TradesQuery,
} from '../../../src/contracts/trading';
import { lotFiltersFor } from '../../../src/contracts/sizing';
import { findSymbol } from '../../../src/contracts/symbols';
import { AppError, appError } from '../../plugins/errors';
import { BinanceRateLimited } from '../exchanges/binance-client';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { MarketOrderRequest, OrderResult, PositionRisk } from './exchange';
import { ExchangeError, OrderOutcomeUnknown } from './exchange-error';
import {
  isFinal,
  noFill,
  refusal,
  stillWorking,
  toPosition,
  toResponse,
  UNKNOWN_TEXT,
  unknownOutcome,
} from './order-outcome';
import type { HeldRequest, IdempotencyRepo } from './idempotency.repo';
import type { PaperExchange } from './paper/paper-exchange';
import { closedAllText, closedText, tradeOf, type TradeLog, type TradeOrigin } from './trade-log';

/** Where a placed order goes instead of the user's chosen account: 'paper' or one of their key ids. */
export interface PlaceOptions {
  account?: string;
  /** What placed it, for the trade history; by default the request's own `source`, else manual. */
  origin?: TradeOrigin;
}

/** How often a working order (NEW, PARTIALLY_FILLED) is looked up until it ends. */
const WORKING_POLL_MS = 100;

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
  /** The trade history every fill is written to (none: nothing is recorded). */
  trades?: TradeLog;
  /** A fill that could not be written to the history (the order stands; its answer is sent). */
  onRecordError?: (err: unknown, userId: string, orderId: string) => void;
}

export class TradingService {
  private guards: OrderGuard[] = [];
  private readonly settleMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly trades: TradeLog | undefined;
  private readonly onRecordError: (err: unknown, userId: string, orderId: string) => void;

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
    this.trades = opts.trades;
    this.onRecordError = opts.onRecordError ?? (() => undefined);
  }

  /** `GET /api/trades`: the user's fills, newest first, a page at a time. */
  async tradeHistory(userId: string, query: TradesQuery): Promise<TradesPage> {
    if (this.trades === undefined) return { trades: [], nextCursor: null };
    const rows = await this.trades.page(userId, {
      limit: query.limit + 1,
      ...(query.cursor === undefined ? {} : { before: Number(query.cursor) }),
      ...(query.account === undefined ? {} : { account: query.account }),
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return { trades: page, nextCursor: rows.length > query.limit && last ? last.id : null };
  }

  /** Writes a fill to the trade history; a failure is reported, never turned into a failed order. */
  private async record(
    userId: string,
    where: Pick<ResolvedAccount, 'name' | 'mode' | 'keyHint'>,
    fill: OrderResponse,
    origin: TradeOrigin,
  ): Promise<void> {
    if (this.trades === undefined) return;
    try {
      await this.trades.record(userId, tradeOf(where, fill, origin));
    } catch (err) {
      this.onRecordError(err, userId, fill.id);
    }
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

  /**
   * The order an Idempotency-Key placed, if it filled anything: how a caller that crashed mid-order finds
   * out. Null when the venue has no such order or ended it without a fill; throws OUTCOME_UNKNOWN while
   * the venue is still working on it.
   */
  async findOrder(userId: string, idempotencyKey: string): Promise<OrderResponse | null> {
    const held = await this.idempotency.get(userId, idempotencyKey);
    if (!held?.symbol) return null;
    const where = await this.accounts.byName(userId, held.account);
    const earlier = await where.adapter.queryOrder(where.account, held.clientOrderId, held.symbol);
    if (earlier === null) return null;
    const final = await this.untilFinal(where, earlier, held.symbol);
    return Number(final.executedQty) > 0 ? toResponse(final, where) : null;
  }

  /** Where an order goes: `account` ('paper' or a key id) when given, else the account the user chose. */
  private target(userId: string, account: string | undefined): Promise<ResolvedAccount> {
    return account === undefined ? this.accounts.resolve(userId) : this.accounts.byName(userId, account);
  }

  /** The account `account` names ('paper' or one of the user's keys), as an order's answer names it. */
  async venueOf(userId: string, account: string): Promise<OrderVenue> {
    const where = await this.accounts.byName(userId, account);
    return { mode: where.mode, keyHint: where.keyHint };
  }

  /**
   * Places a market order. `opts.account` sends it to that account ('paper' or a key id) whatever the
   * user chose for manual trading: a rule's orders go to the rule's account.
   */
  async placeOrder(
    userId: string,
    request: OrderRequest,
    idempotencyKey?: string,
    opts: PlaceOptions = {},
  ): Promise<OrderResponse> {
    try {
      return await this.placeOrderOnce(userId, request, idempotencyKey, opts);
    } catch (err) {
      // A look-up of an earlier try that the exchange rate-limited or did not answer: say so, plainly.
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  private async placeOrderOnce(
    userId: string,
    request: OrderRequest,
    idempotencyKey: string | undefined,
    opts: PlaceOptions,
  ): Promise<OrderResponse> {
    const symbol = this.supported(request.symbol);
    const order = marketOrder(symbol, request);
    const origin = opts.origin ?? { source: request.source ?? 'manual' };
    for (const guard of this.guards) await guard(userId, request);
    await this.ensureMark(symbol);
    if (idempotencyKey === undefined) {
      const where = await this.target(userId, opts.account);
      const newClientOrderId = `sc-${randomUUID().replaceAll('-', '')}`;
      let result: OrderResult;
      try {
        result = await where.adapter.placeMarketOrder(where.account, { ...order, newClientOrderId });
      } catch (err) {
        if (!(err instanceof OrderOutcomeUnknown)) throw refusal(err);
        const found = await this.lookUp(where, newClientOrderId, symbol);
        if (found === null) throw unknownOutcome(err);
        result = found;
      }
      return this.conclude(userId, undefined, where, result, origin);
    }
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw appError('BAD_REQUEST', 'Idempotency-Key must be 8 to 128 printable characters.');
    }
    const requestHash = hash(
      `${symbol}|${order.side}|${request.type}|${request.amount}` +
        (request.maxNotional === undefined ? '' : `|${request.maxNotional}`),
    );
    const clientOrderId = clientIdFor(userId, idempotencyKey);
    if (!CLIENT_ID.test(clientOrderId)) throw new Error(`bad client order id ${clientOrderId}`);
    const current = await this.target(userId, opts.account);
    // A first use is recorded as sent at once: nothing happens between taking the key and sending.
    const held = await this.idempotency.claim(
      userId,
      idempotencyKey,
      { requestHash, clientOrderId, account: current.name, symbol },
      'sent',
    );
    let where = current;
    if (!held.fresh) {
      if (held.requestHash !== requestHash) {
        throw appError('CONFLICT', 'This Idempotency-Key was already used for a different order.');
      }
      // A retry goes where the first try went, and is answered from what that try did.
      where = await this.accounts.byName(userId, held.account);
      // A try still in flight (a concurrent retry): wait for its outcome rather than race it.
      const latest = await this.awaitInFlight(userId, idempotencyKey, held);
      const settled = await this.settleEarlier(userId, idempotencyKey, where, latest, symbol, origin);
      if (settled !== null) return settled;
    }
    return this.send(userId, idempotencyKey, where, { ...order, newClientOrderId: clientOrderId }, origin);
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
      await this.sleep(IN_FLIGHT_POLL_MS);
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
    // Sent, not found: it may still arrive until Binance's recvWindow has passed; only then send again.
    if (this.now() - held.updatedAt.getTime() < this.settleMs) {
      throw appError('OUTCOME_UNKNOWN', UNKNOWN_TEXT);
    }
    if (await this.idempotency.markSent(userId, key, 'sent', held.updatedAt)) return null;
    throw appError('CONFLICT', 'This order is already being placed.');
  }

  private async send(
    userId: string,
    key: string,
    where: ResolvedAccount,
    order: MarketOrderRequest,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    let result: OrderResult;
    try {
      result = await where.adapter.placeMarketOrder(where.account, order);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === -4116) {
        // Duplicate client id: the order is there already.
        const earlier = await where.adapter.queryOrder(where.account, order.newClientOrderId, order.symbol);
        if (earlier) return this.conclude(userId, key, where, earlier, origin);
      }
      if (err instanceof OrderOutcomeUnknown) {
        const found = await this.lookUp(where, order.newClientOrderId, order.symbol);
        // Not found: left `sent`, so a retry with the same key looks it up again before sending anything.
        if (found === null) throw unknownOutcome(err);
        return this.conclude(userId, key, where, found, origin);
      }
      // Rate-limited: refused before it reached the order book, so the key may be sent again later.
      if (err instanceof BinanceRateLimited) await this.idempotency.release(userId, key);
      else if (err instanceof ExchangeError) await this.idempotency.markFailed(userId, key, err.msg);
      throw refusal(err);
    }
    return this.conclude(userId, key, where, result, origin);
  }

  /**
   * Turns an order the venue knows into the answer: waits (within the settle time) for a working order
   * to end, then answers what it executed, whole or partial; an order that ended with nothing executed
   * is a refusal. Each is recorded on the key, so a retry answers the same.
   */
  private async conclude(
    userId: string,
    key: string | undefined,
    where: ResolvedAccount,
    result: OrderResult,
    origin: TradeOrigin,
  ): Promise<OrderResponse> {
    const final = await this.untilFinal(where, result, result.symbol);
    if (Number(final.executedQty) > 0) {
      if (key !== undefined) await this.idempotency.markFilled(userId, key, final.orderId);
      const fill = toResponse(final, where);
      await this.record(userId, where, fill, origin);
      // A person reads what their order did to the position; a rule's fill skips the extra look-up.
      return origin.source === 'rule'
        ? fill
        : this.withPositionChange(where, [fill]).then(([f]) => f ?? fill);
    }
    const refused = noFill(final);
    if (key !== undefined) await this.idempotency.markFailed(userId, key, refused.msg);
    throw refusal(refused);
  }

  /**
   * The fills with what each did to its position: the venue's position right after, less the fill, is
   * the position before. Left without it when the venue cannot be read (the fill stands).
   */
  private async withPositionChange(
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

  /** Looks a working order (NEW, PARTIALLY_FILLED) up until it ends, within the settle time. */
  private async untilFinal(
    where: ResolvedAccount,
    result: OrderResult,
    symbol: string,
  ): Promise<OrderResult> {
    let current = result;
    const deadline = this.now() + this.settleMs;
    while (!isFinal(current)) {
      if (this.now() >= deadline) throw stillWorking(current);
      await this.sleep(Math.min(WORKING_POLL_MS, this.settleMs));
      const seen = await where.adapter
        .queryOrder(where.account, current.clientOrderId, symbol)
        .catch(() => null);
      if (seen !== null) current = { ...seen, sizing: current.sizing ?? seen.sizing };
    }
    return current;
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

  /**
   * Reduce-only, on `account`: closes up to `quantity` of the position on `symbol` that an order of
   * `opened` built, never more and never the other way (an exit closes what its decision opened). Null
   * when nothing of it is left (closed by hand).
   */
  async reducePosition(
    userId: string,
    account: string,
    request: { symbol: string; opened: 'long' | 'short'; quantity: number; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | null> {
    const symbol = this.supported(request.symbol);
    await this.ensureMark(symbol);
    const where = await this.accounts.byName(userId, account);
    const order = {
      symbol,
      opened: request.opened === 'long' ? 'BUY' : 'SELL',
      quantity: String(request.quantity),
      clientOrderId: request.clientOrderId,
    } as const;
    try {
      let result: OrderResult | null;
      try {
        result = await where.adapter.reducePosition(where.account, order);
      } catch (err) {
        if (!(err instanceof OrderOutcomeUnknown)) throw err;
        result = await this.lookUp(where, order.clientOrderId, symbol);
        if (result === null) throw unknownOutcome(err);
      }
      return result === null ? null : await this.conclude(userId, undefined, where, result, origin);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  /**
   * The fill the paper exchange would give this order now, on the user's paper account, without placing
   * it: a live order's shadow twin. A refusal comes back as its text.
   */
  async paperTwin(
    userId: string,
    request: OrderRequest,
  ): Promise<{ price: number; quantity: number; fee: number } | { refused: string }> {
    try {
      const symbol = this.supported(request.symbol);
      await this.ensureMark(symbol);
      const p = await this.paper.previewMarketOrder(userId, marketOrder(symbol, request));
      return { price: Number(p.fill.price), quantity: Number(p.fill.qty), fee: Number(p.fill.fee) };
    } catch (err) {
      return { refused: err instanceof ExchangeError ? err.msg : 'The paper exchange refused it.' };
    }
  }

  /** What the order would do on the chosen account, or on `account` ('paper' or a key id) when given. */
  async preview(userId: string, request: OrderRequest, account?: string): Promise<OrderPreview> {
    const symbol = this.supported(request.symbol);
    const order = marketOrder(symbol, request);
    const side = order.side;
    const where = await this.target(userId, account);
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

  /** Open positions on the chosen account, or on `account` ('paper' or a key id) when given. */
  async positions(userId: string, account?: string): Promise<Position[]> {
    const where = await this.target(userId, account);
    const rows = await where.adapter.positionRisk(where.account).catch((err: unknown) => {
      throw refusal(err);
    });
    return rows.filter((r) => Number(r.positionAmt) !== 0).map(toPosition);
  }

  /** Closes one position on the chosen account; the answer names the closing fill (PnL, fee, venue). */
  async closePosition(userId: string, pair: string): Promise<CloseResponse> {
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
      const fill = toResponse(result, where);
      await this.record(userId, where, fill, { source: 'manual' });
      const [told = fill] = await this.withPositionChange(where, [fill]);
      return { message: closedText(told), fill: told };
    } catch (err) {
      throw refusal(err);
    }
  }

  /** Closes every position on the chosen account; one fill per position closed. */
  async closeAll(userId: string): Promise<CloseAllResponse> {
    const where = await this.accounts.resolve(userId);
    const open = await where.adapter.positionRisk(where.account);
    await Promise.all(open.map((p) => this.ensureMark(p.symbol)));
    try {
      const results = await where.adapter.closeAllPositions(
        where.account,
        `sc-all-${randomUUID().slice(0, 8)}`,
      );
      if (results.length === 0) return { message: 'There are no open positions to close.', fills: [] };
      const fills = results.map((r) => toResponse(r, where));
      for (const fill of fills) await this.record(userId, where, fill, { source: 'manual' });
      const told = await this.withPositionChange(where, fills);
      return { message: closedAllText(told), fills: told };
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

/** The exchange's order for a request, before its client id: side, USDT amount and the fat-finger cap. */
function marketOrder(symbol: string, request: OrderRequest): Omit<MarketOrderRequest, 'newClientOrderId'> {
  return {
    symbol,
    side: request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL',
    quoteAmount: String(request.amount),
    ...(request.maxNotional === undefined ? {} : { maxNotional: String(request.maxNotional) }),
  };
}
