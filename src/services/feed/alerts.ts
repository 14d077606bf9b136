import type { Signal } from '../../contracts/signals';
import type { AlertMemory } from './alertMemory';
import type { AlertSettingsStore, NotificationSettings } from './alertSettings';
import { meetsThreshold } from './alertSettings';
import type { FeedStore } from './feedStore';
import { impactOf, sentimentOf } from './types';

/** docs/product.md §4 notification permission, plus browsers without notifications. */
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

/** docs/product.md §9: the notification body is the first 150 characters. */
export const NOTIFICATION_BODY_CHARS = 150;

export const ALERT_TEXT = {
  title: (sentiment: string, asset: string | null) =>
    `High-Impact ${sentiment.toUpperCase()} Alert! (${asset ?? 'General'})`,
  notifyOn: 'Browser notifications on.',
  notifyOff: 'Browser notifications off.',
  /** Ours: said when the person refuses the permission (docs/product.md §4: refusal turns the setting off). */
  notifyRefused: 'Notifications were not allowed by the browser, so they stay off.',
  notifyUnsupported: 'This browser has no notifications, so they stay off.',
  /** Ours: a story this browser alerted on was retracted. */
  retracted: (asset: string | null) => `RETRACTED: an earlier alert (${asset ?? 'General'})`,
} as const;

export interface AlertDecision {
  highlight: boolean;
  sound: 'positive' | 'negative' | null;
  notification: { title: string; body: string; tag: string } | null;
}

/**
 * What a completed signal sets off under the settings (docs/product.md §9): nothing below the threshold; at or
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

/**
 * What the retraction of a story this browser alerted on sets off, whatever the threshold: a highlight,
 * the sound of the other direction (the rumour's move is expected to reverse), and a notification with
 * the retraction's words.
 */
export function decideRetractionAlert(s: Signal, settings: NotificationSettings): AlertDecision | null {
  const retraction = s.retraction ?? null;
  if (retraction === null) return null;
  const rumour = sentimentOf(s);
  return {
    highlight: settings.enableVisualHighlights,
    sound: !settings.isSoundEnabled
      ? null
      : rumour === 'positive'
        ? 'negative'
        : rumour === 'negative'
          ? 'positive'
          : null,
    notification: settings.isNotificationEnabled
      ? {
          title: ALERT_TEXT.retracted(s.asset),
          body: retraction.reason.slice(0, NOTIFICATION_BODY_CHARS),
          tag: `retraction-${s.id}`,
        }
      : null,
  };
}

export interface Alerts {
  /** A signal has just finished analysing (from the live stream): alert if it is high-impact. */
  completed(s: Signal): AlertDecision | null;
  /**
   * A signal changed on the stream: alert once when it has been retracted and this browser alerted on
   * it, whatever the threshold.
   */
  changed(s: Signal): AlertDecision | null;
}

export function createAlerts(deps: {
  settings: AlertSettingsStore;
  feed: FeedStore;
  sound: SoundPort;
  notifications: NotificationPort;
  /** Remembers the alerts given, so that a retraction of one alerts too. */
  memory?: AlertMemory;
}): Alerts {
  const fire = (id: string, decision: AlertDecision): AlertDecision => {
    if (decision.highlight) deps.feed.highlight(id);
    if (decision.sound !== null) deps.sound.play(decision.sound);
    if (decision.notification !== null && deps.notifications.permission() === 'granted') {
      deps.notifications.show(decision.notification);
    }
    return decision;
  };
  return {
    completed(s) {
      // A story retracted already is no news to act on.
      if (s.retraction != null) return null;
      const decision = decideAlert(s, deps.settings.settings.peek());
      if (decision === null) return null;
      deps.memory?.rememberAlert(s.id);
      return fire(s.id, decision);
    },
    changed(s) {
      const { memory } = deps;
      if (s.retraction == null || memory === undefined || !memory.alerted(s.id)) return null;
      if (!memory.firstRetraction(s.id)) return null;
      const decision = decideRetractionAlert(s, deps.settings.settings.peek());
      return decision === null ? null : fire(s.id, decision);
    },
  };
}

/**
 * Turns browser notifications on (asking for the permission when it was never asked) or off; a
 * refusal leaves the setting off (docs/product.md §4). Answers the text to show.
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
