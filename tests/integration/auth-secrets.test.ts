import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecrets, keySource, loadMasterKey } from '../../server/plugins/secrets';
import { freePort, startServerProcess, waitForHealth, type ServerProcess } from '../helpers/process';
import { startSignedDouble, type SignedDouble } from '../fixtures/binance-signed-double';
import { decodeQuotedPrintable, totpCode } from './auth.support';

describe('the secrets key', () => {
  it('is generated once into DATA_DIR/secrets.key with mode 0600, or taken from SECRETS_KEY', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sc-secrets-'));
    try {
      const first = await loadMasterKey({ DATA_DIR: dir, SECRETS_KEY: undefined });
      const second = await loadMasterKey({ DATA_DIR: dir, SECRETS_KEY: undefined });
      expect(first.equals(second)).toBe(true);
      expect(first).toHaveLength(32);
      expect((await stat(path.join(dir, 'secrets.key'))).mode & 0o777).toBe(0o600);
      const given = await loadMasterKey({ DATA_DIR: dir, SECRETS_KEY: 'ab'.repeat(32) });
      expect(given.toString('hex')).toBe('ab'.repeat(32));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('seals with AES-256-GCM: round-trips, and refuses tampering or another key', () => {
    const a = createSecrets(Buffer.alloc(32, 1));
    const sealed = a.encrypt('JBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(a.encrypt('JBSWY3DPEHPK3PXP')).not.toBe(sealed);
    expect(a.decrypt(sealed)).toBe('JBSWY3DPEHPK3PXP');
    const parts = sealed.split('.');
    const body = parts[3] ?? '';
    parts[3] = (body[0] === 'A' ? 'B' : 'A') + body.slice(1);
    expect(() => a.decrypt(parts.join('.'))).toThrow();
    expect(() => createSecrets(Buffer.alloc(32, 2)).decrypt(sealed)).toThrow();
    expect(a.keyedHash('x', 'code')).not.toBe(a.keyedHash('y', 'code'));
  });
});

/** A tiny browser for a real server: JSON or form bodies, a cookie jar. */
function browser(base: string, answers: string[]) {
  const jar = new Map<string, string>();
  let token: string | null = null;
  return {
    setToken: (t: string | null) => (token = t),
    async send(
      method: string,
      url: string,
      body?: Record<string, string>,
      form = false,
      extra: Record<string, string> = {},
    ) {
      const headers: Record<string, string> = { ...extra };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined)
        headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
      const res = await fetch(base + '/api' + url, {
        method,
        headers,
        ...(body === undefined
          ? {}
          : { body: form ? new URLSearchParams(body).toString() : JSON.stringify(body) }),
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = (pair ?? '').split('=');
        if (name !== undefined) {
          if (value === undefined || value === '') jar.delete(name);
          else jar.set(name, value);
        }
      }
      const text = await res.text();
      answers.push(`${method} ${url} ${res.status} ${[...res.headers].join(' ')} ${text}`);
      return { status: res.status, json: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
    },
    cookie: (name: string) => jar.get(name) ?? '',
  };
}

describe('after a full run of the auth and exchange-key flows on a real server', () => {
  let dataDir: string;
  let server: ServerProcess;
  let binance: SignedDouble;
  const secrets: Record<string, string> = {};
  /** Secrets no API answer may carry (tokens and codes are handed out by design, these never). */
  const neverAnswered: Record<string, string> = {};
  const answers: string[] = [];
  let resetToken = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sc-grep-'));
    binance = await startSignedDouble();
    const exchangeKey = {
      apiKey: 'GrepKey0fTheExchange0123456789',
      secret: 'grep-exchange-secret-0123456789',
    };
    binance.keys.set(exchangeKey.apiKey, { ...exchangeKey, ipRestrict: true });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServerProcess({
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'debug',
      BINANCE_FAPI_URL: binance.url,
      BINANCE_API_URL: binance.url,
    });
    await waitForHealth(base);

    const b = browser(base, answers);
    secrets.password = 'first Pa55word!';
    await b.send('POST', '/auth/signup', {
      email: 'gina@example.com',
      username: 'gina',
      password: secrets.password,
    });
    const login = await b.send(
      'POST',
      '/auth/token',
      { username: 'gina', password: secrets.password, remember_me: 'true' },
      true,
    );
    secrets.access = String(login.json.access_token);
    secrets.refresh = b.cookie('sc_refresh');
    secrets.device = b.cookie('sc_device');
    b.setToken(secrets.access);
    const refreshed = await b.send('POST', '/auth/refresh');
    secrets.access2 = String(refreshed.json.access_token);
    secrets.refresh2 = b.cookie('sc_refresh');
    const setup = await b.send('POST', '/auth/2fa/setup');
    secrets.totp = String(setup.json.secret);
    const verify = await b.send('POST', '/auth/2fa/verify', { code: totpCode(secrets.totp) });
    secrets.recovery = (verify.json.recovery_codes as string[])[0] ?? '';
    await b.send('POST', '/auth/logout');
    b.setToken(null);
    const first = await b.send('POST', '/auth/token', { username: 'gina', password: secrets.password }, true);
    const second = await b.send('POST', '/auth/2fa/login', {
      user_id: String(first.json.user_id),
      code: totpCode(secrets.totp, Date.now() + 30_000),
    });
    secrets.access3 = String(second.json.access_token);
    await b.send('POST', '/auth/forgot-password', { email: 'gina@example.com' });
    // The answer comes first; the mail is written just after it (up to 20 s on a busy machine). The
    // outbox also holds the notices of what happened before (2FA turned on).
    const resetMail = async (): Promise<string | undefined> => {
      const folder = path.join(dataDir, 'outbox');
      for (const file of await readdir(folder).catch(() => [])) {
        const text = decodeQuotedPrintable(await readFile(path.join(folder, file), 'utf8'));
        if (text.includes('reset-password?token=')) return text;
      }
      return undefined;
    };
    let mail: string | undefined;
    for (let i = 0; i < 1000 && (mail = await resetMail()) === undefined; i++)
      await new Promise((r) => setTimeout(r, 20));
    resetToken = /token=([A-Za-z0-9_-]+)/.exec(mail ?? '')?.[1] ?? '';
    secrets.newPassword = 'second Pa55word!';
    const reset = await b.send('POST', '/auth/reset-password', {
      token: resetToken,
      newPassword: secrets.newPassword,
    });
    expect(reset.status).toBe(200);

    // An exchange key: saved, chosen, traded with, listed, deleted.
    const again = await b.send(
      'POST',
      '/auth/token',
      { username: 'gina', password: secrets.newPassword },
      true,
    );
    const twoFa = await b.send('POST', '/auth/2fa/login', {
      user_id: String(again.json.user_id),
      code: secrets.recovery ?? '',
    });
    expect([again.status, twoFa.status], JSON.stringify([again.json, twoFa.json])).toEqual([200, 200]);
    b.setToken(String(twoFa.json.access_token));
    Object.assign(secrets, { exchangeApiKey: exchangeKey.apiKey, exchangeSecret: exchangeKey.secret });
    Object.assign(neverAnswered, {
      password: secrets.password,
      newPassword: secrets.newPassword,
      exchangeApiKey: exchangeKey.apiKey,
      exchangeSecret: exchangeKey.secret,
    });
    const saved = await b.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: exchangeKey.apiKey,
      secretKey: exchangeKey.secret,
    });
    expect(saved.status).toBeLessThan(300);
    const keyId = String(saved.json.id);
    expect((await b.send('PUT', '/account', { account: keyId })).status).toBe(200);
    const order = await b.send(
      'POST',
      '/orders',
      { symbol: 'BTC/USDT', side: 'long', type: 'market', amount: '250' },
      false,
      { 'idempotency-key': 'grep-order-000001' },
    );
    expect(order.status).toBe(200);
    await b.send('POST', '/orders/preview', {
      symbol: 'BTC/USDT',
      side: 'long',
      type: 'market',
      amount: '300',
    });
    await b.send('GET', '/positions');
    await b.send('GET', '/account/balance');
    await b.send('GET', '/exchanges/');
    await b.send('POST', '/exchanges/', {
      exchangeName: 'binance',
      apiKey: exchangeKey.apiKey,
      secretKey: 'wrong-secret-0123',
    });
    await b.send('DELETE', `/exchanges/${keyId}`);
    expect(binance.orders).toHaveLength(1);
    await server.stop();
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await binance?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ran every step', () => {
    for (const [name, value] of Object.entries(secrets)) expect(value.length, name).toBeGreaterThan(5);
    expect(resetToken.length).toBeGreaterThan(40);
  });

  it('answers none of the passwords, nor the exchange key or its secret, in any body or header', () => {
    expect(answers.length).toBeGreaterThan(15);
    for (const [name, value] of Object.entries(neverAnswered)) {
      expect(
        answers.filter((a) => a.includes(value)),
        `${name} in an API answer`,
      ).toEqual([]);
    }
  });

  it('leaves no password, token, TOTP secret, recovery code or exchange secret in the database files', async () => {
    const files = (await readdir(dataDir, { recursive: true, withFileTypes: true }))
      .filter((f) => f.isFile() && !f.parentPath.includes(`${path.sep}outbox`))
      .map((f) => path.join(f.parentPath, f.name));
    expect(files.some((f) => f.includes('pglite'))).toBe(true);
    const all = Buffer.concat(await Promise.all(files.map((f) => readFile(f))));
    for (const [name, value] of Object.entries({ ...secrets, resetToken })) {
      expect(all.includes(Buffer.from(value)), `${name} found in DATA_DIR`).toBe(false);
    }
  });

  it('logs none of them, nor the reset token: the outbox holds the link, the log names the file', () => {
    const lines = server.output().split('\n');
    expect(lines.some((l) => l.includes('POST') || l.includes('/api/auth/token'))).toBe(true);
    for (const [name, value] of Object.entries(secrets)) {
      expect(server.output().includes(value), `${name} found in the logs`).toBe(false);
    }
    expect(lines.filter((l) => l.includes(resetToken))).toEqual([]);
    expect(lines.some((l) => l.includes('mail written to the outbox') && l.includes('.eml'))).toBe(true);
  });
});

describe('the secrets key from a file of its own', () => {
  it('is read from SECRETS_KEY_FILE, which must exist and hold 64 hex characters; nothing is written to DATA_DIR', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sc-keyfile-'));
    try {
      const file = path.join(dir, 'elsewhere.key');
      await writeFile(file, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
      const dataDir = path.join(dir, 'data');
      const key = await loadMasterKey({ DATA_DIR: dataDir, SECRETS_KEY: undefined, SECRETS_KEY_FILE: file });
      expect(key.toString('hex')).toBe('cd'.repeat(32));
      await expect(readdir(dataDir)).rejects.toThrow(); // not even created
      expect(keySource({ SECRETS_KEY: undefined, SECRETS_KEY_FILE: file })).toBe('file');
      expect(keySource({ SECRETS_KEY: undefined, SECRETS_KEY_FILE: undefined })).toBe('data-dir');
      await expect(
        loadMasterKey({
          DATA_DIR: dataDir,
          SECRETS_KEY: undefined,
          SECRETS_KEY_FILE: path.join(dir, 'missing'),
        }),
      ).rejects.toThrow();
      await writeFile(file, 'not a key');
      await expect(
        loadMasterKey({ DATA_DIR: dataDir, SECRETS_KEY: undefined, SECRETS_KEY_FILE: file }),
      ).rejects.toThrow('does not hold 64 hex characters');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
