import Decimal from 'decimal.js';
import {
  BinanceUnreachable,
  type BinanceClient,
  type BinanceCredentials,
} from '../../exchanges/binance-client';
import type {
  AccountBalance,
  ExchangeAdapter,
  ExchangeEvent,
  MarketOrderRequest,
  OrderResult,
  OrderSide,
  PositionRisk,
  VenuePreview,
} from '../exchange';
import { ExchangeError, OrderOutcomeUnknown, exchangeErrors } from '../exchange-error';
import type { Bracket, SymbolFilters } from '../paper/filters';
import { AccountEvents } from './account-events';
import { fromPositionRisk, orderResultOf, type BinanceOrder, type BinanceTrade } from './binance-shapes';
import { previewLiveOrder } from './preview';
import { sizeLiveOrder } from './sizing';
import type { UserStreamOptions } from './user-stream';
import { VenueInfo } from './venue-info';

/**
 * Binance's codes that say the order's execution status is unknown (-1000 unknown error, -1001
 * disconnected, -1006 unexpected answer from the message bus, -1007 backend timeout): it may have filled.
 */
export const UNKNOWN_OUTCOME_CODES: ReadonlySet<number> = new Set([-1000, -1001, -1006, -1007]);

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
 * quantity by the symbol's lot step and minimum notional ({@link sizeLiveOrder}); an order whose outcome
 * is unknown (no answer, -1007, 5xx) is raised as OrderOutcomeUnknown for the caller to look up before
 * any retry.
 */
export class BinanceUsdmExchange implements ExchangeAdapter {
  readonly kind = 'binance-usdm' as const;
  private readonly positionsCache = new Map<string, Cached<PositionRisk[]>>();
  /** exchangeInfo, leverage brackets and taker rates, read seldom. */
  private readonly venue: VenueInfo;
  /** Fills and user-data stream events, to subscribers. */
  private readonly events: AccountEvents;
  private readonly positionsTtl: number;
  private readonly now: () => number;

  constructor(private readonly opts: BinanceUsdmOptions) {
    this.positionsTtl = opts.positionsTtlMs ?? 2_000;
    this.now = opts.now ?? Date.now;
    this.venue = new VenueInfo(
      opts.client,
      (account, path, params) => this.signed(account, 'GET', path, params),
      opts.cacheMs ?? 3_600_000,
      this.now,
    );
    this.events = new AccountEvents({
      client: opts.client,
      credentials: (account) => opts.credentials(account),
      ...(opts.userStream === undefined ? {} : { userStream: opts.userStream }),
      now: this.now,
      changed: (account) => this.positionsCache.delete(account),
    });
  }

  /** The symbol's filters from the cached exchangeInfo (MARKET_LOT_SIZE, MIN_NOTIONAL, PRICE_FILTER). */
  filters(symbol: string): Promise<SymbolFilters> {
    return this.venue.filters(symbol);
  }

  /** The account's leverage brackets for a symbol (`GET /fapi/v1/leverageBracket`, cached). */
  bracketsOf(account: string, symbol: string): Promise<Bracket[]> {
    return this.venue.bracketsOf(account, symbol);
  }

  async placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    const filters = await this.venue.filters(request.symbol);
    const price = await this.referencePrice(request.symbol);
    const { quantity, sizing } = sizeLiveOrder(request, price, filters);
    const result = await this.order(account, {
      symbol: request.symbol,
      side: request.side,
      type: 'MARKET',
      quantity: quantity.toFixed(),
      newClientOrderId: request.newClientOrderId,
      newOrderRespType: 'RESULT',
    });
    return { ...result, sizing };
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
      this.venue.filters(request.symbol),
      this.referencePrice(request.symbol),
      this.venue.bracketsOf(account, request.symbol),
      this.signed<{ symbol: string; leverage: number }[]>(
        account,
        'GET',
        '/fapi/v1/symbolConfig',
        { symbol: request.symbol },
        creds,
      ),
      this.venue.takerRate(account, request.symbol),
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

  async queryOrder(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    const creds = await this.opts.credentials(account);
    let order: BinanceOrder;
    try {
      order = await this.signed<BinanceOrder>(
        account,
        'GET',
        '/fapi/v1/order',
        { symbol, origClientOrderId: clientOrderId },
        creds,
      );
    } catch (err) {
      // -2013 "Order does not exist." is the only proof that it does not.
      if (err instanceof ExchangeError && err.code === -2013) return null;
      throw err;
    }
    // Whatever its state: an order that exists is never sent again under its client id.
    return this.withFees(account, order, creds);
  }

  async closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    const position = (await this.positionRisk(account, true)).find(
      (p) => p.symbol === symbol && Number(p.positionAmt) !== 0,
    );
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    return this.order(account, {
      symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      type: 'MARKET',
      quantity: amt.abs().toFixed(),
      reduceOnly: 'true',
      newClientOrderId: clientOrderId,
      newOrderRespType: 'RESULT',
    });
  }

  async reducePosition(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    const position = (await this.positionRisk(account, true)).find(
      (p) => p.symbol === request.symbol && Number(p.positionAmt) !== 0,
    );
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    // Only the way it was opened: a position turned the other way is someone else's.
    if (amt.gt(0) !== (request.opened === 'BUY')) return null;
    const qty = Decimal.min(amt.abs(), new Decimal(request.quantity));
    if (!qty.gt(0)) return null;
    return this.order(account, {
      symbol: request.symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      type: 'MARKET',
      quantity: qty.toFixed(),
      reduceOnly: 'true',
      newClientOrderId: request.clientOrderId,
      newOrderRespType: 'RESULT',
    });
  }

  async closeAllPositions(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    const open = (await this.positionRisk(account, true)).filter((p) => Number(p.positionAmt) !== 0);
    const results: OrderResult[] = [];
    for (const [i, p] of open.entries()) {
      const closed = await this.closePosition(account, p.symbol, `${clientOrderIdPrefix}-${i}`.slice(0, 36));
      if (closed) results.push(closed);
    }
    return results;
  }

  async positionRisk(account: string, fresh = false): Promise<PositionRisk[]> {
    const entry = this.positionsCache.get(account);
    if (!fresh && entry !== undefined && this.now() - entry.at < this.positionsTtl) return entry.value;
    const value = this.signed<PositionRisk[]>(account, 'GET', '/fapi/v3/positionRisk', {}).then((rows) =>
      rows.map(fromPositionRisk),
    );
    this.positionsCache.set(account, { at: this.now(), value });
    value.catch(() => this.positionsCache.delete(account));
    return value;
  }

  async balance(account: string): Promise<AccountBalance> {
    const rows = await this.signed<AccountBalance[]>(account, 'GET', '/fapi/v3/balance', {});
    const usdt = rows.find((r) => r.asset === 'USDT');
    return usdt ?? { asset: 'USDT', balance: '0', availableBalance: '0', crossUnPnl: '0', updateTime: 0 };
  }

  async setLeverage(account: string, symbol: string, leverage: number) {
    const brackets = await this.venue.bracketsOf(account, symbol);
    const max = brackets[0]?.maxLeverage;
    if (max !== undefined && leverage > max) throw exchangeErrors.invalidLeverage();
    const answer = await this.signed<{ symbol: string; leverage: number }>(
      account,
      'POST',
      '/fapi/v1/leverage',
      { symbol, leverage },
    );
    this.positionsCache.delete(account);
    return { symbol: answer.symbol, leverage: Number(answer.leverage) };
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

  private async order(account: string, params: Record<string, string>): Promise<OrderResult> {
    // One decryption for the order and its fee look-up.
    const creds = await this.opts.credentials(account);
    let order: BinanceOrder;
    try {
      order = await this.signed<BinanceOrder>(account, 'POST', '/fapi/v1/order', params, creds);
    } catch (err) {
      // No answer, a timeout, any 5xx (with a code or without): the order may exist.
      if (err instanceof BinanceUnreachable) throw new OrderOutcomeUnknown(err.msg ?? err.message);
      if (err instanceof ExchangeError && UNKNOWN_OUTCOME_CODES.has(err.code)) {
        throw new OrderOutcomeUnknown(err.msg);
      }
      throw err;
    } finally {
      this.positionsCache.delete(account);
    }
    const result = await this.withFees(account, order, creds);
    if (Number(result.executedQty) > 0) this.events.filled(account, result);
    return result;
  }

  /** The fill's commission and realised PnL, from the account's trades of that order. */
  private async withFees(
    account: string,
    order: BinanceOrder,
    creds: BinanceCredentials,
  ): Promise<OrderResult> {
    const trades = await this.signed<BinanceTrade[]>(
      account,
      'GET',
      '/fapi/v1/userTrades',
      { symbol: order.symbol, orderId: order.orderId },
      creds,
    ).catch(() => [] as BinanceTrade[]);
    return orderResultOf(order, trades);
  }

  private async referencePrice(symbol: string): Promise<Decimal> {
    const seen = this.opts.price?.(symbol);
    if (seen !== undefined && seen > 0) return new Decimal(seen);
    const ticker = await this.opts.client.publicGet<{ price: string }>('/fapi/v1/ticker/price', { symbol });
    return new Decimal(ticker.price);
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
