import type { Signal } from '../../contracts/signals';
import type { AlertSettingsStore, NotificationSettings } from './alertSettings';
import { meetsThreshold } from './alertSettings';
import type { FeedStore } from './feedStore';
import { impactOf, sentimentOf } from './types';

/** Spec §4 notification permission, plus browsers without notifications. */
export type NotificationPermissionState = 'default' | 'granted' | 'denied' | 'unsupported';

/** The browser's notifications, injected (the Notification API in the app, a fake in tests). */
export interface NotificationPort {
  permission(): NotificationPermissionState;
  /** Asks the person; answers what they chose. */
  request(): Promise<NotificationPermissionState>;
  show(notification: { title: string; body: string; tag: string }): void;
}

/** The two alert sounds (generated with Web Audio in the app). */
export interface SoundPort {
  play(kind: 'positive' | 'negative'): void;
}

/** Spec §9: the notification body is the first 150 characters. */
export const NOTIFICATION_BODY_CHARS = 150;

export const ALERT_TEXT = {
  title: (sentiment: string, asset: string | null) =>
    `High-Impact ${sentiment.toUpperCase()} Alert! (${asset ?? 'General'})`,
  notifyOn: 'Browser notifications on.',
  notifyOff: 'Browser notifications off.',
  /** Ours: said when the person refuses the permission (spec §4: refusal turns the setting off). */
  notifyRefused: 'Notifications were not allowed by the browser, so they stay off.',
  notifyUnsupported: 'This browser has no notifications, so they stay off.',
} as const;

export interface AlertDecision {
  highlight: boolean;
  sound: 'positive' | 'negative' | null;
  notification: { title: string; body: string; tag: string } | null;
}

/**
 * What a completed signal sets off under the settings (spec §9): nothing below the threshold; at or
 * above it a highlight, the positive or negative sound, and a browser notification when enabled.
 */
export function decideAlert(s: Signal, settings: NotificationSettings): AlertDecision | null {
  const sentiment = sentimentOf(s);
  if (sentiment === null || !meetsThreshold(impactOf(s), settings.notificationImpactThreshold)) return null;
  return {
    highlight: settings.enableVisualHighlights,
    sound: settings.isSoundEnabled && sentiment !== 'neutral' ? sentiment : null,
    notification: settings.isNotificationEnabled
      ? {
          title: ALERT_TEXT.title(sentiment, s.asset),
          body: s.content.slice(0, NOTIFICATION_BODY_CHARS),
          tag: `signal-${s.id}`,
        }
      : null,
  };
}

export interface Alerts {
  /** A signal has just finished analysing (from the live stream): alert if it is high-impact. */
  completed(s: Signal): AlertDecision | null;
}

export function createAlerts(deps: {
  settings: AlertSettingsStore;
  feed: FeedStore;
  sound: SoundPort;
  notifications: NotificationPort;
}): Alerts {
  return {
    completed(s) {
      const decision = decideAlert(s, deps.settings.settings.peek());
      if (decision === null) return null;
      if (decision.highlight) deps.feed.highlight(s.id);
      if (decision.sound !== null) deps.sound.play(decision.sound);
      if (decision.notification !== null && deps.notifications.permission() === 'granted') {
        deps.notifications.show(decision.notification);
      }
      return decision;
    },
  };
}

/**
 * Turns browser notifications on (asking for the permission when it was never asked) or off; a
 * refusal leaves the setting off (spec §4). Answers the text to show.
 */
export async function setNotifications(
  settings: AlertSettingsStore,
  port: NotificationPort,
  on: boolean,
): Promise<{ on: boolean; message: string }> {
  if (!on) {
    settings.update({ isNotificationEnabled: false });
    return { on: false, message: ALERT_TEXT.notifyOff };
  }
  const current = port.permission();
  const answer = current === 'default' ? await port.request() : current;
  const granted = answer === 'granted';
  settings.update({ isNotificationEnabled: granted });
  if (granted) return { on: true, message: ALERT_TEXT.notifyOn };
  return {
    on: false,
    message: answer === 'unsupported' ? ALERT_TEXT.notifyUnsupported : ALERT_TEXT.notifyRefused,
  };
}

/** A port for where there are no notifications (tests, the CLI). */
export const NO_NOTIFICATIONS: NotificationPort = {
  permission: () => 'unsupported',
  request: () => Promise.resolve('unsupported'),
  show: () => undefined,
};
