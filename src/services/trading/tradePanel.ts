import { z } from 'zod';
import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import type { SessionStore } from '../stores/session';

/** Spec §2: the trade panel's "Total (USDT)" starts at 10. */
export const DEFAULT_TOTAL = 10;

export const LOGIN_REQUIRED = 'Please log in to trade.';
export const TOTAL_NOT_POSITIVE = 'Total must be greater than zero.';

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

const OrderResponse = z.object({ id: z.union([z.string(), z.number()]) });

export interface TradePanelModel {
  readonly status: ReadonlySignal<TradeStatus>;
  /** Checks the input and, when it passes, places a market order for the chosen symbol. */
  submit(side: PanelSide, total: number, symbol: string): Promise<void>;
}

export function createTradePanelModel(session: SessionStore, trading: ApiClient): TradePanelModel {
  const status = signal<TradeStatus>({ state: 'idle' }, { name: 'tradePanel.status' });
  return {
    status,
    async submit(side, total, symbol) {
      if (status.peek().state === 'placing') return;
      const check = validateTradeTotal(session.isLoggedIn.peek(), total);
      if (!check.ok) {
        status.value = { state: 'error', message: check.message };
        return;
      }
      status.value = { state: 'placing' };
      try {
        const order = await trading.call(OrderResponse, '/orders', {
          method: 'POST',
          body: { symbol, side, type: 'market', amount: check.total },
        });
        status.value = { state: 'success', message: `Success! Order ID: ${order.id}` };
      } catch (error) {
        status.value = { state: 'error', message: `Error: ${errorMessage(error, 'Failed to place order.')}` };
      }
    },
  };
}
