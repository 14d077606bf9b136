import type { ReadonlySignal } from '@preact/signals-core';
import type { OrderResponse } from '../../contracts/trading';
import type { AccountVenue } from '../../contracts/venues';
import type { ApiClient } from '../api/client';
import type { Dialogs } from './dialogs';
import { TRADING_TEXT } from './messages';
import { closeAllPositions, closedLines, closePosition } from './orders';
import type { PositionsStore } from './positionsStore';
import { createProtectionEditor, type ProtectionEditor } from './protectionEditor';
import type { OutputLine } from '../terminal/output';
import { closeAllLines, positionLine, positionPnlLine } from './positionsView';
import { verbLine, verbQuestion, type PositionVerb } from './positionVerbs';

const VERB_TITLES: Record<PositionVerb, (pair: string) => string> = {
  close: (pair) => `Close ${pair}`,
  half: (pair) => `Close half of ${pair}`,
  flip: (pair) => `Flip ${pair}`,
};
const VERB_LABELS: Record<PositionVerb, string> = {
  close: 'Close position',
  half: 'Close 50%',
  flip: 'Flip position',
};

/** What the Open Positions pane's buttons do (docs/product.md §5 confirmations, §8 alerts). */
export interface PositionsActions {
  /** Asks "Are you sure you want to close the {symbol} position?", then closes it. */
  close(pair: string): Promise<void>;
  /** Alerts when nothing is open; otherwise asks, closes all and alerts the outcome. */
  closeAll(): Promise<void>;
  refresh(): void;
  /**
   * A row's verb (`c` close, `h` half, `f` flip, or its button): asks in the app's dialog with the
   * position it acts on ("Close 50% of LONG 0.05 BTC/USDT? Enter / Esc"), then runs the command the
   * terminal runs for it (`close btc 50%`, `flip btc`).
   */
  verb(verb: PositionVerb, pair: string): Promise<void>;
  /** A row's protection: its edit form, Remove and Break-even. */
  protection: ProtectionEditor;
}

export interface PositionsActionsDeps {
  trading: ApiClient;
  positions: PositionsStore;
  dialogs: Dialogs;
  /** Where what a close filled is written down (the app: the terminal), from the server's answer. */
  report?: (fills: readonly OrderResponse[]) => void;
  /** The account orders go to, for where a protection's legs rest; paper when absent. */
  accountVenue?: ReadonlySignal<AccountVenue>;
  /** Where a protection call's answer is written down (the app: the terminal). */
  print?: (lines: OutputLine[]) => void;
  /** Runs a command line as if typed (the app: the terminal); the verbs go through it. */
  run?: (line: string) => Promise<unknown>;
}

export function createPositionsActions({
  trading,
  positions,
  dialogs,
  report = () => undefined,
  accountVenue,
  print,
  run,
}: PositionsActionsDeps): PositionsActions {
  return {
    async verb(verb, pair) {
      const open = positions.positions.peek().find((p) => p.symbol === pair);
      if (open === undefined || run === undefined || positions.closing.peek().has(pair)) return;
      const asked = dialogs.confirm(verbQuestion(verb, open), {
        title: VERB_TITLES[verb](pair),
        details: [positionLine(open), `${positionPnlLine(open)}, at market`],
        confirmLabel: VERB_LABELS[verb],
      });
      if (!(await asked)) return;
      await run(verbLine(verb, pair));
    },
    protection: createProtectionEditor({
      trading,
      positions,
      dialogs,
      ...(accountVenue === undefined ? {} : { accountVenue }),
      ...(print === undefined ? {} : { print }),
    }),
    async close(pair) {
      if (positions.closing.peek().has(pair)) return;
      const open = positions.positions.peek().find((p) => p.symbol === pair);
      const asked = dialogs.confirm(TRADING_TEXT.confirmClose(pair), {
        title: `Close ${pair}`,
        details: open === undefined ? [] : [positionLine(open), `${positionPnlLine(open)}, at market`],
        confirmLabel: 'Close position',
      });
      if (!(await asked)) return;
      positions.setClosing(pair, true);
      try {
        const closed = await closePosition(trading, pair);
        if (!closed.ok) dialogs.alert(closed.message);
        // What the close filled, as the server answered it: size, price, realised PnL, fee, venue.
        else report([closed.value.fill]);
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
      const asked = dialogs.confirm(TRADING_TEXT.confirmCloseAll(count), {
        title: 'Close all positions',
        details: closeAllLines(positions.positions.peek()),
        confirmLabel: count === 1 ? 'Close 1 position' : `Close ${count} positions`,
      });
      if (!(await asked)) return;
      const closed = await closeAllPositions(trading);
      if (!closed.ok) dialogs.alert(closed.message);
      else {
        report(closed.value.fills);
        dialogs.alert(closed.value.message, {
          title: 'Closed all',
          details: closedLines(closed.value.fills),
        });
      }
      positions.requestRefresh();
    },
    refresh() {
      positions.requestRefresh(true);
    },
  };
}
