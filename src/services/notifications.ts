import { signal, type ReadonlySignal } from '@preact/signals-core';
import {
  NotificationSettings,
  NotificationsState,
  TelegramLinkAnswer,
  type NotificationSettingsPatch,
} from '../contracts/notifications';
import type { ApiClient } from './api/client';
import { errorMessage } from './api/errors';

/**
 * Notifications away from the open tab (docs/product.md, Account → Notifications): the server's settings,
 * the Telegram link, and Web Push to this browser. The browser's part of push (service worker,
 * PushManager) sits behind `PushPort`; the CLI and tests have none, and say so.
 */
export const NOTIFY_TEXT = {
  loadFailed: 'Could not load your notification settings.',
  saveFailed: 'Could not save your notification settings.',
  linkFailed: 'Could not make a Telegram link code.',
  unlinkFailed: 'Could not unlink Telegram.',
  telegramOff: 'Telegram is not set up on this server.',
  pushServerOff: 'This server cannot send Web Push.',
  pushFailed: 'Could not turn on push for this browser.',
  pushOn: 'Push to this browser is on: notes arrive when the tab is closed.',
  pushOff: 'Push to this browser is off.',
} as const;

/** Why this browser cannot take Web Push, or null when it can. */
export type PushSupport = null | 'no-service-worker' | 'no-push' | 'insecure' | 'denied';

export const PUSH_UNSUPPORTED: Record<Exclude<PushSupport, null>, string> = {
  'no-service-worker': 'This browser cannot receive push notifications (no service workers here).',
  'no-push': 'This browser cannot receive push notifications (no Push API here).',
  insecure: 'Push needs https (or localhost): this page is not a secure context.',
  denied: 'Notifications are blocked for this site: allow them in the browser settings, then try again.',
};

/** The browser's Web Push: a subscription made with the server's VAPID public key. */
export interface PushPort {
  support(): PushSupport;
  /** The current subscription's endpoint, or null. */
  current(): Promise<string | null>;
  /** Asks for permission, registers the service worker and subscribes; PushSubscription.toJSON(). */
  subscribe(publicKey: string): Promise<{ endpoint: string; keys: { p256dh: string; auth: string } }>;
  /** Unsubscribes; the endpoint it had, or null. */
  unsubscribe(): Promise<string | null>;
}

/** No browser (the CLI, tests): push is not possible here. */
export const noPush: PushPort = {
  support: () => 'no-service-worker',
  current: async () => null,
  subscribe: () => Promise.reject(new Error(PUSH_UNSUPPORTED['no-service-worker'])),
  unsubscribe: async () => null,
};

export interface NotificationsStore {
  readonly state: ReadonlySignal<NotificationsState | null>;
  /** The last Telegram link code made in this tab, until used, expired or unlinked. */
  readonly link: ReadonlySignal<TelegramLinkAnswer | null>;
  /** Whether this browser is subscribed (null: not known yet). */
  readonly pushHere: ReadonlySignal<boolean | null>;
  readonly port: PushPort;
  set(state: NotificationsState): void;
  setLink(link: TelegramLinkAnswer | null): void;
  setPushHere(on: boolean | null): void;
  clear(): void;
}

export function createNotificationsStore(port: PushPort = noPush): NotificationsStore {
  const state = signal<NotificationsState | null>(null, { name: 'notifications.state' });
  const link = signal<TelegramLinkAnswer | null>(null, { name: 'notifications.link' });
  const pushHere = signal<boolean | null>(null, { name: 'notifications.pushHere' });
  return {
    state,
    link,
    pushHere,
    port,
    set: (next) => {
      state.value = next;
    },
    setLink: (next) => {
      link.value = next;
    },
    setPushHere: (on) => {
      pushHere.value = on;
    },
    clear: () => {
      state.value = null;
      link.value = null;
      pushHere.value = null;
    },
  };
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** `GET /api/notifications` into the store, and whether this browser is subscribed. */
export async function loadNotifications(
  main: ApiClient,
  store: NotificationsStore,
): Promise<Outcome<NotificationsState>> {
  try {
    const state = await main.call(NotificationsState, '/notifications');
    store.set(state);
    if (store.port.support() === null) {
      const endpoint = await store.port.current().catch(() => null);
      store.setPushHere(endpoint !== null);
    } else {
      store.setPushHere(false);
    }
    return { ok: true, value: state };
  } catch (error) {
    return { ok: false, message: errorMessage(error, NOTIFY_TEXT.loadFailed) };
  }
}

/** `PATCH /api/notifications` (turning on live orders from Telegram asks to confirm it's you). */
export async function saveNotifications(
  main: ApiClient,
  store: NotificationsStore,
  patch: NotificationSettingsPatch,
): Promise<Outcome<NotificationSettings>> {
  try {
    const settings = await main.call(NotificationSettings, '/notifications', {
      method: 'PATCH',
      body: patch,
    });
    const state = store.state.peek();
    if (state !== null) store.set({ ...state, settings });
    return { ok: true, value: settings };
  } catch (error) {
    return { ok: false, message: errorMessage(error, NOTIFY_TEXT.saveFailed) };
  }
}

export async function linkTelegram(
  main: ApiClient,
  store: NotificationsStore,
): Promise<Outcome<TelegramLinkAnswer>> {
  try {
    const link = await main.call(TelegramLinkAnswer, '/notifications/telegram/link', { method: 'POST' });
    store.setLink(link);
    return { ok: true, value: link };
  } catch (error) {
    return { ok: false, message: errorMessage(error, NOTIFY_TEXT.linkFailed) };
  }
}

export async function unlinkTelegram(main: ApiClient, store: NotificationsStore): Promise<Outcome<null>> {
  try {
    await main.send('/notifications/telegram/link', { method: 'DELETE' });
    store.setLink(null);
    await loadNotifications(main, store);
    return { ok: true, value: null };
  } catch (error) {
    return { ok: false, message: errorMessage(error, NOTIFY_TEXT.unlinkFailed) };
  }
}

/**
 * Turns Web Push to this browser on (permission, service worker, PushManager, then `POST
 * /api/notifications/push`) or off (unsubscribe, then `DELETE`). Says clearly when the browser or the
 * server cannot.
 */
export async function setPush(
  main: ApiClient,
  store: NotificationsStore,
  on: boolean,
): Promise<Outcome<boolean>> {
  const port = store.port;
  if (on) {
    const support = port.support();
    if (support !== null) return { ok: false, message: PUSH_UNSUPPORTED[support] };
    let state = store.state.peek();
    if (state === null) {
      const loaded = await loadNotifications(main, store);
      if (!loaded.ok) return loaded;
      state = loaded.value;
    }
    if (!state.push.configured || state.push.public_key === null) {
      return { ok: false, message: NOTIFY_TEXT.pushServerOff };
    }
    try {
      const sub = await port.subscribe(state.push.public_key);
      await main.send('/notifications/push', { method: 'POST', body: sub });
    } catch (error) {
      const denied = port.support() === 'denied';
      return {
        ok: false,
        message: denied ? PUSH_UNSUPPORTED.denied : errorMessage(error, NOTIFY_TEXT.pushFailed),
      };
    }
    store.setPushHere(true);
    await loadNotifications(main, store);
    return { ok: true, value: true };
  }
  const endpoint = await port.unsubscribe().catch(() => null);
  if (endpoint !== null) {
    // Already gone on the server (a 404) is what was asked for.
    await main.send('/notifications/push', { method: 'DELETE', body: { endpoint } }).catch(() => undefined);
  }
  store.setPushHere(false);
  await loadNotifications(main, store);
  return { ok: true, value: false };
}
