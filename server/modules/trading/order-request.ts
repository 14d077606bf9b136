import { createHash, randomUUID } from 'node:crypto';
import { exchangeSymbol, type OrderRequest } from '../../../src/contracts/trading';
import { findSymbol } from '../../../src/contracts/symbols';
import { appError } from '../../plugins/errors';
import type { MarketOrderRequest } from './exchange';

/** Binance's client order id alphabet and length. */
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/;

/** An Idempotency-Key as the browser sends it (a UUID) or any printable token up to 128 characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,128}$/;

/** The exchange's client order id of an Idempotency-Key: the same key always names the same order. */
export function clientIdFor(userId: string, idempotencyKey: string): string {
  return `sc-${hash(`${userId}|${idempotencyKey}`).slice(0, 32)}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `BTC/USDT` or `BTCUSDT` as the exchange spells it, when the app trades that symbol; else a 400. */
export function supportedSymbol(pair: string): string {
  const symbol = exchangeSymbol(pair);
  if (!findSymbol(symbol)) throw appError('BAD_REQUEST', 'Invalid symbol.');
  return symbol;
}

/** The exchange's order for a request, before its client id: side, USDT amount and the fat-finger cap. */
export function marketOrder(
  symbol: string,
  request: OrderRequest,
): Omit<MarketOrderRequest, 'newClientOrderId'> {
  return {
    symbol,
    side: request.side === 'buy' || request.side === 'long' ? 'BUY' : 'SELL',
    quoteAmount: String(request.amount),
    ...(request.maxNotional === undefined ? {} : { maxNotional: String(request.maxNotional) }),
  };
}

/**
 * The order to send for `request`, built once: with an Idempotency-Key its client id is the key's (the
 * same key always names the same order) and `requestHash` tells a retry of it from a different order
 * under the same key; without one, a fresh client id. A malformed key is refused.
 */
export function orderToSend(
  userId: string,
  symbol: string,
  request: OrderRequest,
  idempotencyKey: string | undefined,
): { order: MarketOrderRequest; requestHash: string | undefined } {
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw appError('BAD_REQUEST', 'Idempotency-Key must be 8 to 128 printable characters.');
  }
  const clientOrderId =
    idempotencyKey === undefined
      ? `sc-${randomUUID().replaceAll('-', '')}`
      : clientIdFor(userId, idempotencyKey);
  if (!CLIENT_ID.test(clientOrderId)) throw new Error(`bad client order id ${clientOrderId}`);
  const order: MarketOrderRequest = { ...marketOrder(symbol, request), newClientOrderId: clientOrderId };
  const requestHash =
    idempotencyKey === undefined
      ? undefined
      : hash(
          `${symbol}|${order.side}|${request.type}|${request.amount}` +
            (request.maxNotional === undefined ? '' : `|${request.maxNotional}`),
        );
  return { order, requestHash };
}
