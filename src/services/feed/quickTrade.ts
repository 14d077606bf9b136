import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { Clock } from '../clock';
import type { SessionStore } from '../stores/session';
import { placeSignalTrade, SIGNAL_TRADE_TEXT, type SignalTradeDeps } from './signalTrade';

/** docs/product.md §9: the popover hides this long after the mouse leaves it (or its tag). */
export const POPOVER_HIDE_MS = 700;

export interface PopoverState {
  signalId: string;
  ticker: string;
  /** Which row the keyboard opened (`l` long, `s` short); null when the mouse opened both. */
  row: 'long' | 'short' | null;
}

export interface TradeNotice {
  signalId: string;
  tone: 'success' | 'error';
  text: string;
}

export interface QuickTradeModel {
  readonly popover: ReadonlySignal<PopoverState | null>;
  /** The last trade's result on its card, shown 8 s (docs/product.md §8). */
  readonly notice: ReadonlySignal<TradeNotice | null>;
  readonly placing: ReadonlySignal<boolean>;
  /** The mouse is on a tag (or the popover): show it for this signal's ticker. Guests get nothing. */
  hover(signalId: string, ticker: string): void;
  /** The mouse left the tag or the popover: hide after 700 ms unless it comes back. */
  leave(): void;
  /** The keyboard's `l`/`s` on a focused card. */
  openRow(signalId: string, ticker: string, row: 'long' | 'short'): void;
  close(): void;
  trade(side: 'long' | 'short', amount: number): Promise<void>;
  dispose(): void;
}

export function createQuickTradeModel(
  deps: SignalTradeDeps & { clock: Clock; session: SessionStore },
): QuickTradeModel {
  const popover = signal<PopoverState | null>(null, { name: 'quickTrade.popover' });
  const notice = signal<TradeNotice | null>(null, { name: 'quickTrade.notice' });
  const placing = signal(false, { name: 'quickTrade.placing' });
  let cancelHide = (): void => undefined;
  let cancelNotice = (): void => undefined;

  const show = (next: TradeNotice): void => {
    cancelNotice();
    notice.value = next;
    cancelNotice = deps.clock.setTimer(() => (notice.value = null), SIGNAL_TRADE_TEXT.shownMs);
  };
  const close = (): void => {
    cancelHide();
    popover.value = null;
  };

  return {
    popover,
    notice,
    placing,
    hover(signalId, ticker) {
      cancelHide();
      if (!deps.session.isLoggedIn.peek()) return;
      const open = popover.peek();
      if (open?.signalId === signalId && open.ticker === ticker) return;
      popover.value = { signalId, ticker, row: null };
    },
    leave() {
      cancelHide();
      cancelHide = deps.clock.setTimer(() => (popover.value = null), POPOVER_HIDE_MS);
    },
    openRow(signalId, ticker, row) {
      cancelHide();
      if (!deps.session.isLoggedIn.peek()) {
        deps.ui.openAuthModal('login');
        show({ signalId, tone: 'error', text: SIGNAL_TRADE_TEXT.mustLogIn });
        return;
      }
      popover.value = { signalId, ticker, row };
    },
    close,
    async trade(side, amount) {
      const open = popover.peek();
      if (open === null || placing.peek()) return;
      placing.value = true;
      try {
        const result = await placeSignalTrade(deps, open.ticker, side, amount);
        const text = result.ok
          ? [result.message, ...result.protection.map((line) => line.text)].join(' ')
          : result.message;
        show({ signalId: open.signalId, tone: result.ok ? 'success' : 'error', text });
        if (result.ok) close();
      } finally {
        placing.value = false;
      }
    },
    dispose() {
      cancelHide();
      cancelNotice();
    },
  };
}
