import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { AUTH_DETAILS, STEP_UP_DETAILS } from '../../src/contracts/auth';
import { WEB3_DETAILS } from '../../src/contracts/web3';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { AuthClient, enableTwoFactor, signedInClient, userIdOf } from './auth.support';
import { newAccount, signWith } from './web3.support';

const KEY = {
  apiKey: 'Hq7pLr2mVx9sT4wYb6nZc8dFg1hJk3lMq5rSt7uVw9xYz1aB2cD4eF6gH8iJ0kLm',
  secret: 'Tx2dF4gH6jK8lZ0xC2vB4nM6qW8eR0tY2uI4oP6aS8dF0gH2jK4lZ6xC8vB0nM2q',
};
const PASSWORD = 'correct horse battery';
const STEP_UP_REQUIRED = { detail: STEP_UP_DETAILS.required, code: 'step_up_required' };

describe.each(dbTargets())('step-up for sensitive actions on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(KEY.apiKey, { apiKey: KEY.apiKey, secret: KEY.secret, ipRestrict: true });
    t = await startTestApp(target, {
      PUBLIC_URL: 'https://console.example',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });

  const signedIn = (name: string) => signedInClient(t.app, name, PASSWORD);
  const userId = userIdOf;
  /** Moves every confirmation of the account into the past, as five minutes going by would. */
  const expire = async (c: AuthClient) => {
    const id = await userId(c);
    await t.database.db.execute(
      sql`update step_ups set confirmed_until = now() - interval '1 second' where user_id = ${id}`,
    );
  };
  const addKey = (c: AuthClient) =>
    c.send('POST', '/exchanges/', { exchangeName: 'binance', apiKey: KEY.apiKey, secretKey: KEY.secret });
  const keys = async (c: AuthClient) => (await c.send('GET', '/exchanges/')).json<unknown[]>();
  const risk = async (c: AuthClient) =>
    (await c.send('GET', '/rules/risk')).json<{
      max_order_usd: number;
      daily_budget_usd: number;
      max_positions: number;
      cooldown_minutes: number;
      max_age_seconds: number;
    }>();
  const activityKinds = async (c: AuthClient) =>
    ActivityList.parse((await c.send('GET', '/account/activity')).json()).map((e) => [e.kind, e.text]);

  it('counts a fresh password sign-in for five minutes: a key added right after it is not asked again', async () => {
    const c = await signedIn('fresh');
    const state = await c.send('GET', '/auth/step-up');
    expect(state.statusCode).toBe(200);
    const body = state.json<{ password: boolean; two_factor: boolean; confirmed_until: string }>();
    expect(body).toMatchObject({ password: true, two_factor: false });
    const left = Date.parse(body.confirmed_until) - Date.now();
    expect(left).toBeGreaterThan(4.5 * 60_000);
    expect(left).toBeLessThanOrEqual(5 * 60_000);
    expect((await addKey(c)).statusCode).toBe(201);
    expect(await keys(c)).toHaveLength(1);
  });

  it('refuses to add a key once the window has passed, stores nothing, and adds it after the password', async () => {
    const c = await signedIn('expired');
    await expire(c);
    expect((await c.send('GET', '/auth/step-up')).json()).toMatchObject({ confirmed_until: null });
    const refused = await addKey(c);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(STEP_UP_REQUIRED);
    expect(await keys(c)).toEqual([]);

    const confirmed = await c.send('POST', '/auth/step-up', { password: PASSWORD });
    expect(confirmed.statusCode).toBe(200);
    const until = Date.parse(confirmed.json<{ confirmed_until: string }>().confirmed_until);
    expect(until - Date.now()).toBeGreaterThan(4.5 * 60_000);
    expect((await addKey(c)).statusCode).toBe(201);
    expect(await keys(c)).toHaveLength(1);
    expect(await activityKinds(c)).toContainEqual(['step_up', 'Confirmed it was you with the password']);
  });

  it('confirms one sign-in only: another sign-in of the same account is still asked', async () => {
    const a = await signedIn('twosessions');
    const b = new AuthClient(t.app);
    expect((await b.login('twosessions', PASSWORD)).statusCode).toBe(200);
    await expire(a);
    expect((await a.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    expect((await b.send('PUT', '/rules/risk', { max_positions: 9 })).statusCode).toBe(403);
    expect((await a.send('PUT', '/rules/risk', { max_positions: 9 })).statusCode).toBe(200);
    // A refreshed access token belongs to the same sign-in and keeps its confirmation.
    expect((await a.refresh()).statusCode).toBe(200);
    expect((await a.send('PUT', '/rules/risk', { max_positions: 10 })).statusCode).toBe(200);
  });

  it('refuses a wrong password, logs it, and throttles guesses like failed logins', async () => {
    const c = await signedIn('guesser');
    await expire(c);
    const wrong = await c.send('POST', '/auth/step-up', { password: 'not it' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: AUTH_DETAILS.wrongPassword });
    expect((await addKey(c)).statusCode).toBe(403);
    expect(await activityKinds(c)).toContainEqual([
      'step_up_failed',
      'A confirmation failed: wrong password',
    ]);
    for (let i = 0; i < 5; i++) {
      expect((await c.send('POST', '/auth/step-up', { password: `guess ${i}` })).statusCode).toBe(401);
    }
    // Six failures in a row: even the right password must wait now, and so must a login.
    const held = await c.send('POST', '/auth/step-up', { password: PASSWORD });
    expect(held.statusCode).toBe(429);
    expect(held.headers['retry-after']).toBeDefined();
    expect((await new AuthClient(t.app).login('guesser', PASSWORD)).statusCode).toBe(429);
    expect((await c.send('GET', '/auth/step-up')).json()).toMatchObject({ confirmed_until: null });
    expect(await keys(c)).toEqual([]);

    const empty = await c.send('POST', '/auth/step-up', {});
    expect(empty.statusCode).toBe(422);
  });

  it('takes a 2FA recovery code, and refuses a wrong code', async () => {
    const c = await signedIn('twofactor');
    const { recoveryCodes } = await enableTwoFactor(c);
    await expire(c);
    expect((await c.send('GET', '/auth/step-up')).json()).toMatchObject({ password: true, two_factor: true });
    const wrong = await c.send('POST', '/auth/step-up', { code: '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: AUTH_DETAILS.invalidCode });
    const ok = await c.send('POST', '/auth/step-up', { code: recoveryCodes[0] });
    expect(ok.statusCode).toBe(200);
    expect((await addKey(c)).statusCode).toBe(201);
    // A recovery code is spent once.
    await expire(c);
    expect((await c.send('POST', '/auth/step-up', { code: recoveryCodes[0] })).statusCode).toBe(401);
    expect(await activityKinds(c)).toContainEqual([
      'step_up',
      'Confirmed it was you with a recovery code (9 left)',
    ]);
  });

  it('asks before any risk limit is loosened, never when limits are tightened', async () => {
    const c = await signedIn('risky');
    const start = await risk(c);
    await expire(c);
    const tighter = {
      max_order_usd: start.max_order_usd - 1,
      daily_budget_usd: start.daily_budget_usd - 1,
      max_positions: start.max_positions - 1,
      cooldown_minutes: start.cooldown_minutes + 1,
      max_age_seconds: start.max_age_seconds - 1,
    };
    const lowered = await c.send('PUT', '/rules/risk', tighter);
    expect(lowered.statusCode).toBe(200);
    expect(await risk(c)).toMatchObject(tighter);
    // The same values again loosen nothing either.
    expect((await c.send('PUT', '/rules/risk', tighter)).statusCode).toBe(200);

    for (const looser of [
      { max_order_usd: tighter.max_order_usd + 1 },
      { daily_budget_usd: tighter.daily_budget_usd + 1 },
      { max_positions: tighter.max_positions + 1 },
      { cooldown_minutes: tighter.cooldown_minutes - 1 },
      { max_age_seconds: tighter.max_age_seconds + 1 },
      // One limit tightened does not pay for another loosened.
      { max_positions: tighter.max_positions - 1, max_order_usd: tighter.max_order_usd + 1 },
    ]) {
      const res = await c.send('PUT', '/rules/risk', looser);
      expect(res.statusCode, JSON.stringify(looser)).toBe(403);
      expect(res.json()).toEqual(STEP_UP_REQUIRED);
      expect(await risk(c)).toMatchObject(tighter);
    }
    expect((await c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    const raised = await c.send('PUT', '/rules/risk', { max_order_usd: start.max_order_usd });
    expect(raised.statusCode).toBe(200);
    expect((await risk(c)).max_order_usd).toBe(start.max_order_usd);
  });

  it('asks before any wallet is unlinked, one of several as much as the last', async () => {
    const c = await signedIn('wallets');
    const [one, two] = [newAccount(), newAccount()];
    for (const account of [one, two]) {
      const linked = await signWith(c, account, { path: '/auth/web3/wallets/link' });
      expect(linked.res.statusCode).toBe(201);
    }
    const wallets = async () => (await c.send('GET', '/auth/web3/wallets')).json<{ id: string }[]>();
    await expire(c);
    const [first, second] = await wallets();
    for (const wallet of [first, second]) {
      const refused = await c.send('DELETE', `/auth/web3/wallets/${wallet?.id}`);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(STEP_UP_REQUIRED);
    }
    expect((await wallets()).map((w) => w.id)).toEqual([first?.id, second?.id]);
    expect((await c.send('POST', '/auth/step-up', { password: PASSWORD })).statusCode).toBe(200);
    expect((await c.send('DELETE', `/auth/web3/wallets/${first?.id}`)).statusCode).toBe(200);
    expect((await c.send('DELETE', `/auth/web3/wallets/${second?.id}`)).statusCode).toBe(200);
    expect(await wallets()).toEqual([]);
  });

  it('has a wallet-only account sign in again: its sign-in counts, nothing else can confirm it', async () => {
    const account = newAccount();
    const c = new AuthClient(t.app);
    expect((await signWith(c, account)).res.statusCode).toBe(200);
    expect((await c.send('GET', '/auth/step-up')).json()).toMatchObject({
      password: false,
      two_factor: false,
    });
    expect((await addKey(c)).statusCode).toBe(201);
    const [key] = await keys(c).then((k) => k as { id: string }[]);
    expect((await c.send('DELETE', `/exchanges/${key?.id}`)).statusCode).toBe(200);

    await expire(c);
    expect((await addKey(c)).json()).toEqual(STEP_UP_REQUIRED);
    const asked = await c.send('POST', '/auth/step-up', { password: 'anything' });
    expect(asked.statusCode).toBe(403);
    expect(asked.json()).toEqual({ detail: STEP_UP_DETAILS.signInAgain, code: 'sign_in_required' });
    // Its only wallet stays: the last way to sign in is refused before any confirmation is asked.
    const [wallet] = (await c.send('GET', '/auth/web3/wallets')).json<{ id: string }[]>();
    const unlink = await c.send('DELETE', `/auth/web3/wallets/${wallet?.id}`);
    expect(unlink.statusCode).toBe(409);
    expect(unlink.json()).toEqual({ detail: WEB3_DETAILS.lastMethod });

    expect((await signWith(c, account)).res.statusCode).toBe(200);
    expect((await addKey(c)).statusCode).toBe(201);
  });

  it('counts a password change and turning 2FA off as a confirmation', async () => {
    const c = await signedIn('changer');
    await expire(c);
    const changed = await c.send('POST', '/auth/change-password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
    });
    expect(changed.json()).toEqual({ message: 'Password changed successfully.' });
    expect((await c.send('PUT', '/rules/risk', { max_positions: 50 })).statusCode).toBe(200);

    await enableTwoFactor(c);
    await expire(c);
    const off = await c.send('POST', '/auth/2fa/disable', { password: 'a brand new passphrase' });
    expect(off.json()).toEqual({ message: 'Two-factor authentication disabled.' });
    expect((await c.send('PUT', '/rules/risk', { max_positions: 60 })).statusCode).toBe(200);
  });

  it('does not count a sign-in on a remembered device by itself', async () => {
    const c = new AuthClient(t.app);
    expect((await c.signup('remembered', PASSWORD)).statusCode).toBe(201);
    expect((await c.login('remembered', PASSWORD, true)).statusCode).toBe(200);
    c.cookies.delete('sc_refresh');
    const auto = await c.send('POST', '/auth/auto-login');
    expect(auto.statusCode).toBe(200);
    c.token = auto.json<{ access_token: string }>().access_token;
    expect((await addKey(c)).json()).toEqual(STEP_UP_REQUIRED);
    expect(await keys(c)).toEqual([]);
  });
});
