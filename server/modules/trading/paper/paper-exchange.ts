import Decimal from 'decimal.js';
import type {
  AccountBalance,
  ConditionalOrder,
  ConditionalOrderRequest,
  ExchangeAdapter,
  ExchangeEvent,
  KeyClaim,
  LimitOrderRequest,
  MarketOrderRequest,
  OrderResult,
  PositionRisk,
  RestingOrder,
} from '../exchange';
import { ExchangeError } from '../exchange-error';
import { STARTING_BALANCE, type LedgerEvent } from './account';
import type { LedgerRepo } from './ledger.repo';
import { ZERO } from './math';
import { AccountStore } from './account-store';
import { ConditionalOrders } from './conditional-orders';
import { LimitOrders } from './limit-orders';
import { MarketOrders } from './market-orders';
import { checkLeverage, planMarketOrder } from './orders';
import { Liquidations } from './liquidations';
import { accountUpdate, toOrderResult } from './paper-events';
import { balanceOf, positionRiskAt } from './projections';
import { rehearseOrderPath } from '../../../warm/order-path';
import { SNAPSHOT_EVERY } from './snapshot';

export { MAX_ATTEMPTS } from './account-store';

/** Where the paper exchange reads prices from (the trading module's mark book). */
export interface MarkSource {
  /** The price positions are marked at: liquidation checks, unrealised PnL, `markPrice`. */
  price(symbol: string): number | undefined;
  /** The price a market order fills around (the last trade); `price` when absent or unknown. */
  fillPrice?(symbol: string): number | undefined;
}

export interface PaperExchangeOptions {
  repo: LedgerRepo;
  marks: MarkSource;
  now?: () => number;
  slippageBps?: number;
  takerFeeRate?: Decimal.Value;
  /** A resting limit order's fee when it fills (Binance USD-M's default maker rate, 0.02 %). */
  makerFeeRate?: Decimal.Value;
  onLiquidation?: (account: string, symbol: string, price: string) => void;
  /**
   * Ledger rows between snapshots of an account's state (default SNAPSHOT_EVERY). `null` neither writes
   * nor reads snapshots: every load replays the whole ledger.
   */
  snapshotEvery?: number | null;
  /** A snapshot could not be written; the account is fine, its next load only replays more. */
  onSnapshotError?: (account: string, err: unknown) => void;
  /** Waits between attempts after a conflict with another process (injected so tests can skip it). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The default exchange: one paper account per user, 10 000 USDT to start, isolated margin, one-way
 * mode. Each account's operations run one at a time, and every change is a ledger row written before the
 * state it produces is used, so a crash can lose an answer but never book a fill twice.
 */
export class PaperExchange implements ExchangeAdapter {
  readonly kind = 'paper' as const;
  private readonly store: AccountStore;
  private readonly listeners = new Map<string, Set<(event: ExchangeEvent) => void>>();
  private readonly everyAccount = new Set<(account: string, event: ExchangeEvent) => void>();
  private readonly now: () => number;
  private readonly slippageBps: number;
  private readonly takerFeeRate: Decimal;
  /** Closes positions the mark has crossed the liquidation price of. */
  private readonly liquidations: Liquidations;
  /** Stops, targets and trailing stops resting on the accounts. */
  private readonly conditionals: ConditionalOrders;
  /** Limit orders resting on the accounts. */
  private readonly limits: LimitOrders;
  /** Market orders and closes, and the booking of every fill. */
  private readonly market: MarketOrders;

  constructor(private readonly opts: PaperExchangeOptions) {
    this.now = opts.now ?? Date.now;
    this.store = new AccountStore({
      repo: opts.repo,
      snapshotEvery: opts.snapshotEvery === undefined ? SNAPSHOT_EVERY : opts.snapshotEvery,
      ...(opts.onSnapshotError === undefined ? {} : { onSnapshotError: opts.onSnapshotError }),
      sleep: opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      onState: (account, state) => {
        this.conditionals.stateChanged(account, state);
        this.limits.stateChanged(account, state);
      },
    });
    this.slippageBps = opts.slippageBps ?? 2;
    this.takerFeeRate = new Decimal(opts.takerFeeRate ?? '0.0005');
    this.liquidations = new Liquidations({
      store: this.store,
      markPrice: (symbol) => opts.marks.price(symbol),
      mark: (symbol) => this.mark(symbol),
      now: this.now,
      emit: (account, event) => this.emit(account, event),
      announce: (account, before, after) => this.conditionals.announce(account, before, after),
      ...(opts.onLiquidation === undefined ? {} : { onLiquidation: opts.onLiquidation }),
    });
    this.conditionals = new ConditionalOrders({
      store: this.store,
      markPrice: (symbol) => opts.marks.price(symbol),
      now: this.now,
      planFill: (state, input) => planMarketOrder(state, input, this.conditions(input.symbol)),
      commitFill: (account, fill) => this.market.commitFill(account, fill),
      emit: (account, event) => this.emit(account, event),
    });
    this.limits = new LimitOrders({
      store: this.store,
      marketPrice: (symbol) => opts.marks.fillPrice?.(symbol) ?? opts.marks.price(symbol),
      now: this.now,
      slippageBps: this.slippageBps,
      takerFeeRate: this.takerFeeRate,
      makerFeeRate: new Decimal(opts.makerFeeRate ?? '0.0002'),
      commitFill: (account, fill) => this.market.commitFill(account, fill),
      commit: async (account, event) => (await this.commit(account, event)).after,
      tellAccount: (account, state, at) =>
        this.emit(
          account,
          accountUpdate('ORDER', state, at, (s) => this.mark(s)),
        ),
      emit: (account, event) => this.emit(account, event),
      filled: async (account, clientOrderId) =>
        (await this.opts.repo.findFill(account, clientOrderId)) !== undefined,
    });
    this.market = new MarketOrders({
      store: this.store,
      repo: opts.repo,
      now: this.now,
      conditions: (symbol) => this.conditions(symbol),
      mark: (symbol) => this.mark(symbol),
      emit: (account, event) => this.emit(account, event),
      announce: (account, before, after) => this.conditionals.announce(account, before, after),
      announceTriggered: (account, order, actualOrderId, at) =>
        this.conditionals.announceTriggered(account, order, actualOrderId, at),
    });
  }

  /**
   * Runs the order path on a scratch account in memory and drops what it gives (see rehearseOrderPath):
   * done at start, so that the first orders after a start do not pay for V8's optimising. In ms.
   */
  rehearse(symbols: readonly string[], rounds = 10): number {
    return rehearseOrderPath(
      {
        now: this.now,
        conditions: (symbol) => this.conditions(symbol),
        markPrice: (symbol) => this.opts.marks.price(symbol),
        mark: (symbol, fallback) => this.mark(symbol, fallback),
        takerFeeRate: this.takerFeeRate,
      },
      symbols,
      rounds,
    );
  }

  /**
   * Loads every account that has a ledger, so that their positions are watched for liquidation and their
   * conditional orders for the mark. Each is read afresh: a trailing stop's new best is not announced to
   * other processes, so what this one held of an account before it began watching may be behind.
   */
  async warmUp(): Promise<number> {
    const ids = await this.opts.repo.accounts();
    await Promise.all(
      ids.map((id) => {
        this.invalidate(id);
        return this.load(id);
      }),
    );
    return ids.length;
  }

  placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    return this.market.place(account, request);
  }

  /** The order and its Idempotency-Key in one ledger statement (see ExchangeAdapter). */
  placeKeyedMarketOrder(
    account: string,
    request: MarketOrderRequest,
    key: KeyClaim,
  ): Promise<OrderResult | null> {
    return this.market.placeKeyed(account, request, key);
  }

  /** What a market order would do now, without doing it. */
  previewMarketOrder(account: string, request: Omit<MarketOrderRequest, 'newClientOrderId'>) {
    return this.market.preview(account, request);
  }

  async queryOrder(account: string, clientOrderId: string): Promise<OrderResult | null> {
    const row = await this.opts.repo.findFill(account, clientOrderId);
    if (!row || row.event.type !== 'fill') return this.limits.query(account, clientOrderId);
    return toOrderResult(row.event, row.realizedPnl, row.createdAt.getTime());
  }

  /** A limit order: filled at once as a taker when it crosses, else resting with its margin held. */
  placeLimitOrder(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    return this.limits.place(account, request);
  }

  /** What a limit order would do now, without doing it (see LimitOrders.preview). */
  previewLimitOrder(account: string, request: Omit<LimitOrderRequest, 'newClientOrderId'>) {
    return this.limits.preview(account, request);
  }

  openOrders(account: string, symbol?: string, opts: { cached?: boolean } = {}): Promise<RestingOrder[]> {
    // Another process may have placed, filled or cancelled some: read the ledger, unless a copy will do.
    if (opts.cached !== true) this.invalidate(account);
    return this.limits.open(account, symbol);
  }

  cancelOrder(account: string, symbol: string, ref: { orderId?: string; clientOrderId?: string }) {
    return this.limits.cancel(account, symbol, ref);
  }

  /** Fills the resting limit orders the prices of `symbols` have crossed (on each price tick). */
  checkLimits(symbols: ReadonlySet<string>): Promise<void> {
    return this.limits.check(symbols);
  }

  closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    return this.market.close(account, symbol, clientOrderId);
  }

  reducePosition(
    account: string,
    request: { symbol: string; opened: 'BUY' | 'SELL'; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    return this.market.reduce(account, request);
  }

  closeAllPositions(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    return this.market.closeAll(account, clientOrderIdPrefix);
  }

  async positionRisk(account: string): Promise<PositionRisk[]> {
    const { state } = await this.load(account);
    const now = this.now();
    return [...state.positions.values()].map((p) =>
      positionRiskAt(p, this.opts.marks.price(p.symbol), this.takerFeeRate, now),
    );
  }

  async openPositionCount(account: string): Promise<number> {
    return (await this.load(account)).state.positions.size;
  }

  async balance(account: string): Promise<AccountBalance> {
    const { state } = await this.load(account);
    return balanceOf(state, (p) => this.mark(p.symbol, p.entryPrice), this.now());
  }

  async setLeverage(account: string, symbol: string, leverage: number) {
    checkLeverage(symbol, leverage);
    return this.serial(account, async () => {
      const { state } = await this.load(account);
      const open = state.positions.get(symbol);
      if (open && leverage < open.leverage) {
        throw new ExchangeError(
          -4161,
          'Leverage reduction is not supported in Isolated Margin Mode with open positions.',
        );
      }
      await this.commit(account, { type: 'leverage', symbol, leverage });
      return { symbol, leverage };
    });
  }

  /** Paper only: back to a fresh 10 000 USDT account with no positions and no conditional orders. */
  async reset(account: string): Promise<AccountBalance> {
    await this.serial(account, () =>
      this.commit(account, {
        type: 'deposit',
        amount: STARTING_BALANCE.toString(),
        reason: 'reset',
        at: this.now(),
      }),
    );
    this.emit(
      account,
      accountUpdate('DEPOSIT', (await this.load(account)).state, this.now(), (s) => this.mark(s)),
    );
    return this.balance(account);
  }

  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void {
    let set = this.listeners.get(account);
    if (!set) {
      set = new Set();
      this.listeners.set(account, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  /** Events of every account (the module fans them out to sockets and other processes). */
  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    this.everyAccount.add(handler);
    return () => {
      this.everyAccount.delete(handler);
    };
  }

  /**
   * Checks every loaded position in `symbols` against its liquidation price at the current mark, and
   * liquidates those the mark has crossed. Called on each price tick.
   */
  checkLiquidations(symbols: ReadonlySet<string>): Promise<void> {
    return this.liquidations.check(symbols);
  }

  /**
   * A stop, a take-profit or a trailing stop resting on the account until the mark fires it (Binance's
   * algo order, workingType MARK_PRICE). Refused with Binance's code: -2021 when the mark would fire it
   * at once, -4116 when an open order of the account has its clientAlgoId, and so on. Placing one with no
   * position open is allowed, as on Binance; there is no margin check before it fires.
   */
  placeConditional(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    return this.conditionals.place(account, request);
  }

  queryConditional(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.conditionals.query(account, symbol, clientAlgoId);
  }

  cancelConditional(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.conditionals.cancel(account, symbol, clientAlgoId);
  }

  openConditionals(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    return this.conditionals.open(account, symbol);
  }

  /**
   * Fires the conditional orders the marks of `symbols` have reached, and moves trailing stops along.
   * Called on each price tick; costs one look-up when no account has an order on those symbols.
   */
  checkConditionals(symbols: ReadonlySet<string>): Promise<void> {
    return this.conditionals.check(symbols);
  }

  private async commit(account: string, event: LedgerEvent) {
    const committed = await this.store.commit(account, event);
    this.conditionals.announce(account, committed.before.conditionals, committed.after.conditionals);
    return committed;
  }

  private load(account: string) {
    return this.store.load(account);
  }

  /** Forgets a cached account (another process changed it); the next use replays its ledger. */
  invalidate(account: string): void {
    this.store.invalidate(account);
  }

  private serial<T>(account: string, task: (retry: boolean) => Promise<T>): Promise<T> {
    return this.store.serial(account, task);
  }

  private conditions(symbol: string) {
    const price = this.opts.marks.fillPrice?.(symbol) ?? this.opts.marks.price(symbol);
    return {
      markPrice: new Decimal(price ?? 0),
      slippageBps: this.slippageBps,
      takerFeeRate: this.takerFeeRate,
    };
  }

  private mark(symbol: string, fallback: Decimal = ZERO): Decimal {
    const price = this.opts.marks.price(symbol);
    return price === undefined ? fallback : new Decimal(price);
  }

  private emit(account: string, event: ExchangeEvent): void {
    for (const handler of this.listeners.get(account) ?? []) handler(event);
    for (const handler of this.everyAccount) handler(account, event);
  }
}
