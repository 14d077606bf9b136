import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import { KEY_TEXTS } from '../../src/contracts/exchanges';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

const KEY = { apiKey: 'E2eStepUpKey0123456789ab', secret: 'e2e-step-up-secret-012345' };
const PASSWORD = 'step up pass 1';

/** What has focus, as the test names it: the accessible name of the focused element, or its tag. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!(el instanceof HTMLElement)) return '';
    return el.getAttribute('aria-label') || el.id || el.textContent?.trim() || el.tagName;
  });

describe('"Confirm it\'s you" in the browser', () => {
  let env: E2eEnv;
  let binance: SignedDouble;
  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { ...KEY, ipRestrict: true });
    env = await startE2e({
      MARKET_SOURCE: 'sim',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await env?.close();
    await binance?.close();
  });

  it('asks for the password before a key is saved on a remembered device, by keyboard alone', async () => {
    const { context, page, problems, offsite } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    const header = page.locator('header.header');

    // Sign up, then log in with "Remember me".
    await header.getByRole('button', { name: 'Sign Up' }).click();
    const auth = page.getByRole('dialog');
    await auth.getByLabel('Email').fill('una@example.com');
    await auth.getByLabel('Username').fill('una');
    await auth.getByLabel('Password').fill(PASSWORD);
    await auth.locator('form').getByRole('button', { name: 'Sign Up' }).click();
    await expect.poll(() => page.getByTestId('auth-notice').innerText()).toContain('Registration successful');
    await auth.getByLabel('Username or email').fill('una');
    await auth.getByLabel('Password').fill(PASSWORD);
    await auth.getByLabel('Remember me').check();
    await auth.locator('form').getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => header.innerText()).toContain('Logout');

    // A later visit signs in by the remembered device alone: not a fresh sign-in, so it will be asked.
    await context.clearCookies({ name: 'sc_refresh' });
    await page.reload();
    await header.getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => header.innerText()).toContain('Logout');

    await header.getByRole('button', { name: 'API Settings' }).click();
    const keys = page.getByRole('dialog', { name: 'API Key Management' });
    await keys.getByLabel('Environment').selectOption('live');
    await keys.getByLabel('API Key', { exact: true }).fill(KEY.apiKey);
    await keys.getByLabel('Secret Key').fill(KEY.secret);
    const save = keys.getByRole('button', { name: 'Save Key' });
    await save.focus();
    await page.keyboard.press('Enter');

    // The dialog opens over the keys window with the password field focused; Esc leaves the key unsaved.
    const confirm = page.getByRole('dialog', { name: "Confirm it's you" });
    await confirm.waitFor();
    await expect.poll(() => focused(page)).toBe('step-up-secret');
    expect(await confirm.getByLabel('Password').getAttribute('type')).toBe('password');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await keys.isVisible()).toBe(true);
    await expect.poll(() => keys.getByTestId('keys-notice').innerText()).toBe(STEP_UP_DETAILS.required);
    expect(await keys.getByTestId('key-row').count()).toBe(0);
    await expect.poll(() => focused(page)).toBe('Save Key');

    // Again: Tab stays inside the dialog; a wrong password keeps it open; the right one saves the key.
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await expect.poll(() => focused(page)).toBe('step-up-secret');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Confirm');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('step-up-secret');
    await page.keyboard.type('not my password');
    await page.keyboard.press('Enter');
    await expect.poll(() => confirm.getByRole('alert').innerText()).toBe('Incorrect password.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'step-up-wrong-password.png') });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => keys.getByTestId('keys-notice').innerText()).toBe(KEY_TEXTS.saved);
    await expect.poll(() => keys.getByTestId('key-row').count()).toBe(1);

    expect(problems.filter((p) => !p.includes('403') && !p.includes('401'))).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
