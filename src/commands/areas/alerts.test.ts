import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../testing/scripted';

describe('alerts commands', () => {
  it('alerts shows the settings, spec defaults first', async () => {
    const s = createTestConsole();
    expect(await s.type('alerts')).toEqual([
      'info: Impact threshold       80',
      'info: Visual highlights      on',
      'info: Sound                  on',
      'info: Browser notifications  off',
    ]);
  });

  it('alerts threshold takes 50 to 95 in steps of 5', async () => {
    const s = createTestConsole();
    expect(await s.type('alerts threshold 65')).toEqual(['success: Alerts fire at impact 65 and above.']);
    expect(s.stores.alerts.settings.value.notificationImpactThreshold).toBe(65);
    for (const bad of ['45', '100', '62', 'high']) {
      expect((await s.type(`alerts threshold ${bad}`))[0]).toBe(
        'error: The alert threshold is a number from 50 to 95 in steps of 5.',
      );
    }
    expect(s.stores.alerts.settings.value.notificationImpactThreshold).toBe(65);
  });

  it('alerts sound and alerts highlight switch on and off', async () => {
    const s = createTestConsole();
    expect(await s.type('alerts sound off')).toEqual(['success: Alert sounds off.']);
    expect(await s.type('alerts highlight OFF')).toEqual(['success: Card highlights off.']);
    expect(s.stores.alerts.settings.value).toMatchObject({
      isSoundEnabled: false,
      enableVisualHighlights: false,
    });
    expect(await s.type('alerts sound on')).toEqual(['success: Alert sounds on.']);
    expect((await s.type('alerts sound loud'))[0]).toBe('error: Say on or off.');
  });

  it('alerts notify on stays off where the browser has no notifications', async () => {
    const s = createTestConsole();
    expect(await s.type('alerts notify on')).toEqual([
      'error: This browser has no notifications, so they stay off.',
    ]);
    expect(s.stores.alerts.settings.value.isNotificationEnabled).toBe(false);
    expect(await s.type('alerts notify off')).toEqual(['success: Browser notifications off.']);
  });
});

describe('alerts opens its window', () => {
  it('prints the settings and opens the Notifications & Alerts window', async () => {
    const s = createTestConsole();
    expect(s.stores.alerts.modalOpen.value).toBe(false);
    expect((await s.type('alerts'))[0]).toBe('info: Impact threshold       80');
    expect(s.stores.alerts.modalOpen.value).toBe(true);
  });
});
