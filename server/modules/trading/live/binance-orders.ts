import Decimal from 'decimal.js';
import type { z } from 'zod';
import type { BinanceCredentials } from '../../exchanges/binance-client';
import type { MarketOrderRequest, OrderResult, OrderSide, PositionRisk } from '../exchange';
import { ExchangeError, readVenueAnswer } from '../exchange-error';
import type { SymbolFilters } from '../paper/filters';
import { OrderAnswer, TickerPriceAnswer, UserTradesAnswer } from './binance-answers';
import { orderResultOf, tradesFeesOf, type BinanceOrder, type OrderFees } from './binance-shapes';
import { closeEach } from './close-all';
import { sizeLiveOrder } from './sizing';
import type { StreamFees } from './stream-fees';
import { outcomeOf } from './unknown-outcome';

/** A signed call whose answer is read with `schema` (VenueAnswerUnreadable when it does not fit). */
export type BinanceRead = <S extends z.ZodType>(
  account: string,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, string | number>,
  schema: S,
  what: string,
  creds?: BinanceCredentials,
) => Promise<z.output<S>>;

export interface BinanceOrdersDeps {
  signed(
    account: string,
    method: 'POST',
    path: string,
    params: Record<string, string | number>,
    creds?: BinanceCredentials,
  ): Promise<unknown>;
  read: BinanceRead;
  publicGet(path: string, params: Record<string, string | number>): Promise<unknown>;
  credentials(account: string): Promise<BinanceCredentials>;
  filters(symbol: string): Promise<SymbolFilters>;
  /** The latest price the app has seen for a symbol (the price feed); the REST ticker otherwise. */
  price?(symbol: string): number | undefined;
  /** The account's positions; `fresh` skips the cached answer. */
  positionRisk(account: string, fresh: boolean): Promise<PositionRisk[]>;
  /** Each order's fee and realised PnL as the user-data stream reports its trades. */
  streamFees: StreamFees;
  /** An order was sent, whatever its outcome: the cached positions go. */
  sent(account: string): void;
  /** An order executed: its fill reaches the subscribers. */
  filled(account: string, result: OrderResult): void;
}

/**
 * Market orders on Binance USD-M: `POST /fapi/v1/order` type MARKET from a USDT total or reduce-only for
 * a position (or part of it), each looked up by its client id when asked, and the fill's commission and
 * realised PnL read from the order's trades or the user-data stream's report of them.
 */
export class BinanceOrders {
  constructor(private readonly d: BinanceOrdersDeps) {}

  async place(account: string, request: MarketOrderRequest): Promise<OrderResult> {
    const filters = await this.d.filters(request.symbol);
    const price = await this.referencePrice(request.symbol);
    const { quantity, sizing } = sizeLiveOrder(request, price, filters);
    const result = await this.send(account, {
      symbol: request.symbol,
      side: request.side,
      type: 'MARKET',
      quantity: quantity.toFixed(),
      newClientOrderId: request.newClientOrderId,
      newOrderRespType: 'RESULT',
    });
    return { ...result, sizing };
  }

  async query(account: string, clientOrderId: string, symbol: string): Promise<OrderResult | null> {
    const creds = await this.d.credentials(account);
    let order: BinanceOrder;
    try {
      order = await this.d.read(
        account,
        'GET',
        '/fapi/v1/order',
        { symbol, origClientOrderId: clientOrderId },
        OrderAnswer,
        'the order look-up',
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

  async close(account: string, symbol: string, clientOrderId: string): Promise<OrderResult | null> {
    const position = (await this.d.positionRisk(account, true)).find(
      (p) => p.symbol === symbol && Number(p.positionAmt) !== 0,
    );
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    return this.send(account, {
      symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      type: 'MARKET',
      quantity: amt.abs().toFixed(),
      reduceOnly: 'true',
      newClientOrderId: clientOrderId,
      newOrderRespType: 'RESULT',
    });
  }

  async reduce(
    account: string,
    request: { symbol: string; opened: OrderSide; quantity: string; clientOrderId: string },
  ): Promise<OrderResult | null> {
    const position = (await this.d.positionRisk(account, true)).find(
      (p) => p.symbol === request.symbol && Number(p.positionAmt) !== 0,
    );
    if (position === undefined) return null;
    const amt = new Decimal(position.positionAmt);
    // Only the way it was opened: a position turned the other way is someone else's.
    if (amt.gt(0) !== (request.opened === 'BUY')) return null;
    const qty = Decimal.min(amt.abs(), new Decimal(request.quantity));
    if (!qty.gt(0)) return null;
    return this.send(account, {
      symbol: request.symbol,
      side: amt.gt(0) ? 'SELL' : 'BUY',
      type: 'MARKET',
      quantity: qty.toFixed(),
      reduceOnly: 'true',
      newClientOrderId: request.clientOrderId,
      newOrderRespType: 'RESULT',
    });
  }

  /** Closes each open position in turn; see BinanceUsdmExchange.closeAllPositions. */
  async closeAll(account: string, clientOrderIdPrefix: string): Promise<OrderResult[]> {
    const open = (await this.d.positionRisk(account, true)).filter((p) => Number(p.positionAmt) !== 0);
    return closeEach(open, clientOrderIdPrefix, (symbol, id) => this.close(account, symbol, id));
  }

  /**
   * The fee and realised PnL of an order whose trades could not be read when it was answered: from the
   * user-data stream's ORDER_TRADE_UPDATE events once they cover the whole executed quantity, else from
   * its trades again. Null while neither tells all of it.
   */
  async fees(
    account: string,
    order: Pick<OrderResult, 'symbol' | 'orderId' | 'executedQty'>,
  ): Promise<OrderFees | null> {
    return (
      this.d.streamFees.of(account, order.orderId, order.executedQty) ??
      (await this.tradesFees(account, order.symbol, order.orderId, order.executedQty))
    );
  }

  private async send(account: string, params: Record<string, string>): Promise<OrderResult> {
    // One decryption for the order and its fee look-up.
    const creds = await this.d.credentials(account);
    let order: BinanceOrder;
    try {
      const body = await this.d.signed(account, 'POST', '/fapi/v1/order', params, creds);
      order = readVenueAnswer(OrderAnswer, body, 'the order');
    } catch (err) {
      // No answer, a timeout, any 5xx (with a code or without), an answer that cannot be read: the
      // order may exist.
      throw outcomeOf(err);
    } finally {
      this.d.sent(account);
    }
    const result = await this.withFees(account, order, creds);
    if (Number(result.executedQty) > 0) this.d.filled(account, result);
    return result;
  }

  /**
   * The fill's commission and realised PnL, from the account's trades of that order (or the stream's
   * report of them); null, unknown, when neither could be read.
   */
  async withFees(account: string, order: BinanceOrder, creds: BinanceCredentials): Promise<OrderResult> {
    const orderId = String(order.orderId);
    const fees =
      (await this.tradesFees(account, order.symbol, orderId, order.executedQty, creds)) ??
      this.d.streamFees.of(account, orderId, order.executedQty);
    return orderResultOf(order, fees);
  }

  private tradesFees(
    account: string,
    symbol: string,
    orderId: string,
    executedQty: string,
    creds?: BinanceCredentials,
  ): Promise<OrderFees | null> {
    const read = () =>
      this.d.read(
        account,
        'GET',
        '/fapi/v1/userTrades',
        { symbol, orderId },
        UserTradesAnswer,
        "the order's trades",
        creds,
      );
    return tradesFeesOf(read, executedQty);
  }

  /** The price a USDT total is sized at: the app's latest, else Binance's ticker. */
  async referencePrice(symbol: string): Promise<Decimal> {
    const seen = this.d.price?.(symbol);
    if (seen !== undefined && seen > 0) return new Decimal(seen);
    const ticker = readVenueAnswer(
      TickerPriceAnswer,
      await this.d.publicGet('/fapi/v1/ticker/price', { symbol }),
      'the price',
    );
    return new Decimal(ticker.price);
  }
}
