import { createHash, randomUUID } from 'node:crypto';
import {
  exchangeSymbol,
  pairOf,
  type Balance,
  type OrderPreview,
  type OrderRequest,
  type OrderResponse,
  type Position,
} from '../../../src/contracts/trading';
import { findSymbol } from '../../../src/contracts/symbols';
import { appError } from '../../plugins/errors';
import type { ExchangeAdapter, OrderResult, PositionRisk } from './exchange';
import { ExchangeError } from './exchange-error';
import type { IdempotencyRepo } from './idempotency.repo';
import type { PaperExchange } from './paper/paper-exchange';

/** Binance's client order id alphabet and length. */
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;

/** An Idempotency-Key as the browser sends it (a UUID) or any printable token up to 128 characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,128}$/;

/**
 * The trading rules: validates and routes orders to the user's exchange, makes retries safe with the
 * Idempotency-Key, and turns Binance-shaped answers into the product's. Exchange refusals become a 400
 * whose detail is the exchange's own message.
 */
export class TradingService {
  constructor(
    private readonly exchange: ExchangeAdapter,
    /** The paper exchange also answers previews (the live adapter has no dry run). */
    private readonly paper: PaperExchange,
    private readonly idempotency: IdempotencyRepo,
    /** Makes sure a mark exists for the symbol (asks the market once when none was seen yet). */
    private readonly ensureMark: (symbol: string) => Promise<void>,
  ) {}

  get kind(): ExchangeAdapter['kind'] {
    return this.exchange.kind;
  }

  async placeOrder(userId: string, request: OrderRequest, idempotencyKey?: string): Promise<OrderResponse> {
    const symbol = this.supported(request.symbol);
    const side = request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL';
    await this.ensureMark(symbol);
    let clientOrderId = `sc-${randomUUID().replaceAll('-', '')}`;
    if (idempotencyKey !== undefined) {
      if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
        throw appError('BAD_REQUEST', 'Idempotency-Key must be 8 to 128 printable characters.');
      }
      const requestHash = hash(`${symbol}|${side}|${request.type}|${request.amount}`);
      clientOrderId = `sc-${hash(`${userId}|${idempotencyKey}`).slice(0, 32)}`;
      const held = await this.idempotency.claim(userId, idempotencyKey, { requestHash, clientOrderId });
      if (!held.fresh) {
        if (held.requestHash !== requestHash) {
          throw appError('CONFLICT', 'This Idempotency-Key was already used for a different order.');
        }
        // A retry of an order that did fill: answer with that fill, never a second one.
        const earlier = await this.exchange.queryOrder(userId, held.clientOrderId);
        if (earlier) return toResponse(earlier);
      }
    }
    if (!CLIENT_ID.test(clientOrderId)) throw new Error(`bad client order id ${clientOrderId}`);
    try {
      const result = await this.exchange.placeMarketOrder(userId, {
        symbol,
        side,
        quoteAmount: String(request.amount),
        newClientOrderId: clientOrderId,
      });
      return toResponse(result);
    } catch (err) {
      if (err instanceof ExchangeError && err.code === -4116) {
        const earlier = await this.exchange.queryOrder(userId, clientOrderId);
        if (earlier) return toResponse(earlier);
      }
      throw refusal(err);
    }
  }

  async preview(userId: string, request: OrderRequest): Promise<OrderPreview> {
    const symbol = this.supported(request.symbol);
    const side = request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL';
    await this.ensureMark(symbol);
    try {
      const p = await this.paper.previewMarketOrder(userId, {
        symbol,
        side,
        quoteAmount: String(request.amount),
      });
      const quantity = Number(p.fill.qty);
      const price = Number(p.fill.price);
      return {
        symbol: pairOf(symbol),
        side: side === 'BUY' ? 'buy' : 'sell',
        quantity,
        price,
        notional: quantity * price,
        margin: p.marginAdded.toNumber(),
        fee: Number(p.fill.fee),
        leverage: p.leverage,
        liquidationPrice: p.liquidationPrice === null ? null : p.liquidationPrice.toNumber(),
      };
    } catch (err) {
      throw refusal(err);
    }
  }

  async positions(userId: string): Promise<Position[]> {
    const rows = await this.exchange.positionRisk(userId);
    return rows.filter((r) => Number(r.positionAmt) !== 0).map(toPosition);
  }

  async closePosition(userId: string, pair: string): Promise<{ message: string }> {
    const symbol = this.supported(pair);
    await this.ensureMark(symbol);
    try {
      const result = await this.exchange.closePosition(
        userId,
        symbol,
        `sc-close-${randomUUID()}`.slice(0, 36),
      );
      if (!result) throw appError('NOT_FOUND', `No open ${pairOf(symbol)} position.`);
      const side = result.side === 'SELL' ? 'long' : 'short';
      return { message: `Closed ${pairOf(symbol)} ${side}: ${result.executedQty} at ${result.avgPrice}.` };
    } catch (err) {
      throw refusal(err);
    }
  }

  async closeAll(userId: string): Promise<{ message: string }> {
    const open = await this.exchange.positionRisk(userId);
    await Promise.all(open.map((p) => this.ensureMark(p.symbol)));
    try {
      const results = await this.exchange.closeAllPositions(userId, `sc-all-${randomUUID().slice(0, 8)}`);
      if (results.length === 0) return { message: 'There are no open positions to close.' };
      const n = results.length;
      return {
        message: `Closed ${n} position${n === 1 ? '' : 's'}: ${results.map((r) => pairOf(r.symbol)).join(', ')}.`,
      };
    } catch (err) {
      throw refusal(err);
    }
  }

  async balance(userId: string): Promise<Balance> {
    const b = await this.exchange.balance(userId);
    const wallet = Number(b.balance);
    const upnl = Number(b.crossUnPnl);
    return {
      asset: 'USDT',
      walletBalance: wallet,
      availableBalance: Number(b.availableBalance),
      unrealizedPnl: upnl,
      equity: wallet + upnl,
      exchange: this.exchange.kind,
    };
  }

  async setLeverage(userId: string, pair: string, leverage: number): Promise<{ message: string }> {
    const symbol = this.supported(pair);
    try {
      await this.exchange.setLeverage(userId, symbol, leverage);
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

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function refusal(err: unknown): unknown {
  return err instanceof ExchangeError ? appError('BAD_REQUEST', err.msg) : err;
}

export function toResponse(r: OrderResult): OrderResponse {
  return {
    id: r.orderId,
    symbol: pairOf(r.symbol),
    side: r.side === 'BUY' ? 'buy' : 'sell',
    quantity: Number(r.executedQty),
    price: Number(r.avgPrice),
    fee: Number(r.commission),
    status: 'filled',
    realizedPnl: Number(r.realizedPnl),
  };
}

export function toPosition(r: PositionRisk): Position {
  const size = Number(r.positionAmt);
  const mark = Number(r.markPrice);
  const upnl = Number(r.unRealizedProfit);
  const margin = Number(r.isolatedMargin) - upnl;
  const initial = (Math.abs(size) * mark) / r.leverage;
  return {
    symbol: pairOf(r.symbol),
    side: size > 0 ? 'long' : 'short',
    size: Math.abs(size),
    entryPrice: Number(r.entryPrice),
    markPrice: mark,
    liquidationPrice: Number(r.liquidationPrice),
    margin,
    unrealizedPnl: upnl,
    leverage: r.leverage,
    roe: initial === 0 ? 0 : upnl / initial,
    notional: Math.abs(Number(r.notional)),
  };
}
