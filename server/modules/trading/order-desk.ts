import { performance } from 'node:perf_hooks';
import type { OrderPreview, OrderRequest, OrderResponse } from '../../../src/contracts/trading';
import { AppError } from '../../plugins/errors';
import type { AccountResolver } from './accounts';
import { ExchangeError } from './exchange-error';
import type { IdempotencyRepo } from './idempotency.repo';
import type { LimitDesk } from './limit-desk';
import { refusal, toResponse } from './order-outcome';
import { paperPreviewAnswer, venuePreviewAnswer } from './order-preview';
import { marketOrder, orderToSend, supportedSymbol } from './order-request';
import type { OrderSender } from './order-send';
import type { PaperExchange } from './paper/paper-exchange';
import type { ProtectionService } from './protection/protection.service';
import type { SlippageGuard } from './slippage';
import type { TradeOrigin } from './trade-log';

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

export interface OrderDeskDeps {
  /** Each user's account: paper, or one of their keys. */
  accounts: AccountResolver;
  /** The paper exchange answers previews of paper accounts; live ones ask their venue. */
  paper: PaperExchange;
  idempotency: IdempotencyRepo;
  /** Claims, sends, looks up and records each order. */
  sender: OrderSender;
  /** Market orders with a slippage cap: estimated from the book before sending, sent within it. */
  slippage: SlippageGuard;
  /** Limit orders: placed and previewed there. */
  limits: LimitDesk;
  /** Makes sure a mark exists for the symbol (asks the market once when none was seen yet). */
  ensureMark: (symbol: string) => Promise<void>;
  /** Each position's stop, target, trailing stop and time exit (none: orders carry no protection). */
  protection: () => ProtectionService | null;
  now: () => number;
}

/**
 * New orders, from the request to the answer: every guard passed, a market order sent within its
 * slippage cap (a limit order goes to the limit desk), its protection's legs placed once the fill is
 * known; the order an Idempotency-Key placed found again; and what an order would do, before it is sent.
 */
export class OrderDesk {
  private guards: OrderGuard[] = [];

  constructor(private readonly d: OrderDeskDeps) {}

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
    const held = await this.d.idempotency.get(userId, idempotencyKey);
    if (!held?.symbol) return null;
    const where = await this.d.accounts.byName(userId, held.account);
    const earlier = await where.adapter.queryOrder(where.account, held.clientOrderId, held.symbol);
    if (earlier === null) return null;
    const final = await this.d.sender.untilFinal(where, earlier, held.symbol);
    return Number(final.executedQty) > 0 ? toResponse(final, where) : null;
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
    const symbol = supportedSymbol(request.symbol);
    const origin = opts.origin ?? { source: request.source ?? 'manual' };
    for (const guard of this.guards) await guard(userId, request, opts.account);
    await this.d.ensureMark(symbol);
    if (request.type === 'limit') {
      const target = await this.d.accounts.target(userId, opts.account);
      return this.d.limits.place(userId, target, symbol, request, idempotencyKey, origin);
    }
    const { order, requestHash } = orderToSend(userId, symbol, request, idempotencyKey);
    const guarded = await this.d.slippage
      .guard(userId, await this.d.accounts.target(userId, opts.account), order, request.maxSlippagePct)
      .catch((err: unknown) => {
        throw refusal(err);
      });
    const where = guarded.where;
    const answer = guarded.finish(
      idempotencyKey === undefined || requestHash === undefined
        ? await this.d.sender.sendUnkeyed(userId, where, order, origin)
        : await this.d.sender.sendKeyed(userId, idempotencyKey, where, order, requestHash, origin),
    );
    const protection = this.d.protection();
    if (protection === null) return answer;
    // The legs go on as soon as the fill is known; the answer says how long the position was bare.
    const filledAt = this.d.now();
    const receipt = await protection.afterOrder(userId, where.name, symbol, request.protection, filledAt);
    return receipt === null ? answer : { ...answer, protection: receipt };
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
      const symbol = supportedSymbol(request.symbol);
      await this.d.ensureMark(symbol);
      const p = await this.d.paper.previewMarketOrder(userId, marketOrder(symbol, request));
      return { price: Number(p.fill.price), quantity: Number(p.fill.qty), fee: Number(p.fill.fee) };
    } catch (err) {
      return { refused: err instanceof ExchangeError ? err.msg : 'The paper exchange refused it.' };
    }
  }

  /** What the order would do on the chosen account, or on `account` ('paper' or a key id) when given. */
  async preview(userId: string, request: OrderRequest, account?: string): Promise<OrderPreview> {
    const symbol = supportedSymbol(request.symbol);
    if (request.type === 'limit') {
      await this.d.ensureMark(symbol);
      return this.d.limits.preview(
        userId,
        await this.d.accounts.target(userId, account),
        symbol,
        request,
        this.d.paper,
      );
    }
    const order = marketOrder(symbol, request);
    const side = order.side;
    const where = await this.d.accounts.target(userId, account);
    try {
      if (where.adapter.previewOnVenue !== undefined) {
        return venuePreviewAnswer(
          symbol,
          request,
          side,
          await where.adapter.previewOnVenue(where.account, order),
        );
      }
      await this.d.ensureMark(symbol);
      return paperPreviewAnswer(symbol, request, side, await this.d.paper.previewMarketOrder(userId, order));
    } catch (err) {
      throw refusal(err);
    }
  }
}
