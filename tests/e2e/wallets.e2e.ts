import path from 'node:path';
import type { PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB3_DETAILS } from '../../src/contracts/web3';
import { ARTIFACTS, openPage, startE2e, type E2eEnv } from './support/browser';

const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

describe('wallet sign-in and Connected Wallets in the browser', () => {
  let env: E2eEnv;
  beforeAll(async () => {
    env = await startE2e();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('signs in with an injected wallet, lists it, links a second one and unlinks, keeping the last', async () => {
    const { page, problems, offsite, context } = await openPage(env);
    const a = privateKeyToAccount(generatePrivateKey());
    const b = privateKeyToAccount(generatePrivateKey());
    let current: PrivateKeyAccount = a;
    let connected = false;
    const signed: string[] = [];
    // An EIP-1193 wallet in the page whose key lives here, in a viem local account.
    await context.exposeFunction('__wallet', async (method: string, params: unknown[]) => {
      if (method === 'eth_accounts') return connected ? [current.address] : [];
      if (method === 'eth_requestAccounts') {
        connected = true;
        return [current.address];
      }
      if (method === 'eth_chainId') return '0x1';
      if (method === 'personal_sign') {
        const [hex] = params as [`0x${string}`];
        signed.push(Buffer.from(hex.slice(2), 'hex').toString());
        return current.signMessage({ message: { raw: hex } });
      }
      throw new Error(`unsupported ${method}`);
    });
    await context.addInitScript(() => {
      const call = (window as unknown as { __wallet(m: string, p: unknown[]): Promise<unknown> }).__wallet;
      (window as unknown as { ethereum: unknown }).ethereum = {
        isMetaMask: true,
        request: ({ method, params }: { method: string; params?: unknown[] }) => call(method, params ?? []),
        on: () => undefined,
        removeListener: () => undefined,
      };
    });

    await page.goto(env.baseUrl + '/');
    const header = page.locator('header');
    await header.getByRole('button', { name: 'Login' }).click();
    const modal = page.getByRole('dialog');
    await modal.getByRole('button', { name: 'Sign in with a wallet' }).click();
    // The wallet kit loads on this click: its connect window, then its sign-in window.
    const kit = page.locator('[data-rk]');
    await kit
      .getByRole('button', { name: /Browser Wallet|Injected|MetaMask/ })
      .first()
      .click({ timeout: 20_000 });
    const sign = kit.getByRole('button', { name: 'Sign message' });
    await sign.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'wallets-kit-sign-in.png') });
    await sign.click();
    await expect.poll(() => modal.count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => header.innerText()).toContain('Logout');
    expect(signed[0]).toMatch(/^127\.0\.0\.1:\d+ wants you to sign in with your Ethereum account:\n0x/);
    expect(await header.innerText()).toContain(
      `wallet-${a.address.slice(2, 6)}${a.address.slice(-4)}`.toLowerCase(),
    );

    await header.getByRole('button', { name: 'Account' }).click();
    const account = page.getByRole('dialog', { name: 'Account' });
    await account.getByRole('tab', { name: 'Connected Wallets' }).click();
    const wallets = account.getByTestId('wallet');
    await expect.poll(() => wallets.count()).toBe(1);
    expect(await wallets.first().innerText()).toMatch(
      new RegExp(`${short(a.address)}[\\s\\S]*Primary[\\s\\S]*Ethereum`),
    );

    current = b;
    await account.getByRole('button', { name: 'Link Wallet' }).click();
    await expect.poll(() => wallets.count()).toBe(2);
    expect(await wallets.nth(1).innerText()).toContain(short(b.address));
    await page.screenshot({ path: path.join(ARTIFACTS, 'wallets-linked.png') });

    await wallets.first().getByRole('button', { name: 'Unlink' }).click();
    await expect.poll(() => wallets.count()).toBe(1);
    expect(await wallets.first().innerText()).toMatch(new RegExp(`${short(b.address)}[\\s\\S]*Primary`));
    await expect.poll(() => account.getByTestId('wallets-notice').innerText()).toBe('Wallet unlinked.');

    await wallets.first().getByRole('button', { name: 'Unlink' }).click();
    await expect.poll(() => account.getByTestId('wallets-notice').innerText()).toBe(WEB3_DETAILS.lastMethod);
    expect(await wallets.count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'wallets-last-method.png') });

    expect(problems.filter((p) => !p.includes('409'))).toEqual([]);
    expect(offsite).toEqual([]);
    await context.close();
  });

  it('hides the Google and Twitter buttons when the server does not offer them', async () => {
    const { page, context } = await openPage(env);
    await page.goto(env.baseUrl + '/');
    await page.locator('header').getByRole('button', { name: 'Login' }).click();
    const modal = page.getByRole('dialog');
    await expect.poll(() => modal.getByRole('button', { name: 'Sign in with a wallet' }).count()).toBe(1);
    expect(await modal.getByText('Sign in with Google').count()).toBe(0);
    expect(await modal.getByText('Sign in with Twitter').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'wallets-login-modal.png') });
    await context.close();
  });
});
