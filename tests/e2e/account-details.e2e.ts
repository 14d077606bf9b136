import { readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_TEXTS } from '../../src/contracts/exchanges';
import { openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const SHOTS = '/tmp/shots';
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };
const PASSWORD = 'details pass 1';

const header = (page: Page) => page.locator('header.header');
const dialog = (page: Page, name: string) => page.getByRole('dialog', { name });

/** One screenshot at each of the two sizes the product is checked at; the page is left wide. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['1440', WIDE],
    ['390', NARROW],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${SHOTS}/account-${name}-${size}.png` });
  }
  await page.setViewportSize(WIDE);
  await page.waitForTimeout(200);
}

/** The header at 1440 is one row: no taller than its own row, every part on one line, nothing pushed out. */
async function expectOneRow(page: Page): Promise<void> {
  await expect.poll(() => page.getByTestId('standins-badge').count()).toBe(1);
  const height = await header(page).evaluate((el) => el.getBoundingClientRect().height);
  expect(height).toBeLessThanOrEqual(46);
  const middles = await header(page).evaluate((el) =>
    [...el.querySelectorAll(':scope > *, .auth-buttons > *')]
      .filter((c) => c.getBoundingClientRect().width > 0)
      .map((c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2)),
  );
  expect(Math.max(...middles) - Math.min(...middles)).toBeLessThanOrEqual(4);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1441);
}

/** Logs in through the header's Login button; the 2FA step takes `code`. */
async function logInWithCode(page: Page, username: string, code: string): Promise<void> {
  await header(page).getByRole('button', { name: 'Login' }).click();
  const modal = page.getByRole('dialog');
  await modal.getByLabel('Username or email').fill(username);
  await modal.getByLabel('Password').fill(PASSWORD);
  await modal.locator('form').getByRole('button', { name: 'Login' }).click();
  await expect.poll(() => modal.getByRole('heading').innerText()).toBe('Enter Verification Code');
  await modal.getByLabel('Verification code').fill(code);
  await modal.getByRole('button', { name: 'Verify' }).click();
  await expect.poll(() => header(page).innerText(), { timeout: 15_000 }).toContain('Logout');
}

describe('the account side in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    env = await startE2e({
      MARKET_SOURCE: 'sim',
      PAYMENT_SANDBOX: 'true',
      // Nothing listens on the discard port: a demo key is saved unverified.
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a new key is Demo; Live says real funds trade', async () => {
    const { page, context, problems, offsite } = await openPage(env, WIDE);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'kit@example.com', 'kit', PASSWORD);
    await header(page).getByRole('button', { name: 'API Settings' }).click();
    const keys = dialog(page, 'API Key Management');
    await expect.poll(() => keys.innerText()).toContain(KEY_TEXTS.none);
    const environment = keys.getByLabel('Environment');
    expect(await environment.inputValue()).toBe('demo');
    expect(await environment.locator('option').allInnerTexts()).toEqual([
      'Demo (Binance demo trading)',
      'Live (real funds)',
    ]);
    expect(await keys.getByTestId('key-live-warning').count()).toBe(0);
    await environment.selectOption('live');
    expect(await keys.getByTestId('key-live-warning').innerText()).toBe(
      'Live: orders sent with this key trade real funds on your Binance account.',
    );
    await shots(page, 'key-live');
    await keys.getByLabel('Environment').selectOption('demo');
    await keys.getByLabel('API Key', { exact: true }).fill('E2eDetailsDemoKey0123');
    await keys.getByLabel('Secret Key').fill('details-demo-secret');
    await keys.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => keys.getByTestId('key-row').count()).toBe(1);
    expect(await keys.getByTestId('key-row').innerText()).toMatch(/^Binance\s+·\s+DEMO/);
    await page.keyboard.press('Escape');
    // The first account is the admin: Admin Panel and Upgrade to Premium both fit in the one row.
    await expectOneRow(page);
    await page.screenshot({ path: `${SHOTS}/account-header-admin-1440.png` });
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('recovery codes: Copy and Download, then a sign-in with one shows as such in Activity', async () => {
    const { page, context, problems, offsite } = await openPage(env, WIDE);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.baseUrl });
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'rue@example.com', 'rue', PASSWORD);
    await header(page).getByRole('button', { name: 'Account' }).click();
    const account = page.getByRole('dialog');
    await account.getByRole('tab', { name: 'Security' }).click();
    await account.getByRole('button', { name: 'Enable 2FA' }).click();
    const secret = await account.getByTestId('tfa-secret').innerText();
    await account
      .getByLabel('Verification code')
      .fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await account.getByRole('button', { name: 'Verify' }).click();
    const box = account.getByTestId('recovery-codes');
    await expect.poll(() => box.locator('li').count()).toBe(10);
    const codes = await box.locator('li').allInnerTexts();

    await box.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => box.getByTestId('recovery-status').innerText()).toContain('copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${codes.join('\n')}\n`);

    const downloading = page.waitForEvent('download');
    await box.getByRole('button', { name: 'Download' }).click();
    const file = await downloading;
    expect(file.suggestedFilename()).toBe('signal-console-recovery-codes-rue.txt');
    const text = await readFile(await file.path(), 'utf8');
    expect(text.split('\n')[0]).toBe('Signal Console recovery codes for rue');
    for (const code of codes) expect(text).toContain(`\n${code}\n`);
    await shots(page, 'recovery-codes');
    await box.getByRole('button', { name: 'I have saved them' }).click();
    await page.keyboard.press('Escape');

    await header(page).getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => header(page).innerText()).toContain('Login');
    await logInWithCode(page, 'rue', codes[0] ?? '');

    await header(page).getByRole('button', { name: 'Account' }).click();
    await page.getByRole('dialog').getByRole('tab', { name: 'Activity' }).click();
    const list = page.getByTestId('activity-list');
    await expect
      .poll(() =>
        list
          .locator('li')
          .first()
          .innerText()
          .catch(() => ''),
      )
      .toContain('recovery code');
    const latest = await list.locator('li').first().innerText();
    expect(latest).toContain('Signed in with a password and a recovery code (9 left)');
    expect(latest).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    await shots(page, 'activity');
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('the header holds one row at 1440 with a key and the stand-ins, before and after Premium; checkout says "7-day trial, $0 today"', async () => {
    const { page, context, problems, offsite } = await openPage(env, WIDE);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'pia@example.com', 'pia', PASSWORD);

    // A key, chosen as the account orders go to.
    await header(page).getByRole('button', { name: 'API Settings' }).click();
    const keys = dialog(page, 'API Key Management');
    await keys.getByLabel('API Key', { exact: true }).fill('E2eHeaderDemoKey0123');
    await keys.getByLabel('Secret Key').fill('header-demo-secret');
    await keys.getByRole('button', { name: 'Save Key' }).click();
    await expect.poll(() => keys.getByTestId('key-row').count()).toBe(1);
    const keyId = (await keys.locator('.key-meta code').first().innerText()).trim();
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="terminal"] .xterm').click();
    await page.keyboard.type(`account use ${keyId}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('terminal-log').innerText()).toContain('Orders go to: DEMO');
    // Every signed-in button, Upgrade to Premium too, beside the badges.
    await expectOneRow(page);
    await page.screenshot({ path: `${SHOTS}/account-header-upgrade-1440.png` });

    await header(page).getByRole('button', { name: 'Upgrade to Premium' }).click();
    const upgrade = dialog(page, 'Upgrade to Premium');
    const card = upgrade.getByRole('button', { name: /Pay by card/ });
    await expect.poll(() => card.innerText()).toContain('7-day trial, $0 today, then $179 per month');
    expect(await upgrade.innerText()).toContain('SAVE 20%');
    expect(await upgrade.getByTestId('premium-trial').innerText()).toBe('7-day free trial');
    await shots(page, 'upgrade');
    await card.click();
    await page.waitForURL(/\/api\/subscriptions\/sandbox\//);
    expect(await page.getByTestId('trial-today').innerText()).toBe(
      '7-day trial, $0 today, then $179 per month (this sandbox never charges).',
    );
    await shots(page, 'checkout');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${env.baseUrl}/payment/success`);
    await page.getByRole('link', { name: 'Go to Dashboard' }).click();
    await page.waitForURL(`${env.baseUrl}/`);
    await expect.poll(() => header(page).innerText()).toContain('Logout');
    expect(await header(page).getByRole('button', { name: 'Upgrade to Premium' }).count()).toBe(0);

    await expectOneRow(page);
    await page.screenshot({ path: `${SHOTS}/account-header-1440.png` });

    // At 390 it is one usable row: the rest is in the menu, which opens and closes.
    await page.setViewportSize(NARROW);
    await expect.poll(() => header(page).getByRole('button', { name: 'Menu' }).count()).toBe(1);
    const phone = await header(page).evaluate((el) => el.getBoundingClientRect().height);
    expect(phone).toBeLessThanOrEqual(46);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
    await page.screenshot({ path: `${SHOTS}/account-header-390.png` });
    await header(page).getByRole('button', { name: 'Menu' }).click();
    const menu = page.getByTestId('header-menu');
    await expect.poll(() => menu.getByRole('button', { name: 'API Settings' }).count()).toBe(1);
    expect(await menu.getByTestId('standins-badge').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/account-header-menu-390.png` });
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    // The demo venue is unreachable here: the positions of the demo key answer 503, and say so.
    expect(problems.filter((p) => !/status of (4\d\d|503)/.test(p))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
