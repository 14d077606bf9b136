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
  VenueOrderStatus,
  VenuePreview,
} from '../exchange';
import { ExchangeError, OrderOutcomeUnknown, exchangeErrors } from '../exchange-error';
import { buildBrackets, type Bracket, type SymbolFilters } from '../paper/filters';
import { previewLiveOrder } from './preview';
import { sizeLiveOrder } from './sizing';
import { UserDataStream, type UserStreamOptions } from './user-stream';

/**
 * Binance's codes that say the order's execution status is unknown (-1000 unknown error, -1001
 * disconnected, -1006 unexpected answer from the message bus, -1007 backend timeout): it may have filled.
 */
export const UNKNOWN_OUTCOME_CODES: ReadonlySet<number> = new Set([-1000, -1001, -1006, -1007]);

/**
 * A v3 positionRisk row in the adapter's shape. v3 carries no leverage and, for cross positions, no
 * isolated margin: leverage is notional / initial margin, and the margin shown is the initial margin.
 */
function fromPositionRisk(r: PositionRisk): PositionRisk {
  const initial = Number(r.initialMargin);
  const notional = Math.abs(Number(r.notional));
  const leverage = Number(r.leverage) || (initial > 0 ? Math.round(notional / initial) : 1);
  const isolated = Number(r.isolatedMargin);
  return {
    ...r,
    positionSide: 'BOTH',
    leverage,
    marginType: isolated > 0 ? 'isolated' : 'cross',
    isolatedMargin: isolated > 0 ? r.isolatedMargin : String(initial + Number(r.unRealizedProfit)),
  };
}

/** `GET /fapi/v1/exchangeInfo` symbol entry, the parts used. */
interface SymbolInfo {
  symbol: string;
  status: string;
  filters: { filterType: string; [k: string]: unknown }[];
}

/** `POST /fapi/v1/order` / `GET /fapi/v1/order` answer, the parts used. */
interface BinanceOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  status: VenueOrderStatus;
  origQty?: string;
  side: OrderSide;
  type: string;
  reduceOnly: boolean;
  executedQty: string;
  avgPrice: string;
  cumQuote: string;
  updateTime: number;
}

interface BinanceTrade {
  commission: string;
  realizedPnl: string;
}

interface BracketRow {
  symbol: string;
  brackets: {
    bracket: number;
    initialLeverage: number;
    notionalCap: number;
    notionalFloor: number;
    maintMarginRatio: number;
    cum: number;
  }[];
}

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
 * account's leverage brackets are cached. A market order's USDT total becomes a quantity by the
 * symbol's lot step and minimum notional ({@link sizeLiveOrder}); an order whose outcome is unknown
 * (no answer, -1007, 5xx) is raised as OrderOutcomeUnknown for the caller to look up before any retry.
 */
export class BinanceUsdmExchange implements ExchangeAdapter {
  readonly kind = 'binance-usdm' as const;
  private exchangeInfo: Cached<Map<string, SymbolInfo>> | null = null;
  private readonly brackets = new Map<string, Cached<Map<string, Bracket[]>>>();
  private readonly positionsCache = new Map<string, Cached<PositionRisk[]>>();
  private readonly handlers = new Map<string, Set<(event: ExchangeEvent) => void>>();
  private readonly allHandlers = new Set<(account: string, event: ExchangeEvent) => void>();
  private readonly rates = new Map<string, Cached<Decimal>>();
  private readonly streams = new Map<string, { stream: UserDataStream; watchers: number }>();
  private readonly cacheMs: number;
  private readonly positionsTtl: number;
  private readonly now: () => number;

  constructor(private readonly opts: BinanceUsdmOptions) {
    this.cacheMs = opts.cacheMs ?? 3_600_000;
    this.positionsTtl = opts.positionsTtlMs ?? 2_000;
    this.now = opts.now ?? Date.now;
  }

  /** The symbol's filters from the cached exchangeInfo (MARKET_LOT_SIZE, MIN_NOTIONAL, PRICE_FILTER). */
  async filters(symbol: string): Promise<SymbolFilters> {
    const info = (await this.cached('exchangeInfo')).get(symbol);
    if (info === undefined || info.status !== 'TRADING') throw exchangeErrors.invalidSymbol();
    const f = (type: string) => info.filters.find((x) => x.filterType === type);
    const lot = f('MARKET_LOT_SIZE') ?? f('LOT_SIZE');
    const step = new Decimal(String(lot?.stepSize ?? '0'));
    const lotFilter = step.gt(0) ? lot : f('LOT_SIZE');
    return {
      symbol,
      stepSize: new Decimal(String(lotFilter?.stepSize ?? '1')),
      minQty: new Decimal(String(lotFilter?.minQty ?? '0')),
      maxQty: new Decimal(String(lotFilter?.maxQty ?? '1e12')),
      minNotional: new Decimal(String(f('MIN_NOTIONAL')?.notional ?? '0')),
      tickSize: new Decimal(String(f('PRICE_FILTER')?.tickSize ?? '0.0001')),
      brackets: [],
    };
  }

  /** The account's leverage brackets for a symbol (`GET /fapi/v1/leverageBracket`, cached). */
  async bracketsOf(account: string, symbol: string): Promise<Bracket[]> {
    let entry = this.brackets.get(account);
    if (entry === undefined || this.now() - entry.at > this.cacheMs) {
      const value = this.signed<BracketRow[]>(account, 'GET', '/fapi/v1/leverageBracket', {}).then(
        (rows) =>
          new Map(
            rows.map((r) => [
              r.symbol,
              buildBrackets(r.brackets.map((b) => [b.notionalCap, b.initialLeverage, b.maintMarginRatio])),
            ]),
          ),
      );
      entry = { at: this.now(), value };
      this.brackets.set(account, entry);
      value.catch(() => this.brackets.delete(account));
    }
    return (await entry.value).get(symbol) ?? [];
  }

  async placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    const filters = await this.filters(request.symbol);
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
      this.filters(request.symbol),
      this.referencePrice(request.symbol),
      this.bracketsOf(account, request.symbol),
      this.signed<{ symbol: string; leverage: number }[]>(
        account,
        'GET',
        '/fapi/v1/symbolConfig',
        { symbol: request.symbol },
        creds,
      ),
      this.takerRate(account, request.symbol),
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

  /** The account's taker commission rate for a symbol (cached like the brackets). */
  private async takerRate(account: string, symbol: string): Promise<Decimal> {
    const key = `${account}|${symbol}`;
    let entry = this.rates.get(key);
    if (entry === undefined || this.now() - entry.at > this.cacheMs) {
      const value = this.signed<{ takerCommissionRate: string }>(account, 'GET', '/fapi/v1/commissionRate', {
        symbol,
      }).then((r) => new Decimal(r.takerCommissionRate));
      entry = { at: this.now(), value };
      this.rates.set(key, entry);
      value.catch(() => this.rates.delete(key));
    }
    return entry.value;
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
    const brackets = await this.bracketsOf(account, symbol);
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
    let set = this.handlers.get(account);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(account, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * Keeps the account's user-data stream open while someone watches it (its positions socket): every
   * ACCOUNT_UPDATE and ORDER_TRADE_UPDATE, also of orders placed elsewhere (Binance's app, a
   * liquidation), drops the cached positions and reaches the subscribers. Returns the disposer; the
   * stream closes and its listen key is deleted when the last watcher leaves.
   */
  watch(account: string): () => void {
    const config = this.opts.userStream;
    if (config === undefined) return () => undefined;
    let entry = this.streams.get(account);
    if (entry === undefined) {
      const stream = new UserDataStream({
        ...config,
        client: this.opts.client,
        credentials: () => this.opts.credentials(account),
        onEvent: (event) => {
          this.positionsCache.delete(account);
          this.dispatch(account, event);
        },
        // What happened while the stream was down is read again: subscribers take a fresh snapshot.
        onConnected: () => {
          this.positionsCache.delete(account);
          this.dispatch(account, {
            e: 'ACCOUNT_UPDATE',
            E: this.now(),
            T: this.now(),
            a: { m: 'ORDER', B: [], P: [] },
          });
        },
      });
      entry = { stream, watchers: 0 };
      this.streams.set(account, entry);
      stream.start();
    }
    entry.watchers += 1;
    const held = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.watchers -= 1;
      if (held.watchers === 0 && this.streams.get(account) === held) {
        this.streams.delete(account);
        void held.stream.stop();
      }
    };
  }

  /** Accounts whose user-data stream is connected now. */
  streaming(): string[] {
    return [...this.streams].filter(([, e]) => e.stream.connected).map(([account]) => account);
  }

  /** Closes every user-data stream (shutdown). */
  async stopStreams(): Promise<void> {
    const all = [...this.streams.values()];
    this.streams.clear();
    await Promise.all(all.map((e) => e.stream.stop()));
  }

  /** Every account's fills placed through this adapter, as ORDER_TRADE_UPDATE events. */
  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    this.allHandlers.add(handler);
    return () => this.allHandlers.delete(handler);
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
    if (Number(result.executedQty) > 0) this.emit(account, result);
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
    const sum = (pick: (t: BinanceTrade) => string) =>
      trades.reduce((acc, t) => acc.plus(pick(t)), new Decimal(0)).toFixed();
    return {
      orderId: String(order.orderId),
      clientOrderId: order.clientOrderId,
      symbol: order.symbol,
      side: order.side,
      type: 'MARKET',
      status: order.status,
      ...(order.origQty === undefined ? {} : { origQty: order.origQty }),
      reduceOnly: order.reduceOnly,
      executedQty: order.executedQty,
      avgPrice: order.avgPrice,
      cumQuote: order.cumQuote,
      commission: sum((t) => t.commission),
      realizedPnl: sum((t) => t.realizedPnl),
      updateTime: order.updateTime,
    };
  }

  private emit(account: string, r: OrderResult): void {
    const event: ExchangeEvent = {
      e: 'ORDER_TRADE_UPDATE',
      E: this.now(),
      T: r.updateTime,
      o: {
        s: r.symbol,
        c: r.clientOrderId,
        S: r.side,
        o: 'MARKET',
        q: r.executedQty,
        ap: r.avgPrice,
        x: 'TRADE',
        X: 'FILLED',
        i: r.orderId,
        l: r.executedQty,
        z: r.executedQty,
        L: r.avgPrice,
        n: r.commission,
        N: 'USDT',
        rp: r.realizedPnl,
        R: r.reduceOnly,
      },
    };
    this.dispatch(account, event);
  }

  private dispatch(account: string, event: ExchangeEvent): void {
    for (const h of this.handlers.get(account) ?? []) h(event);
    for (const h of this.allHandlers) h(account, event);
  }

  private async referencePrice(symbol: string): Promise<Decimal> {
    const seen = this.opts.price?.(symbol);
    if (seen !== undefined && seen > 0) return new Decimal(seen);
    const ticker = await this.opts.client.publicGet<{ price: string }>('/fapi/v1/ticker/price', { symbol });
    return new Decimal(ticker.price);
  }

  private async cached(_: 'exchangeInfo'): Promise<Map<string, SymbolInfo>> {
    if (this.exchangeInfo === null || this.now() - this.exchangeInfo.at > this.cacheMs) {
      const value = this.opts.client
        .publicGet<{ symbols: SymbolInfo[] }>('/fapi/v1/exchangeInfo')
        .then((body) => new Map(body.symbols.map((s) => [s.symbol, s])));
      this.exchangeInfo = { at: this.now(), value };
      value.catch(() => {
        this.exchangeInfo = null;
      });
    }
    return this.exchangeInfo.value;
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
