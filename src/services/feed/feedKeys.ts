import type { ReadonlySignal } from '@preact/signals-core';
import type { FeedView } from './feedView';
import type { QuickTradeModel } from './quickTrade';

/**
 * The feed's keys while it has focus: j/k move the focus ring, Enter opens the focused card's
 * source, l/s open its quick-trade row (long/short), 1-9 then trade that row's n-th amount, Escape
 * closes the popover. Answers whether the
 * key was used (the pane then stops it). Keys with a modifier, or typed in a field, are not ours; nor
 * is Enter on a control inside the feed (an amount button, `+`, a `$TICKER`): the control gets it.
 */
export function handleFeedKey(
  press: {
    key: string;
    ctrlKey: boolean;
    metaKey: boolean;
    altKey: boolean;
    inEditable: boolean;
    /** The key went to a button, link or other focusable control, not to the feed's frame. */
    onControl?: boolean;
  },
  deps: { view: FeedView; quickTrade: QuickTradeModel; amounts: ReadonlySignal<readonly number[]> },
): boolean {
  if (press.inEditable || press.ctrlKey || press.metaKey || press.altKey) return false;
  const { view, quickTrade } = deps;
  const focused = view.visible.peek().find((s) => s.id === view.focusedId.peek());
  switch (press.key) {
    case 'j':
    case 'ArrowDown':
      view.moveFocus(1);
      return true;
    case 'k':
    case 'ArrowUp':
      view.moveFocus(-1);
      return true;
    case 'Enter':
      if (press.onControl === true || focused?.metadata.url == null) return false;
      view.openUrl(focused.metadata.url);
      return true;
    case 'l':
    case 's': {
      const ticker = focused?.asset ?? focused?.assets[0];
      if (focused === undefined || ticker === undefined) return false;
      quickTrade.openRow(focused.id, ticker, press.key === 'l' ? 'long' : 'short');
      return true;
    }
    case 'Escape':
      if (quickTrade.popover.peek() === null) return false;
      quickTrade.close();
      return true;
    default: {
      const row = quickTrade.popover.peek()?.row ?? null;
      const amount = /^[1-9]$/.test(press.key) ? deps.amounts.peek()[Number(press.key) - 1] : undefined;
      if (row === null || amount === undefined) return false;
      void quickTrade.trade(row, amount);
      return true;
    }
  }
}
