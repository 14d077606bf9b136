import { effect, signal, type ReadonlySignal } from '@preact/signals-core';
import { SignalList } from '../../contracts/signals';
import { contractSymbolOf } from '../../contracts/symbols';
import type { ApiClient } from '../api/client';
import { every, type Clock, type Disposer } from '../clock';
import type { PriceChannel } from '../market/priceChannel';
import type { ChartSignal } from '../stores/market';
import type { Stores } from '../stores';
import { createAlerts, type Alerts, type SoundPort } from './alerts';
import type { StreamedSignal } from './disputes';
import type { FeedChange } from './feedStore';
import { createQuickTradeModel, type CardTradeReports, type QuickTradeModel } from './quickTrade';
import {
  createSignalChannel,
  signalStreamUrl,
  type SignalChannel,
  type SignalStreamPort,
} from './signalChannel';
import { sentimentOf, FEED_CAP, type FeedSignal } from './types';
import { createWatchlistToggles, loadWatchlist, type WatchlistToggles } from './watchlist';
import { loadFeedFilter } from './feedFilter';

export interface FeedServiceDeps {
  stores: Stores;
  main: ApiClient;
  trading: ApiClient;
  mainBase: string;
  prices: Pick<PriceChannel, 'watch'>;
  stream: SignalStreamPort;
  sound: SoundPort;
  clock: Clock;
  /** Asked before a quick trade is sent (the first order of a session on a real-exchange account). */
  approveOrder?: () => boolean | Promise<boolean>;
  /** Where a card trade's result goes: a toast and the terminal. */
  reports?: CardTradeReports;
}

/** The feed pane's models, and `start()` which runs the feed. */
export interface FeedService {
  channel: SignalChannel;
  alerts: Alerts;
  quickTrade: QuickTradeModel;
  watchlistToggles: WatchlistToggles;
  /** The clock, ticking every second: the cards' time-ago labels (docs/product.md §9). */
  now: ReadonlySignal<number>;
  /** Hears every signal the stream brings, with the card it replaced; the disposer stops it. */
  onSignal(listener: StreamedSignal): Disposer;
  /**
   * Seeds a fresh browser from history, connects the stream, watches the prices of the signals'
   * assets, shows the signals on the chart and follows the watchlist of the signed-in user.
   */
  start(): Disposer;
}

/** A signal as the chart's markers take it. */
export function toChartSignal(s: FeedSignal): ChartSignal {
  return {
    id: s.id,
    assets: s.assets,
    sentiment: sentimentOf(s) ?? 'neutral',
    headline: s.content.slice(0, 120),
    receivedAt: s.client_received_at,
  };
}

/** The supported symbols (`BTCUSDT`) the listed signals name. */
export function symbolsOf(list: readonly FeedSignal[]): Set<string> {
  const out = new Set<string>();
  for (const s of list)
    for (const a of s.assets) {
      const symbol = contractSymbolOf(a);
      if (symbol !== undefined) out.add(symbol);
    }
  return out;
}

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { stores, clock } = deps;
  const now = signal(clock.now(), { name: 'feed.now' });
  const alerts = createAlerts({
    settings: stores.alerts,
    feed: stores.feed,
    sound: deps.sound,
    notifications: stores.alerts.notifications,
    memory: stores.alerts.memory,
  });

  const onChange = (change: FeedChange): void => {
    if (change.kind === 'ignored') return;
    const s = change.signal;
    if (s.analysis.status !== 'completed') return;
    // What the feed filter hides neither alerts nor sounds (docs/product.md, the feed filter).
    if (!stores.feedFilter.passes.peek()(s)) return;
    // Prices at arrival come from the server only (a later update fills one it lacked), so every
    // browser measures "% since arrival" from the same price.
    if (change.kind === 'added' || (change.kind === 'replaced' && change.completedNow)) alerts.completed(s);
    // A story alerted on and now retracted alerts again, whatever the threshold.
    alerts.changed(s);
  };
  const listeners = new Set<StreamedSignal>();
  const channel = createSignalChannel({
    url: signalStreamUrl(deps.mainBase),
    port: deps.stream,
    feed: stores.feed,
    connection: stores.connection,
    onChange,
    onSignal: (incoming, before, change) => {
      for (const listener of [...listeners]) listener(incoming, before, change);
    },
  });

  const seed = async (always = false): Promise<void> => {
    // A fresh browser is seeded; a returning one asks only when a saved card was left analyzing.
    const stuck = stores.feed.signals.peek().some((s) => s.analysis.status === 'analyzing');
    if (!always && !stores.feed.fresh && !stuck) return;
    try {
      stores.feed.seed(await deps.main.call(SignalList, '/signals', { query: { limit: FEED_CAP } }));
    } catch {
      // No history: the stream fills the feed.
    }
  };

  const watchPrices = (): Disposer => {
    const watching = new Map<string, Disposer>();
    const stop = effect(() => {
      const wanted = symbolsOf(stores.feed.signals.value);
      for (const [symbol, dispose] of watching) {
        if (wanted.has(symbol)) continue;
        dispose();
        watching.delete(symbol);
      }
      for (const symbol of wanted) if (!watching.has(symbol)) watching.set(symbol, deps.prices.watch(symbol));
    });
    return () => {
      stop();
      for (const dispose of watching.values()) dispose();
      watching.clear();
    };
  };

  const followWatchlist = (): Disposer =>
    effect(() => {
      if (stores.session.isLoggedIn.value) void loadWatchlist(deps.main, stores.watchlist);
      else stores.watchlist.clear();
    });

  /**
   * The account's feed filter while signed in (this browser's otherwise). The server leaves out of the
   * history what the filter hides, so a changed filter reads the history again: what it lets back in
   * comes back.
   */
  const followFeedFilter = (): Disposer => {
    const stopAccount = effect(() => {
      if (stores.session.isLoggedIn.value) void loadFeedFilter(deps.main, stores.feedFilter);
      else stores.feedFilter.useLocal();
    });
    let last = stores.feedFilter.filter.peek();
    const stopReseed = effect(() => {
      const next = stores.feedFilter.filter.value;
      const changed = JSON.stringify(next) !== JSON.stringify(last);
      last = next;
      if (changed && stores.session.isLoggedIn.peek()) void seed(true);
    });
    return () => {
      stopReseed();
      stopAccount();
    };
  };

  const quickTrade = createQuickTradeModel({
    trading: deps.trading,
    session: stores.session,
    ui: stores.ui,
    positions: stores.positions,
    clock,
    bracket: stores.quickBracket.protection,
    ...(deps.approveOrder === undefined ? {} : { approve: deps.approveOrder }),
    ...deps.reports,
  });
  const watchlistToggles = createWatchlistToggles({ main: deps.main, store: stores.watchlist, clock });

  return {
    channel,
    alerts,
    quickTrade,
    watchlistToggles,
    now,
    onSignal(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    start() {
      void seed();
      const disposers: Disposer[] = [
        channel.start(),
        watchPrices(),
        effect(() => stores.market.showSignals(stores.feed.signals.value.map(toChartSignal))),
        followWatchlist(),
        followFeedFilter(),
        every(clock, 1000, () => (now.value = clock.now())),
      ];
      return () => {
        for (const dispose of disposers.reverse()) dispose();
        quickTrade.dispose();
        watchlistToggles.dispose();
        stores.feed.dispose();
      };
    },
  };
}
