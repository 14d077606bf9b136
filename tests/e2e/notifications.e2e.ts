import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './support/axe';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const PASSWORD = 'notify pass 1';

describe('Notifications in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e({ MARKET_SOURCE: 'sim' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('serves the service worker at /sw.js for the whole app', async () => {
    const res = await fetch(`${env.baseUrl}/sw.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('service-worker-allowed')).toBe('/');
    expect(await res.text()).toContain("addEventListener('push'");
  });

  it('opens the Notifications tab, changes a setting, and shows the push toggle', async () => {
    const { page, problems, offsite } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'nell@example.com', 'nell', PASSWORD);
    const header = page.locator('header.header');

    await header.getByRole('button', { name: 'Account' }).click();
    const account = page.getByRole('dialog', { name: 'Account' });
    await account.getByRole('tab', { name: 'Notifications' }).click();
    const tab = account.getByTestId('notifications-tab');
    await expect.poll(() => tab.innerText()).toContain('Telegram is not set up on this server.');
    expect(await tab.getByTestId('notify-alerts').isChecked()).toBe(true);
    expect(await tab.getByTestId('notify-pnl').isChecked()).toBe(false);

    // A click runs the same command the terminal runs, and the server keeps it.
    await tab.getByTestId('notify-pnl').click();
    await expect.poll(() => tab.getByTestId('notify-pnl').isChecked()).toBe(true);
    await tab.getByTestId('notify-threshold').selectOption('85');
    await expect.poll(() => tab.getByTestId('notify-threshold').inputValue()).toBe('85');
    // Read again from the server: another tab shown, then this one.
    await account.getByRole('tab', { name: 'Activity' }).click();
    await account.getByRole('tab', { name: 'Notifications' }).click();
    await expect.poll(() => tab.getByTestId('notify-threshold').inputValue()).toBe('85');
    expect(await tab.getByTestId('notify-pnl').isChecked()).toBe(true);
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await account.screenshot({ path: path.join(ARTIFACTS, 'notifications-tab-desktop.png') });
    // Phone width: the tab still fits, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'notifications-tab-phone.png') });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(1);
    await page.setViewportSize({ width: 1440, height: 900 });
    await account.getByRole('button', { name: 'Close' }).last().click();

    // Notifications & Alerts: the push toggle, which says plainly what this browser can do.
    await header.getByRole('button', { name: 'Settings', exact: true }).click();
    const alerts = page.getByRole('dialog', { name: 'Notifications & Alerts' });
    const toggle = alerts.getByTestId('push-toggle');
    await toggle.waitFor();
    expect(await alerts.innerText()).toContain('Push to this browser when the tab is closed');
    const message = alerts.getByTestId('push-message');
    await toggle.click();
    // Headless chromium on this machine has no push service to subscribe with: either it subscribes or
    // it says why not, and the box never claims a subscription it does not have.
    await expect
      .poll(() => message.innerText(), { timeout: 15_000 })
      .not.toBe('Alerts, fills and warnings you chose in Account → Notifications.');
    const text = await message.innerText();
    const on = await toggle.isChecked();
    if (on) expect(text).toContain('Push to this browser is on');
    else expect(text.length).toBeGreaterThan(10);
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await alerts.screenshot({ path: path.join(ARTIFACTS, 'notifications-push-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'notifications-push-phone.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    process.stdout.write(`push toggle in headless chromium: ${on ? 'subscribed' : 'refused'}: ${text}\n`);
    await alerts.getByRole('button', { name: 'Close' }).click();

    expect(problems.filter((p) => !/push|service worker|AbortError|registration/i.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
