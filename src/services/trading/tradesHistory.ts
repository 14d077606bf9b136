import { computed, effect, signal, untracked, type ReadonlySignal } from '@preact/signals-core';
import type { ClosedTrade, Trade } from '../../contracts/trading';
import type { ApiClient } from '../api/client';
import {
  closedTradeRow,
  fetchClosedTrades,
  fetchTrades,
  fetchTradesCsv,
  tradeRow,
  type ClosedRow,
  type TradeRow,
} from './trades';
import type { Outcome } from './orders';

/** What the Trades tab shows: the fills loaded so far, newest first, and whether older ones remain. */
export type TradesLoad =
  { status: 'idle' } | { status: 'loading' } | { status: 'ready' } | { status: 'error'; message: string };

export interface TradesHistory {
  readonly trades: ReadonlySignal<readonly Trade[]>;
  readonly rows: ReadonlySignal<readonly TradeRow[]>;
  /** The Closed tab: the parts of positions the fills closed, as the server worked them out. */
  readonly closed: ReadonlySignal<readonly ClosedTrade[]>;
  readonly closedRows: ReadonlySignal<readonly ClosedRow[]>;
  readonly load: ReadonlySignal<TradesLoad>;
  readonly closedLoad: ReadonlySignal<TradesLoad>;
  /** True while an older page exists. */
  readonly hasMore: ReadonlySignal<boolean>;
  /** Loads the newest page again (the tab shown, Refresh, a fill). */
  reload(): Promise<void>;
  /** Loads the Closed tab again (shown, Refresh, a fill). */
  reloadClosed(): Promise<void>;
  /** Appends the next older page. */
  more(): Promise<void>;
  /** Every fill as CSV (`GET /api/trades.csv`). */
  csv(): Promise<Outcome<Blob>>;
  /** Forgets everything (log out). */
  clear(): void;
}

export const TRADES_PAGE = 50;
/** The Closed tab shows the newest closes, up to this many. */
export const CLOSED_PAGE = 200;

export function createTradesHistory(deps: { trading: ApiClient; pageSize?: number }): TradesHistory {
  const limit = deps.pageSize ?? TRADES_PAGE;
  const trades = signal<readonly Trade[]>([], { name: 'trades.list' });
  const cursor = signal<string | null>(null, { name: 'trades.cursor' });
  const load = signal<TradesLoad>({ status: 'idle' }, { name: 'trades.load' });
  const closed = signal<readonly ClosedTrade[]>([], { name: 'trades.closed' });
  const closedLoad = signal<TradesLoad>({ status: 'idle' }, { name: 'trades.closedLoad' });
  // Only the latest request may write: a reload started after a `more` wins.
  let generation = 0;
  let closedGeneration = 0;

  const reloadClosed = async (): Promise<void> => {
    const mine = ++closedGeneration;
    closedLoad.value = { status: 'loading' };
    const page = await fetchClosedTrades(deps.trading, { limit: CLOSED_PAGE });
    if (mine !== closedGeneration) return;
    if (!page.ok) {
      closedLoad.value = { status: 'error', message: page.message };
      return;
    }
    closed.value = page.value.closed;
    closedLoad.value = { status: 'ready' };
  };

  const fetchPage = async (from: string | null, append: boolean): Promise<void> => {
    const mine = ++generation;
    load.value = { status: 'loading' };
    const page = await fetchTrades(deps.trading, { limit, ...(from === null ? {} : { cursor: from }) });
    if (mine !== generation) return;
    if (!page.ok) {
      load.value = { status: 'error', message: page.message };
      return;
    }
    trades.value = append ? [...trades.peek(), ...page.value.trades] : page.value.trades;
    cursor.value = page.value.nextCursor;
    load.value = { status: 'ready' };
  };

  return {
    trades,
    rows: computed(() => trades.value.map(tradeRow)),
    closed,
    closedRows: computed(() => closed.value.map(closedTradeRow)),
    closedLoad,
    reloadClosed,
    csv: () => fetchTradesCsv(deps.trading),
    load,
    hasMore: computed(() => cursor.value !== null),
    reload: () => fetchPage(null, false),
    async more() {
      const from = cursor.peek();
      if (from === null || load.peek().status === 'loading') return;
      await fetchPage(from, true);
    },
    clear() {
      generation += 1;
      closedGeneration += 1;
      trades.value = [];
      closed.value = [];
      closedLoad.value = { status: 'idle' };
      cursor.value = null;
      load.value = { status: 'idle' };
    },
  };
}

/**
 * Keeps the Trades tab current: loads the newest page when it is shown and whenever the positions move
 * (a fill) while it is; forgets the list on logout. Returns the disposer.
 */
export function startTradesWatch(deps: {
  history: TradesHistory;
  loggedIn: ReadonlySignal<boolean>;
  shown: ReadonlySignal<boolean>;
  /** True while the Closed tab is shown: it loads its rows too. */
  closedShown?: ReadonlySignal<boolean>;
  /** Changes when a fill changes the open positions (their symbols and sizes), not on every mark. */
  holdings: ReadonlySignal<string>;
}): () => void {
  return effect(() => {
    const loggedIn = deps.loggedIn.value;
    const shown = deps.shown.value;
    const closedShown = deps.closedShown?.value ?? false;
    void deps.holdings.value;
    untracked(() => {
      if (!loggedIn) deps.history.clear();
      else if (shown) void deps.history.reload();
      if (loggedIn && closedShown) void deps.history.reloadClosed();
    });
  });
}
