import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import { STORAGE_PREFIX, memoryStorage, readJson, writeJson, type StoragePort } from '../storage';

export type BottomTab = 'positions' | 'orders' | 'closed' | 'trades' | 'trade';
/** docs/product.md §4 auth modal modes: LOGIN, SIGNUP, FORGOT_PASSWORD, TFA_VERIFY. */
export type AuthModalMode = 'login' | 'signup' | 'forgot-password' | 'tfa-verify';
/** Account modal tabs (docs/product.md §2). */
export type AccountTab = 'plan' | 'wallets' | 'devices' | 'security' | 'activity' | 'notifications';
/** The pane a phone shows, chosen from its bottom bar (one at a time below 768 px). */
export type PhonePane = 'feed' | 'chart' | 'positions' | 'terminal';
/** Which chart the pane draws: our own candles (works offline) or TradingView's widget. */
export type ChartSource = 'local' | 'tv';

/** Where the chart choice is kept between visits. */
export const CHART_SOURCE_KEY = `${STORAGE_PREFIX}chartSource`;
const isChartSource = (v: unknown): v is ChartSource => v === 'local' || v === 'tv';

export const DEFAULT_SYMBOL = 'BTC/USDT';
export const QUOTE_ASSET = 'USDT';

export interface UiStore {
  /** The chosen pair, always `TICKER/USDT`. */
  readonly symbol: ReadonlySignal<string>;
  /** The ticker part of the chosen pair, e.g. `BTC`. */
  readonly ticker: ReadonlySignal<string>;
  readonly bottomTab: ReadonlySignal<BottomTab>;
  readonly authModal: ReadonlySignal<AuthModalMode | null>;
  readonly accountModal: ReadonlySignal<AccountTab | null>;
  /** Bumped each time something asks for the command line to take focus. */
  readonly terminalFocusRequests: ReadonlySignal<number>;
  /** Bumped each time a command asks for the API Settings window (`keys --open`). */
  readonly keysWindowRequests: ReadonlySignal<number>;
  /** The chart the person chose (remembered); what is actually shown is the chart source model's. */
  readonly chartSource: ReadonlySignal<ChartSource>;
  /** On a phone, the one pane on screen. */
  readonly phonePane: ReadonlySignal<PhonePane>;
  /** Sets the chosen pair from an already validated, upper-case ticker. */
  chooseTicker(ticker: string): string;
  showBottomTab(tab: BottomTab): void;
  openAuthModal(mode: AuthModalMode): void;
  closeAuthModal(): void;
  openAccountModal(tab: AccountTab): void;
  closeAccountModal(): void;
  requestTerminalFocus(): void;
  requestKeysWindow(): void;
  chooseChartSource(source: ChartSource): void;
  showPhonePane(pane: PhonePane): void;
}

export function createUiStore(storage: StoragePort = memoryStorage()): UiStore {
  const symbol = signal(DEFAULT_SYMBOL, { name: 'ui.symbol' });
  const bottomTab = signal<BottomTab>('positions', { name: 'ui.bottomTab' });
  const authModal = signal<AuthModalMode | null>(null, { name: 'ui.authModal' });
  const accountModal = signal<AccountTab | null>(null, { name: 'ui.accountModal' });
  const terminalFocusRequests = signal(0, { name: 'ui.terminalFocusRequests' });
  const keysWindowRequests = signal(0, { name: 'ui.keysWindowRequests' });
  const phonePane = signal<PhonePane>('feed', { name: 'ui.phonePane' });
  const chartSource = signal(readJson(storage, CHART_SOURCE_KEY, isChartSource, 'local'), {
    name: 'ui.chartSource',
  });
  return {
    symbol,
    ticker: computed(() => symbol.value.split('/')[0] ?? '', { name: 'ui.ticker' }),
    bottomTab,
    authModal,
    accountModal,
    terminalFocusRequests,
    keysWindowRequests,
    chartSource,
    phonePane,
    chooseTicker(ticker) {
      symbol.value = `${ticker}/${QUOTE_ASSET}`;
      return symbol.peek();
    },
    showBottomTab(tab) {
      bottomTab.value = tab;
    },
    openAuthModal(mode) {
      authModal.value = mode;
    },
    closeAuthModal() {
      authModal.value = null;
    },
    openAccountModal(tab) {
      accountModal.value = tab;
    },
    closeAccountModal() {
      accountModal.value = null;
    },
    requestTerminalFocus() {
      // On a phone the command line is on screen only in its own pane: show it.
      phonePane.value = 'terminal';
      terminalFocusRequests.value += 1;
    },
    requestKeysWindow() {
      keysWindowRequests.value += 1;
    },
    showPhonePane(pane) {
      phonePane.value = pane;
    },
    chooseChartSource(source) {
      chartSource.value = source;
      writeJson(storage, CHART_SOURCE_KEY, source);
    },
  };
}
