import type { z } from 'zod';
import type { BinanceClient, BinanceCredentials } from '../../exchanges/binance-client';
import type {
  AccountBalance,
  ConditionalOrder,
  ConditionalOrderRequest,
  LiveExchangeAdapter,
  ExchangeEvent,
  LimitOrderRequest,
  MarketOrderRequest,
  OrderBookDepth,
  OrderResult,
  OrderSide,
  PositionRisk,
  RestingOrder,
  VenuePreview,
} from '../exchange';
import { exchangeErrors, readVenueAnswer } from '../exchange-error';
import type { Bracket, SymbolFilters } from '../paper/filters';
import { AccountEvents } from './account-events';
import {
  BalanceRows,
  LeverageAnswer,
  PositionRiskAnswer,
  SymbolConfigAnswer,
  UsdtBalance,
} from './binance-answers';
import { BinanceLimits } from './binance-limits';
import { BinanceOrders } from './binance-orders';
import { fromPositionRisk, type OrderFees } from './binance-shapes';
import { LiveConditionals } from './conditionals';
import { StreamFees } from './stream-fees';
import { previewLiveOrder } from './preview';
import type { UserStreamOptions } from './user-stream';
import { VenueInfo } from './venue-info';

export { UNKNOWN_OUTCOME_CODES } from './unknown-outcome';

export interface BinanceUsdmOptions {
  client: BinanceClient;
  /** The key of an account (`userId:keyId`), decrypted for the one call that needs it. */
  credentials(account: string): Promise<BinanceCredentials>;
  /** The latest price the app has seen for a symbol (the price feed); the REST ticker otherwise. */
  price?(symbol: string): number | undefined;
  /** How long exchangeInfo and leverage brackets are kept (default 1 h). */
  cacheMs?: number;
  /** How long an account's positionRisk answer is reused (default 2 s): the positions socket asks often. */
  positionsTtlMs?: number;
  /** The user-data stream (`{listenKey}` in the address); without it, accounts are read over REST only. */
  userStream?: Pick<UserStreamOptions, 'urlTemplate' | 'keepAliveMs' | 'backoffMs' | 'onProblem'>;
  now?: () => number;
}

interface Cached<T> {
  at: number;
  value: Promise<T>;
}

/**
 * The live adapter: Binance USD-M futures over signed REST, in the same shapes as the paper exchange.
 * One instance serves every account of one host (live or demo); an account is `userId:keyId`. The
 * client keeps its clock in step with Binance's and keeps connections alive; exchangeInfo and each
 * account's leverage brackets are cached ({@link VenueInfo}). A market order's USDT total becomes a
 * quantity by the symbol's lot step and minimum notional ({@link BinanceOrders}); an order whose outcome
 * is unknown (no answer, -1007, 5xx) is raised as OrderOutcomeUnknown for the caller to look up before
 * any retry.
 */
export class BinanceUsdmExchange implements LiveExchangeAdapter {
  readonly kind = 'binance-usdm' as const;
  readonly venue = 'binance' as const;
  private readonly positionsCache = new Map<string, Cached<PositionRisk[]>>();
  /** exchangeInfo, leverage brackets and taker rates, read seldom. */
  private readonly info: VenueInfo;
  /** Fills and user-data stream events, to subscribers. */
  private readonly events: AccountEvents;
  /** Each order's fee and realised PnL as the user-data stream reports its trades. */
  private readonly streamFees: StreamFees;
  /** Stops, targets and trailing stops resting on Binance's algo service. */
  private readonly conditionals: LiveConditionals;
  /** Limit orders, their cancels, and the order book. */
  private readonly limits: BinanceLimits;
  /** Market orders and closes, and their fills' fees. */
  private readonly orders: BinanceOrders;
  private readonly positionsTtl: number;
  private readonly now: () => number;

  constructor(private readonly opts: BinanceUsdmOptions) {
    this.positionsTtl = opts.positionsTtlMs ?? 2_000;
    this.now = opts.now ?? Date.now;
    this.info = new VenueInfo(
      opts.client,
      (account, path, params) => this.signed(account, 'GET', path, params),
      opts.cacheMs ?? 3_600_000,
      this.now,
    );
    this.streamFees = new StreamFees(this.now);
    this.conditionals = new LiveConditionals(
      (account, method, path, params, creds) => this.signed(account, method, path, params, creds),
      this.now,
    );
    this.limits = new BinanceLimits({
      signed: (account, method, path, params, creds) => this.signed(account, method, path, params, creds),
      publicGet: (path, params) => opts.client.publicGet(path, params),
      credentials: (account) => opts.credentials(account),
      filters: (symbol) => this.info.filters(symbol),
      withFees: (account, order, creds) => this.orders.withFees(account, order, creds),
      changed: (account, result) => {
        this.positionsCache.delete(account);
        if (result !== undefined) this.events.filled(account, result);
      },
    });
    this.orders = new BinanceOrders({
      signed: (account, method, path, params, creds) => this.signed(account, method, path, params, creds),
      read: (account, method, path, params, schema, what, creds) =>
        this.read(account, method, path, params, schema, what, creds),
      publicGet: (path, params) => opts.client.publicGet(path, params),
      credentials: (account) => opts.credentials(account),
      filters: (symbol) => this.info.filters(symbol),
      price: (symbol) => opts.price?.(symbol),
      positionRisk: (account, fresh) => this.positionRisk(account, fresh),
      streamFees: this.streamFees,
      sent: (account) => this.positionsCache.delete(account),
      filled: (account, result) => this.events.filled(account, result),
    });
    this.events = new AccountEvents({
      client: opts.client,
      credentials: (account) => opts.credentials(account),
      ...(opts.userStream === undefined ? {} : { userStream: opts.userStream }),
      now: this.now,
      changed: (account) => this.positionsCache.delete(account),
      streamed: (account, event) => this.streamFees.add(account, event),
    });
  }

  /** The symbol's filters from the cached exchangeInfo (MARKET_LOT_SIZE, MIN_NOTIONAL, PRICE_FILTER). */
  filters(symbol: string): Promise<SymbolFilters> {
    return this.info.filters(symbol);
  }

  /** The account's leverage brackets for a symbol (`GET /fapi/v1/leverageBracket`, cached). */
  bracketsOf(account: string, symbol: string): Promise<Bracket[]> {
    return this.info.bracketsOf(account, symbol);
  }

  placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    return this.orders.place(account, request);
  }

  /**
   * A limit order (GTC, IOC, or GTX post-only: Binance refuses one that would take with -5022), on the
   * symbol's tick and lot step; no clear answer is looked up by its client id, never sent again.
   */
  placeLimitOrder(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    return this.limits.place(account, request);
  }

  openOrders(account: string, symbol?: string): Promise<RestingOrder[]> {
    return this.limits.open(account, symbol);
  }

  /** Null when Binance holds it open no more (-2011, looked up): filled or cancelled meanwhile. */
  cancelOrder(...order: Parameters<BinanceLimits['cancel']>): Promise<RestingOrder | null> {
    return this.limits.cancel(...order);
  }

  depth(symbol: string, limit: number): Promise<OrderBookDepth> {
    return this.limits.depth(symbol, limit);
  }

  /**
   * What the order would do, from this venue's exchangeInfo, the account's leverage, brackets, taker
   * rate and position: sized by the same rule as {@link placeMarketOrder}, so the preview's quantity
   * is the fill's.
   */
  async previewOnVenue(
    account: string,
    request: Pick<MarketOrderRequest, 'symbol' | 'side' | 'quoteAmount' | 'maxNotional'>,
  ): Promise<VenuePreview> {
    const creds = await this.opts.credentials(account);
    const [filters, price, brackets, config, rate, positions] = await Promise.all([
      this.info.filters(request.symbol),
      this.orders.referencePrice(request.symbol),
      this.info.bracketsOf(account, request.symbol),
      this.read(
        account,
        'GET',
        '/fapi/v1/symbolConfig',
        { symbol: request.symbol },
        SymbolConfigAnswer,
        'the symbol configuration',
        creds,
      ),
      this.info.takerRate(account, request.symbol),
      this.positionRisk(account),
    ]);
    return previewLiveOrder(request, {
      filters,
      brackets,
      price,
      leverage: Number(config.find((c) => c.symbol === request.symbol)?.leverage ?? 20),
      takerRate: rate,
      position: positions.find((p) => p.symbol === request.symbol && Number(p.positionAmt) !== 0),
    });
  }

  queryOrder(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    return this.orders.query(account, clientOrderId, symbol);
  }

  closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    return this.orders.close(account, symbol, clientOrderId);
  }

  reducePosition(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    return this.orders.reduce(account, request);
  }

  /**
   * Closes each open position in turn. One close whose outcome is unknown, or that is refused, does not
   * stop the others: when any did not simply fill, {@link CloseAllIncomplete} carries the fills, the
   * unknown closes (to be looked up by their client ids) and the refused ones.
   */
  closeAllPositions(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    return this.orders.closeAll(account, clientOrderIdPrefix);
  }

  async positionRisk(account: string, fresh = false): Promise<PositionRisk[]> {
    const entry = this.positionsCache.get(account);
    if (!fresh && entry !== undefined && this.now() - entry.at < this.positionsTtl) return entry.value;
    const value = this.read(
      account,
      'GET',
      '/fapi/v3/positionRisk',
      {},
      PositionRiskAnswer,
      'the positions',
    ).then((rows) => rows.map(fromPositionRisk));
    this.positionsCache.set(account, { at: this.now(), value });
    value.catch(() => this.positionsCache.delete(account));
    return value;
  }

  async balance(account: string): Promise<AccountBalance> {
    const rows = await this.read(account, 'GET', '/fapi/v3/balance', {}, BalanceRows, 'the balance');
    const usdt = rows.find((r) => r.asset === 'USDT');
    if (usdt === undefined) {
      return { asset: 'USDT', balance: '0', availableBalance: '0', crossUnPnl: '0', updateTime: 0 };
    }
    return readVenueAnswer(UsdtBalance, usdt, 'the balance');
  }

  async setLeverage(account: string, symbol: string, leverage: number) {
    const brackets = await this.info.bracketsOf(account, symbol);
    const max = brackets[0]?.maxLeverage;
    if (max !== undefined && leverage > max) throw exchangeErrors.invalidLeverage();
    try {
      const answer = await this.read(
        account,
        'POST',
        '/fapi/v1/leverage',
        { symbol, leverage },
        LeverageAnswer,
        'the leverage change',
        undefined,
        'maybe',
      );
      return { symbol: answer.symbol, leverage: answer.leverage };
    } finally {
      this.positionsCache.delete(account);
    }
  }

  /** From the user-data stream once it covers the whole executed quantity, else the order's trades. */
  orderFees(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
  ): Promise<OrderFees | null> {
    return this.orders.fees(account, order);
  }

  /**
   * A stop or a target on the whole position (closePosition) or a reduce-only trailing stop, resting on
   * Binance on the mark price. A refusal is ExchangeError with Binance's code (-2021 would fire at once,
   * -4116 that client id is open already); no clear answer is OrderOutcomeUnknown (look it up by its
   * clientAlgoId before placing it again).
   */
  placeConditional(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    return this.conditionals.place(account, request);
  }

  /** Binance looks an algo order up by its client id alone: `symbol` is not sent. */
  queryConditional(account: string, _symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.conditionals.query(account, clientAlgoId);
  }

  cancelConditional(
    account: string,
    _symbol: string,
    clientAlgoId: string,
  ): Promise<ConditionalOrder | null> {
    return this.conditionals.cancel(account, clientAlgoId);
  }

  openConditionals(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    return this.conditionals.open(account, symbol);
  }

  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void {
    return this.events.subscribe(account, handler);
  }

  /**
   * Keeps the account's user-data stream open while someone watches it (its positions socket): every
   * ACCOUNT_UPDATE and ORDER_TRADE_UPDATE, also of orders placed elsewhere (Binance's app, a
   * liquidation), drops the cached positions and reaches the subscribers. Returns the disposer; the
   * stream closes and its listen key is deleted when the last watcher leaves.
   */
  watch(account: string): () => void {
    return this.events.watch(account);
  }

  /** Accounts whose user-data stream is connected now. */
  streaming(): string[] {
    return this.events.streaming();
  }

  /** Closes every user-data stream (shutdown). */
  stopStreams(): Promise<void> {
    return this.events.stopStreams();
  }

  /** Every account's fills placed through this adapter, as ORDER_TRADE_UPDATE events. */
  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    return this.events.subscribeAll(handler);
  }

  /** A signed call whose answer is read with `schema` (VenueAnswerUnreadable when it does not fit). */
  private async read<S extends z.ZodType>(
    account: string,
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string | number>,
    schema: S,
    what: string,
    creds?: BinanceCredentials,
    changed: 'nothing' | 'maybe' = 'nothing',
  ): Promise<z.output<S>> {
    const body = await this.signed<unknown>(account, method, path, params, creds);
    return readVenueAnswer(schema, body, what, { changed });
  }

  private async signed<T>(
    account: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    params: Record<string, string | number>,
    creds?: BinanceCredentials,
  ): Promise<T> {
    return this.opts.client.signed<T>(method, path, params, creds ?? (await this.opts.credentials(account)));
  }
}
