import type { ReadonlySignal } from '@preact/signals-core';
import type { ProtectionInput } from '../../contracts/protection';
import { contractOf } from '../../contracts/symbols';
import { TRADABILITY_TEXT } from '../../contracts/tradability';
import { ErrorBody } from '../../contracts/errors';
import type { OrderResponse } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import { bodyOf } from '../api/errors';
import { AUTH_TEXT } from '../auth/messages';
import type { SessionStore } from '../stores/session';
import type { UiStore } from '../stores/ui';
import type { PositionsStore } from '../trading/positionsStore';
import { TRADING_TEXT } from '../trading/messages';
import { placeOrder, type KeyMaker } from '../trading/orders';
import { RECEIPT_MISSING, receiptLines } from '../trading/protectionView';
import { info, type OutputLine } from '../terminal/output';

/** docs/product.md §5 and §8 texts of a trade from a signal, word for word. */
export const SIGNAL_TRADE_TEXT = {
  /**
   * docs/product.md §8's words, "Successfully placed {SIDE} order for {pair} with {amount} USDT.", then what
   * did fill (sized to the symbol's lot step, it is not worth exactly the amount clicked) and the account,
   * in the terminal's words.
   */
  succeeded: (side: 'long' | 'short', pair: string, amount: number, fill: OrderResponse) =>
    `Successfully placed ${side.toUpperCase()} order for ${pair} with ${amount} USDT. ${TRADING_TEXT.filled(fill)} ${TRADING_TEXT.venueNote(fill.account)}`,
  failed: (detail: string) => `Error: ${detail}`,
  fallback: 'An error occurred during the trade.',
  noTicker: 'Asset ticker not found.',
  mustLogIn: AUTH_TEXT.mustLogIn,
  /** Ours: the user said no to the first order on a real-exchange account. */
  cancelled: 'Order cancelled.',
  /** docs/product.md §8: how long the result stays on screen (its toast). */
  shownMs: 8_000,
} as const;

/**
 * docs/product.md §8 for a failed signal trade: "Error: {detail}" for a string detail, validation lists as
 * "loc -> msg" joined by "; ", otherwise "An error occurred during the trade.".
 */
export function signalTradeError(error: unknown): string {
  const parsed = ErrorBody.safeParse(bodyOf(error));
  if (!parsed.success) return SIGNAL_TRADE_TEXT.fallback;
  const { detail } = parsed.data;
  if (typeof detail === 'string')
    return detail === '' ? SIGNAL_TRADE_TEXT.fallback : SIGNAL_TRADE_TEXT.failed(detail);
  if (detail.length === 0) return SIGNAL_TRADE_TEXT.fallback;
  return SIGNAL_TRADE_TEXT.failed(detail.map((i) => `${i.loc.join('.')} -> ${i.msg}`).join('; '));
}

export interface SignalTradeDeps {
  trading: ApiClient;
  session: SessionStore;
  ui: UiStore;
  positions: PositionsStore;
  newKey?: KeyMaker;
  /** Asked before sending (the first order of a session on a real-exchange account); no means cancel. */
  approve?: () => boolean | Promise<boolean>;
  /** The user's default bracket (stop loss and take profit), sent as the order's protection when set. */
  bracket?: ReadonlySignal<ProtectionInput | undefined>;
}

export type SignalTradeResult =
  | {
      ok: true;
      message: string;
      order: OrderResponse;
      /** What the order's protection did, as the answer says; none when it asked for none. */
      protection: OutputLine[];
    }
  | {
      ok: false;
      message: string;
      reason: 'no-ticker' | 'not-tradable' | 'login' | 'rejected' | 'cancelled';
    };

/** The trading client, remembering the last error a call threw (placeOrder answers only its text). */
function observed(trading: ApiClient): { client: ApiClient; lastError: () => unknown } {
  let last: unknown = null;
  const client: ApiClient = {
    baseURL: trading.baseURL,
    send: (path, options) =>
      trading.send(path, options).catch((error: unknown) => {
        last = error;
        throw error;
      }),
    call: (schema, path, options) =>
      trading.call(schema, path, options).catch((error: unknown) => {
        last = error;
        throw error;
      }),
  };
  return { client, lastError: () => last };
}

/**
 * A market order on a signal's asset (the card's quick-trade buttons and `2 long 500`), sent through
 * the same `placeOrder` as the trade panel and the order commands. A guest gets the login modal.
 */
export async function placeSignalTrade(
  deps: SignalTradeDeps,
  ticker: string | null | undefined,
  side: 'long' | 'short',
  amount: number,
): Promise<SignalTradeResult> {
  // A news tag trades on its coin's pair or its 1000-unit contract ($FLOKI → 1000FLOKI/USDT).
  if (ticker === null || ticker === undefined)
    return { ok: false, message: SIGNAL_TRADE_TEXT.noTicker, reason: 'no-ticker' };
  // A tag without a contract (a stablecoin, FTT) is shown on the card, never traded.
  const known = contractOf(ticker);
  if (known === undefined)
    return { ok: false, message: TRADABILITY_TEXT.noContract(ticker.toUpperCase()), reason: 'not-tradable' };
  if (!deps.session.isLoggedIn.peek()) {
    deps.ui.openAuthModal('login');
    return { ok: false, message: SIGNAL_TRADE_TEXT.mustLogIn, reason: 'login' };
  }
  if (deps.approve !== undefined && !(await deps.approve())) {
    return { ok: false, message: SIGNAL_TRADE_TEXT.cancelled, reason: 'cancelled' };
  }
  const { client, lastError } = observed(deps.trading);
  const protection = deps.bracket?.peek();
  const placed = await placeOrder(
    client,
    { pair: known.pair, side, amount, source: 'card', protection },
    deps.newKey,
  );
  if (!placed.ok) return { ok: false, message: signalTradeError(lastError()), reason: 'rejected' };
  deps.positions.requestRefresh();
  const fill = placed.value;
  return {
    ok: true,
    message: SIGNAL_TRADE_TEXT.succeeded(side, known.pair, amount, fill),
    order: fill,
    protection:
      fill.protection !== null
        ? receiptLines(fill.protection, fill.account.venue, fill.symbol)
        : protection === undefined
          ? []
          : [info(RECEIPT_MISSING)],
  };
}
