import { signal, type ReadonlySignal } from '@preact/signals-core';
import { createAlertMemory, type AlertMemory } from './alertMemory';
import { createAlertSettingsStore, type AlertSettingsStore } from './alertSettings';
import { NO_NOTIFICATIONS, setNotifications, type NotificationPort } from './alerts';
import type { StoragePort } from '../storage';

/** The alert settings (docs/product.md §3) and the browser permission behind `isNotificationEnabled`. */
export interface AlertsStore extends AlertSettingsStore {
  readonly notifications: NotificationPort;
  /** The signals this browser alerted on (a retraction of one alerts too). */
  readonly memory: AlertMemory;
  /** The Notifications & Alerts modal (docs/product.md §2). */
  readonly modalOpen: ReadonlySignal<boolean>;
  openModal(): void;
  closeModal(): void;
  /** Turns browser notifications on (asking first) or off; answers the text to show. */
  setNotifications(on: boolean): Promise<{ on: boolean; message: string }>;
}

export function createAlertsStore(
  storage: StoragePort,
  notifications: NotificationPort = NO_NOTIFICATIONS,
): AlertsStore {
  const settings = createAlertSettingsStore(storage);
  const modalOpen = signal(false, { name: 'alerts.modalOpen' });
  return {
    ...settings,
    notifications,
    memory: createAlertMemory(storage),
    modalOpen,
    openModal: () => void (modalOpen.value = true),
    closeModal: () => void (modalOpen.value = false),
    setNotifications: (on) => setNotifications(settings, notifications, on),
  };
}
