import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** What the app's own confirm or alert showed. */
export interface ShownDialog {
  title: string;
  message: string;
  details: string[];
}

/** Waits for the app's confirm (or alert) dialog, reads it, then answers it: yes, or Cancel. */
export async function answerDialog(page: Page, yes: boolean): Promise<ShownDialog> {
  const dialog = page.getByTestId('confirm-dialog');
  await expect.poll(() => dialog.count(), { timeout: 15_000 }).toBe(1);
  const request = await dialog.locator('h2').getAttribute('data-request');
  const shown: ShownDialog = {
    title: (await dialog.getAttribute('aria-label')) ?? '',
    message: await dialog.getByTestId('confirm-message').innerText(),
    details: await dialog.locator('[data-testid="confirm-details"] li').allInnerTexts(),
  };
  await dialog.locator(yes ? '[data-action="yes"]' : '[data-action="no"]').click();
  // Gone, or showing the next question (an outcome after Close All).
  await expect
    .poll(async () =>
      (await dialog.count()) === 0 ? null : dialog.locator('h2').getAttribute('data-request'),
    )
    .not.toBe(request);
  return shown;
}

/** Records any native confirm/alert/prompt: the app must not raise one. */
export function recordNativeDialogs(page: Page): string[] {
  const raised: string[] = [];
  page.on('dialog', (dialog) => {
    raised.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return raised;
}
