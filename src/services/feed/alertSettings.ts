import { signal, type ReadonlySignal } from '@preact/signals-core';
import { readJson, writeJson, type StoragePort } from '../storage';
import { FEED_KEYS } from './types';

/** docs/product.md §3 notification settings, kept in the browser under `notificationSettings`. */
export interface NotificationSettings {
  enableVisualHighlights: boolean;
  isSoundEnabled: boolean;
  isNotificationEnabled: boolean;
  notificationImpactThreshold: number;
}

export const DEFAULT_SETTINGS: NotificationSettings = {
  enableVisualHighlights: true,
  isSoundEnabled: true,
  isNotificationEnabled: false,
  notificationImpactThreshold: 80,
};

/** docs/product.md §5: the alert threshold slider, 50 to 95 in steps of 5. */
export const THRESHOLD = { min: 50, max: 95, step: 5 } as const;

export const THRESHOLD_TEXT = `The alert threshold is a number from ${THRESHOLD.min} to ${THRESHOLD.max} in steps of ${THRESHOLD.step}.`;

/** True for 50, 55 … 95. */
export function isValidThreshold(n: number): boolean {
  return Number.isInteger(n) && n >= THRESHOLD.min && n <= THRESHOLD.max && n % THRESHOLD.step === 0;
}

/** Any number brought onto the slider's grid (nearest step, within range). */
export function snapThreshold(n: number): number {
  if (!Number.isFinite(n)) return DEFAULT_SETTINGS.notificationImpactThreshold;
  const stepped = Math.round(n / THRESHOLD.step) * THRESHOLD.step;
  return Math.min(THRESHOLD.max, Math.max(THRESHOLD.min, stepped));
}

/** docs/product.md §9: completed signals at or above the threshold alert. */
export function meetsThreshold(impact: number | null, threshold: number): boolean {
  return impact !== null && impact >= threshold;
}

const isSettings = (v: unknown): v is Partial<NotificationSettings> => typeof v === 'object' && v !== null;

/** Stored values over the defaults, each checked; a bad field falls back to its default. */
function readSettings(storage: StoragePort): NotificationSettings {
  const raw = readJson(storage, FEED_KEYS.notifications, isSettings, {});
  const bool = (k: 'enableVisualHighlights' | 'isSoundEnabled' | 'isNotificationEnabled'): boolean =>
    typeof raw[k] === 'boolean' ? raw[k] : DEFAULT_SETTINGS[k];
  const threshold = raw.notificationImpactThreshold;
  return {
    enableVisualHighlights: bool('enableVisualHighlights'),
    isSoundEnabled: bool('isSoundEnabled'),
    isNotificationEnabled: bool('isNotificationEnabled'),
    notificationImpactThreshold:
      typeof threshold === 'number' ? snapThreshold(threshold) : DEFAULT_SETTINGS.notificationImpactThreshold,
  };
}

export interface AlertSettingsStore {
  readonly settings: ReadonlySignal<NotificationSettings>;
  /** Changes some settings and saves them; the threshold is snapped onto the slider's grid. */
  update(patch: Partial<NotificationSettings>): void;
}

export function createAlertSettingsStore(storage: StoragePort): AlertSettingsStore {
  const settings = signal(readSettings(storage), { name: 'feed.notificationSettings' });
  return {
    settings,
    update(patch) {
      const next = { ...settings.peek(), ...patch };
      next.notificationImpactThreshold = snapThreshold(next.notificationImpactThreshold);
      settings.value = next;
      writeJson(storage, FEED_KEYS.notifications, next);
    },
  };
}
