import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import {
  describeSizing,
  lotFiltersFor,
  minimumOrder,
  minimumText,
  sizeOrder,
  sizeText,
} from '../../contracts/sizing';
import { exchangeSymbol, type TimeInForce } from '../../contracts/trading';
import { ORDER_MESSAGES } from '../../commands/grammar/order';
import { restingText } from './openOrders';
import type { ApiClient } from '../api/client';
import type { SessionStore } from '../stores/session';
import { TRADING_TEXT } from './messages';
import { placeOrder, type KeyMaker } from './orders';
import { EMPTY_FIELDS, parseProtectionFields } from './protectionEditor';
import { RECEIPT_MISSING, receiptLines } from './protectionView';
import type { PositionsStore } from './positionsStore';

/** docs/product.md §2: the trade panel's "Total (USDT)" starts at 10… */
export const DEFAULT_TOTAL = 10;

/**
 * …unless the symbol's minimum order is higher (BTC/USDT: 100): a default the exchange refuses is no
 * default, so the panel starts at the larger of the two.
 */
export function defaultTotal(pair: string): number {
  return Math.max(DEFAULT_TOTAL, minimumOrder(exchangeSymbol(pair)) ?? 0);
}

/** What the panel says about its total before it is sent: the minimum, and what it would buy. */
export interface TotalHint {
  /** `min. 100 USDT` */
  minimum: string | null;
  /** `≈ 0.002 BTC ≈ 201.40 USDT`, the sizing note, or why it would be refused; null without a price. */
  sizing: string | null;
  refused: boolean;
}

/**
 * Sizes the typed total with the shared `sizeOrder` at the last price, as the server will at the fill
 * price: the panel shows the quantity and notional the order will have (up to the price moving).
 */
export function totalHint(pair: string, total: number, lastPrice: number | undefined): TotalHint {
  const symbol = exchangeSymbol(pair);
  const minimum = minimumOrder(symbol);
  const hint = { minimum: minimum === undefined ? null : TRADING_TEXT.minimum(minimum) };
  const filters = lastPrice === undefined ? undefined : lotFiltersFor(symbol, lastPrice);
  if (!filters || lastPrice === undefined || !Number.isFinite(total) || total <= 0) {
    return { ...hint, sizing: null, refused: false };
  }
  const sized = sizeOrder({ amount: total, price: lastPrice, filters });
  if (!sized.ok) return { ...hint, sizing: describeSizing(pair, sized), refused: true };
  const size = `≈ ${sizeText(pair, sized.quantity, sized.notional)}`;
  const note = describeSizing(pair, sized);
  return { ...hint, sizing: note === null ? size : `${size}. ${note}`, refused: false };
}

export const LOGIN_REQUIRED = TRADING_TEXT.loginToTrade;
export const TOTAL_NOT_POSITIVE = TRADING_TEXT.totalNotPositive;

export type TradeCheck = { ok: true; total: number } | { ok: false; message: string };

/** docs/product.md §5: logged in first, then a total above zero. `total` is what the input holds (NaN when blank). */
export function validateTradeTotal(isLoggedIn: boolean, total: number): TradeCheck {
  if (!isLoggedIn) return { ok: false, message: LOGIN_REQUIRED };
  if (!Number.isFinite(total) || total <= 0) return { ok: false, message: TOTAL_NOT_POSITIVE };
  return { ok: true, total };
}

/** The panel's buttons: "Buy / Long" sends `buy`, "Sell / Short" sends `sell`. */
export type PanelSide = 'buy' | 'sell';

export type TradeStatus =
  | { state: 'idle' }
  | { state: 'placing' }
  | { state: 'success'; message: string }
  | { state: 'error'; message: string };

/** The panel's optional stop loss and take profit, as typed: `2%` (of the entry) or a price; blank for none. */
export interface PanelBracket {
  stopLoss: string;
  takeProfit: string;
}

/** The panel's Limit mode: the price as typed (NaN when blank) and the time in force. */
export interface PanelLimit {
  price: number;
  timeInForce: TimeInForce;
}

export const LIMIT_PRICE_NOT_POSITIVE = 'Limit price must be greater than zero.';

export interface TradePanelModel {
  readonly status: ReadonlySignal<TradeStatus>;
  /**
   * Checks the input and, when it passes, places a market order for the chosen symbol, protected by
   * the stop loss and take profit typed (none when both are blank), or with `limit` a limit order.
   */
  submit(
    side: PanelSide,
    total: number,
    symbol: string,
    bracket?: PanelBracket,
    limit?: PanelLimit,
  ): Promise<void>;
}

export interface TradePanelDeps {
  session: SessionStore;
  trading: ApiClient;
  positions: PositionsStore;
  newKey?: KeyMaker;
  /** Asked before sending (the first order of a session on a real-exchange account); no means cancel. */
  approve?: () => boolean | Promise<boolean>;
}

/** docs/product.md §4 trade panel states: idle → placing → success | error. Orders go through {@link placeOrder}. */
export function createTradePanelModel(deps: TradePanelDeps): TradePanelModel {
  const status = signal<TradeStatus>({ state: 'idle' }, { name: 'tradePanel.status' });
  // "Please log in to trade." goes away once its cause does: logging in clears it.
  const shown = computed<TradeStatus>(
    () => {
      const now = status.value;
      const stale = now.state === 'error' && now.message === LOGIN_REQUIRED && deps.session.isLoggedIn.value;
      return stale ? { state: 'idle' } : now;
    },
    { name: 'tradePanel.shownStatus' },
  );
  return {
    status: shown,
    async submit(side, total, symbol, bracket, limit) {
      if (status.peek().state === 'placing') return;
      const check = validateTradeTotal(deps.session.isLoggedIn.peek(), total);
      if (!check.ok) {
        status.value = { state: 'error', message: check.message };
        return;
      }
      const asked = bracket !== undefined && `${bracket.stopLoss}${bracket.takeProfit}`.trim() !== '';
      const limitRefusal =
        limit === undefined
          ? null
          : !Number.isFinite(limit.price) || limit.price <= 0
            ? LIMIT_PRICE_NOT_POSITIVE
            : asked
              ? ORDER_MESSAGES.limitProtection
              : null;
      if (limitRefusal !== null) {
        status.value = { state: 'error', message: limitRefusal };
        return;
      }
      const read = asked ? parseProtectionFields({ ...EMPTY_FIELDS, ...bracket }) : null;
      if (read !== null && !read.ok) {
        status.value = { state: 'error', message: read.message };
        return;
      }
      const protection = read?.ok === true ? read.protection : undefined;
      // Under the symbol's minimum the exchange refuses whatever the price: say so without asking.
      const minimum = minimumOrder(exchangeSymbol(symbol));
      if (minimum !== undefined && check.total < minimum) {
        status.value = { state: 'error', message: `Error: ${minimumText(symbol, minimum)}` };
        return;
      }
      if (deps.approve !== undefined && !(await deps.approve())) {
        status.value = { state: 'error', message: TRADING_TEXT.orderCancelled };
        return;
      }
      status.value = { state: 'placing' };
      const placed = await placeOrder(
        deps.trading,
        { pair: symbol, side, amount: check.total, protection, limit },
        deps.newKey,
      );
      if (placed.ok && placed.value.status === 'open') {
        const fill = placed.value;
        status.value = {
          state: 'success',
          message: `${TRADING_TEXT.orderSucceeded(fill.id)}. ${restingText(fill)}.`,
        };
      } else if (placed.ok) {
        const fill = placed.value;
        // What the protection did, as the answer says (the same words as the terminal's).
        const legs =
          fill.protection !== null
            ? receiptLines(fill.protection, fill.account.venue, fill.symbol).map((l) => ` ${l.text}`)
            : protection === undefined
              ? []
              : [` ${RECEIPT_MISSING}`];
        status.value = {
          state: 'success',
          message: `${TRADING_TEXT.orderSucceeded(fill.id)}. ${TRADING_TEXT.filled(fill)} ${TRADING_TEXT.venueNote(fill.account)}${legs.join('')}`,
        };
        deps.positions.requestRefresh();
      } else {
        status.value = { state: 'error', message: `Error: ${placed.message}` };
      }
    },
  };
}
