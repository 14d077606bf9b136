import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** Signs up and logs in through the header buttons and the auth modal, as a person would. */
export async function signUpAndLogInThroughUi(
  page: Page,
  email: string,
  username: string,
  password: string,
): Promise<void> {
  const header = page.locator('header.header');
  await header.getByRole('button', { name: 'Sign Up' }).click();
  const modal = page.getByRole('dialog');
  await modal.getByLabel('Email').fill(email);
  await modal.getByLabel('Username').fill(username);
  await modal.getByLabel('Password').fill(password);
  await modal.locator('form').getByRole('button', { name: 'Sign Up' }).click();
  // Sign-up and login each hash the password with a deliberately slow function.
  await expect
    .poll(() => page.getByTestId('auth-notice').innerText(), { timeout: 15_000 })
    .toContain('Registration successful');
  await modal.getByLabel('Username or email').fill(username);
  await modal.getByLabel('Password').fill(password);
  await modal.locator('form').getByRole('button', { name: 'Login' }).click();
  await expect.poll(() => header.innerText(), { timeout: 15_000 }).toContain('Logout');
}
