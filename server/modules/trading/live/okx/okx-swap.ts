import Decimal from 'decimal.js';
import type { VenueCredentials } from '../../../exchanges/credentials';
import type { OkxAnswer, OkxClient } from '../../../exchanges/okx-client';
import type {
  AccountBalance,
  ConditionalOrder,
  ConditionalOrderRequest,
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
import { exchangeErrors } from '../../exchange-error';
import type { SymbolFilters } from '../../paper/filters';
import type { OrderFees } from '../binance-shapes';
import { previewLiveOrder } from '../preview';
import { sizeLiveOrder } from '../sizing';
import { OkxAccountReads } from './account';
import { OkxConditionals } from './conditionals';
import { OkxEvents, type OkxStreamConfig } from './events';
import { OkxLimits } from './limits';
import { OkxOrders, type ConfirmOptions, type OkxCall } from './orders';
import type { OkxOrderResult } from './shapes';
import { OkxInstruments, contractsOf, filtersOf } from './symbols';
import { closeEach } from '../close-all';

export interface OkxSwapOptions {
  /** Signed REST to OKX (`simulated` for demo trading keys). */
  client: OkxClient;
  /** The key of an account (`userId:keyId`), with its passphrase, decrypted for the one call that needs it. */
  credentials(account: string): Promise<VenueCredentials>;
  /** The latest price the app has seen for a symbol (when it has a real one); OKX's ticker otherwise. */
  price?(symbol: string): number | undefined;
  /** The private streams; without them accounts are read over REST. */
  stream?: OkxStreamConfig;
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

/**
 * The live adapter for OKX v5 USDT swaps (`instType=SWAP`, `BTC-USDT-SWAP`), cross margin, net position
 * mode, in Binance's shapes: symbols as the product spells them (`BTCUSDT`), quantities in coins (OKX's
 * contracts of `ctVal` coins each turned both ways at this edge), one-way positions. One instance serves
 * every account of one environment (live or demo); an account is `userId:keyId`. Orders are market
 * orders sized on the swap's lot rules in coins ({@link filtersOf}) and confirmed by look-up
 * ({@link OkxOrders}); a position's protection rests on OKX as algo orders ({@link OkxConditionals}); the
 * private streams' pushes are told in Binance's event shapes ({@link OkxEvents}).
 */
export class OkxSwapExchange implements LiveExchangeAdapter {
  readonly kind = 'okx-swap' as const;
  readonly venue = 'okx' as const;
  private readonly positionsCache = new Map<string, { at: number; value: Promise<PositionRisk[]> }>();
  private readonly instruments: OkxInstruments;
  private readonly reads: OkxAccountReads;
  private readonly orders: OkxOrders;
  private readonly legs: OkxConditionals;
  private readonly limits: OkxLimits;
  private readonly events: OkxEvents;
  private readonly now: () => number;
  private readonly positionsTtl: number;

  constructor(private readonly opts: OkxSwapOptions) {
    this.now = opts.now ?? Date.now;
    this.positionsTtl = opts.positionsTtlMs ?? 1_000;
    const cacheMs = opts.cacheMs ?? 3_600_000;
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.instruments = new OkxInstruments(opts.client, cacheMs, this.now);
    const call: OkxCall = this.call.bind(this);
    this.reads = new OkxAccountReads(call, opts.client, this.instruments, cacheMs, this.now, opts.price);
    this.orders = new OkxOrders(call, sleep, opts.confirm ?? {}, this.now);
    this.legs = new OkxConditionals(call, {
      instrument: (symbol) => this.instruments.instrument(symbol),
      position: async (account, symbol) =>
        (await this.positionRisk(account, true)).find((p) => p.symbol === symbol),
    });
    this.limits = new OkxLimits({
      call,
      publicGet: (path, params) => opts.client.publicGet(path, params),
      orders: this.orders,
      credentials: (account) => opts.credentials(account),
      instrument: (symbol) => this.instruments.instrument(symbol),
      instrumentOf: (instId) => this.reads.instrumentOf(instId),
      changed: (account, result) => {
        this.positionsCache.delete(account);
        if (result !== undefined) this.events.filled(account, result);
      },
      sleep,
    });
    this.events = new OkxEvents({
      credentials: (account) => opts.credentials(account),
      serverNow: () => opts.client.serverNow(),
      ...(opts.stream === undefined ? {} : { stream: opts.stream }),
      instrumentOf: (instId) => this.reads.instrumentOf(instId),
      now: this.now,
      changed: (account) => this.positionsCache.delete(account),
    });
  }

  /**
   * The symbol's lot and price filters in coins (instruments, cached an hour), with the least order's
   * worth at the price now; -1121 naming OKX when it does not list the swap.
   */
  async filters(symbol: string): Promise<SymbolFilters> {
    const instrument = await this.instruments.instrument(symbol);
    return filtersOf(symbol, instrument, await this.reads.referencePrice(instrument));
  }

  async placeMarketOrder(account: string, request: MarketOrderRequest): Promise<OkxOrderResult> {
    const instrument = await this.instruments.instrument(request.symbol);
    const price = await this.reads.referencePrice(instrument);
    const { quantity, sizing } = sizeLiveOrder(request, price, filtersOf(request.symbol, instrument, price));
    const result = await this.order(account, {
      symbol: request.symbol,
      instrument,
      side: request.side,
      sz: contractsOf(quantity, instrument).toFixed(),
      clientOrderId: request.newClientOrderId,
    });
    return { ...result, sizing };
  }

  /** A limit order (limit, ioc or post_only), its size in contracts, confirmed by look-up. */
  placeLimitOrder(account: string, request: LimitOrderRequest): Promise<OrderResult> {
    return this.limits.place(account, request);
  }

  openOrders(account: string, symbol?: string): Promise<RestingOrder[]> {
    return this.limits.open(account, symbol);
  }

  /** Null when OKX holds it pending no more (51400, looked up): filled or cancelled meanwhile. */
  cancelOrder(...order: Parameters<OkxLimits['cancel']>): Promise<RestingOrder | null> {
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
    const instrument = await this.instruments.instrument(request.symbol);
    const [price, leverage, takerRate, positions] = await Promise.all([
      this.reads.referencePrice(instrument),
      this.reads.leverageOf(account, instrument),
      this.reads.takerRate(account, instrument),
      this.positionRisk(account),
    ]);
    return previewLiveOrder(request, {
      filters: filtersOf(request.symbol, instrument, price),
      brackets: [],
      price,
      leverage,
      takerRate,
      position: positions.find((p) => p.symbol === request.symbol),
    });
  }

  async queryOrder(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    const instrument = await this.instruments.instrument(symbol);
    return this.orders.query(
      account,
      clientOrderId,
      symbol,
      instrument,
      await this.opts.credentials(account),
    );
  }

  async closePosition(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    const instrument = await this.instruments.instrument(symbol);
    const position = (await this.positionRisk(account, true)).find((p) => p.symbol === symbol);
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    return this.order(account, {
      symbol,
      instrument,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      sz: contractsOf(amt.abs(), instrument).toFixed(),
      clientOrderId,
      reduceOnly: true,
    });
  }

  async reducePosition(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    const instrument = await this.instruments.instrument(request.symbol);
    const position = (await this.positionRisk(account, true)).find((p) => p.symbol === request.symbol);
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    // Only the way it was opened: a position turned the other way is someone else's.
    if (amt.gt(0) !== (request.opened === 'BUY')) return null;
    const sz = contractsOf(Decimal.min(amt.abs(), new Decimal(request.quantity)), instrument);
    if (!sz.gt(0)) return null;
    return this.order(account, {
      symbol: request.symbol,
      instrument,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      sz: sz.toFixed(),
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

  /** Open positions (`/account/positions?instType=SWAP`, net rows), kept a second unless `fresh`. */
  positionRisk(account: string, fresh = false): Promise<PositionRisk[]> {
    const entry = this.positionsCache.get(account);
    if (!fresh && entry !== undefined && this.now() - entry.at < this.positionsTtl) return entry.value;
    const value = this.reads.positions(account);
    this.positionsCache.set(account, { at: this.now(), value });
    value.catch(() => this.positionsCache.delete(account));
    return value;
  }

  /**
   * The trading account's USDT: its cash balance (the wallet, before unrealised PnL, as Binance's
   * balance is), the equity available for new margin (`availEq`, else `availBal`) and the unrealised PnL.
   */
  balance(account: string): Promise<AccountBalance> {
    return this.reads.balance(account);
  }

  /** `POST /account/set-leverage` in cross margin, within the swap's maximum (-4028 beyond, unsent). */
  async setLeverage(account: string, symbol: string, leverage: number) {
    const instrument = await this.instruments.instrument(symbol);
    const max = Number(instrument.lever ?? '100');
    if (!(Number.isInteger(leverage) && leverage >= 1 && leverage <= max))
      throw exchangeErrors.invalidLeverage();
    try {
      await this.call(account, 'POST', '/api/v5/account/set-leverage', {
        instId: instrument.instId,
        lever: String(leverage),
        mgnMode: 'cross',
      });
    } finally {
      this.positionsCache.delete(account);
    }
    return { symbol, leverage };
  }

  async orderFees(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
  ): Promise<OrderFees | null> {
    const instrument = await this.instruments.instrument(order.symbol);
    return this.orders.fees(account, order, instrument).catch(() => null);
  }

  /** Rests a stop, target or trailing stop on OKX as an algo order under its client id. */
  placeConditional(account: string, request: ConditionalOrderRequest): Promise<ConditionalOrder> {
    return this.legs.place(account, request);
  }

  queryConditional(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.legs.query(account, symbol, clientAlgoId);
  }

  cancelConditional(account: string, symbol: string, clientAlgoId: string): Promise<ConditionalOrder | null> {
    return this.legs.cancel(account, symbol, clientAlgoId);
  }

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

  private async order(account: string, o: Parameters<OkxOrders['place']>[1]): Promise<OkxOrderResult> {
    const creds = await this.opts.credentials(account);
    let result: OkxOrderResult;
    try {
      result = await this.orders.place(account, o, creds);
    } finally {
      this.positionsCache.delete(account);
    }
    if (Number(result.executedQty) > 0) this.events.filled(account, result);
    return result;
  }

  private async call(
    account: string,
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string | number | boolean> | Record<string, string | number | boolean>[],
    creds?: VenueCredentials,
  ): Promise<OkxAnswer> {
    return this.opts.client.signedAnswer(
      method,
      path,
      params,
      creds ?? (await this.opts.credentials(account)),
    );
  }
}
