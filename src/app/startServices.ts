import { computed, effect, untracked } from '@preact/signals-core';
import { resumeSession } from '../services/auth';
import { startDisputeToasts } from '../services/feed/disputes';
import { startHealthPolling } from '../services/health';
import { startRuleAnnouncements } from '../services/rules/announce';
import { startRulesWatch } from '../services/rules/rules';
import { startAccountWatch } from '../services/trading/account';
import { echoPanelOrders } from '../services/trading/orderEcho';
import { fetchTrades } from '../services/trading/trades';
import { startTradesWatch } from '../services/trading/tradesHistory';
import type { AppServices } from './appServices';

/** The services as built, before anything runs. */
export type BuiltServices = Omit<AppServices, 'start'>;

/** A key's hint (`ab…cd`) by its id: the account orders go to now, else the keys list once read. */
function keyHintOf(services: BuiltServices, account: string): string | null {
  const chosen = services.stores.account.state.peek();
  if (chosen?.account === account) return chosen.keyHint;
  const list = services.keys.list.peek();
  return list.status === 'ready' ? (list.items.find((k) => k.id === account)?.keyHint ?? null) : null;
}

/**
 * Starts what the app runs in the background: history tracking, health polling, the price and
 * positions channels, the chart, the order preview, the feed, rule announcements and watches, the
 * trades watch, and the session refresh. `pageUrl` is the address the page was opened at (a return
 * from Google or Twitter carries the two-factor step in its fragment). Returns the disposer.
 */
export function startAppServices(services: BuiltServices, pageUrl: string): () => void {
  const { router, api, stores, clock, prices, chart, positionsChannel, orderPreview, feed } = services;
  const { toasts, rules, trades, keys: keysModel, auth, proposals, terminal } = services;
  const stopHistory = router.start();
  const stopHealth = startHealthPolling(api.main, stores.connection, clock);
  const stopPrices = prices.start();
  const stopChart = chart.start();
  const stopChartSource = stores.chartSource.start();
  const stopPositions = positionsChannel.start();
  const stopProposals = proposals.start();
  const stopPreview = orderPreview.start();
  const stopAccount = startAccountWatch({
    loggedIn: stores.session.isLoggedIn,
    store: stores.account,
    trading: api.trading,
  });
  const stopFeed = feed.start();
  // One log: what the trade panel placed, the server's answer, in the terminal too.
  const stopPanelEcho = echoPanelOrders(services.tradePanel.status, (lines) => stores.terminal.print(lines));
  const stopAnnouncements = startRuleAnnouncements({
    loggedIn: stores.session.isLoggedIn,
    store: stores.rules,
    print: (lines) => stores.terminal.print(lines),
    toast: (text, tone) => toasts.push(text, tone),
    now: () => clock.now(),
    headline: (id) => stores.feed.signals.peek().find((s) => s.id === id)?.content ?? null,
    recentTrades: async () => {
      const page = await fetchTrades(api.trading, { limit: 20 });
      return page.ok ? page.value.trades : [];
    },
    reloadRisk: () => void rules.risk(),
    keyHint: (account) => keyHintOf(services, account),
  });
  // A story a weaker source disputes, held by the user: a toast that stays, with Close.
  const stopDisputes = startDisputeToasts({
    subscribe: (listener) => feed.onSignal(listener),
    loggedIn: stores.session.isLoggedIn,
    positions: stores.positions.positions,
    ledger: stores.rules.ledger,
    toast: (text, action) =>
      toasts.push(text, 'event', { sticky: true, ...(action === null ? {} : { action }) }),
    print: (lines) => stores.terminal.print(lines),
    run: (line) => terminal.execute(line, 'ui'),
  });
  const stopTrades = startTradesWatch({
    history: trades,
    loggedIn: stores.session.isLoggedIn,
    shown: computed(() => stores.ui.bottomTab.value === 'trades'),
    closedShown: computed(() => stores.ui.bottomTab.value === 'closed'),
    holdings: computed(() =>
      stores.positions.positions.value.map((p) => `${p.symbol} ${p.side} ${p.size}`).join(','),
    ),
  });
  // `keys --open`: the API Settings window's model lives here, not in the stores commands reach.
  let keysAsked = stores.ui.keysWindowRequests.peek();
  const stopKeysWindow = effect(() => {
    const asked = stores.ui.keysWindowRequests.value;
    if (asked === keysAsked) return;
    keysAsked = asked;
    untracked(() => keysModel.show());
  });
  const stopRules = startRulesWatch({
    loggedIn: stores.session.isLoggedIn,
    positionsAt: stores.positions.updatedAt,
    news: stores.feed.signals,
    store: stores.rules,
    api: rules,
    setTimer: (fn, ms) => clock.setTimer(fn, ms),
  });
  void resumeSession(api, stores.session).finally(() => stores.session.markResumed());
  // Back from Google or Twitter with two-factor login on: the code step.
  // The challenge comes in the fragment, which no request carries; it is dropped from the address bar.
  const pendingTwoFactor = new URLSearchParams(new URL(pageUrl).hash.slice(1)).get('two_factor');
  if (pendingTwoFactor !== null) {
    auth.modal.resumeTwoFactor(pendingTwoFactor);
    if (typeof history !== 'undefined')
      history.replaceState(history.state, '', location.pathname + location.search);
  }
  return () => {
    stopPanelEcho();
    stopTrades();
    stopDisputes();
    stopAnnouncements();
    toasts.dispose();
    stopKeysWindow();
    stopRules();
    stopAccount();
    stopFeed();
    stopPositions();
    stopProposals();
    stopPreview();
    stopHistory();
    stopHealth();
    stopChartSource();
    stopChart();
    stopPrices();
  };
}
