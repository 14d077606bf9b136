import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

/** Page object for the header's account buttons and the auth modal. */
class AuthUi {
  constructor(private readonly page: Page) {}

  header = () => this.page.locator('header');
  modal = () => this.page.getByRole('dialog');

  async signUp(email: string, username: string, password: string): Promise<void> {
    await this.header().getByRole('button', { name: 'Sign Up' }).click();
    const modal = this.modal();
    await modal.getByLabel('Email').fill(email);
    await modal.getByLabel('Username').fill(username);
    await modal.getByLabel('Password').fill(password);
    await modal.locator('form').getByRole('button', { name: 'Sign Up' }).click();
  }

  async logIn(username: string, password: string, remember: boolean): Promise<void> {
    const modal = this.modal();
    if (!(await modal.isVisible())) await this.header().getByRole('button', { name: 'Login' }).click();
    await modal.getByLabel('Username or email').fill(username);
    await modal.getByLabel('Password').fill(password);
    if (remember) await modal.getByLabel('Remember me').check();
    await modal.locator('form').getByRole('button', { name: 'Login' }).click();
  }

  notice = () => this.page.getByTestId('auth-notice').innerText();
}

/** The code an authenticator app shows for `secret`, one step ahead so it is not the enabling code. */
function nextCode(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 });
}

describe('accounts and sessions in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('signs up, logs in with remember-me, survives a reload, enables 2FA, logs out and back in with a code', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const ui = new AuthUi(page);
    await page.goto(env.baseUrl + '/');
    await expect.poll(() => ui.header().innerText()).toContain('Login');

    await ui.signUp('eve@example.com', 'eve', 'e2e password 1');
    await expect.poll(() => ui.notice()).toBe('Registration successful! Please log in.');
    expect(await ui.modal().getByRole('tab', { name: 'Login', selected: true }).count()).toBe(1);

    await ui.logIn('eve', 'e2e password 1', true);
    await expect.poll(() => ui.modal().count()).toBe(0);
    await expect.poll(() => ui.header().innerText()).toContain('Logout');
    // The first account is an admin: the header shows the Admin Panel button.
    expect(await ui.header().innerText()).toMatch(
      /eve[\s\S]*Admin Panel[\s\S]*Account[\s\S]*Settings[\s\S]*Logout/,
    );
    // Settings opens the Notifications & Alerts settings.
    await ui.header().getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Notifications & Alerts' });
    await expect.poll(() => settings.count()).toBe(1);
    await settings.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => settings.count()).toBe(0);

    await page.reload();
    await expect
      .poll(() =>
        page
          .getByTestId('user-name')
          .innerText()
          .catch(() => ''),
      )
      .toBe('eve');

    await ui.header().getByRole('button', { name: 'Account' }).click();
    const account = ui.modal();
    await expect.poll(() => account.getByTestId('device-list').innerText()).toContain('Linux');
    const fingerprint = await account.locator('.device-fingerprint').first().innerText();
    expect(fingerprint).toMatch(/^[0-9a-f]{8}$/);
    await account.getByRole('tab', { name: 'Security' }).click();
    // A password change offers to unlink the wallets and end the sign-ins they started.
    const unlink = account.getByRole('checkbox', { name: 'Also unlink my wallets and sign them out' });
    await expect.poll(() => unlink.count()).toBe(1);
    expect(await unlink.isChecked()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'auth-security-tab.png') });
    await account.getByRole('button', { name: 'Enable 2FA' }).click();
    const secret = await account.getByTestId('tfa-secret').innerText();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expect.poll(() => account.getByRole('img', { name: '2FA QR code' }).count()).toBe(1);
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    await account.getByLabel('Verification code').fill(code);
    await account.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => account.getByTestId('recovery-codes').locator('li').count()).toBe(10);
    await page.screenshot({ path: path.join(ARTIFACTS, 'auth-2fa-enabled.png') });
    await account.getByRole('button', { name: 'Close' }).click();

    await ui.header().getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => ui.header().innerText()).toContain('Sign Up');

    await ui.logIn('eve@example.com', 'e2e password 1', false);
    await expect.poll(() => ui.modal().getByRole('heading').innerText()).toBe('Enter Verification Code');
    await ui.modal().getByLabel('Verification code').fill(nextCode(secret));
    await ui.modal().getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => ui.header().innerText()).toContain('Logout');
    await page.screenshot({ path: path.join(ARTIFACTS, 'auth-logged-in.png') });

    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('logs in from the command line without echoing the password', async () => {
    const { page, problems, context } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.getByRole('dialog').getByLabel('Email').fill('tom@example.com');
    await page.getByRole('dialog').getByLabel('Username').fill('tom');
    await page.getByRole('dialog').getByLabel('Password').fill('terminal pass 1');
    await page.getByRole('dialog').locator('form').getByRole('button', { name: 'Sign Up' }).click();
    await expect.poll(() => page.getByTestId('auth-notice').innerText()).toContain('Registration successful');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    await page.locator('[data-testid="terminal"] textarea').focus();
    await page.keyboard.type('login tom');
    await page.keyboard.press('Enter');
    await page.keyboard.type('terminal pass 1');
    await page.keyboard.press('Enter');
    const log = page.getByTestId('terminal-log');
    await expect.poll(() => log.innerText()).toContain('Logged in as tom.');
    expect(await log.innerText()).not.toContain('terminal pass 1');
    const screen = await page.locator('[data-testid="terminal"] .xterm-rows').innerText();
    expect(screen).not.toContain('terminal pass 1');
    expect(screen).toContain('Password:');
    await expect.poll(() => page.getByTestId('user-name').innerText()).toBe('tom');
    expect(problems).toEqual([]);
    await context.close();
  });
});
