import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { ApiClient } from '../api/client';
import type { SessionStore } from '../stores/session';
import { TRADING_TEXT } from './messages';
import { placeOrder, type KeyMaker } from './orders';
import type { PositionsStore } from './positionsStore';

/** Spec §2: the trade panel's "Total (USDT)" starts at 10. */
export const DEFAULT_TOTAL = 10;

export const LOGIN_REQUIRED = TRADING_TEXT.loginToTrade;
export const TOTAL_NOT_POSITIVE = TRADING_TEXT.totalNotPositive;

export type TradeCheck = { ok: true; total: number } | { ok: false; message: string };

/** Spec §5: logged in first, then a total above zero. `total` is what the input holds (NaN when blank). */
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

export interface TradePanelModel {
  readonly status: ReadonlySignal<TradeStatus>;
  /** Checks the input and, when it passes, places a market order for the chosen symbol. */
  submit(side: PanelSide, total: number, symbol: string): Promise<void>;
}

export interface TradePanelDeps {
  session: SessionStore;
  trading: ApiClient;
  positions: PositionsStore;
  newKey?: KeyMaker;
}

/** Spec §4 trade panel states: idle → placing → success | error. Orders go through {@link placeOrder}. */
export function createTradePanelModel(deps: TradePanelDeps): TradePanelModel {
  const status = signal<TradeStatus>({ state: 'idle' }, { name: 'tradePanel.status' });
  return {
    status,
    async submit(side, total, symbol) {
      if (status.peek().state === 'placing') return;
      const check = validateTradeTotal(deps.session.isLoggedIn.peek(), total);
      if (!check.ok) {
        status.value = { state: 'error', message: check.message };
        return;
      }
      status.value = { state: 'placing' };
      const placed = await placeOrder(deps.trading, { pair: symbol, side, amount: check.total }, deps.newKey);
      if (placed.ok) {
        status.value = { state: 'success', message: TRADING_TEXT.orderSucceeded(placed.value.id) };
        deps.positions.requestRefresh();
      } else {
        status.value = { state: 'error', message: `Error: ${placed.message}` };
      }
    },
  };
}
