import { eq, sql } from 'drizzle-orm';
import { web3Nonces } from '../../server/db/schema';
import { NONCES_PER_WALLET } from '../../server/modules/auth/web3.service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB3_DETAILS } from '../../src/contracts/web3';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, enableTwoFactor, totpCode } from './auth.support';
import { newAccount, signWith } from './web3.support';

describe.each(dbTargets())('wallet sign-in (SIWE) on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  const client = () => new AuthClient(t.app);

  beforeAll(async () => {
    t = await startTestApp(target, { PUBLIC_URL: 'https://console.example' });
  });
  afterAll(() => t.close());

  it('answers a full EIP-4361 message for this site with a single-use nonce valid 5 minutes', async () => {
    const account = newAccount();
    const res = await client().send('POST', '/auth/web3/nonce', { address: account.address });
    expect(res.statusCode).toBe(200);
    const { message, nonce } = res.json<{ message: string; nonce: string }>();
    expect(nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    const lines = message.split('\n');
    expect(lines[0]).toBe('console.example wants you to sign in with your Ethereum account:');
    expect(lines[1]).toBe(account.address);
    expect(message).toContain('\nURI: https://console.example\n');
    expect(message).toContain('\nVersion: 1\n');
    expect(message).toContain('\nChain ID: 1\n');
    expect(message).toContain(`\nNonce: ${nonce}\n`);
    const issued = Date.parse(/Issued At: (\S+)/.exec(message)?.[1] ?? '');
    const expires = Date.parse(/Expiration Time: (\S+)/.exec(message)?.[1] ?? '');
    expect(expires - issued).toBe(5 * 60 * 1000);

    const bad = await client().send('POST', '/auth/web3/nonce', { address: '0x12', chain_id: 5 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json<{ detail: { loc: string[] }[] }>().detail.map((d) => d.loc[1])).toEqual([
      'address',
      'chain_id',
    ]);
  });

  it('signs a new wallet in, makes a wallet-only account without e-mail, and finds it the next time', async () => {
    const account = newAccount();
    const c = client();
    const { res } = await signWith(c, account, { rememberMe: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer' });
    expect(c.cookies.has('sc_refresh')).toBe(true);
    expect(c.cookies.has('sc_device')).toBe(true);
    const me = (await c.send('GET', '/users/me')).json<{
      id: string;
      email: string | null;
      username: string;
    }>();
    expect(me.email).toBeNull();
    expect(me.username).toBe(
      `wallet-${account.address.slice(2, 6)}${account.address.slice(-4)}`.toLowerCase(),
    );
    const wallets = (await c.send('GET', '/auth/web3/wallets')).json();
    expect(wallets).toEqual([
      { id: expect.any(String), address: account.address, chain_id: 1, ens_name: null, is_primary: true },
    ]);

    const again = client();
    expect((await signWith(again, account)).res.statusCode).toBe(200);
    expect((await again.send('GET', '/users/me')).json()).toMatchObject({ id: me.id });
    expect(again.cookies.has('sc_device')).toBe(false);
  });

  it('refuses an unknown nonce, a nonce asked for another address, and a replayed one', async () => {
    const account = newAccount();
    const c = client();
    const { body } = await signWith(c, account);
    const replay = await c.send('POST', '/auth/web3/verify', body);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ detail: WEB3_DETAILS.badNonce });

    const unknown = await c.send('POST', '/auth/web3/verify', { ...body, nonce: 'abcdefgh12345678abcd' });
    expect(unknown.json()).toEqual({ detail: WEB3_DETAILS.badNonce });

    const other = newAccount();
    const n = (await c.send('POST', '/auth/web3/nonce', { address: other.address })).json<{
      message: string;
      nonce: string;
    }>();
    const stolen = await c.send('POST', '/auth/web3/verify', {
      address: account.address,
      signature: await account.signMessage({ message: n.message }),
      nonce: n.nonce,
      chain_id: 1,
    });
    expect(stolen.statusCode).toBe(401);
    expect(stolen.json()).toEqual({ detail: WEB3_DETAILS.badNonce });
  });

  it('nonces asked for a wallet from 30 other addresses at once do not keep its owner from signing in', async () => {
    const account = newAccount();
    const flood = await Promise.all(
      Array.from({ length: 30 }, () =>
        client().send('POST', '/auth/web3/nonce', { address: account.address }),
      ),
    );
    expect(flood.map((r) => r.statusCode)).toEqual(Array.from({ length: 30 }, () => 200));
    // So do failed sign-ins for it.
    const bogus = await Promise.all(
      flood.slice(0, 15).map((r) =>
        client().send('POST', '/auth/web3/verify', {
          address: account.address,
          signature: `0x${'11'.repeat(65)}`,
          nonce: r.json<{ nonce: string }>().nonce,
          chain_id: 1,
        }),
      ),
    );
    expect(bogus.every((r) => r.statusCode === 401)).toBe(true);

    const owner = client();
    const { res } = await signWith(owner, account);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer' });

    // One address still gets ten nonces a minute, whatever the wallet.
    const greedy = client();
    const codes: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      codes.push(
        (await greedy.send('POST', '/auth/web3/nonce', { address: newAccount().address })).statusCode,
      );
    }
    expect(codes).toEqual([...Array.from({ length: 10 }, () => 200), 429]);
  });

  it('keeps the newest nonces of a wallet and lets the oldest go, rather than refusing new ones', async () => {
    const account = newAccount();
    const ask = async () =>
      (await client().send('POST', '/auth/web3/nonce', { address: account.address })).json<{
        message: string;
        nonce: string;
      }>();
    const oldest = await ask();
    for (let i = 0; i < NONCES_PER_WALLET; i += 1) await ask();
    const held = await t.database.db
      .select({ nonce: web3Nonces.nonce })
      .from(web3Nonces)
      .where(eq(web3Nonces.address, account.address.toLowerCase()));
    expect(held).toHaveLength(NONCES_PER_WALLET);
    expect(held.map((r) => r.nonce)).not.toContain(oldest.nonce);
    const late = await client().send('POST', '/auth/web3/verify', {
      address: account.address,
      signature: await account.signMessage({ message: oldest.message }),
      nonce: oldest.nonce,
      chain_id: 1,
    });
    expect(late.json()).toEqual({ detail: WEB3_DETAILS.badNonce });
    expect((await signWith(client(), account)).res.statusCode).toBe(200);
  });

  it('refuses an expired nonce', async () => {
    const account = newAccount();
    const c = client();
    const n = (await c.send('POST', '/auth/web3/nonce', { address: account.address })).json<{
      message: string;
      nonce: string;
    }>();
    await t.database.db.execute(
      sql`update web3_nonces set expires_at = now() - interval '1 second' where nonce = ${n.nonce}`,
    );
    const res = await c.send('POST', '/auth/web3/verify', {
      address: account.address,
      signature: await account.signMessage({ message: n.message }),
      nonce: n.nonce,
      chain_id: 1,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: WEB3_DETAILS.badNonce });
  });

  it('refuses a message for another domain, URI or chain, and a signature by another key', async () => {
    const account = newAccount();
    const wrongDomain = await signWith(client(), account, {
      rewrite: (m) => m.replace('console.example wants', 'evil.example wants'),
    });
    expect(wrongDomain.res.statusCode).toBe(401);
    expect(wrongDomain.res.json()).toEqual({ detail: WEB3_DETAILS.badMessage });

    const wrongUri = await signWith(client(), account, {
      rewrite: (m) => m.replace('URI: https://console.example', 'URI: https://evil.example'),
    });
    expect(wrongUri.res.json()).toEqual({ detail: WEB3_DETAILS.badMessage });

    const wrongChain = await signWith(client(), account, {
      rewrite: (m) => m.replace('Chain ID: 1', 'Chain ID: 10'),
    });
    expect(wrongChain.res.json()).toEqual({ detail: WEB3_DETAILS.badMessage });

    const anotherKey = await signWith(client(), account, { signer: newAccount() });
    expect(anotherKey.res.statusCode).toBe(401);
    expect(anotherKey.res.json()).toEqual({ detail: WEB3_DETAILS.badSignature });

    const other = newAccount();
    const n = (await client().send('POST', '/auth/web3/nonce', { address: other.address })).json<{
      nonce: string;
    }>();
    const garbage = { address: other.address, signature: '0x1234', nonce: n.nonce, chain_id: 1 };
    const refused = await client().send('POST', '/auth/web3/verify', garbage);
    expect(refused.json()).toEqual({ detail: WEB3_DETAILS.badSignature });
  });

  it('links wallets to a password account, refuses one linked elsewhere, and keeps the last way to sign in', async () => {
    const walletOwner = client();
    const a = newAccount();
    await signWith(walletOwner, a);

    await client().signup('wendy');
    const wendy = client();
    await wendy.login('wendy');
    const stolen = await signWith(wendy, a, { path: '/auth/web3/wallets/link' });
    expect(stolen.res.statusCode).toBe(409);
    expect(stolen.res.json()).toEqual({ detail: WEB3_DETAILS.linkedElsewhere });

    const b = newAccount();
    const linked = await signWith(wendy, b, { path: '/auth/web3/wallets/link' });
    expect(linked.res.statusCode).toBe(201);
    expect(linked.res.json()).toMatchObject({
      address: b.address,
      is_primary: true,
      message: 'Wallet linked.',
    });
    const twice = await signWith(wendy, b, { path: '/auth/web3/wallets/link' });
    expect(twice.res.json()).toEqual({ detail: WEB3_DETAILS.alreadyLinked });
    const unauth = await client().send('GET', '/auth/web3/wallets');
    expect(unauth.statusCode).toBe(401);

    // A wallet-only account: its one wallet cannot go; with a second one it can, and primary moves.
    const [first] = (await walletOwner.send('GET', '/auth/web3/wallets')).json<{ id: string }[]>();
    const refused = await walletOwner.send('DELETE', `/auth/web3/wallets/${first?.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ detail: WEB3_DETAILS.lastMethod });
    const c2 = newAccount();
    expect((await signWith(walletOwner, c2, { path: '/auth/web3/wallets/link' })).res.json()).toMatchObject({
      is_primary: false,
    });
    expect((await wendy.send('DELETE', `/auth/web3/wallets/${first?.id}`)).statusCode).toBe(404);
    const removed = await walletOwner.send('DELETE', `/auth/web3/wallets/${first?.id}`);
    expect(removed.json()).toEqual({ message: 'Wallet unlinked.' });
    expect((await walletOwner.send('GET', '/auth/web3/wallets')).json()).toEqual([
      expect.objectContaining({ address: c2.address, is_primary: true }),
    ]);
    // The wallet that was removed is free again: it signs in as a new account.
    const fresh = client();
    await signWith(fresh, a);
    const ids = await Promise.all(
      [fresh, walletOwner].map(async (x) => (await x.send('GET', '/users/me')).json<{ id: string }>().id),
    );
    expect(ids[0]).not.toBe(ids[1]);
    // A password account may remove its only wallet.
    const [bw] = (await wendy.send('GET', '/auth/web3/wallets')).json<{ id: string }[]>();
    expect((await wendy.send('DELETE', `/auth/web3/wallets/${bw?.id}`)).statusCode).toBe(200);
  });

  it('asks a wallet account with two-factor login on for its code before any token', async () => {
    const account = newAccount();
    const c = client();
    await signWith(c, account);
    const { secret } = await enableTwoFactor(c);
    const d = client();
    const { res } = await signWith(d, account);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ two_factor_required: boolean; user_id: string; access_token?: string }>();
    expect(body.two_factor_required).toBe(true);
    expect(body.access_token).toBeUndefined();
    expect(d.cookies.has('sc_refresh')).toBe(false);
    const done = await d.send('POST', '/auth/2fa/login', {
      user_id: body.user_id,
      code: totpCode(secret, Date.now() + 30_000),
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ token_type: 'bearer' });
  });

  it('lets one of two racing sign-ins of a new wallet make the account', async () => {
    const account = newAccount();
    const [x, y] = [client(), client()];
    const results = await Promise.all([signWith(x, account), signWith(y, account)]);
    expect(results.map((r) => r.res.statusCode)).toEqual([200, 200]);
    const ids = await Promise.all(
      [x, y].map(async (c) => (await c.send('GET', '/users/me')).json<{ id: string }>().id),
    );
    expect(ids[0]).toBe(ids[1]);
  });
});
