import { z } from 'zod';
import {
  Balance,
  CloseAllResponse,
  CloseResponse,
  MessageResponse,
  OrderPreview,
  OrderResponse,
  Position,
  type OrderSideInput,
  type TimeInForce,
} from '../../contracts/trading';
import { protectionAsked, type ProtectionInput } from '../../contracts/protection';
import type { ApiClient } from '../api/client';
import { errorMessage, statusOf } from '../api/errors';
import { muted, success, type OutputLine } from '../terminal/output';
import { TRADING_TEXT } from './messages';

/**
 * The trading calls every entry point shares (trade panel, commands, positions pane), answering a
 * Result with the spec's texts instead of throwing.
 */

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

export interface OrderTicket {
  /** `BTC/USDT` */
  pair: string;
  side: OrderSideInput;
  /** USDT total. */
  amount: number;
  /** The fat-finger cap the order must stay within (it is rounded down to a step under it). */
  maxNotional?: number | undefined;
  /** What placed it, for the trade history: a news card; left out, the server counts it manual. */
  source?: 'card';
  /** The stop-loss, take-profit, trailing stop and time exit to put on the position once it fills. */
  protection?: ProtectionInput | undefined;
  /** The market order's slippage cap in % (`--max-slip`): estimated from the book first, sent within it. */
  maxSlippagePct?: number | undefined;
  /** A limit order's price (USDT) and time in force; a market order without it. */
  limit?: { price: number; timeInForce: TimeInForce } | undefined;
}

/** Makes a new Idempotency-Key; `crypto.randomUUID` in the app. */
export type KeyMaker = () => string;

export const newIdempotencyKey: KeyMaker = () => globalThis.crypto.randomUUID();

/** Tries an order gets when no answer comes back at all (the same key each time, so it fills once). */
export const ORDER_ATTEMPTS = 3;

const body = (ticket: OrderTicket) => ({
  symbol: ticket.pair,
  side: ticket.side,
  type: ticket.limit === undefined ? 'market' : 'limit',
  ...(ticket.limit === undefined ? {} : { price: ticket.limit.price, timeInForce: ticket.limit.timeInForce }),
  amount: ticket.amount,
  ...(ticket.maxNotional === undefined ? {} : { maxNotional: ticket.maxNotional }),
  ...(ticket.source === undefined ? {} : { source: ticket.source }),
  ...(protectionAsked(ticket.protection) ? { protection: ticket.protection } : {}),
  ...(ticket.maxSlippagePct === undefined ? {} : { maxSlippagePct: ticket.maxSlippagePct }),
});

/**
 * Places one market order under one fresh Idempotency-Key. When a try gets no answer (the network
 * dropped), the same submission is sent again with the same key, so the server fills it at most once.
 * The answer carries what the order's protection did (null when it asked for none).
 */
export async function placeOrder(
  trading: ApiClient,
  ticket: OrderTicket,
  newKey: KeyMaker = newIdempotencyKey,
): Promise<Outcome<OrderResponse>> {
  const key = newKey();
  let lastError: unknown = null;
  for (let attempt = 0; attempt < ORDER_ATTEMPTS; attempt += 1) {
    try {
      const order = await trading.call(OrderResponse, '/orders', {
        method: 'POST',
        body: body(ticket),
        headers: { 'idempotency-key': key },
      });
      return { ok: true, value: order };
    } catch (error) {
      lastError = error;
      if (statusOf(error) !== undefined) break; // The server answered: a refusal is final.
    }
  }
  return { ok: false, message: errorMessage(lastError, TRADING_TEXT.orderFailed) };
}

/**
 * What the order would do (`POST /orders/preview`); the command line's preview. Its protection is
 * previewed in the browser from the answer's quantity and price (see protectionPreview), not sent.
 */
export async function previewOrder(trading: ApiClient, ticket: OrderTicket): Promise<Outcome<OrderPreview>> {
  try {
    const sized = body({ ...ticket, protection: undefined });
    return {
      ok: true,
      value: await trading.call(OrderPreview, '/orders/preview', { method: 'POST', body: sized }),
    };
  } catch (error) {
    return { ok: false, message: errorMessage(error, TRADING_TEXT.orderFailed) };
  }
}

/** The open positions, each with its protection (none when the server gives none). */
export async function fetchPositions(trading: ApiClient): Promise<Outcome<Position[]>> {
  try {
    return { ok: true, value: await trading.call(z.array(Position), '/positions') };
  } catch {
    return { ok: false, message: TRADING_TEXT.fetchPositionsFailed };
  }
}

/**
 * Closes one position: the server's closing fill (quantity, price, realised PnL, fee, venue). The failure
 * reads "Failed to close position: {detail or Unknown error}".
 */
export async function closePosition(trading: ApiClient, pair: string): Promise<Outcome<CloseResponse>> {
  try {
    const answer = await trading.call(CloseResponse, '/close_position', {
      method: 'POST',
      body: { symbol: pair },
    });
    return { ok: true, value: answer };
  } catch (error) {
    return { ok: false, message: TRADING_TEXT.closeFailed(errorMessage(error, TRADING_TEXT.unknownError)) };
  }
}

/**
 * `close btc 50%` (`POST /close_position` with a share): one reduce-only order of that share, on the
 * step. One Idempotency-Key for its tries, so a retry after a lost answer closes nothing more.
 */
export async function closeShare(
  trading: ApiClient,
  pair: string,
  share: number,
  newKey: KeyMaker = newIdempotencyKey,
): Promise<Outcome<CloseResponse>> {
  const key = newKey();
  let lastError: unknown = null;
  for (let attempt = 0; attempt < ORDER_ATTEMPTS; attempt += 1) {
    try {
      const answer = await trading.call(CloseResponse, '/close_position', {
        method: 'POST',
        body: { symbol: pair, share },
        headers: { 'idempotency-key': key },
      });
      return { ok: true, value: answer };
    } catch (error) {
      lastError = error;
      if (statusOf(error) !== undefined) break;
    }
  }
  return { ok: false, message: TRADING_TEXT.closeFailed(errorMessage(lastError, TRADING_TEXT.unknownError)) };
}

/**
 * Closes every position: the server's message (or "Successfully sent requests…" when it gave none) and
 * one fill per position closed.
 */
export async function closeAllPositions(trading: ApiClient): Promise<Outcome<CloseAllResponse>> {
  try {
    const answer = await trading.send('/close_all_positions', { method: 'POST' });
    const parsed = CloseAllResponse.safeParse(answer);
    if (parsed.success) {
      const message = parsed.data.message !== '' ? parsed.data.message : TRADING_TEXT.closeAllSent;
      return { ok: true, value: { message, fills: parsed.data.fills } };
    }
    const bare = MessageResponse.safeParse(answer);
    const message = bare.success && bare.data.message !== '' ? bare.data.message : TRADING_TEXT.closeAllSent;
    return { ok: true, value: { message, fills: [] } };
  } catch (error) {
    return {
      ok: false,
      message: TRADING_TEXT.closeAllFailed(errorMessage(error, TRADING_TEXT.unknownError)),
    };
  }
}

/** The lines a close prints, from the fills the server answered: one per fill, the venue, the sum. */
export function closedLines(fills: readonly OrderResponse[]): string[] {
  if (fills.length === 0) return [];
  const lines = fills.map((fill) => TRADING_TEXT.closed(fill));
  if (fills.length > 1) lines.push(TRADING_TEXT.closedAll(fills));
  const venues = [...new Set(fills.map((fill) => TRADING_TEXT.venueNote(fill.account)))];
  return [...lines, ...venues];
}

export async function fetchBalance(trading: ApiClient): Promise<Outcome<Balance>> {
  try {
    return { ok: true, value: await trading.call(Balance, '/account/balance') };
  } catch (error) {
    return { ok: false, message: errorMessage(error, 'Failed to fetch the balance.') };
  }
}

export async function setLeverage(
  trading: ApiClient,
  pair: string,
  leverage: number,
): Promise<Outcome<string>> {
  try {
    const answer = await trading.call(MessageResponse, '/account/leverage', {
      method: 'POST',
      body: { symbol: pair, leverage },
    });
    return { ok: true, value: answer.message };
  } catch (error) {
    return { ok: false, message: errorMessage(error, 'Failed to set leverage.') };
  }
}

export async function resetPaperAccount(trading: ApiClient): Promise<Outcome<string>> {
  try {
    const answer = await trading.call(MessageResponse, '/account/paper/reset', { method: 'POST' });
    return { ok: true, value: answer.message };
  } catch (error) {
    return { ok: false, message: errorMessage(error, 'Failed to reset the paper account.') };
  }
}

/** The same as terminal lines: each fill in green, the sum and the venue in grey. */
export function closedOutput(fills: readonly OrderResponse[]): OutputLine[] {
  return closedLines(fills).map((line, i) => (i < fills.length ? success(line) : muted(line)));
}
