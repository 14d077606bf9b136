import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createFakeClock } from '../testing/fakeClock';
import {
  createAlertSettingsStore,
  DEFAULT_SETTINGS,
  isValidThreshold,
  meetsThreshold,
  snapThreshold,
} from './alertSettings';
import {
  createAlerts,
  decideAlert,
  setNotifications,
  type NotificationPermissionState,
  type NotificationPort,
} from './alerts';
import { createFeedStore } from './feedStore';
import { completed, makeSignal } from './testing/signals';
import { FEED_KEYS } from './types';

function fakeNotifications(
  initial: NotificationPermissionState,
  answer: NotificationPermissionState = 'granted',
) {
  let permission = initial;
  const shown: { title: string; body: string; tag: string }[] = [];
  let asked = 0;
  const port: NotificationPort = {
    permission: () => permission,
    request: async () => {
      asked += 1;
      permission = answer;
      return answer;
    },
    show: (n) => void shown.push(n),
  };
  return { port, shown, asked: () => asked };
}

describe('alert thresholds and settings (docs/product.md §3, §5, §9)', () => {
  it('accepts 50 to 95 in steps of 5 only', () => {
    expect([50, 55, 80, 95].every(isValidThreshold)).toBe(true);
    expect([45, 52, 100, 80.5, Number.NaN].some(isValidThreshold)).toBe(false);
    expect([0, 52, 53, 200, Number.NaN].map(snapThreshold)).toEqual([50, 50, 55, 95, 80]);
  });

  it('alerts at or above the threshold, never below, never while analyzing', () => {
    expect(meetsThreshold(80, 80)).toBe(true);
    expect(meetsThreshold(79.99, 80)).toBe(false);
    expect(meetsThreshold(null, 50)).toBe(false);
    expect(decideAlert(makeSignal(1), DEFAULT_SETTINGS)).toBeNull();
  });

  it('starts from the spec defaults and keeps changes under notificationSettings', () => {
    const storage = memoryStorage();
    const store = createAlertSettingsStore(storage);
    expect(store.settings.value).toEqual({
      enableVisualHighlights: true,
      isSoundEnabled: true,
      isNotificationEnabled: false,
      notificationImpactThreshold: 80,
    });
    store.update({ notificationImpactThreshold: 87, isSoundEnabled: false });
    expect(store.settings.value.notificationImpactThreshold).toBe(85);
    expect(JSON.parse(storage.get(FEED_KEYS.notifications) ?? '{}')).toMatchObject({
      isSoundEnabled: false,
      notificationImpactThreshold: 85,
    });
    expect(createAlertSettingsStore(storage).settings.value).toEqual(store.settings.value);
  });

  it('reads bad saved fields as their defaults', () => {
    const storage = memoryStorage({
      [FEED_KEYS.notifications]: JSON.stringify({
        isSoundEnabled: 'yes',
        notificationImpactThreshold: 7,
        enableVisualHighlights: false,
      }),
    });
    expect(createAlertSettingsStore(storage).settings.value).toEqual({
      ...DEFAULT_SETTINGS,
      enableVisualHighlights: false,
      notificationImpactThreshold: 50,
    });
  });

  it('a high-impact completed signal highlights, sounds by sentiment and notifies with the spec title', () => {
    const storage = memoryStorage();
    const settings = createAlertSettingsStore(storage);
    settings.update({ isNotificationEnabled: true });
    const feed = createFeedStore({ storage, clock: createFakeClock() });
    const sounds: string[] = [];
    const notes = fakeNotifications('granted');
    const alerts = createAlerts({
      settings,
      feed,
      sound: { play: (k) => void sounds.push(k) },
      notifications: notes.port,
    });
    const long = 'x'.repeat(200);
    const neg = completed(makeSignal(1, { content: long }), 'negative', 92, ['ETH']);
    feed.receive(neg);
    alerts.completed(neg);
    const general = completed(makeSignal(2, { content: 'Fed cuts' }), 'positive', 80);
    feed.receive(general);
    alerts.completed(general);
    const low = completed(makeSignal(3), 'positive', 79);
    feed.receive(low);
    expect(alerts.completed(low)).toBeNull();

    expect(sounds).toEqual(['negative', 'positive']);
    expect(notes.shown).toEqual([
      { title: 'High-Impact NEGATIVE Alert! (ETH)', body: 'x'.repeat(150), tag: 'signal-1' },
      { title: 'High-Impact POSITIVE Alert! (General)', body: 'Fed cuts', tag: 'signal-2' },
    ]);
    expect([...feed.highlighted.value].sort()).toEqual(['1', '2']);
  });

  it('honours each switch: no highlight, no sound, no notification without the permission', () => {
    const storage = memoryStorage();
    const settings = createAlertSettingsStore(storage);
    settings.update({ enableVisualHighlights: false, isSoundEnabled: false, isNotificationEnabled: true });
    const feed = createFeedStore({ storage, clock: createFakeClock() });
    const sounds: string[] = [];
    const notes = fakeNotifications('denied');
    const alerts = createAlerts({
      settings,
      feed,
      sound: { play: (k) => void sounds.push(k) },
      notifications: notes.port,
    });
    const s = completed(makeSignal(1), 'positive', 99, ['BTC']);
    feed.receive(s);
    expect(alerts.completed(s)).toMatchObject({ highlight: false, sound: null });
    expect(sounds).toEqual([]);
    expect(notes.shown).toEqual([]);
    expect(feed.highlighted.value.size).toBe(0);
  });

  it('enabling notifications asks for the permission; a refusal turns the setting off (docs/product.md §4)', async () => {
    const settings = createAlertSettingsStore(memoryStorage());
    const refused = fakeNotifications('default', 'denied');
    expect(await setNotifications(settings, refused.port, true)).toMatchObject({ on: false });
    expect(refused.asked()).toBe(1);
    expect(settings.settings.value.isNotificationEnabled).toBe(false);

    const granted = fakeNotifications('default', 'granted');
    expect(await setNotifications(settings, granted.port, true)).toEqual({
      on: true,
      message: 'Browser notifications on.',
    });
    expect(settings.settings.value.isNotificationEnabled).toBe(true);
    expect(await setNotifications(settings, granted.port, true)).toMatchObject({ on: true });
    expect(granted.asked()).toBe(1);
    expect(await setNotifications(settings, granted.port, false)).toEqual({
      on: false,
      message: 'Browser notifications off.',
    });
    expect(settings.settings.value.isNotificationEnabled).toBe(false);
  });
});
