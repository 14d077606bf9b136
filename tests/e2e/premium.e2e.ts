import { CALIBRATION_TEXTS, type CalibrationView } from '../../src/contracts/calibration';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './support/axe';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

const WIDE = { width: 1280, height: 720 };
const NARROW = { width: 390, height: 844 };

const point = (score: number, predicted: number, realised: number) => ({
  score,
  predicted_move: predicted,
  realised_move: realised,
});
/** A fitted calibration as the server answers it on Binance prices (listings moved more than promised). */
const FITTED: CalibrationView = {
  state: 'on',
  min_samples: 50,
  fitted_at: '2026-12-01T04:00:00.000Z',
  horizon_s: 1800,
  ratio: 0.2,
  types: [
    {
      event_type: 'listing',
      samples: 64,
      active: true,
      probes: [point(20, 0.1, 0.3), point(50, 0.6, 1.8), point(80, 1.5, 4)],
      points: [point(30, 0.2, 0.5), point(55, 0.7, 2.1), point(80, 1.5, 4), point(92, 2.6, 5.2)],
    },
    {
      event_type: 'partnership',
      samples: 12,
      active: false,
      probes: [point(20, 0.1, 0.02), point(50, 0.6, 0.05), point(80, 1.5, 0.05)],
      points: [point(15, 0.08, 0.02), point(40, 0.4, 0.05)],
    },
    { event_type: 'etf', samples: 0, active: false, probes: [], points: [] },
  ],
};

/** One screenshot at each of the two sizes the product is checked at. */
async function shots(page: Page, name: string): Promise<void> {
  const before = page.viewportSize() ?? WIDE;
  for (const [size, viewport] of [
    ['wide', WIDE],
    ['narrow', NARROW],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(ARTIFACTS, `premium-${name}-${size}.png`) });
  }
  await page.setViewportSize(before);
}

const header = (page: Page) => page.locator('header.header');
const upgradeButton = (page: Page) => header(page).getByRole('button', { name: 'Upgrade to Premium' });

describe('Premium in the browser (sandbox checkout)', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    // A production start (NODE_ENV unset) with no payment provider: the sandbox only runs when asked
    // for, as `npm start` does.
    env = await startE2e({
      MARKET_SOURCE: 'sim',
      NEWS_SOURCES: 'webhook',
      INGEST_TOKEN: 'e2e-premium-token-123',
      PAYMENT_SANDBOX: 'true',
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('upgrades through the TEST MODE checkout, lands on /payment/success, and the Upgrade button is gone', async () => {
    const { page, problems, offsite } = await openPage(env, WIDE);
    await page.goto(env.baseUrl + '/');
    // The first account is the admin of the last test.
    await signUpAndLogInThroughUi(page, 'ada@example.com', 'ada', 'premium pass 1');
    await expect.poll(() => header(page).getByRole('button', { name: 'Admin Panel' }).count()).toBe(1);
    // Signed in, the app puts the focus in the terminal; the modal is opened from there.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Terminal input');

    await upgradeButton(page).click();
    const modal = page.getByRole('dialog', { name: 'Upgrade to Premium' });
    await expect.poll(() => modal.count()).toBe(1);
    const text = await modal.innerText();
    for (const want of [
      'Real-time AI signals',
      'Unlimited auto-trading rules',
      'All news sources',
      'Priority support',
      '$179',
      'per month',
      '$1790',
      'per year',
      'SAVE 20%',
      '7-day free trial',
      'Pay by card',
      'Pay with crypto',
    ])
      expect(text).toContain(want);
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await shots(page, 'upgrade-modal');

    // Esc closes it and gives focus back to the button.
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Upgrade to Premium');

    // Closed while the phone layout keeps the button in its menu, the window gives focus back to the
    // button once a resize shows it again, not to the terminal that the resize rebuilt.
    await upgradeButton(page).click();
    await expect.poll(() => modal.count()).toBe(1);
    await page.setViewportSize(NARROW);
    await expect.poll(() => page.getByTestId('dashboard-phone').count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => modal.count()).toBe(0);
    await page.setViewportSize(WIDE);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Upgrade to Premium');

    await upgradeButton(page).click();
    await modal.getByRole('radio', { name: /Monthly/ }).click();
    await modal.getByRole('button', { name: /Pay by card/ }).click();
    await page.waitForURL(/\/api\/subscriptions\/sandbox\//);
    expect(await page.getByTestId('test-mode').innerText()).toBe('TEST MODE');
    expect(await page.locator('body').innerText()).toContain('Premium monthly: $179 per month (card)');
    await shots(page, 'sandbox-checkout');
    await page.getByRole('button', { name: 'Pay' }).click();

    await page.waitForURL(`${env.baseUrl}/payment/success`);
    await expect.poll(() => page.getByTestId('subscription-status').innerText()).toBe('Premium active');
    // A card checkout starts the trial: nothing was paid today, and the page says when the first charge is.
    expect(await page.locator('h1').innerText()).toBe('Free trial started');
    expect(await page.getByTestId('trial-note').innerText()).toMatch(
      /^Your 7-day free trial has started: \$0 today; this offline sandbox charges nothing afterwards\.$/,
    );
    // Card checkouts start with the 7-day trial: the end shown is the trial's.
    const end = await page.getByTestId('subscription-end').innerText();
    const week = new Date(Date.now() + 7 * 86_400_000);
    expect(end).toBe(
      week.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }),
    );
    await shots(page, 'payment-success');

    await page.getByRole('link', { name: 'Go to Dashboard' }).click();
    await page.waitForURL(`${env.baseUrl}/`);
    await expect.poll(() => header(page).innerText()).toContain('Logout');
    expect(await upgradeButton(page).count()).toBe(0);

    // The terminal (which has focus on load) says the same.
    await page.keyboard.type('plan');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.xterm-rows').innerText()).toMatch(/Plan: +Premium monthly/);

    // The Plan tab says what the plan is, the trial's end, and (in the sandbox) that nothing renews.
    await header(page).getByRole('button', { name: 'Account' }).click();
    const account = page.getByRole('dialog', { name: 'Account' });
    await account.getByRole('tab', { name: 'Plan' }).click();
    await expect
      .poll(() => account.getByTestId('plan-facts').innerText())
      .toContain('Premium monthly ($179 per month)');
    const facts = await account.getByTestId('plan-facts').innerText();
    expect(facts).toMatch(
      /Free trial\s+until \d+ \w+ \d{4}: \$0 today; the sandbox charges nothing after it/,
    );
    expect(facts).toMatch(/Ends on\s+\d+ \w+ \d{4}/);
    expect(await account.getByTestId('plan-cancel').innerText()).toMatch(
      /^This server's payments are the offline sandbox: nothing is charged and nothing renews; Premium ends on .*, or now with plan cancel\.$/,
    );
    await shots(page, 'account-plan');

    // The sandbox's cancel button asks in the app's dialog, then ends Premium now.
    await account.getByRole('button', { name: 'Cancel Premium' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel Premium' });
    await expect.poll(() => ask.innerText()).toContain('End Premium now?');
    await shots(page, 'plan-cancel-dialog');
    await ask.getByRole('button', { name: 'End Premium' }).click();
    await expect
      .poll(() => account.getByTestId('plan-notice').innerText())
      .toBe('Premium cancelled: it ended now. The sandbox charged nothing and renews nothing.');
    await expect.poll(() => account.innerText()).toContain('Upgrade to Premium');
    await shots(page, 'plan-cancelled');
    await page.keyboard.press('Escape');
    await expect.poll(() => upgradeButton(page).count()).toBe(1);

    // The trial was spent: the Upgrade window no longer offers it, and says what a card pays from now.
    await upgradeButton(page).click();
    const again = page.getByRole('dialog', { name: 'Upgrade to Premium' });
    await expect
      .poll(() => again.innerText())
      .toContain('Free trial used: a card subscription is charged from the start');
    await shots(page, 'upgrade-trial-used');
    await page.keyboard.press('Escape');
    await expect.poll(() => again.count()).toBe(0);
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await page.context().close();
  });

  it('the cancel path comes back to /payment/cancel with the plan unchanged', async () => {
    const { page, problems, offsite } = await openPage(env, WIDE);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'cal@example.com', 'cal', 'premium pass 2');
    await expect.poll(() => upgradeButton(page).count()).toBe(1);
    expect(await header(page).getByRole('button', { name: 'Admin Panel' }).count()).toBe(0);
    await upgradeButton(page).click();
    const modal = page.getByRole('dialog', { name: 'Upgrade to Premium' });
    await modal.getByRole('radio', { name: /Yearly/ }).click();
    await modal.getByRole('button', { name: /Pay with crypto/ }).click();
    await page.waitForURL(/\/api\/subscriptions\/sandbox\//);
    expect(await page.locator('body').innerText()).toContain('Premium yearly: $1790 per year (crypto)');
    const checkoutUrl = page.url();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.waitForURL(`${env.baseUrl}/payment/cancel`);
    // The cancelled checkout, opened again, can no longer be paid.
    const again = await page.context().request.get(checkoutUrl);
    expect(await again.text()).toContain('This checkout is canceled.');
    await expect.poll(() => page.locator('main').innerText()).toContain('Your payment was cancelled.');
    await shots(page, 'payment-cancel');
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await page.waitForURL(`${env.baseUrl}/`);
    await expect.poll(() => upgradeButton(page).count()).toBe(1);
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await page.context().close();
  });

  it('the pending page polls, then after 300 s on a fake clock says the wait is longer and offers a way back', async () => {
    const { context, page, problems, offsite } = await openPage(env, WIDE);
    await page.goto(env.baseUrl + '/');
    await signUpAndLogInThroughUi(page, 'pia@example.com', 'pia', 'premium pass 3');

    let reads = 0;
    await page.route('**/api/subscriptions/me', async (route) => {
      reads += 1;
      await route.continue();
    });
    await page.clock.install();
    await page.goto(env.baseUrl + '/payment/pending');
    await expect.poll(() => page.getByTestId('pending-message').innerText()).toContain('waiting');
    expect(await page.getByRole('status', { name: 'Waiting for payment confirmation' }).count()).toBe(1);
    await expect.poll(() => reads).toBeGreaterThanOrEqual(1);
    await shots(page, 'payment-pending');

    // Ten seconds later it reads again.
    const first = reads;
    await page.clock.fastForward(10_000);
    await expect.poll(() => reads).toBeGreaterThan(first);

    await page.clock.fastForward(300_000);
    await expect
      .poll(() => page.getByTestId('pending-message').innerText())
      .toContain('taking longer than usual');
    expect(await page.locator('.spinner').count()).toBe(0);
    await shots(page, 'payment-pending-slow');
    const after = reads;
    await page.clock.fastForward(60_000);
    await page.waitForTimeout(300);
    expect(reads).toBe(after);
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await page.waitForURL(`${env.baseUrl}/`);
    await page.unroute('**/api/subscriptions/me');

    // A status that cannot be read: docs/product.md §8's message.
    await page.route('**/api/subscriptions/me', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":"down"}' }),
    );
    await page.goto(env.baseUrl + '/payment/pending');
    await expect
      .poll(() => page.getByTestId('pending-error').innerText())
      .toBe('Could not verify subscription status. Please check your account page or contact support.');
    await shots(page, 'payment-pending-error');
    expect(problems.filter((p) => !p.includes('503'))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('an admin grants Premium to a user from the panel, with the keyboard, and it is in the audit log', async () => {
    const admin = await openPage(env, WIDE);
    const page = admin.page;
    await page.goto(env.baseUrl + '/');
    await page.getByRole('button', { name: 'Login' }).click();
    const auth = page.getByRole('dialog');
    await auth.getByLabel('Username or email').fill('ada');
    await auth.getByLabel('Password').fill('premium pass 1');
    await auth.locator('form').getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => header(page).innerText()).toContain('Logout');

    await header(page).getByRole('button', { name: 'Admin Panel' }).click();
    const panel = page.getByRole('dialog', { name: 'Admin Panel' });
    const calRow = panel.locator('[data-testid="admin-user-row"][data-username="cal"]');
    await expect.poll(() => calRow.count()).toBe(1);
    expect(await calRow.getByTestId('admin-user-plan').innerText()).toBe('Free (inactive)');
    // Ada bought Premium in the first test, then cancelled it from the Plan tab.
    expect(await panel.locator('[data-username="ada"]').getByTestId('admin-user-plan').innerText()).toBe(
      'Free (canceled)',
    );

    // Keyboard only: focus the days field of cal's row, type 90, Tab to Grant, Enter.
    await calRow.getByLabel('Days of Premium for cal').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('90');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Grant Premium to cal',
    );
    await page.keyboard.press('Enter');
    await expect
      .poll(() => panel.getByTestId('admin-notice').innerText())
      .toBe('Premium granted to cal for 90 days.');
    await expect.poll(() => calRow.getByTestId('admin-user-plan').innerText()).toMatch(/^Premium until /);
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await shots(page, 'admin-users');

    // The tabs answer the arrow keys.
    await panel.getByRole('tab', { name: 'Users' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => panel.getByTestId('admin-health').count()).toBe(1);
    expect(await panel.getByTestId('admin-source-row').first().innerText()).toContain('webhook');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Sources');
    await shots(page, 'admin-sources');
    // Resizing to the phone width rebuilds the dashboard behind the panel: focus the tab again.
    await panel.getByRole('tab', { name: 'Sources' }).focus();
    await page.keyboard.press('ArrowRight');
    // On the simulator the impact calibration is off, and says why.
    await expect
      .poll(() => panel.getByTestId('calibration-off').innerText())
      .toBe(CALIBRATION_TEXTS.simulated);
    // The charts as an admin sees them on real prices: the same tab with a fitted answer recorded.
    await page.route('**/api/analysis/calibration', (route) => route.fulfill({ json: FITTED }));
    await panel.getByRole('tab', { name: 'Users' }).click();
    await panel.getByRole('tab', { name: 'Calibration' }).click();
    await expect.poll(() => panel.getByTestId('calibration-chart').count()).toBe(2);
    await shots(page, 'admin-calibration');
    await page.unroute('**/api/analysis/calibration');
    await panel.getByRole('tab', { name: 'Calibration' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => panel.getByTestId('audit-row').first().innerText())
      .toContain('ada granted Premium to cal for 90 days');
    await shots(page, 'admin-audit');
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.count()).toBe(0);

    // cal, signed in elsewhere, no longer sees the Upgrade button.
    const user = await openPage(env, WIDE);
    await user.page.goto(env.baseUrl + '/');
    await user.page.getByRole('button', { name: 'Login' }).click();
    const login = user.page.getByRole('dialog');
    await login.getByLabel('Username or email').fill('cal');
    await login.getByLabel('Password').fill('premium pass 2');
    await login.locator('form').getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => header(user.page).innerText()).toContain('Logout');
    expect(await upgradeButton(user.page).count()).toBe(0);

    expect(admin.problems).toEqual([]);
    expect(user.problems).toEqual([]);
    expect([...admin.offsite, ...user.offsite]).toEqual([]);
    await admin.context.close();
    await user.context.close();
  });
});
