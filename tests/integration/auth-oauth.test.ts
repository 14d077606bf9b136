import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityList } from '../../src/contracts/activity';
import { WEB3_DETAILS } from '../../src/contracts/web3';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { startOAuthDouble, type OAuthDouble } from '../fixtures/oauth-double';
import { IDENTITY_DETAILS } from '../../server/modules/auth/identity.service';
import { AuthClient, enableTwoFactor } from './auth.support';

const PUBLIC_URL = 'http://127.0.0.1:8080';

describe.each(dbTargets())('Google and Twitter sign-in on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let bare: TestApp;
  let idp: OAuthDouble;
  const client = () => new AuthClient(t.app);

  /** The browser's trip: our /login, the provider's consent page, and back to our callback. */
  const start = async (c: AuthClient, provider: 'google' | 'twitter', query = '') => {
    const res = await c.send('GET', `/auth/${provider}/login${query}`);
    expect(res.statusCode).toBe(302);
    const consent = await fetch(String(res.headers.location), { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = String(consent.headers.get('location'));
    expect(back.startsWith(`${PUBLIC_URL}/api/auth/${provider}/callback?`)).toBe(true);
    return { login: res, callback: back.slice(`${PUBLIC_URL}/api`.length) };
  };
  const signIn = async (c: AuthClient, provider: 'google' | 'twitter', query = '') => {
    const { callback } = await start(c, provider, query);
    return c.send('GET', callback);
  };
  const meOf = async (c: AuthClient) => {
    expect((await c.refresh()).statusCode).toBe(200);
    return (await c.send('GET', '/users/me')).json<{ id: string; email: string | null; username: string }>();
  };

  beforeAll(async () => {
    idp = await startOAuthDouble();
    t = await startTestApp(target, {
      PUBLIC_URL,
      GOOGLE_CLIENT_ID: idp.clientId,
      GOOGLE_CLIENT_SECRET: idp.clientSecret,
      GOOGLE_ISSUER: idp.issuer,
      TWITTER_CLIENT_ID: idp.clientId,
      TWITTER_CLIENT_SECRET: idp.clientSecret,
      TWITTER_AUTHORIZE_URL: `${idp.issuer}/i/oauth2/authorize`,
      TWITTER_API_URL: idp.issuer,
    });
    bare = await startTestApp(target);
  });
  afterAll(async () => {
    await t.close();
    await bare.close();
    await idp.close();
  });

  it('answers 404 with a detail for a provider that is not configured, and says which are', async () => {
    const c = new AuthClient(bare.app);
    expect((await c.send('GET', '/auth/providers')).json()).toEqual({ google: false, twitter: false });
    const google = await c.send('GET', '/auth/google/login');
    expect(google.statusCode).toBe(404);
    expect(google.json()).toEqual({ detail: WEB3_DETAILS.providerOff('Google') });
    const twitter = await c.send('GET', '/auth/twitter/callback?code=x&state=y');
    expect(twitter.json()).toEqual({ detail: WEB3_DETAILS.providerOff('Twitter') });
    expect((await client().send('GET', '/auth/providers')).json()).toEqual({ google: true, twitter: true });
  });

  it('sends the browser to Google with PKCE (S256), state and nonce in a Lax cookie', async () => {
    const res = await client().send('GET', '/auth/google/login');
    const location = new URL(String(res.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/authorize`);
    const q = location.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(idp.clientId);
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')?.length).toBeGreaterThanOrEqual(32);
    expect(q.get('nonce')?.length).toBeGreaterThanOrEqual(32);
    const cookie = res.cookies.find((x) => x.name === 'sc_oauth');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth' });
    // The state and the verifier travel sealed, never readable in the cookie.
    expect(cookie?.value).not.toContain(q.get('state'));
  });

  it('signs a new Google user in with the verified e-mail, Strict refresh cookie, and the same account next time', async () => {
    idp.person = { sub: 'g-1', email: 'gina@example.com', email_verified: true, name: 'Gina' };
    const c = client();
    const res = await signIn(c, 'google');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/');
    const refresh = res.cookies.find((x) => x.name === 'sc_refresh');
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(res.cookies.find((x) => x.name === 'sc_oauth')?.value).toBe('');
    const me = await meOf(c);
    expect(me).toMatchObject({ email: 'gina@example.com', username: 'gina' });
    const again = client();
    await signIn(again, 'google');
    expect((await meOf(again)).id).toBe(me.id);
  });

  it('does not join a Google sign-in to a password account with the same e-mail: it says what to do', async () => {
    await client().signup('harry', 'correct horse', 'harry@example.com');
    const pw = client();
    await pw.login('harry');
    // The account's owner (or whoever registered the address in advance) set 2FA, wallets, keys…
    idp.person = { sub: 'g-2', email: 'HARRY@example.com', email_verified: true, name: 'Harry' };
    const c = client();
    const refused = await signIn(c, 'google');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ detail: IDENTITY_DETAILS.emailTaken });
    expect(c.cookies.has('sc_refresh')).toBe(false);
    // The password account is untouched.
    expect((await pw.send('POST', '/auth/refresh')).statusCode).toBe(200);
    expect((await client().login('harry')).statusCode).toBe(200);

    idp.person = { sub: 'g-3', email: 'harry@example.com', email_verified: false, name: 'Not Harry' };
    const d = client();
    await signIn(d, 'google');
    const other = await meOf(d);
    expect(other.email).toBeNull();
  });

  it('joins a second verified Google identity to the account a verified Google e-mail made', async () => {
    idp.person = { sub: 'g-4', email: 'iris@example.com', email_verified: true, name: 'Iris' };
    const first = client();
    await signIn(first, 'google');
    const iris = await meOf(first);
    expect(iris.email).toBe('iris@example.com');
    // Another Google identity proving the same address joins the account the first one made.
    idp.person = { sub: 'g-5', email: 'iris@example.com', email_verified: true, name: 'Iris' };
    const second = client();
    await signIn(second, 'google');
    expect((await meOf(second)).id).toBe(iris.id);
  });

  it('tells the owner of a Google identity joined by its e-mail, and does not count its first day as a confirmation', async () => {
    idp.person = { sub: 'g-20', email: 'judy@example.com', email_verified: true, name: 'Judy' };
    const maker = client();
    await signIn(maker, 'google');
    await meOf(maker);
    const confirmed = async (c: AuthClient) =>
      (await c.send('GET', '/auth/step-up')).json<{ confirmed_until: string | null }>().confirmed_until;
    // The identity that made the account is the account's own: its sign-in counts.
    expect(await confirmed(maker)).not.toBeNull();

    idp.person = { sub: 'g-21', email: 'judy@example.com', email_verified: true, name: 'Judy' };
    const joined = client();
    await signIn(joined, 'google');
    await meOf(joined);
    expect(await confirmed(joined)).toBeNull();
    const lines = ActivityList.parse((await maker.send('GET', '/account/activity')).json());
    expect(lines.map((l) => [l.kind, l.text])).toContainEqual([
      'identity_linked',
      'A Google account linked: it can sign in to this account',
    ]);
    // A day later the joined identity is the account's own as well.
    await t.database.db.execute(
      sql`update identities set created_at = created_at - interval '25 hours' where subject = 'g-21'`,
    );
    const later = client();
    await signIn(later, 'google');
    await meOf(later);
    expect(await confirmed(later)).not.toBeNull();
  });

  it('refuses a callback without the cookie, with another state, or with a code replayed', async () => {
    idp.person = { sub: 'g-4', email: 'ivy@example.com', email_verified: true };
    const c = client();
    const { callback } = await start(c, 'google');
    const stranger = await client().send('GET', callback);
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json()).toEqual({ detail: WEB3_DETAILS.oauthState });
    const forged = await c.send('GET', callback.replace(/state=[^&]+/, 'state=forged'));
    expect(forged.json()).toEqual({ detail: WEB3_DETAILS.oauthState });
    // The failed attempt spent the cookie: the real callback now fails as well.
    expect((await c.send('GET', callback)).statusCode).toBe(400);

    const e = client();
    const fresh = await start(e, 'google');
    expect((await e.send('GET', fresh.callback)).statusCode).toBe(302);
    expect((await e.send('GET', fresh.callback)).statusCode).toBe(400);
  });

  it("refuses a code that was issued for another browser's PKCE challenge", async () => {
    idp.person = { sub: 'g-5', email: 'jack@example.com', email_verified: true };
    const a = client();
    const b = client();
    const first = await start(a, 'google');
    const second = await start(b, 'google');
    const codeOfA = new URLSearchParams(first.callback.split('?')[1]).get('code') ?? '';
    const mixed = second.callback.replace(/code=[^&]+/, `code=${codeOfA}`);
    const res = await b.send('GET', mixed);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: WEB3_DETAILS.oauthFailed });
    expect(idp.refusals).toContain('code_verifier');
  });

  it('signs a Twitter user in by its Twitter id, with no e-mail, and remembers the device when asked', async () => {
    idp.person = { sub: 't-77', username: 'kate_tw', name: 'Kate' };
    const c = client();
    const res = await signIn(c, 'twitter', '?remember_me=true');
    expect(res.headers.location).toBe('/');
    expect(c.cookies.has('sc_device')).toBe(true);
    const me = await meOf(c);
    expect(me).toMatchObject({ email: null, username: 'kate_tw' });
    const again = client();
    await signIn(again, 'twitter');
    expect((await meOf(again)).id).toBe(me.id);
  });

  it('sends a user with two-factor login on to the code step instead of signing in', async () => {
    idp.person = { sub: 'g-9', email: 'lena@example.com', email_verified: true };
    const c = client();
    await signIn(c, 'google');
    await meOf(c);
    await enableTwoFactor(c);
    const d = client();
    const res = await signIn(d, 'google');
    expect(res.headers.location).toMatch(/^\/#two_factor=[\w-]{20,}$/);
    expect(d.cookies.has('sc_refresh')).toBe(false);
  });
});
