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
import type { AccountVenue } from '../../../src/contracts/venues';
import { appError } from '../../plugins/errors';
import { systemClock, type Clock } from '../market/clock';
import type { AccountResolver } from './accounts';
import { refusal, toPosition } from './order-outcome';
import type { IdempotencyRepo } from './idempotency.repo';
import { sleepOn } from './in-flight';
import { minimumOrderOf } from './minimum-order';
import { supportedSymbol } from './order-request';
import { OrderDesk, type OrderGuard, type PlaceOptions } from './order-desk';
import { OrderSender } from './order-send';
import { SlippageGuard } from './slippage';
import { LimitDesk } from './limit-desk';
import type { PaperExchange } from './paper/paper-exchange';
import { PositionCloses } from './position-closes';
import type { ProtectionService } from './protection/protection.service';
import { closedTrades } from './closed-trades';
import type { TradeLog, TradeOrigin } from './trade-log';

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
  private readonly trades: TradeLog | undefined;
  /** Claims, sends, looks up and records each order. */
  private readonly sender: OrderSender;
  /** New orders: guarded, sent, found again by their Idempotency-Key, previewed. */
  private readonly orders: OrderDesk;
  /** Orders that close what is open, by hand or for a rule's exit. */
  private readonly closes: PositionCloses;
  /** Each position's stop, target, trailing stop and time exit (none: orders carry no protection). */
  private protection: ProtectionService | null = null;
  /** Market orders with a slippage cap: estimated from the book before sending, sent within it. */
  readonly slippage: SlippageGuard;
  /** Limit orders: placed, previewed, listed and cancelled (the routes list and cancel through it). */
  readonly limits: LimitDesk;

  constructor(
    /** Each user's account: paper, or one of their keys. */
    private readonly accounts: AccountResolver,
    /** The paper exchange answers previews of paper accounts; live ones ask their venue. */
    private readonly paper: PaperExchange,
    idempotency: IdempotencyRepo,
    /** Makes sure a mark exists for the symbol (asks the market once when none was seen yet). */
    private readonly ensureMark: (symbol: string) => Promise<void>,
    opts: TradingServiceOptions = {},
  ) {
    const base = opts.clock ?? systemClock;
    const clock: Clock = { now: opts.now ?? (() => base.now()), setTimer: (fn, ms) => base.setTimer(fn, ms) };
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
    this.orders = new OrderDesk({
      accounts,
      paper,
      idempotency,
      sender: this.sender,
      slippage: this.slippage,
      limits: this.limits,
      ensureMark,
      protection: () => this.protection,
      now: () => clock.now(),
    });
    this.closes = new PositionCloses(accounts, this.sender, ensureMark, () => this.protection);
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
    return this.orders.addGuard(guard);
  }

  /** The order an Idempotency-Key placed, if it filled anything (see OrderDesk.findOrder). */
  findOrder(userId: string, idempotencyKey: string): Promise<OrderResponse | null> {
    return this.orders.findOrder(userId, idempotencyKey);
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
  placeOrder(
    userId: string,
    request: OrderRequest,
    idempotencyKey?: string,
    opts: PlaceOptions = {},
  ): Promise<OrderResponse> {
    return this.orders.placeOrder(userId, request, idempotencyKey, opts);
  }

  /** Reduce-only, on `account`: up to `quantity` of what `opened` built (see PositionCloses). */
  reducePosition(
    userId: string,
    account: string,
    request: { symbol: string; opened: 'long' | 'short'; quantity: number; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | null> {
    return this.closes.reducePosition(userId, account, request, origin);
  }

  /** A reduce sent earlier under `clientOrderId`, looked up on the venue before any resend. */
  findReduce(
    userId: string,
    account: string,
    request: { symbol: string; clientOrderId: string },
    origin: TradeOrigin = { source: 'manual' },
  ): Promise<OrderResponse | 'unfilled' | null> {
    return this.closes.findReduce(userId, account, request, origin);
  }

  /** The fill the paper exchange would give this order now, without placing it: a live order's twin. */
  paperTwin(
    userId: string,
    request: OrderRequest,
  ): Promise<{ price: number; quantity: number; fee: number } | { refused: string }> {
    return this.orders.paperTwin(userId, request);
  }

  /** What the order would do on the chosen account, or on `account` ('paper' or a key id) when given. */
  preview(userId: string, request: OrderRequest, account?: string): Promise<OrderPreview> {
    return this.orders.preview(userId, request, account);
  }

  /** Open positions on the chosen account, or on `account` ('paper' or a key id) when given. */
  async positions(userId: string, account?: string): Promise<Position[]> {
    const where = await this.accounts.target(userId, account);
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
    const protection = await guard.set(userId, where.name, supportedSymbol(symbol), input);
    return { message: protectionText(symbol, protection), protection };
  }

  /** `DELETE /api/positions/{SYMBOL}/protection`. */
  async removeProtection(userId: string, symbol: string) {
    const { guard, where } = await this.protectionOf(userId, symbol);
    const protection = await guard.remove(userId, where.name, supportedSymbol(symbol));
    return { message: `${pairOf(symbol)} is no longer protected: its legs were cancelled.`, protection };
  }

  /** `POST /api/positions/{SYMBOL}/protection/break-even`. */
  async breakEven(userId: string, symbol: string) {
    const { guard, where } = await this.protectionOf(userId, symbol);
    const protection = await guard.breakEven(userId, where.name, supportedSymbol(symbol));
    return { message: protectionText(symbol, protection), protection };
  }

  private async protectionOf(userId: string, symbol: string) {
    if (this.protection === null) throw appError('SERVICE_UNAVAILABLE', 'Protection is not available.');
    supportedSymbol(symbol);
    await this.ensureMark(exchangeSymbol(symbol));
    return { guard: this.protection, where: await this.accounts.resolve(userId) };
  }

  /** How many positions are open on `account`: what the risk envelope's maximum counts. */
  async openPositionCount(userId: string, account: string): Promise<number> {
    const where = await this.accounts.target(userId, account);
    try {
      if (where.adapter.openPositionCount !== undefined)
        return await where.adapter.openPositionCount(where.account);
      return (await where.adapter.positionRisk(where.account)).filter((r) => Number(r.positionAmt) !== 0)
        .length;
    } catch (err) {
      throw refusal(err);
    }
  }

  /** Closes one position on the chosen account; the answer names the closing fill. */
  closePosition(userId: string, pair: string): Promise<CloseResponse> {
    return this.closes.closePosition(userId, pair);
  }

  /** `close btc 50%`: a reduce-only market order of `share` of the position, down to the step. */
  closeShare(userId: string, pair: string, share: number, key?: string): Promise<CloseResponse> {
    return this.closes.closeShare(userId, pair, share, key);
  }

  /** Closes every position on the chosen account; one fill per position closed. */
  closeAll(userId: string): Promise<CloseAllResponse> {
    return this.closes.closeAll(userId);
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
    const where = await this.accounts.target(userId, account);
    const b = await where.adapter.balance(where.account).catch(() => null);
    const balance = b === null ? NaN : Number(b.balance);
    return { venue: where.venue, balance: Number.isFinite(balance) ? balance : null };
  }

  /** The smallest order `account` takes on `symbol` in USDT, at `price` when known; null: not listed. */
  async minimumOrder(userId: string, account: string, symbol: string, price?: number) {
    const where = await this.accounts.target(userId, account);
    const usd = await minimumOrderOf(where.adapter, supportedSymbol(symbol), price);
    return usd === null ? null : { venue: where.venue, usd };
  }

  async setLeverage(userId: string, pair: string, leverage: number): Promise<{ message: string }> {
    const symbol = supportedSymbol(pair);
    const where = await this.accounts.resolve(userId);
    try {
      await where.adapter.setLeverage(where.account, symbol, leverage);
    } catch (err) {
      throw refusal(err);
    }
    return { message: `Leverage for ${pairOf(symbol)} set to ${leverage}x.` };
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
