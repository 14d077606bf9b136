import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './support/axe';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';
import { signUpAndLogInThroughUi } from './support/session';

/** Whether focus is inside the xterm terminal. */
const terminalHasFocus = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    const term = document.querySelector('[data-testid="terminal"]');
    return !!term && !!document.activeElement && term.contains(document.activeElement);
  });

/** A short, stable description of the focused element, to compare before opening and after closing. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    const term = document.querySelector('[data-testid="terminal"]');
    if (term?.contains(el)) return 'terminal';
    return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? (el.textContent ?? '').trim()}`;
  });

const focusInside = (dialog: Locator): Promise<boolean> =>
  dialog.evaluate((root) => root.contains(document.activeElement));

/**
 * Opens a modal, and checks what every modal must do: it is a named dialog that holds focus while Tab
 * and Shift+Tab go round, has no serious or critical axe violation, closes on Esc and gives focus back.
 */
async function checkModal(page: Page, name: string, open: () => Promise<void>, shot: string): Promise<void> {
  const before = await focused(page);
  await open();
  const dialog = page.getByRole('dialog', { name });
  await expect.poll(() => dialog.isVisible()).toBe(true);
  await expect.poll(() => focusInside(dialog)).toBe(true);
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    expect(await focusInside(dialog), `${name}: Tab ${i + 1} left the dialog`).toBe(true);
  }
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Shift+Tab');
    expect(await focusInside(dialog), `${name}: Shift+Tab ${i + 1} left the dialog`).toBe(true);
  }
  expect(await seriousViolations(page, '[role="dialog"]'), name).toEqual([]);
  await page.screenshot({ path: path.join(ARTIFACTS, shot) });
  await page.keyboard.press('Escape');
  await expect.poll(() => dialog.count()).toBe(0);
  await expect.poll(() => focused(page)).toBe(before);
}

describe('a keyboard path through the console', () => {
  let env: E2eEnv;
  // Starting the server can take minutes on a busy machine.
  beforeAll(async () => {
    env = await startE2e();
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  it('leaves the terminal with Esc then Tab, comes back, and lists Tab candidates once', async () => {
    const { page, problems, offsite, context } = await openPage(env, { width: 1280, height: 720 });
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    // The first visit's welcome (its own buttons inside the terminal pane) is put away first.
    await page.locator('.welcome-dismiss').click();
    await page.keyboard.press('/');
    await expect.poll(() => terminalHasFocus(page)).toBe(true);

    // Tab alone stays in the terminal: it completes.
    await page.keyboard.press('Tab');
    expect(await terminalHasFocus(page)).toBe(true);
    // Esc then Tab moves on to the next control, and further Tabs walk the page.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await terminalHasFocus(page)).toBe(false);
    const outside = await focused(page);
    expect(outside).not.toBe('body');
    await page.keyboard.press('Tab');
    expect(await terminalHasFocus(page)).toBe(false);
    // Shift+Tab walks back into the terminal, and `/` from anywhere returns to it.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => terminalHasFocus(page)).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Shift+Tab');
    expect(await terminalHasFocus(page)).toBe(false);
    await page.keyboard.press('/');
    await expect.poll(() => terminalHasFocus(page)).toBe(true);

    // `s` has several candidates: the second Tab lists them, and more Tabs do not list them again.
    await page.keyboard.type('s');
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    const screen = page.locator('[data-testid="terminal"] .xterm-rows');
    // The candidates row, whatever other commands start with `s`: listed once.
    await expect.poll(() => screen.innerText()).toMatch(/signup {2}(?:\S+ {2})*symbol/);
    const shown = await screen.innerText();
    expect(shown.split('signup')).toHaveLength(2);

    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'keyboard-dashboard-1280x720.png') });
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('every modal holds focus, passes axe, closes on Esc and gives focus back', async () => {
    const { page, problems, offsite, context } = await openPage(env, { width: 1280, height: 720 });
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await expect.poll(() => terminalHasFocus(page)).toBe(true);
    const header = page.locator('header.header');

    // From the terminal: the palette (Ctrl+K) gives focus back to the terminal.
    await checkModal(page, 'Command palette', () => page.keyboard.press('Control+k'), 'modal-palette.png');
    expect(await terminalHasFocus(page)).toBe(true);
    // Outside the terminal, `?` opens the key map, which lists the way out of the terminal.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    await checkModal(
      page,
      'Keyboard shortcuts',
      async () => {
        await page.keyboard.press('Shift+Slash');
        await expect.poll(() => page.getByTestId('keymap').innerText()).toContain('Esc then Tab');
      },
      'modal-keymap.png',
    );
    // From a header button: the login modal.
    const login = header.getByRole('button', { name: 'Login' });
    await login.focus();
    await checkModal(page, 'Login', () => page.keyboard.press('Enter'), 'modal-login.png');

    await signUpAndLogInThroughUi(page, 'kim@example.com', 'kim', 'kim password 1');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    for (const [button, name] of [
      ['Account', 'Account'],
      ['Settings', 'Notifications & Alerts'],
    ] as const) {
      const opener = header.getByRole('button', { name: button, exact: true });
      await opener.focus();
      await checkModal(page, name, () => page.keyboard.press('Enter'), `modal-${button.toLowerCase()}.png`);
    }
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('? at the empty command line opens the key map with the feed keys; a ? inside a command is typed', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await page.waitForSelector('[data-testid="terminal"] .xterm');
    await page.locator('.welcome-dismiss').click();
    await page.keyboard.press('/');
    await expect.poll(() => terminalHasFocus(page)).toBe(true);
    await page.keyboard.press('Shift+Slash');
    const keymap = page.getByTestId('keymap');
    await expect.poll(() => keymap.count()).toBe(1);
    const rows = await keymap.innerText();
    for (const keys of ['j / k (↓ / ↑)', 'l / s', '1 … 9']) expect(rows).toContain(keys);
    expect(rows).toContain('In the feed');
    expect(rows).toContain("open the focused card's source");
    await page.screenshot({
      path: path.join(process.env.SHOTS_DIR ?? ARTIFACTS, 'terminal-keymap-1440.png'),
    });
    await page.keyboard.press('Escape');
    await expect.poll(() => keymap.count()).toBe(0);
    await expect.poll(() => terminalHasFocus(page)).toBe(true);

    // Inside a command, ? is a character of the line.
    await page.keyboard.type('help ?');
    expect(await keymap.count()).toBe(0);
    const screen = page.locator('[data-testid="terminal"] .xterm-rows');
    await expect.poll(() => screen.innerText()).toMatch(/› help \?/);
    await page.keyboard.press('Control+c');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.phone-tab', { hasText: 'Terminal' }).click();
    await expect.poll(() => terminalHasFocus(page)).toBe(true);
    await page.keyboard.press('Shift+Slash');
    await expect.poll(() => keymap.count()).toBe(1);
    await page.screenshot({ path: path.join(process.env.SHOTS_DIR ?? ARTIFACTS, 'terminal-keymap-390.png') });
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });
});
