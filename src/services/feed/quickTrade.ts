import { signal, type ReadonlySignal } from '@preact/signals-core';
import { isTradable, TRADABILITY_TEXT } from '../../contracts/tradability';
import type { Clock } from '../clock';
import type { SessionStore } from '../stores/session';
import type { OutputLine } from '../terminal/output';
import { ORDER_SOURCES, fillEcho, refusalEcho } from '../trading/orderEcho';
import {
  placeSignalTrade,
  SIGNAL_TRADE_TEXT,
  type SignalTradeDeps,
  type SignalTradeResult,
} from './signalTrade';

/** docs/product.md §9: the popover hides this long after the mouse leaves it (or its tag). */
export const POPOVER_HIDE_MS = 700;

export interface PopoverState {
  signalId: string;
  ticker: string;
  /** Which row the keyboard opened (`l` long, `s` short); null when the mouse opened both. */
  row: 'long' | 'short' | null;
}

/** Where a card trade's result goes, so that no new card can push it out of sight. */
export interface CardTradeReports {
  /** A toast, 8 s, then kept in the toasts' Recent list (docs/product.md §8's words). */
  toast?(text: string, tone: 'success' | 'error'): void;
  /** The terminal: the server's answer in one line, naming the card and the account. */
  print?(lines: readonly OutputLine[]): void;
}

export interface QuickTradeModel {
  readonly popover: ReadonlySignal<PopoverState | null>;
  readonly placing: ReadonlySignal<boolean>;
  /**
   * The mouse is on a tag (or the popover): show it for this signal's ticker. Guests get nothing, nor
   * does a tag without a contract.
   */
  hover(signalId: string, ticker: string): void;
  /** The mouse left the tag or the popover: hide after 700 ms unless it comes back. */
  leave(): void;
  /** The keyboard's `l`/`s` on a focused card; a card whose asset has no contract says so instead. */
  openRow(signalId: string, ticker: string, row: 'long' | 'short'): void;
  close(): void;
  trade(side: 'long' | 'short', amount: number): Promise<void>;
  dispose(): void;
}

/** A card trade's result: its toast, and the server's answer (a fill or a refusal) in the terminal. */
function reportTrade(reports: CardTradeReports, signalId: string, result: SignalTradeResult): void {
  const source = ORDER_SOURCES.card(signalId);
  if (result.ok) {
    const after = result.protection.map((line) => line.text);
    reports.toast?.([result.message, ...after].join(' '), 'success');
    reports.print?.([fillEcho(source, result.order, after)]);
    return;
  }
  reports.toast?.(result.message, 'error');
  if (result.reason === 'rejected') reports.print?.([refusalEcho(source, result.message)]);
}

export function createQuickTradeModel(
  deps: SignalTradeDeps & CardTradeReports & { clock: Clock; session: SessionStore },
): QuickTradeModel {
  const popover = signal<PopoverState | null>(null, { name: 'quickTrade.popover' });
  const placing = signal(false, { name: 'quickTrade.placing' });
  let cancelHide = (): void => undefined;
  const close = (): void => {
    cancelHide();
    popover.value = null;
  };

  return {
    popover,
    placing,
    hover(signalId, ticker) {
      cancelHide();
      if (!deps.session.isLoggedIn.peek() || !isTradable(ticker)) return;
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
        deps.toast?.(SIGNAL_TRADE_TEXT.mustLogIn, 'error');
        return;
      }
      if (!isTradable(ticker)) {
        deps.toast?.(TRADABILITY_TEXT.noContract(ticker), 'error');
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
        reportTrade(deps, open.signalId, result);
        if (result.ok) close();
      } finally {
        placing.value = false;
      }
    },
    dispose() {
      cancelHide();
    },
  };
}
