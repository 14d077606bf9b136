import { signal, type ReadonlySignal } from '@preact/signals-core';
import {
  BILLING_MESSAGES,
  PENDING_GIVE_UP_MS,
  PENDING_POLL_MS,
  type SubscriptionView,
} from '../contracts/billing';
import type { ApiClient } from './api/client';
import { loadSubscription } from './billing';
import type { Clock, Disposer } from './clock';
import { utcDay } from './time';
import type { SessionStore } from './stores/session';

/**
 * The Upgrade to Premium modal, the admin panel, and the way out to a checkout page. Commands and
 * panes both open these; the app decides what "go to a checkout page" means (the browser leaves for
 * it, the CLI prints it).
 */
export interface PremiumStore {
  readonly upgradeOpen: ReadonlySignal<boolean>;
  readonly adminOpen: ReadonlySignal<boolean>;
  openUpgrade(): void;
  closeUpgrade(): void;
  openAdmin(): void;
  closeAdmin(): void;
  /** Sends the browser to `url` (a listener does it); false when nothing listens (the CLI, tests). */
  redirect(url: string): boolean;
  onRedirect(listener: (url: string) => void): Disposer;
}

export function createPremiumStore(): PremiumStore {
  const upgradeOpen = signal(false, { name: 'premium.upgradeOpen' });
  const adminOpen = signal(false, { name: 'premium.adminOpen' });
  const listeners = new Set<(url: string) => void>();
  return {
    upgradeOpen,
    adminOpen,
    openUpgrade: () => void (upgradeOpen.value = true),
    closeUpgrade: () => void (upgradeOpen.value = false),
    openAdmin: () => void (adminOpen.value = true),
    closeAdmin: () => void (adminOpen.value = false),
    redirect(url) {
      for (const listener of listeners) listener(url);
      return listeners.size > 0;
    },
    onRedirect(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The subscription is Premium only while its status reads active (docs/product.md §6). */
export const isActive = (status: string | null | undefined): boolean => status === 'active';

/** The header reads the status from the session: keeps it in step with what the server just said. */
export function rememberStatus(session: SessionStore, view: Pick<SubscriptionView, 'status'>): void {
  const user = session.user.peek();
  if (user !== null && user.subscriptionStatus !== view.status) {
    session.setUser({ ...user, subscriptionStatus: view.status });
  }
}

/** `2026-12-23T10:00:00.000Z` → `23 Dec 2026` (UTC), the way the pages and `plan` print an end date. */
export function formatDay(iso: string | null): string | null {
  if (iso === null) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  return utcDay(at);
}

export const PENDING_TEXT = {
  waiting:
    'We are waiting for the payment provider to confirm your payment. This page checks every 10 seconds.',
  slow: 'Your payment is taking longer than usual to confirm. Crypto payments can need several network confirmations: your subscription will start as soon as it is confirmed. You can leave this page and check your plan later.',
} as const;

export type PendingState =
  | { phase: 'waiting'; checks: number }
  | { phase: 'slow'; checks: number }
  | { phase: 'unreadable'; checks: number; message: string };

export interface PendingDeps {
  main: ApiClient;
  clock: Clock;
  /** Each state change; the page shows it. */
  onState(state: PendingState): void;
  /** Called once when the subscription reads active. */
  onActive(view: SubscriptionView): void;
}

/**
 * docs/product.md §4/§9 payment pending: reads the subscription now and every 10 s; goes on when it is active;
 * after 300 s stops and says the wait is longer. A read that fails shows docs/product.md §8's message (and the
 * next read tries again). Returns the disposer.
 */
export function watchPending(deps: PendingDeps): Disposer {
  const started = deps.clock.now();
  let stopped = false;
  let checks = 0;
  let cancel: Disposer = () => undefined;
  const check = async (): Promise<void> => {
    if (stopped) return;
    checks += 1;
    const loaded = await loadSubscription(deps.main);
    if (stopped) return;
    if (loaded.ok && isActive(loaded.value.status)) {
      stopped = true;
      deps.onActive(loaded.value);
      return;
    }
    const elapsed = deps.clock.now() - started;
    if (elapsed >= PENDING_GIVE_UP_MS) {
      stopped = true;
      deps.onState({ phase: 'slow', checks });
      return;
    }
    deps.onState(
      loaded.ok
        ? { phase: 'waiting', checks }
        : { phase: 'unreadable', checks, message: BILLING_MESSAGES.statusUnreadable },
    );
    // The last read falls on the give-up time itself.
    cancel = deps.clock.setTimer(() => void check(), Math.min(PENDING_POLL_MS, PENDING_GIVE_UP_MS - elapsed));
  };
  void check();
  return () => {
    stopped = true;
    cancel();
  };
}
