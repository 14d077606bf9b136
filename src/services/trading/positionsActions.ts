import type { ApiClient } from '../api/client';
import type { Dialogs } from './dialogs';
import { TRADING_TEXT } from './messages';
import { closeAllPositions, closePosition } from './orders';
import type { PositionsStore } from './positionsStore';

/** What the Open Positions pane's buttons do (spec §5 confirmations, §8 alerts). */
export interface PositionsActions {
  /** Asks "Are you sure you want to close the {symbol} position?", then closes it. */
  close(pair: string): Promise<void>;
  /** Alerts when nothing is open; otherwise asks, closes all and alerts the outcome. */
  closeAll(): Promise<void>;
  refresh(): void;
}

export interface PositionsActionsDeps {
  trading: ApiClient;
  positions: PositionsStore;
  dialogs: Dialogs;
}

export function createPositionsActions({
  trading,
  positions,
  dialogs,
}: PositionsActionsDeps): PositionsActions {
  return {
    async close(pair) {
      if (positions.closing.peek().has(pair)) return;
      if (!(await dialogs.confirm(TRADING_TEXT.confirmClose(pair)))) return;
      positions.setClosing(pair, true);
      try {
        const closed = await closePosition(trading, pair);
        if (!closed.ok) dialogs.alert(closed.message);
      } finally {
        positions.setClosing(pair, false);
        positions.requestRefresh();
      }
    },
    async closeAll() {
      const count = positions.positions.peek().length;
      if (count === 0) {
        dialogs.alert(TRADING_TEXT.nothingToClose);
        return;
      }
      if (!(await dialogs.confirm(TRADING_TEXT.confirmCloseAll(count)))) return;
      const closed = await closeAllPositions(trading);
      dialogs.alert(closed.ok ? closed.value : closed.message);
      positions.requestRefresh();
    },
    refresh() {
      positions.requestRefresh(true);
    },
  };
}
