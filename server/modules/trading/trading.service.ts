import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import {
  exchangeSymbol,
  pairOf,
  type OrderVenue,
  type Balance,
  type OrderPreview,
  type OrderRequest,
  type OrderResponse,
  type Position,
  type CloseAllResponse,
  type CloseResponse,
  type TradesPage,
  type ClosedTradesPage,
  type TradesQuery,
} from '../../../src/contracts/trading';
import type { ProtectionInput, ProtectionReceipt } from '../../../src/contracts/protection';
import { findSymbol } from '../../../src/contracts/symbols';
import type { AccountVenue } from '../../../src/contracts/venues';
import { AppError, appError } from '../../plugins/errors';
import { systemClock, type Clock } from '../market/clock';
import type { AccountResolver, ResolvedAccount } from './accounts';
import type { OrderResult } from './exchange';
import { CloseAllIncomplete, ExchangeError, OrderOutcomeUnknown } from './exchange-error';
import { closeUnknown, noFill, refusal, toPosition, toResponse } from './order-outcome';
import type { IdempotencyRepo } from './idempotency.repo';
import { sleepOn } from './in-flight';
import { paperPreviewAnswer, venuePreviewAnswer } from './order-preview';
import { minimumOrderOf } from './minimum-order';
import { marketOrder, orderToSend } from './order-request';
import { OrderSender } from './order-send';
import { SlippageGuard } from './slippage';
import { LimitDesk } from './limit-desk';
import type { PaperExchange } from './paper/paper-exchange';
import type { ProtectionService } from './protection/protection.service';
import { closedTrades } from './closed-trades';
import { closeShareOn, shareClientId } from './position-share';
import { closedAllText, closedText, type TradeLog, type TradeOrigin } from './trade-log';

/** A close-all's closes once looked up: the fills, the closes refused (in words), those still unknown. */
interface SettledCloses {
  results: readonly OrderResult[];
  notClosed: string[];
  unknown: { symbol: string; reason: string }[];
}

/** Whether the venue told a fill's fee and realised PnL. */
const feesKnown = (r: OrderResult): boolean => r.commission !== null && r.realizedPnl !== null;

/** Where a placed order goes instead of the user's chosen account: 'paper' or one of their key ids. */
export interface PlaceOptions {
  account?: string;
  /** What placed it, for the trade history; by default the request's own `source`, else manual. */
  origin?: TradeOrigin;
}

/**
 * A check every order passes before it is sent (the risk envelope's maximum order size); throws to
 * refuse. `account` is where the order goes when the caller named it, else the user's chosen account.
 */
export type OrderGuard = (userId: string, request: OrderRequest, account?: string) => Promise<void>;

/** How long after sending an order whose outcome is unknown it may still appear (Binance's recvWindow + slack). */
export const UNKNOWN_SETTLE_MS = 6_000;

/** How many of the newest fills the Closed tab is worked out from. */
export const CLOSED_HISTORY_FILLS = 20_000;

export interface TradingServiceOptions {
  /** Waits between look-ups of an order whose outcome is unknown (default {@link UNKNOWN_SETTLE_MS}). */
  settleMs?: number;
  /** Time for every wait on an order (default: the system clock). */
  clock?: Clock;
  /** Overrides the clock's waits between look-ups. */
  sleep?: (ms: number) => Promise<void>;
  /** Overrides the clock's time. */
  now?: () => number;
  /** The trade history every fill is written to (none: nothing is recorded). */
  trades?: TradeLog;
  /** A fill that could not be written to the history (the order stands; its answer is sent). */
  onRecordError?: (err: unknown, userId: string, orderId: string) => void;
  /** When a fill whose fee was not told is asked about again (see {@link OrderSendOptions.feeRetryMs}). */
  feeRetryMs?: readonly number[];
  /** The last price of a symbol: what a paper fill's slippage is measured against. */
  price?: (symbol: string) => number | undefined;
}

/**
 * The trading rules: validates and routes orders to the user's exchange, makes retries safe with the
 * Idempotency-Key, and turns Binance-shaped answers into the product's. Exchange refusals become a 400
 * whose detail is the exchange's own message.
 */
export class TradingService {
  private guards: OrderGuard[] = [];
  private readonly trades: TradeLog | undefined;
  /** Claims, sends, looks up and records each order. */
  private readonly sender: OrderSender;
  /** Each position's stop, target, trailing stop and time exit (none: orders carry no protection). */
  private protection: ProtectionService | null = null;
  private readonly clockNow: () => number;
  /** Market orders with a slippage cap: estimated from the book before sending, sent within it. */
  readonly slippage: SlippageGuard;
  /** Limit orders: placed, previewed, listed and cancelled (the routes list and cancel through it). */
  readonly limits: LimitDesk;

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
    const base = opts.clock ?? systemClock;
    const clock: Clock = { now: opts.now ?? (() => base.now()), setTimer: (fn, ms) => base.setTimer(fn, ms) };
    this.clockNow = () => clock.now();
    this.trades = opts.trades;
    this.slippage = new SlippageGuard(async (userId, order) => {
      const { fill } = await this.paper.previewMarketOrder(userId, order);
      const last = opts.price?.(order.symbol);
      return { reference: new Decimal(last ?? fill.price), average: new Decimal(fill.price), covered: true };
    });
    this.sender = new OrderSender(accounts, idempotency, {
      settleMs: opts.settleMs ?? UNKNOWN_SETTLE_MS,
      clock,
      sleep: opts.sleep ?? ((ms) => sleepOn(clock, ms)),
      trades: opts.trades,
      onRecordError: opts.onRecordError ?? (() => undefined),
      ...(opts.feeRetryMs === undefined ? {} : { feeRetryMs: opts.feeRetryMs }),
    });
    this.limits = new LimitDesk(accounts, idempotency, this.sender, clock);
  }

  /** The service that rests each position's legs on its venue (set once the module has built it). */
  useProtection(protection: ProtectionService): void {
    this.protection = protection;
  }

  /** Stops the asks for fees not told yet (shutdown). */
  stop(): void {
    this.sender.stop();
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

  /**
   * `GET /api/trades/closed`: the parts of positions the fills closed, newest first, worked out from the
   * newest {@link CLOSED_HISTORY_FILLS} fills (a position opened before them has its entry from its PnL).
   */
  async closedHistory(userId: string, query: { limit: number; account?: string }): Promise<ClosedTradesPage> {
    if (this.trades === undefined) return { closed: [] };
    const fills = await this.trades.history(userId, {
      limit: CLOSED_HISTORY_FILLS,
      ...(query.account === undefined ? {} : { account: query.account }),
    });
    return { closed: closedTrades(fills).slice(0, query.limit) };
  }

  /** `account`: where this user's orders go. */
  account(userId: string) {
    return this.accounts.state(userId);
  }

  /** `account reset`: the paper account back to its starting balance with nothing open. */
  async resetPaper(userId: string): Promise<void> {
    await this.paper.reset(userId);
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
    const final = await this.sender.untilFinal(where, earlier, held.symbol);
    return Number(final.executedQty) > 0 ? toResponse(final, where) : null;
  }

  /** Where an order goes: `account` ('paper' or a key id) when given, else the account the user chose. */
  private target(userId: string, account: string | undefined): Promise<ResolvedAccount> {
    return account === undefined ? this.accounts.resolve(userId) : this.accounts.byName(userId, account);
  }

  /** The account `account` names ('paper' or one of the user's keys), as an order's answer names it. */
  async venueOf(userId: string, account: string): Promise<OrderVenue> {
    const where = await this.accounts.byName(userId, account);
    return { venue: where.venue, mode: where.mode, keyHint: where.keyHint };
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
    const started = performance.now();
    try {
      const answer = await this.placeOrderOnce(userId, request, idempotencyKey, opts);
      const total = Math.round((performance.now() - started) * 10) / 10;
      return answer.timing === null ? answer : { ...answer, timing: { ...answer.timing, total_ms: total } };
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
    const origin = opts.origin ?? { source: request.source ?? 'manual' };
    for (const guard of this.guards) await guard(userId, request, opts.account);
    await this.ensureMark(symbol);
    if (request.type === 'limit') {
      const target = await this.target(userId, opts.account);
      return this.limits.place(userId, target, symbol, request, idempotencyKey, origin);
    }
    const { order, requestHash } = orderToSend(userId, symbol, request, idempotencyKey);
    const guarded = await this.slippage
      .guard(userId, await this.target(userId, opts.account), order, request.maxSlippagePct)
      .catch((err: unknown) => {
        throw refusal(err);
      });
    const where = guarded.where;
    const answer = guarded.finish(
      idempotencyKey === undefined || requestHash === undefined
        ? await this.sender.sendUnkeyed(userId, where, order, origin)
        : await this.sender.sendKeyed(userId, idempotencyKey, where, order, requestHash, origin),
    );
    if (this.protection === null) return answer;
    // The legs go on as soon as the fill is known; the answer says how long the position was bare.
    const filledAt = this.clockNow();
    const receipt = await this.protection.afterOrder(
      userId,
      where.name,
      symbol,
      request.protection,
      filledAt,
    );
    return receipt === null ? answer : { ...answer, protection: receipt };
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
      return await this.sender.sendReduce(userId, where, order, origin);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw refusal(err);
    }
  }

  /**
   * A reduce sent earlier under `clientOrderId` on `account`, looked up on the venue before any resend:
   * its fill (recorded in the trade history, once), 'unfilled' when the venue ended it with nothing
   * executed (that client id is spent), or null when the venue has no such order. Throws when the venue
   * does not answer, or while the order is still working.
   */
  async findReduce(
    userId: string,
    account: string,
    request: { symbol: string; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | 'unfilled' | null> {
    const symbol = this.supported(request.symbol);
    const where = await this.accounts.byName(userId, account);
    try {
      const found = await where.adapter.queryOrder(where.account, request.clientOrderId, symbol);
      if (found === null) return null;
      const final = await this.sender.untilFinal(where, found, symbol);
      if (!(Number(final.executedQty) > 0)) return 'unfilled';
      return await this.sender.conclude(userId, undefined, where, final, origin);
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
    if (request.type === 'limit') {
      await this.ensureMark(symbol);
      return this.limits.preview(userId, await this.target(userId, account), symbol, request, this.paper);
    }
    const order = marketOrder(symbol, request);
    const side = order.side;
    const where = await this.target(userId, account);
    try {
      if (where.adapter.previewOnVenue !== undefined) {
        return venuePreviewAnswer(
          symbol,
          request,
          side,
          await where.adapter.previewOnVenue(where.account, order),
        );
      }
      await this.ensureMark(symbol);
      return paperPreviewAnswer(symbol, request, side, await this.paper.previewMarketOrder(userId, order));
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
    const open = rows.filter((r) => Number(r.positionAmt) !== 0).map(toPosition);
    if (this.protection === null || open.length === 0) return open;
    const guarded = await this.protection.view(userId, where.name);
    return open.map((p) => ({ ...p, protection: guarded.get(exchangeSymbol(p.symbol)) ?? p.protection }));
  }

  /** `PUT /api/positions/{SYMBOL}/protection`, on the chosen account. */
  async setProtection(userId: string, symbol: string, input: ProtectionInput) {
    const { guard, where } = await this.protectionOf(userId, symbol);
    const protection = await guard.set(userId, where.name, this.supported(symbol), input);
    return { message: protectionText(symbol, protection), protection };
  }

  /** `DELETE /api/positions/{SYMBOL}/protection`. */
  async removeProtection(userId: string, symbol: string) {
    const { guard, where } = await this.protectionOf(userId, symbol);
    const protection = await guard.remove(userId, where.name, this.supported(symbol));
    return { message: `${pairOf(symbol)} is no longer protected: its legs were cancelled.`, protection };
  }

  /** `POST /api/positions/{SYMBOL}/protection/break-even`. */
  async breakEven(userId: string, symbol: string) {
    const { guard, where } = await this.protectionOf(userId, symbol);
    const protection = await guard.breakEven(userId, where.name, this.supported(symbol));
    return { message: protectionText(symbol, protection), protection };
  }

  private async protectionOf(userId: string, symbol: string) {
    if (this.protection === null) throw appError('SERVICE_UNAVAILABLE', 'Protection is not available.');
    this.supported(symbol);
    await this.ensureMark(exchangeSymbol(symbol));
    return { guard: this.protection, where: await this.accounts.resolve(userId) };
  }

  /** How many positions are open on `account`: what the risk envelope's maximum counts. */
  async openPositionCount(userId: string, account: string): Promise<number> {
    const where = await this.target(userId, account);
    try {
      if (where.adapter.openPositionCount !== undefined)
        return await where.adapter.openPositionCount(where.account);
      return (await where.adapter.positionRisk(where.account)).filter((r) => Number(r.positionAmt) !== 0)
        .length;
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * Closes one position on the chosen account; the answer names the closing fill (PnL, fee, venue). A
   * close without a clear answer is looked up by its client id, as an order is: the fill, the venue's
   * refusal, or 503 while it is still not known.
   */
  async closePosition(userId: string, pair: string): Promise<CloseResponse> {
    const symbol = this.supported(pair);
    await this.ensureMark(symbol);
    const where = await this.accounts.resolve(userId);
    const clientOrderId = `sc-close-${randomUUID()}`.slice(0, 36);
    try {
      let result: OrderResult | null;
      try {
        result = await where.adapter.closePosition(where.account, symbol, clientOrderId);
      } catch (err) {
        if (!(err instanceof OrderOutcomeUnknown)) throw err;
        const found = await this.sender.lookUp(where, clientOrderId, symbol);
        if (found === null) throw closeUnknown([pairOf(symbol)], err.reason, '', where.venue);
        result = found;
      }
      if (!result) throw appError('NOT_FOUND', `No open ${pairOf(symbol)} position.`);
      const final = await this.sender.withLateFees(
        where,
        await this.sender.untilFinal(where, result, symbol),
      );
      if (!(Number(final.executedQty) > 0)) throw noFill(final, where.venue);
      const fill = toResponse(final, where);
      await this.sender.record(userId, where, fill, { source: 'manual' }, final);
      // Closed by hand: its legs must not stay behind to open a new position.
      void this.protection?.positionClosed(userId, where.name, symbol);
      const [told = fill] = await this.sender.withPositionChange(where, [fill]);
      return { message: closedText(told, feesKnown(final)), fill: told };
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * `close btc 50%`: a reduce-only market order of `share` of the position, down to the step; refused
   * when that rounds below the smallest order. Under an Idempotency-Key a retry answers the first fill.
   */
  async closeShare(userId: string, pair: string, share: number, key?: string): Promise<CloseResponse> {
    const symbol = this.supported(pair);
    await this.ensureMark(symbol);
    const where = await this.accounts.resolve(userId);
    const origin: TradeOrigin = { source: 'manual' };
    const deps = {
      sendReduce: (w: ResolvedAccount, order: Parameters<OrderSender['sendReduce']>[2]) =>
        this.sender.sendReduce(userId, w, order, origin),
      conclude: (w: ResolvedAccount, result: OrderResult) =>
        this.sender.conclude(userId, undefined, w, result, origin),
      origin,
    };
    try {
      return await closeShareOn(deps, where, {
        symbol,
        share,
        clientOrderId: shareClientId(userId, key),
        retry: key !== undefined,
      });
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * Closes every position on the chosen account; one fill per position closed. A close without a clear
   * answer is looked up by its client id; one still unknown after that makes the answer a 503 that names
   * it (the fills found are recorded all the same). A refused close is named beside the fills.
   */
  async closeAll(userId: string): Promise<CloseAllResponse> {
    const where = await this.accounts.resolve(userId);
    try {
      const open = await where.adapter.positionRisk(where.account);
      await Promise.all(open.map((p) => this.ensureMark(p.symbol)));
      let settled: SettledCloses;
      try {
        const results = await where.adapter.closeAllPositions(
          where.account,
          `sc-all-${randomUUID().slice(0, 8)}`,
        );
        settled = { results, notClosed: [], unknown: [] };
      } catch (err) {
        if (!(err instanceof CloseAllIncomplete)) throw err;
        settled = await this.settleCloses(where, err);
      }
      const { results, notClosed, unknown } = settled;
      const fills = results.map((r) => toResponse(r, where));
      for (const [i, fill] of fills.entries()) {
        await this.sender.record(userId, where, fill, { source: 'manual' }, results[i]);
      }
      for (const r of results) void this.protection?.positionClosed(userId, where.name, r.symbol);
      const told = await this.sender.withPositionChange(where, fills);
      const closed = told.length === 0 ? [] : [closedAllText(told, results.every(feesKnown))];
      if (unknown.length > 0) {
        throw closeUnknown(
          unknown.map((u) => pairOf(u.symbol)),
          [...new Set(unknown.map((u) => u.reason))].join('; '),
          [...closed, ...notClosed].join(' '),
          where.venue,
        );
      }
      if (told.length === 0 && notClosed.length === 0) {
        return { message: 'There are no open positions to close.', fills: [] };
      }
      if (told.length === 0) throw appError('BAD_REQUEST', notClosed.join(' '));
      return { message: [...closed, ...notClosed].join(' '), fills: told };
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * What the closes of a close-all that did not simply fill came to: each unknown one looked up (a fill,
   * an end without a fill, or still unknown), each refused one in the venue's words.
   */
  private async settleCloses(where: ResolvedAccount, incomplete: CloseAllIncomplete): Promise<SettledCloses> {
    const results = [...incomplete.fills];
    const notClosed: string[] = [];
    const unknown: { symbol: string; reason: string }[] = [];
    for (const u of incomplete.unknown) {
      let final: OrderResult | null = null;
      try {
        const found = await this.sender.lookUp(where, u.clientOrderId, u.symbol);
        if (found !== null) final = await this.sender.untilFinal(where, found, u.symbol);
      } catch {
        // Still working after the settle time: as unknown as not found.
        final = null;
      }
      if (final === null) unknown.push({ symbol: u.symbol, reason: u.reason });
      else if (Number(final.executedQty) > 0) results.push(await this.sender.withLateFees(where, final));
      else notClosed.push(`${pairOf(u.symbol)} was not closed: ${noFill(final, where.venue).msg}`);
    }
    for (const r of incomplete.refused) {
      const answer = refusal(r.error);
      const detail = answer instanceof AppError ? answer.detail : 'the close failed; nothing was placed.';
      notClosed.push(`${pairOf(r.symbol)} was not closed: ${detail}`);
    }
    return { results, notClosed, unknown };
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

  /** The wallet balance of `account` (none: the chosen one) in USDT, null when its venue did not say. */
  async walletBalance(
    userId: string,
    account?: string,
  ): Promise<{ venue: AccountVenue; balance: number | null }> {
    const where = await this.target(userId, account);
    const b = await where.adapter.balance(where.account).catch(() => null);
    const balance = b === null ? NaN : Number(b.balance);
    return { venue: where.venue, balance: Number.isFinite(balance) ? balance : null };
  }

  /** The smallest order `account` takes on `symbol` in USDT, at `price` when known; null: not listed. */
  async minimumOrder(userId: string, account: string, symbol: string, price?: number) {
    const where = await this.target(userId, account);
    const usd = await minimumOrderOf(where.adapter, this.supported(symbol), price);
    return usd === null ? null : { venue: where.venue, usd };
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

export { clientIdFor } from './order-request';

/** "BTC/USDT: stop loss 95000 resting on the exchange, take profit 105000 resting on the exchange." */
function protectionText(symbol: string, p: ProtectionReceipt): string {
  const legs = [
    p.stop_loss && `stop loss ${p.stop_loss.price} ${p.stop_loss.state} on the ${p.stop_loss.on}`,
    p.take_profit && `take profit ${p.take_profit.price} ${p.take_profit.state} on the ${p.take_profit.on}`,
    p.trailing && `trailing stop ${p.trailing.callback_pct}% ${p.trailing.state} on the ${p.trailing.on}`,
    p.exit_at && `exit at ${p.exit_at} in the app`,
  ].filter((l): l is string => typeof l === 'string');
  const head = `${pairOf(exchangeSymbol(symbol))}: ${legs.length === 0 ? 'no protection' : legs.join(', ')}.`;
  return p.note === null ? head : `${head} ${p.note}`;
}
