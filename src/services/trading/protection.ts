import { z } from 'zod';
import { PositionProtection, ProtectionReceipt, type ProtectionInput } from '../../contracts/protection';
import { exchangeSymbol } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import type { Outcome } from './orders';

/**
 * The three calls on an open position's protection: `PUT`, `DELETE` and `POST …/break-even` on
 * `/positions/{SYMBOL}/protection`. (Orders carry theirs in `POST /orders`, rows in `GET /positions`.)
 */

/** `PUT …/protection` and `POST …/break-even`. */
export const ProtectionAnswer = z.object({ message: z.string(), protection: ProtectionReceipt });
export type ProtectionAnswer = z.infer<typeof ProtectionAnswer>;

/** `DELETE …/protection`: what is left (nothing, unless a leg could not be cancelled). */
export const ProtectionRemoved = z.object({ message: z.string(), protection: PositionProtection });
export type ProtectionRemoved = z.infer<typeof ProtectionRemoved>;

export const PROTECTION_TEXT = {
  setFailed: 'Failed to set the protection.',
  removeFailed: 'Failed to remove the protection.',
  breakEvenFailed: 'Failed to move the stop to break-even.',
} as const;

const path = (pair: string, tail = ''): string =>
  `/positions/${encodeURIComponent(exchangeSymbol(pair))}/protection${tail}`;

async function attempt<T>(call: () => Promise<T>, fallback: string): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    // The server's own words (a 422 says which leg and why), as written.
    return { ok: false, message: errorMessage(error, fallback) };
  }
}

/** Sets (or replaces) the whole protection of the open position on `pair` (`BTC/USDT`). */
export function setProtection(
  trading: ApiClient,
  pair: string,
  protection: ProtectionInput,
): Promise<Outcome<ProtectionAnswer>> {
  return attempt(
    () => trading.call(ProtectionAnswer, path(pair), { method: 'PUT', body: protection }),
    PROTECTION_TEXT.setFailed,
  );
}

/** Removes every leg of the position's protection. */
export function removeProtection(trading: ApiClient, pair: string): Promise<Outcome<ProtectionRemoved>> {
  return attempt(
    () => trading.call(ProtectionRemoved, path(pair), { method: 'DELETE' }),
    PROTECTION_TEXT.removeFailed,
  );
}

/** Moves the position's stop to its break-even price, keeping the other legs. */
export function moveStopToBreakEven(trading: ApiClient, pair: string): Promise<Outcome<ProtectionAnswer>> {
  return attempt(
    () => trading.call(ProtectionAnswer, path(pair, '/break-even'), { method: 'POST' }),
    PROTECTION_TEXT.breakEvenFailed,
  );
}
