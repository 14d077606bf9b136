import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExchangeKey, ExchangeKeys, KEY_TEXTS } from '../../src/contracts/exchanges';
import { exchangeKeys } from '../../server/db/schema/exchanges';
import { rotateSecretsKey } from '../../server/db/tools/rotate-secrets-key';
import { createSecrets } from '../../server/plugins/secrets';
import { BinanceClient } from '../../server/modules/exchanges/binance-client';
import { ExchangesRepo } from '../../server/modules/exchanges/exchanges.repo';
import { ExchangesService } from '../../server/modules/exchanges/exchanges.service';
import { binanceKeyChecker } from '../../server/modules/exchanges/key-check';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';

const GOOD = {
  apiKey: 'Kq7pLr2mVx9sT4wYb6nZc8dFg1hJk3lMq5rSt7uVw9xYz1aB2cD4eF6gH8iJ0kLm',
  secret: 'Sx2dF4gH6jK8lZ0xC2vB4nM6qW8eR0tY2uI4oP6aS8dF0gH2jK4lZ6xC8vB0nM2q',
};
const SECRETS = [GOOD.secret, 'Wd9ithdrawSecret0123456789abcdefWd9ithdrawSecret0123456789abcdef'];

type Auth = { authorization: string };

describe.each(dbTargets())('exchange keys API on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let binance: SignedDouble;
  let ann: { authorization: string };
  let bob: { authorization: string };
  let annId = '';
  const answers: string[] = [];

  beforeAll(async () => {
    binance = await startSignedDouble();
    binance.keys.set(GOOD.apiKey, { apiKey: GOOD.apiKey, secret: GOOD.secret, ipRestrict: true });
    t = await startTestApp(target, {
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
      BINANCE_DEMO_FAPI_URL: 'http://127.0.0.1:9',
    });
    ann = await signUpAndLogIn(t.app, 'ann');
    bob = await signUpAndLogIn(t.app, 'bob');
    annId = ((await t.app.inject({ url: '/api/users/me', headers: ann })).json() as { id: string }).id;
  });
  afterAll(async () => {
    await t.close();
    await binance.close();
  });
  beforeEach(() => {
    binance.clockSkewMs = 0;
  });

  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, auth?: Auth, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: auth ?? {}, ...(payload ? { payload } : {}) });
    answers.push(res.body);
    return res;
  };
  /** The module's service over the same database, as other modules reach it through `app.exchanges`. */
  const service = () =>
    new ExchangesService(new ExchangesRepo(t.database.db), t.app.secrets, {
      binance: binanceKeyChecker({
        fapi: {
          live: new BinanceClient({ baseUrl: binance.url }),
          demo: new BinanceClient({ baseUrl: 'http://127.0.0.1:9' }),
        },
        api: new BinanceClient({ baseUrl: binance.url }),
      }),
      bybit: () => Promise.reject(new Error('no Bybit in this test')),
      okx: () => Promise.reject(new Error('no OKX in this test')),
    });
  const add = (auth: Auth, body: Record<string, unknown>) =>
    call('POST', '/api/exchanges/', auth, { exchangeName: 'binance', ...body });

  it('refuses every call without a token', async () => {
    for (const [method, url] of [
      ['GET', '/api/exchanges/'],
      ['POST', '/api/exchanges/'],
      ['DELETE', '/api/exchanges/00000000-0000-0000-0000-000000000000'],
    ] as const) {
      const res = await call(method, url, undefined, method === 'POST' ? {} : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('refuses an empty key or secret with a 422 carrying the form text', async () => {
    const res = await add(ann, { apiKey: '   ', secretKey: GOOD.secret });
    expect(res.statusCode).toBe(422);
    const detail = (res.json() as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(detail[0]).toMatchObject({ loc: ['body', 'apiKey'], msg: KEY_TEXTS.empty });
    expect((await add(ann, { apiKey: GOOD.apiKey, secretKey: '' })).statusCode).toBe(422);
    expect(binance.requests).toEqual([]);
  });

  it('saves a key Binance accepts (trimmed, signed, verified) and lists it without the secret', async () => {
    const res = await add(ann, { apiKey: ` ${GOOD.apiKey} `, secretKey: `${GOOD.secret}\n` });
    expect(res.statusCode, res.body).toBe(201);
    const key = ExchangeKey.parse(res.json());
    expect(key).toMatchObject({
      exchangeName: 'binance',
      environment: 'live',
      keyHint: 'Kq7p…Lm'.replace('…Lm', `…${GOOD.apiKey.slice(-4)}`),
      status: 'verified',
      permissions: ['read', 'futures'],
      warnings: [],
    });
    expect(binance.requests.some((r) => r.startsWith('GET /fapi/v2/account?'))).toBe(true);
    const list = ExchangeKeys.parse((await call('GET', '/api/exchanges/', ann)).json());
    expect(list.map((k) => k.id)).toEqual([key.id]);
    expect(ExchangeKeys.parse((await call('GET', '/api/exchanges/', bob)).json())).toEqual([]);
  });

  it("stores only ciphertext, under the master key's id", async () => {
    const rows = await t.database.db.select().from(exchangeKeys);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.masterKeyId).toBe(t.app.secrets.keyId);
      expect(row.secretSealed.startsWith('v1.')).toBe(true);
      expect(JSON.stringify(row)).not.toContain(GOOD.secret);
      expect(JSON.stringify(row)).not.toContain(GOOD.apiKey);
      expect(t.app.secrets.decrypt(row.secretSealed)).toBe(GOOD.secret);
    }
  });

  it("does not save a key Binance refuses, and answers with Binance's message", async () => {
    const before = (await t.database.db.select().from(exchangeKeys)).length;
    const unknown = await add(ann, { apiKey: 'Unknown0Key0123456789', secretKey: 'whatever-secret' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      detail: 'Binance refused the key: Invalid API-key, IP, or permissions for action.',
    });
    const wrongSecret = await add(ann, { apiKey: GOOD.apiKey, secretKey: 'not-the-secret' });
    expect(wrongSecret.json()).toEqual({
      detail: 'Binance refused the key: Signature for this request is not valid.',
    });
    const badFormat = await add(ann, { apiKey: 'has spaces in it!', secretKey: 'x' });
    expect(badFormat.json()).toEqual({ detail: 'Binance refused the key: API-key format invalid.' });
    expect((await t.database.db.select().from(exchangeKeys)).length).toBe(before);
  });

  it('re-syncs its clock after -1021 and still verifies the key', async () => {
    binance.clockSkewMs = -30_000;
    const skewedKey = { apiKey: 'Skew0Key0123456789abcdef', secret: 'skew-secret-0123456789' };
    binance.keys.set(skewedKey.apiKey, { ...skewedKey, ipRestrict: true });
    // The client synced at +0 earlier, so its first timestamp is 30 s ahead of the double: -1021.
    const res = await add(ann, { apiKey: skewedKey.apiKey, secretKey: skewedKey.secret });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'verified' });
  });

  it('saves the key unverified when Binance cannot be reached', async () => {
    const res = await add(ann, {
      apiKey: 'Demo0Key0123456789',
      secretKey: 'demo-secret',
      environment: 'demo',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ environment: 'demo', status: 'unverified', permissions: [] });
    const id = (res.json() as { id: string }).id;
    // First use checks it again; still unreachable, so it cannot be used yet.
    await expect(service().use(annId, id)).rejects.toMatchObject({ status: 503 });
    const [row] = (await t.database.db.select().from(exchangeKeys)).filter((r) => r.id === id);
    expect(row?.status).toBe('unverified');
  });

  it('refuses a key that can withdraw unless confirmed, then warns about it', async () => {
    const w = { apiKey: 'Withdraw0Key0123456789', secret: SECRETS[1] ?? '' };
    binance.keys.set(w.apiKey, {
      ...w,
      enableWithdrawals: true,
      ipRestrict: false,
      tradingAuthorityExpirationTime: Date.now() + 3 * 86_400_000,
    });
    const refused = await add(ann, { apiKey: w.apiKey, secretKey: w.secret });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ detail: KEY_TEXTS.withdrawalsRefused() });
    const saved = await add(ann, { apiKey: w.apiKey, secretKey: w.secret, confirmWithdrawals: true });
    expect(saved.statusCode).toBe(201);
    expect(saved.json()).toMatchObject({
      permissions: ['read', 'futures', 'withdraw'],
      warnings: ['withdrawals-enabled', 'no-ip-whitelist', 'expiry-near'],
    });
  });

  it('backs off after 429 with Retry-After and saves the key unverified meanwhile', async () => {
    const k = { apiKey: 'Limited0Key0123456789', secret: 'limited-secret-0123' };
    binance.keys.set(k.apiKey, { ...k, ipRestrict: true });
    binance.limit(429, 2);
    const first = await add(ann, { apiKey: k.apiKey, secretKey: k.secret });
    expect(first.json()).toMatchObject({ status: 'unverified' });
    const sent = binance.requests.length;
    const second = await add(ann, { apiKey: k.apiKey, secretKey: k.secret });
    expect(second.json()).toMatchObject({ status: 'unverified' });
    // Inside the Retry-After window the client does not call Binance at all.
    expect(binance.requests.length).toBe(sent);
  });

  it('lets only the owner delete a key (404 otherwise)', async () => {
    const [key] = ExchangeKeys.parse((await call('GET', '/api/exchanges/', ann)).json());
    if (!key) throw new Error('no key');
    expect((await call('DELETE', `/api/exchanges/${key.id}`, bob)).statusCode).toBe(404);
    expect((await call('DELETE', '/api/exchanges/not-a-uuid', ann)).statusCode).toBe(404);
    const gone = await call('DELETE', `/api/exchanges/${key.id}`, ann);
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toEqual({ message: KEY_TEXTS.deleted });
    expect((await call('DELETE', `/api/exchanges/${key.id}`, ann)).statusCode).toBe(404);
  });

  it('uses a verified key for signing: decrypted for its owner only', async () => {
    const key = await service().add(annId, {
      exchangeName: 'binance',
      apiKey: GOOD.apiKey,
      secretKey: GOOD.secret,
      environment: 'live',
      confirmWithdrawals: false,
    });
    const usable = await service().use(annId, key.id);
    expect(usable.credentials).toEqual({ apiKey: GOOD.apiKey, secret: GOOD.secret });
    const bobId = ((await t.app.inject({ url: '/api/users/me', headers: bob })).json() as { id: string }).id;
    await expect(service().use(bobId, key.id)).rejects.toMatchObject({ status: 404 });
  });

  it('never shows a secret in an answer, a database row or DATA_DIR', async () => {
    for (const body of answers) for (const s of SECRETS) expect(body).not.toContain(s);
    const tables = (await t.database.db.execute(
      sql`select table_name from information_schema.tables where table_schema = current_schema()`,
    )) as unknown as { rows: { table_name: string }[] };
    expect(tables.rows.length).toBeGreaterThan(3);
    for (const { table_name } of tables.rows) {
      const dump = JSON.stringify(await t.database.db.execute(sql.raw(`select * from "${table_name}"`)));
      for (const s of SECRETS) expect(dump, table_name).not.toContain(s);
    }
    for (const file of await filesUnder(t.dataDir)) {
      const text = await readFile(file, 'latin1');
      for (const s of SECRETS) expect(text, file).not.toContain(s);
    }
  });

  it('rotates the master key: every sealed key re-sealed under the new key id, in one go', async () => {
    const from = t.app.secrets;
    const to = createSecrets(randomBytes(32));
    const before = await t.database.db.select().from(exchangeKeys);
    const moved = await rotateSecretsKey(t.database.db, from, to);
    expect(moved.exchangeKeys).toBe(before.length);
    const after = await t.database.db.select().from(exchangeKeys);
    for (const row of after) {
      expect(row.masterKeyId).toBe(to.keyId);
      expect(() => from.decrypt(row.secretSealed)).toThrow();
      const old = before.find((b) => b.id === row.id);
      expect(to.decrypt(row.secretSealed)).toBe(old && from.decrypt(old.secretSealed));
    }
    // A second run finds nothing left under the old key.
    expect((await rotateSecretsKey(t.database.db, from, to)).exchangeKeys).toBe(0);
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}
