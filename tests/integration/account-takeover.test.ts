import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PrivateKeyAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { STEP_UP_DETAILS } from '../../src/contracts/auth';
import { WEB3_DETAILS, shortAddress } from '../../src/contracts/web3';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import {
  AuthClient,
  decodeQuotedPrintable,
  enableTwoFactor,
  signedInClient,
  totpCode,
  userIdOf,
} from './auth.support';
import { newAccount, signWith } from './web3.support';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a different horse entirely';
const STEP_UP_REQUIRED = { detail: STEP_UP_DETAILS.required, code: 'step_up_required' };
const KEY = {
  exchangeName: 'binance',
  apiKey: 'Hq7pLr2mVx9sT4wYb6nZc8dFg1hJk3lMq5rSt7uVw9xYz1aB2cD4eF6gH8iJ0kLm',
  secretKey: 'Tx2dF4gH6jK8lZ0xC2vB4nM6qW8eR0tY2uI4oP6aS8dF0gH2jK4lZ6xC8vB0nM2q',
};

/**
 * A thief with a stolen access token (a sign-in not confirmed in the last minutes) tries to make the
 * account theirs: link their own wallet or authenticator, sign in with it as a "fresh" sign-in, and keep
 * it past the owner's password change and "revoke all".
 */
describe.each(dbTargets())('account takeover with a stolen token on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target, { PUBLIC_URL: 'https://console.example' });
  });
  afterAll(() => t.close());

  const owner = (name: string) => signedInClient(t.app, name, PASSWORD);
  /** Moves every confirmation of the account into the past, as five minutes going by would. */
  const expire = async (c: AuthClient) => {
    const id = await userIdOf(c);
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
  };
  /** Makes a wallet's link `hours` older, as time going by would. */
  const age = async (account: PrivateKeyAccount, hours: number) => {
    await t.database.db.execute(
      sql`update identities set created_at = created_at - make_interval(hours => ${hours}) where subject = ${account.address.toLowerCase()}`,
    );
  };
  const link = (c: AuthClient, account: PrivateKeyAccount) =>
    signWith(c, account, { path: '/auth/web3/wallets/link' });
  /** A browser of the thief's, signed in with the wallet. */
  const walletSession = async (account: PrivateKeyAccount, rememberMe = false) => {
    const c = new AuthClient(t.app);
    const { res } = await signWith(c, account, { rememberMe });
    expect(res.statusCode).toBe(200);
    return c;
  };
  const confirmedUntil = async (c: AuthClient) =>
    (await c.send('GET', '/auth/step-up')).json<{ confirmed_until: string | null }>().confirmed_until;
  const wallets = async (c: AuthClient) =>
    (await c.send('GET', '/auth/web3/wallets')).json<{ id: string; address: string }[]>();
  const activity = async (c: AuthClient) =>
    ActivityList.parse((await c.send('GET', '/account/activity')).json()).map((e) => [e.kind, e.text]);
  const mails = async (): Promise<string[]> => {
    const folder = path.join(t.dataDir, 'outbox');
    const files = (await readdir(folder).catch(() => [])).sort();
    return Promise.all(
      files.map(async (f) => decodeQuotedPrintable(await readFile(path.join(folder, f), 'utf8'))),
    );
  };
  /** The sensitive actions of the report: a key, the kill switch off, a looser risk envelope. */
  const sensitive = async (c: AuthClient) => [
    (await c.send('POST', '/exchanges/', KEY)).statusCode,
    (await c.send('POST', '/rules/kill-switch', { on: false })).statusCode,
    (await c.send('PUT', '/rules/risk', { max_positions: 50 })).statusCode,
  ];

  it('refuses to link a wallet or turn 2FA on with a sign-in that was not confirmed, and spends no nonce', async () => {
    const thief = await owner('victim1');
    await expire(thief);
    const wallet = newAccount();
    const refused = await link(thief, wallet);
    expect(refused.res.statusCode).toBe(403);
    expect(refused.res.json()).toEqual(STEP_UP_REQUIRED);
    expect(await wallets(thief)).toEqual([]);

    for (const [method, url] of [
      ['POST', '/auth/2fa/setup'],
      ['GET', '/auth/2fa/qr-code'],
    ] as const) {
      const res = await thief.send(method, url);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(STEP_UP_REQUIRED);
    }
    const verify = await thief.send('POST', '/auth/2fa/verify', { code: '123456' });
    expect(verify.json()).toEqual(STEP_UP_REQUIRED);
    expect((await thief.send('GET', '/users/me')).json()).toMatchObject({ is_two_factor_enabled: false });

    // Confirmed (by the owner's password), the same signed message links: the refusal spent nothing.
    expect((await thief.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const again = await thief.send('POST', '/auth/web3/wallets/link', refused.body);
    expect(again.statusCode).toBe(201);
  });

  it('writes every link and unlink in the activity log and mails the owner', async () => {
    const c = await owner('victim2');
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    const hint = shortAddress(wallet.address);
    const [added] = await activity(c);
    expect(added).toEqual(['wallet_linked', `Wallet ${hint} linked: it can sign in to this account`]);
    const linkMails = async () =>
      (await mails()).filter(
        (m) => m.includes('To: victim2@example.com') && m.includes('A wallet was linked'),
      );
    await expect.poll(async () => (await linkMails()).length).toBe(1);
    // The mail names the wallet by its short address (the ellipsis is encoded in the mail).
    expect((await linkMails())[0]).toContain(wallet.address.slice(0, 6));
    expect((await linkMails())[0]).toContain(wallet.address.slice(-4));

    const [row] = await wallets(c);
    expect((await c.send('DELETE', `/auth/web3/wallets/${row?.id}`)).statusCode).toBe(200);
    expect((await activity(c))[0]).toEqual(['wallet_unlinked', `Wallet ${hint} unlinked`]);
  });

  it('does not count a sign-in by a wallet linked less than a day ago as a confirmation', async () => {
    const c = await owner('victim3');
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    const thief = await walletSession(wallet);
    expect(await userIdOf(thief)).toBe(await userIdOf(c));
    expect(await confirmedUntil(thief)).toBeNull();
    for (const status of await sensitive(thief)) expect(status).toBe(403);
    // Nor can it confirm on its own, nor unlink the owner's other ways in.
    expect((await thief.send('POST', '/auth/step-up', { password: 'guess' })).statusCode).toBe(401);

    // A day later the wallet is the account's own: its sign-in counts.
    await age(wallet, 25);
    const later = await walletSession(wallet);
    expect(await confirmedUntil(later)).not.toBeNull();
    expect((await later.send('PUT', '/rules/risk', { max_positions: 50 })).statusCode).toBe(200);
  });

  it("counts a wallet-only account's own wallet from its first sign-in on", async () => {
    const wallet = newAccount();
    const first = await walletSession(wallet);
    expect(await confirmedUntil(first)).not.toBeNull();
    const second = await walletSession(wallet);
    expect(await confirmedUntil(second)).not.toBeNull();
    // A second wallet it links is new: its sign-in alone does not confirm.
    const added = newAccount();
    expect((await link(second, added)).res.statusCode).toBe(201);
    expect(await confirmedUntil(await walletSession(added))).toBeNull();
  });

  it("counts a new wallet's sign-in with a 2FA code only once 2FA has been on for a day", async () => {
    const c = await owner('victim4');
    const { secret, recoveryCodes } = await enableTwoFactor(c);
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    // A fresh code first, then a recovery code (the next time step is within reach only once).
    const codes = [totpCode(secret, Date.now() + 30_000), recoveryCodes[0] ?? ''];
    const viaCode = async () => {
      const d = new AuthClient(t.app);
      const { res } = await signWith(d, wallet);
      const challenge = res.json<{ user_id: string }>().user_id;
      const done = await d.send('POST', '/auth/2fa/login', { user_id: challenge, code: codes.shift() });
      expect(done.statusCode).toBe(200);
      d.token = done.json<{ access_token: string }>().access_token;
      return d;
    };
    expect(await confirmedUntil(await viaCode())).toBeNull();
    const id = await userIdOf(c);
    await t.database.db.execute(
      sql`update two_factor set updated_at = updated_at - interval '25 hours' where user_id = ${id}`,
    );
    expect(await confirmedUntil(await viaCode())).not.toBeNull();
  });

  it('unlinks every wallet at a password change when asked, and ends every sign-in they made', async () => {
    const c = await owner('victim5');
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    const victimId = await userIdOf(c);
    // Without the flag the change leaves the wallet linked, and able to sign in.
    const kept = await c.send('POST', '/auth/change-password', {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(kept.json()).toEqual({ message: 'Password changed successfully.' });
    expect(await wallets(c)).toHaveLength(1);
    const plain = await walletSession(wallet);
    const remembered = await walletSession(wallet, true);
    expect(await userIdOf(plain)).toBe(victimId);

    const changed = await c.send('POST', '/auth/change-password', {
      current_password: NEW_PASSWORD,
      new_password: PASSWORD,
      unlink_wallets: true,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({
      message: 'Password changed successfully. One linked sign-in was unlinked and signed out.',
    });
    expect(await wallets(c)).toEqual([]);
    for (const s of [plain, remembered]) {
      expect((await s.send('GET', '/auth/verify')).statusCode).toBe(401);
      expect((await s.refresh()).statusCode).toBe(401);
    }
    remembered.cookies.delete('sc_refresh');
    expect((await remembered.send('POST', '/auth/auto-login')).statusCode).toBe(401);
    // The wallet no longer reaches the account: signing in with it makes an account of its own.
    const after = await walletSession(wallet);
    expect(await userIdOf(after)).not.toBe(victimId);
    expect((await activity(c)).map(([kind]) => kind)).toContain('wallet_unlinked');
    // The owner's own sign-in goes on.
    expect((await c.refresh()).statusCode).toBe(200);
  });

  it('unlinks the wallets at "revoke all" when asked, after a confirmation, ending their sessions too', async () => {
    const c = await owner('victim7');
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    const thief = await walletSession(wallet);
    await expire(c);
    const refused = await c.send('POST', '/auth/devices/revoke-all', { unlink_wallets: true });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(STEP_UP_REQUIRED);
    expect(await wallets(c)).toHaveLength(1);
    expect((await thief.send('GET', '/auth/verify')).statusCode).toBe(200);

    expect((await c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const revoked = await c.send('POST', '/auth/devices/revoke-all', { unlink_wallets: true });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({
      message: 'All devices revoked. One linked sign-in was unlinked and signed out.',
      unlinked: 1,
    });
    expect(await wallets(c)).toEqual([]);
    // Not remembered, so "revoke all" alone would have left it: the wallet's session ends too.
    expect((await thief.send('GET', '/auth/verify')).statusCode).toBe(401);
    expect((await thief.refresh()).statusCode).toBe(401);
    expect((await c.refresh()).statusCode).toBe(200);
  });

  it('keeps the wallet a wallet-only account is signed in with, under 30 "revoke all" at once', async () => {
    const own = newAccount();
    const c = await walletSession(own);
    const others = [newAccount(), newAccount(), newAccount()];
    for (const w of others) expect((await link(c, w)).res.statusCode).toBe(201);
    const sessions = await Promise.all(others.map((w) => walletSession(w)));
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => c.send('POST', '/auth/devices/revoke-all', { unlink_wallets: true })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 30 }, () => 200));
    expect(answers.reduce((sum, a) => sum + (a.json<{ unlinked: number }>().unlinked ?? 0), 0)).toBe(3);
    expect((await wallets(c)).map((w) => w.address)).toEqual([own.address]);
    for (const s of sessions) expect((await s.send('GET', '/auth/verify')).statusCode).toBe(401);
    // Its one way in stays: the last wallet is still refused.
    const [last] = await wallets(c);
    expect((await c.send('DELETE', `/auth/web3/wallets/${last?.id}`)).json()).toEqual({
      detail: WEB3_DETAILS.lastMethod,
    });
  });

  it('ends every sign-in of a wallet that raced its unlink: none outlives it', async () => {
    const c = await owner('victim8');
    const wallet = newAccount();
    expect((await link(c, wallet)).res.statusCode).toBe(201);
    const victimId = await userIdOf(c);
    // Thirty signed messages ready, sent together with the unlink.
    const browsers = Array.from({ length: 30 }, () => new AuthClient(t.app));
    const signed = await Promise.all(
      browsers.map(async (b) => {
        const n = await b.send('POST', '/auth/web3/nonce', { address: wallet.address, chain_id: 1 });
        const { message, nonce } = n.json<{ message: string; nonce: string }>();
        const signature = await wallet.signMessage({ message });
        return { address: wallet.address, signature, nonce, chain_id: 1 };
      }),
    );
    const [, ...signIns] = await Promise.all([
      c.send('POST', '/auth/devices/revoke-all', { unlink_wallets: true }),
      ...browsers.map(async (b, i) => {
        const res = await b.send('POST', '/auth/web3/verify', signed[i]);
        if (res.statusCode === 200) b.token = res.json<{ access_token: string }>().access_token;
        return res.statusCode;
      }),
    ]);
    for (const status of signIns) expect([200, 401]).toContain(status);
    for (const b of browsers) {
      if (b.token === null) continue;
      const verify = await b.send('GET', '/auth/verify');
      // A sign-in still alive belongs to the wallet's new account, never to the victim's.
      if (verify.statusCode === 200) expect(verify.json<{ user_id: string }>().user_id).not.toBe(victimId);
    }
    expect(await wallets(c)).toEqual([]);
  });
});
