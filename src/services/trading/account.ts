import { computed, effect, signal, type ReadonlySignal } from '@preact/signals-core';
import { AccountState, type AccountMode } from '../../contracts/trading';
import { venueLabel, type AccountVenue } from '../../contracts/venues';
import type { ApiClient } from '../api/client';
import { errorMessage } from '../api/errors';
import { MODE_WORDS, accountChip, type NamedAccount } from './venueNames';

/** Where the user's orders go (`account`, `account use`), and whether a live order was confirmed yet. */
export interface AccountStore {
  readonly state: ReadonlySignal<AccountState | null>;
  /** `paper` until the server says otherwise. */
  readonly mode: ReadonlySignal<AccountMode>;
  /** The account's venue: `paper` until the server says otherwise. */
  readonly venue: ReadonlySignal<AccountVenue>;
  /** `PAPER`, `BYBIT LIVE`, `OKX DEMO`: the badge and the prompt's tag. */
  readonly badge: ReadonlySignal<string>;
  /** True once the first order on a real-exchange account was confirmed in this session. */
  readonly liveConfirmed: ReadonlySignal<boolean>;
  set(state: AccountState): void;
  confirmLive(): void;
  clear(): void;
}

export const ACCOUNT_TEXT = {
  badge: MODE_WORDS,
  fetchFailed: 'Failed to fetch the trading account.',
  switchFailed: 'Failed to switch the trading account.',
  /** Asked before the first order of a session on a key's account, naming the key's venue. */
  confirmFirstLive: (account: NamedAccount & { keyHint: string | null }) => {
    const venue = venueLabel(account.venue);
    const key = `key ${account.keyHint ?? ''}`;
    return account.mode === 'demo'
      ? `Orders now go to your ${venue} DEMO account (${key}). Place this order?`
      : `Orders now go to your LIVE ${venue} account with real funds (${key}). Place this order?`;
  },
} as const;

export function createAccountStore(): AccountStore {
  const state = signal<AccountState | null>(null, { name: 'account.state' });
  const liveConfirmed = signal(false, { name: 'account.liveConfirmed' });
  const mode = computed<AccountMode>(() => state.value?.mode ?? 'paper', { name: 'account.mode' });
  const venue = computed<AccountVenue>(() => state.value?.venue ?? 'paper', { name: 'account.venue' });
  return {
    state,
    mode,
    venue,
    badge: computed(() => accountChip({ venue: venue.value, mode: mode.value }), { name: 'account.badge' }),
    liveConfirmed,
    set(next) {
      // A different account is a new decision: its first order is asked about again.
      if (state.peek()?.account !== next.account) liveConfirmed.value = false;
      state.value = next;
    },
    confirmLive: () => void (liveConfirmed.value = true),
    clear() {
      state.value = null;
      liveConfirmed.value = false;
    },
  };
}

export type AccountOutcome = { ok: true; value: AccountState } | { ok: false; message: string };

/** `GET /api/account`. */
export async function fetchAccount(trading: ApiClient, store: AccountStore): Promise<AccountOutcome> {
  try {
    const value = await trading.call(AccountState, '/account');
    store.set(value);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: errorMessage(error, ACCOUNT_TEXT.fetchFailed) };
  }
}

/** `PUT /api/account`: `paper` or one of the user's key ids. */
export async function chooseAccount(
  trading: ApiClient,
  store: AccountStore,
  account: string,
): Promise<AccountOutcome> {
  try {
    const value = await trading.call(AccountState, '/account', { method: 'PUT', body: { account } });
    store.set(value);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: errorMessage(error, ACCOUNT_TEXT.switchFailed) };
  }
}

/**
 * Whether an order may go ahead: always on paper; on a key's account, the first order of the session
 * asks `ask` first (and a yes is remembered until the account changes or the user logs out).
 */
export async function approveOrder(
  store: AccountStore,
  ask: (question: string) => boolean | Promise<boolean>,
): Promise<boolean> {
  const state = store.state.peek();
  if (state === null || state.mode === 'paper' || store.liveConfirmed.peek()) return true;
  if (!(await ask(ACCOUNT_TEXT.confirmFirstLive(state)))) return false;
  store.confirmLive();
  return true;
}

/** Loads the account on login, forgets it on logout. */
export function startAccountWatch(deps: {
  loggedIn: ReadonlySignal<boolean>;
  store: AccountStore;
  trading: ApiClient;
}): () => void {
  return effect(() => {
    if (!deps.loggedIn.value) {
      deps.store.clear();
      return;
    }
    void fetchAccount(deps.trading, deps.store);
  });
}
