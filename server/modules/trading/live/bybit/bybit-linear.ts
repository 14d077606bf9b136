import Decimal from 'decimal.js';
import type { BybitClient } from '../../../exchanges/bybit-client';
import type { VenueCredentials } from '../../../exchanges/credentials';
import type {
  AccountBalance,
  ConditionalOrder,
  ConditionalOrderRequest,
  ConditionalType,
  ExchangeEvent,
  LimitOrderRequest,
  LiveExchangeAdapter,
  MarketOrderRequest,
  OrderBookDepth,
  OrderResult,
  OrderSide,
  PositionRisk,
  RestingOrder,
  VenuePreview,
} from '../../exchange';
import { ExchangeError, exchangeErrors, readVenueAnswer } from '../../exchange-error';
import type { SymbolFilters } from '../../paper/filters';
import type { OrderFees } from '../binance-shapes';
import { previewLiveOrder } from '../preview';
import { sizeLiveOrder } from '../sizing';
import { TtlCache } from '../venue-info';
import { FeeRateAnswer, PositionRow, PositionsPage, TickersAnswer, WalletAnswer } from './answers';
import { BybitConditionals } from './conditionals';
import { BybitEvents, type BybitStreamConfig } from './events';
import { BybitInstruments } from './instruments';
import { BybitLimits } from './limits';
import { BybitOrders, VENUE, type ConfirmOptions, type MarketOrder } from './orders';
import { positionRiskOf } from './shapes';
import { BybitStreamFees } from './translate';
import { closeEach } from '../close-all';

export interface BybitLinearOptions {
  /** Signed REST to one Bybit host (mainnet or demo). */
  client: BybitClient;
  /** The key of an account (`userId:keyId`), decrypted for the one call that needs it. */
  credentials(account: string): Promise<VenueCredentials>;
  /** The latest price the app has seen for a symbol (when it has a real one); Bybit's ticker otherwise. */
  price?(symbol: string): number | undefined;
  /** The private stream (`wss://stream.bybit.com/v5/private`); without it accounts are read over REST. */
  stream?: BybitStreamConfig;
  /** How long the instruments and the taker rates are kept (default 1 h). */
  cacheMs?: number;
  /** How long an account's positions answer is reused (default 1 s): the positions socket asks often. */
  positionsTtlMs?: number;
  /** How an accepted order is looked up until it is final. */
  confirm?: ConfirmOptions;
  /** The waits between look-ups (a timer by default). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Bybit's standard taker rate (0.055 %), when the account's own cannot be read (demo answers none). */
const STANDARD_TAKER = new Decimal('0.00055');
/** 110043 "Set leverage has not been modified": the leverage is what was asked already. */
const LEVERAGE_UNCHANGED = 110043;

/**
 * The live adapter for Bybit v5 USDT perpetuals (`category=linear`), in the same shapes as Binance's:
 * symbols as Bybit spells them too (`BTCUSDT`), quantities in the base coin, one-way positions. One
 * instance serves every account of one host (mainnet or demo); an account is `userId:keyId`. Orders are
 * market orders sized on Bybit's lot filters ({@link BybitInstruments}) and confirmed by look-up, since
 * Bybit's acknowledgement only means accepted ({@link BybitOrders}); a position's protection rests on
 * Bybit in the position's own TP/SL slots ({@link BybitConditionals}); the private stream's pushes are
 * told in Binance's event shapes ({@link BybitEvents}).
 */
export class BybitLinearExchange implements LiveExchangeAdapter {
  readonly kind = 'bybit-linear' as const;
  readonly venue = 'bybit' as const;
  private readonly positionsCache = new Map<string, { at: number; value: Promise<PositionRisk[]> }>();
  private readonly instruments: BybitInstruments;
  private readonly rates: TtlCache<Decimal>;
  private readonly orders: BybitOrders;
  private readonly legs: BybitConditionals;
  private readonly limits: BybitLimits;
  private readonly events: BybitEvents;
  private readonly now: () => number;
  private readonly positionsTtl: number;

  constructor(private readonly opts: BybitLinearOptions) {
    this.now = opts.now ?? Date.now;
    this.positionsTtl = opts.positionsTtlMs ?? 1_000;
    const cacheMs = opts.cacheMs ?? 3_600_000;
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.instruments = new BybitInstruments(opts.client, cacheMs, this.now);
    this.rates = new TtlCache(cacheMs, this.now);
    const streamFees = new BybitStreamFees(this.now);
    const call = this.call.bind(this);
    this.orders = new BybitOrders(call, sleep, streamFees, opts.confirm ?? {}, this.now);
    this.legs = new BybitConditionals(
      call,
      {
        position: async (account, symbol) =>
          (await this.positionRisk(account, true)).find((p) => p.symbol === symbol),
        tickSize: async (symbol) => (await this.instruments.filters(symbol)).tickSize,
        price: (symbol) => this.referencePrice(symbol),
        sleep,
      },
      this.now,
    );
    this.limits = new BybitLimits({
      call,
      publicGet: (path, params) => opts.client.publicGet(path, params),
      orders: this.orders,
      credentials: (account) => opts.credentials(account),
      filters: (symbol) => this.instruments.filters(symbol),
      changed: (account, result) => {
        this.positionsCache.delete(account);
        if (result !== undefined) this.events.filled(account, result);
      },
      sleep,
    });
    this.events = new BybitEvents({
      credentials: (account) => opts.credentials(account),
      serverNow: () => opts.client.serverNow(),
      ...(opts.stream === undefined ? {} : { stream: opts.stream }),
      streamFees,
      now: this.now,
      changed: (account) => this.positionsCache.delete(account),
    });
  }

  /** The symbol's lot and price filters (instruments-info, cached an hour); -1121 when not listed. */
  filters(symbol: string): Promise<SymbolFilters> {
    return this.instruments.filters(symbol);
  }

  async placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    const filters = await this.instruments.filters(request.symbol);
    const price = await this.referencePrice(request.symbol);
    const { quantity, sizing } = sizeLiveOrder(request, price, filters);
    const result = await this.order(account, {
      symbol: request.symbol,
      side: request.side,
      qty: quantity.toFixed(),
      clientOrderId: request.newClientOrderId,
    });
    return { ...result, sizing };
  }

  /** A limit order (GTC, IOC or PostOnly), confirmed by look-up as Bybit only acknowledges it. */
  placeLimitOrder(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    return this.limits.place(account, request);
  }
  openOrders(account: string, symbol?: string): Promise<RestingOrder[]> {
    return this.limits.open(account, symbol);
  }

  /** Null when Bybit holds it open no more (110001, looked up). */
  cancelOrder(...order: Parameters<BybitLimits['cancel']>): Promise<RestingOrder | null> {
    return this.limits.cancel(...order);
  }

  depth(symbol: string, limit: number): Promise<OrderBookDepth> {
    return this.limits.depth(symbol, limit);
  }

  /** What the order would do, sized as {@link placeMarketOrder} sizes it, at the account's leverage. */
  async previewOnVenue(
    account: string,
    request: Pick<MarketOrderRequest, 'symbol' | 'side' | 'quoteAmount' | 'maxNotional'>,
  ): Promise<VenuePreview> {
    const [filters, price, leverage, takerRate, positions] = await Promise.all([
      this.instruments.filters(request.symbol),
      this.referencePrice(request.symbol),
      this.leverageOf(account, request.symbol),
      this.takerRate(account, request.symbol),
      this.positionRisk(account),
    ]);
    return previewLiveOrder(request, {
      filters,
      brackets: [],
      price,
      leverage,
      takerRate,
      position: positions.find((p) => p.symbol === request.symbol),
    });
  }

  async queryOrder(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    return this.orders.query(account, clientOrderId, symbol, await this.opts.credentials(account));
  }

  async closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    const position = (await this.positionRisk(account, true)).find((p) => p.symbol === symbol);
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    return this.order(account, {
      symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      qty: amt.abs().toFixed(),
      clientOrderId,
      reduceOnly: true,
    });
  }

  async reducePosition(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    const position = (await this.positionRisk(account, true)).find((p) => p.symbol === request.symbol);
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    // Only the way it was opened: a position turned the other way is someone else's.
    if (amt.gt(0) !== (request.opened === 'BUY')) return null;
    const { stepSize } = await this.instruments.filters(request.symbol);
    const qty = Decimal.min(amt.abs(), new Decimal(request.quantity)).toNearest(stepSize, Decimal.ROUND_DOWN);
    if (!qty.gt(0)) return null;
    return this.order(account, {
      symbol: request.symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      qty: qty.toFixed(),
      clientOrderId: request.clientOrderId,
      reduceOnly: true,
    });
  }

  /**
   * Closes each open position in turn; one close whose outcome is unknown, or that is refused, does not
   * stop the others ({@link CloseAllIncomplete} then carries all three).
   */
  async closeAllPositions(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    const open = await this.positionRisk(account, true);
    return closeEach(open, clientOrderIdPrefix, (symbol, id) => this.closePosition(account, symbol, id));
  }

  /** Open positions (`/v5/position/list?settleCoin=USDT`, every page), kept a second unless `fresh`. */
  positionRisk(account: string, fresh = false): Promise<PositionRisk[]> {
    const entry = this.positionsCache.get(account);
    if (!fresh && entry !== undefined && this.now() - entry.at < this.positionsTtl) return entry.value;
    const value = this.readPositions(account);
    this.positionsCache.set(account, { at: this.now(), value });
    value.catch(() => this.positionsCache.delete(account));
    return value;
  }

  /**
   * The unified account's USDT: its wallet balance and unrealised PnL; available is Bybit's
   * totalAvailableBalance (USD, which USDT margin is counted in), else the wallet less the margin held.
   */
  async balance(account: string): Promise<AccountBalance> {
    const body = await this.call(account, 'GET', '/v5/account/wallet-balance', {
      accountType: 'UNIFIED',
      coin: 'USDT',
    });
    const [wallet] = readVenueAnswer(WalletAnswer, body, 'the balance', VENUE).list;
    const usdt = wallet?.coin.find((c) => c.coin === 'USDT');
    if (wallet === undefined || usdt === undefined) {
      return { asset: 'USDT', balance: '0', availableBalance: '0', crossUnPnl: '0', updateTime: this.now() };
    }
    const held = new Decimal(usdt.walletBalance).minus(usdt.totalPositionIM).minus(usdt.totalOrderIM);
    return {
      asset: 'USDT',
      balance: usdt.walletBalance,
      availableBalance: wallet.totalAvailableBalance ?? held.toFixed(),
      crossUnPnl: usdt.unrealisedPnl,
      updateTime: this.now(),
    };
  }

  async setLeverage(account: string, symbol: string, leverage: number) {
    const max = await this.instruments.maxLeverage(symbol);
    if (!(leverage >= 1 && leverage <= max)) throw exchangeErrors.invalidLeverage();
    try {
      await this.call(account, 'POST', '/v5/position/set-leverage', {
        category: 'linear',
        symbol,
        buyLeverage: String(leverage),
        sellLeverage: String(leverage),
      });
    } catch (err) {
      if (!(err instanceof ExchangeError && err.code === LEVERAGE_UNCHANGED)) throw err;
    } finally {
      this.positionsCache.delete(account);
    }
    return { symbol, leverage };
  }

  orderFees(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
  ): Promise<OrderFees | null> {
    return this.orders.fees(account, order);
  }

  /** Sets the position's stop, target or trailing stop (one of each per position; placing replaces). */
  placeConditional(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    return this.legs.place(account, request);
  }

  /** The position's leg of `type` (needed: Bybit's legs carry no client id), as it is or ended. */
  queryConditional(account: string, symbol: string, clientAlgoId: string, type?: ConditionalType) {
    return this.legs.query(account, symbol, clientAlgoId, type);
  }

  cancelConditional(account: string, symbol: string, clientAlgoId: string, type?: ConditionalType) {
    return this.legs.cancel(account, symbol, clientAlgoId, type);
  }

  /** The legs resting now, each with `clientAlgoId` '' (matched by its type). */
  openConditionals(account: string, symbol?: string): Promise<ConditionalOrder[]> {
    return this.legs.open(account, symbol);
  }

  subscribe(account: string, handler: (event: ExchangeEvent) => void): () => void {
    return this.events.subscribe(account, handler);
  }

  watch(account: string): () => void {
    return this.events.watch(account);
  }

  streaming(): string[] {
    return this.events.streaming();
  }

  stopStreams(): Promise<void> {
    return this.events.stopStreams();
  }

  subscribeAll(handler: (account: string, event: ExchangeEvent) => void): () => void {
    return this.events.subscribeAll(handler);
  }

  private async order(account: string, o: MarketOrder): Promise<OrderResult> {
    const creds = await this.opts.credentials(account);
    let result: OrderResult;
    try {
      result = await this.orders.place(account, o, creds);
    } finally {
      this.positionsCache.delete(account);
    }
    if (Number(result.executedQty) > 0) this.events.filled(account, result);
    return result;
  }

  private async readPositions(account: string): Promise<PositionRisk[]> {
    const out: PositionRisk[] = [];
    let cursor = '';
    for (let n = 0; n < 10; n++) {
      const body = await this.call(account, 'GET', '/v5/position/list', {
        category: 'linear',
        settleCoin: 'USDT',
        limit: 200,
        ...(cursor === '' ? {} : { cursor }),
      });
      const page = readVenueAnswer(PositionsPage, body, 'the positions', VENUE);
      for (const row of page.list) if (row.side !== '' && Number(row.size) > 0) out.push(positionRiskOf(row));
      cursor = page.nextPageCursor;
      if (cursor === '' || page.list.length === 0) break;
    }
    return out;
  }

  /** The symbol's leverage on the account (`/v5/position/list?symbol=` answers it even when flat). */
  private async leverageOf(account: string, symbol: string): Promise<number> {
    const body = await this.call(account, 'GET', '/v5/position/list', { category: 'linear', symbol });
    const row = readVenueAnswer(PositionsPage, body, 'the leverage', VENUE).list.at(0);
    return row === undefined
      ? 1
      : Number(readVenueAnswer(PositionRow, row, 'the leverage', VENUE).leverage) || 1;
  }

  private takerRate(account: string, symbol: string): Promise<Decimal> {
    return this.rates.get(`${account}|${symbol}`, async () => {
      try {
        const body = await this.call(account, 'GET', '/v5/account/fee-rate', { category: 'linear', symbol });
        return new Decimal(
          readVenueAnswer(FeeRateAnswer, body, 'the fee rate', VENUE).list[0]?.takerFeeRate ?? STANDARD_TAKER,
        );
      } catch {
        return STANDARD_TAKER;
      }
    });
  }

  private async referencePrice(symbol: string): Promise<Decimal> {
    const seen = this.opts.price?.(symbol);
    if (seen !== undefined && seen > 0) return new Decimal(seen);
    const body = await this.opts.client.publicGet('/v5/market/tickers', { category: 'linear', symbol });
    const row = readVenueAnswer(TickersAnswer, body, 'the price', VENUE).list.find(
      (t) => t.symbol === symbol,
    );
    if (row === undefined) throw exchangeErrors.noPrice();
    return new Decimal(row.lastPrice);
  }

  private async call(
    account: string,
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string | number | boolean>,
    creds?: VenueCredentials,
  ): Promise<unknown> {
    return this.opts.client.signed(method, path, params, creds ?? (await this.opts.credentials(account)));
  }
}
