import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { ROOT, runProcess } from '../helpers/process';
import type { AnswerRecord, SecretRecord } from '../secrets/record';
import { productText, scan } from '../secrets/scan';
import { AuthClient, enableTwoFactor } from './auth.support';

const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const RECOVERY = 'ABCDE-FGHIJ';
const PASSWORD = 'planted Pa55word!';
const REFRESH = 'rt_0123456789abcdefghijklmnop';
const EXCHANGE = 'exchange-secret-0123456789';
const WEBHOOK = 'whsec_planted_0123456789';
const KEY = 'ab'.repeat(32);
const RESET = 'reset-token-0123456789abcdefghijklmnopqrstuvwxyz';

let dir: string;

async function put(file: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
  await writeFile(path.join(dir, file), content);
}

const lines = (items: object[]) => items.map((i) => JSON.stringify(i)).join('\n') + '\n';

function answer(id: string, body: string, headers: AnswerRecord['headers'] = {}): AnswerRecord {
  return { id, source: 'inject', method: 'POST', url: `/api/${id}`, status: 200, headers, body };
}

/** A clean recording: each secret only where it is allowed to be. */
async function recordClean(): Promise<void> {
  const secrets: SecretRecord[] = [
    { kind: 'password', value: PASSWORD },
    { kind: 'password', value: 'short' },
    { kind: 'password', value: 'wrong password' },
    { kind: 'TOTP secret', value: TOTP, issuedIn: 'setup' },
    { kind: 'recovery code', value: RECOVERY, issuedIn: 'verify' },
    { kind: 'refresh token', value: REFRESH, issuedIn: 'login' },
    { kind: 'exchange secret', value: EXCHANGE },
    { kind: 'webhook secret', value: WEBHOOK },
    { kind: 'secrets key', value: KEY },
  ];
  await put('secrets/1-0.jsonl', lines(secrets.slice(0, 4)));
  await put('secrets/2-0.jsonl', lines(secrets.slice(4)));
  await put(
    'answers/1-0.jsonl',
    lines([
      answer('setup', JSON.stringify({ secret: TOTP, otpauth_url: `otpauth://totp/x?secret=${TOTP}` })),
      answer('verify', JSON.stringify({ recovery_codes: [RECOVERY] })),
      answer('login', '{"access_token":"x"}', { 'set-cookie': [`sc_refresh=${REFRESH}; HttpOnly`] }),
      answer('other', 'the word short is fine: too short to mean anything'),
      answer('activity', '[{"text":"A sign-in failed: wrong password"}]'),
    ]),
  );
  await put('logs/app-1-0-1.log', '{"level":30,"msg":"mail written to the outbox: reset.eml"}\n');
  // Quoted-printable, as the outbox writes it: "=" is "=3D".
  const mail = `Subject: Reset\n\nhttp://127.0.0.1/reset-password?token=3D${RESET}\n`;
  await put('data/app-1-0-1/outbox/1-reset.eml', mail);
  await put('data/app-1-0-1/secrets.key', `${KEY}\n`);
  await put('data/app-1-0-1/database.jsonl', '{"password_hash":"$argon2id$v=19$..."}\n');
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sc-scan-'));
  await recordClean();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the secrets scan', () => {
  it('passes a recording where every secret is only where it was issued or belongs', async () => {
    const summary = await scan(dir, await productText(ROOT));
    expect(summary.found).toEqual([]);
    expect(summary.findings).toBe(0);
    expect(summary.scanned).toMatchObject({ answers: 5, logFiles: 1, dataFolders: 1, dataFiles: 3 });
    // The reset token comes from the outbox mail; "short" is below the minimum length, and "wrong
    // password" is what the product itself says of a failed sign-in.
    expect(summary.secrets).toMatchObject({ checked: 8, tooShort: 1, productWords: 1 });
    // Without the product's text, that password is a finding, in the activity answer.
    expect((await scan(dir)).found).toEqual([
      {
        kind: 'password',
        form: 'plain',
        where: 'answer',
        file: 'answers/1-0.jsonl',
        answer: 'POST /api/activity 200',
      },
    ]);
    expect(summary.secrets.byKind).toMatchObject({ 'reset token': 1, password: 1, 'secrets key': 1 });
    expect(summary.allowed.issuingAnswer).toBeGreaterThanOrEqual(4);
    expect(summary.allowed).toMatchObject({ outboxMail: 1, keyFile: 1 });
  });

  it('reports each planted secret with its kind, form and place, and honours no other answer', async () => {
    // The TOTP secret again in a later answer: allowed only in the one that issued it.
    await put('answers/3-0.jsonl', lines([answer('status', JSON.stringify({ secret: TOTP }))]));
    await put('answers/4-0.jsonl', lines([answer('echo', `{"detail":"bad input ${PASSWORD}"}`)]));
    await put(
      'logs/process-2-0-1.log',
      `{"msg":"refresh","cookie":"${Buffer.from(REFRESH).toString('base64')}"}\n` +
        `{"msg":"reset","url":"/reset-password?token=${RESET}"}\n`,
    );
    // The exchange secret across the scanner's 16 MiB read boundary of a binary file.
    const big = randomBytes(16 * 1024 * 1024 + 4096);
    Buffer.from(EXCHANGE).copy(big, 16 * 1024 * 1024 - 7);
    await put('data/process-2-0-2/pglite/base/1/16384', big);
    await put('data/process-2-0-2/backups/b.json', `{"x":"${Buffer.from(WEBHOOK).toString('hex')}"}`);
    await put('data/process-2-0-2/outbox/2.eml', `Subject: hi\n\n${encodeURIComponent(PASSWORD)}\n`);
    await put('data/process-2-0-2/leaked.key', KEY);

    const summary = await scan(dir, await productText(ROOT));
    const found = summary.found.map((f) => [f.kind, f.form, f.where, f.file, f.answer ?? '']);
    expect(found).toEqual(
      expect.arrayContaining([
        ['TOTP secret', 'plain', 'answer', 'answers/3-0.jsonl', 'POST /api/status 200'],
        ['password', 'plain', 'answer', 'answers/4-0.jsonl', 'POST /api/echo 200'],
        ['refresh token', 'base64', 'log', 'logs/process-2-0-1.log', ''],
        ['reset token', 'plain', 'log', 'logs/process-2-0-1.log', ''],
        ['exchange secret', 'plain', 'data', 'data/process-2-0-2/pglite/base/1/16384', ''],
        ['webhook secret', 'hex', 'data', 'data/process-2-0-2/backups/b.json', ''],
        ['password', 'url', 'data', 'data/process-2-0-2/outbox/2.eml', ''],
        ['secrets key', 'plain', 'data', 'data/process-2-0-2/leaked.key', ''],
      ]),
    );
    expect(found).toHaveLength(8);
    expect(summary.findings).toBe(8);
    // What it prints never holds a secret.
    const printed = JSON.stringify(summary);
    for (const secret of [TOTP, PASSWORD, REFRESH, RESET, EXCHANGE, WEBHOOK, KEY])
      expect(printed).not.toContain(secret);
  });

  it('as `npm run scan:secrets`: exits 0 when clean, 1 on a finding, 2 on a folder with no recording', async () => {
    const run = (folder: string) =>
      runProcess(process.execPath, ['--import', 'tsx', 'tests/secrets/scan.ts', folder]);
    const clean = await run(dir);
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ findings: 0 });

    await put('logs/app-9-0-1.log', `{"msg":"login","body":{"password":"${PASSWORD}"}}\n`);
    const dirty = await run(dir);
    expect(dirty.code).toBe(1);
    expect(JSON.parse(dirty.stdout)).toMatchObject({
      findings: 1,
      found: [{ kind: 'password', where: 'log', file: 'logs/app-9-0-1.log' }],
    });
    expect(dirty.stdout + dirty.stderr).not.toContain(PASSWORD);

    const empty = await mkdtemp(path.join(tmpdir(), 'sc-scan-empty-'));
    try {
      expect((await run(empty)).code).toBe(2);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe.each(dbTargets())('recording a test app for the scan on %s', (name) => {
  const target = useDatabase(name);
  it('keeps its answers, log, data and secrets; the scan passes it, then finds a password it leaks', async () => {
    const recording = await mkdtemp(path.join(tmpdir(), 'sc-scan-rec-'));
    const before = process.env.SECRET_SCAN_DIR;
    process.env.SECRET_SCAN_DIR = recording;
    try {
      const t = await startTestApp(
        target,
        { STRIPE_WEBHOOK_SECRET: WEBHOOK },
        {
          // A route that does what no server route may: answers and logs the password it is sent.
          onApi: (api) =>
            api.post('/leak', async (request) => {
              const { password } = request.body as { password: string };
              request.log.info({ note: password }, 'leaking');
              return { echo: password };
            }),
        },
      );
      try {
        const client = new AuthClient(t.app);
        expect((await client.signup('rita', PASSWORD)).statusCode).toBe(201);
        expect((await client.login('rita', PASSWORD, true)).statusCode).toBe(200);
        const { recoveryCodes } = await enableTwoFactor(client);
        expect(recoveryCodes).toHaveLength(10);
        expect((await client.send('POST', '/auth/refresh')).statusCode).toBe(200);

        const clean = await scan(recording, await productText(ROOT));
        expect(clean.found).toEqual([]);
        expect(clean.secrets.byKind).toEqual({
          password: 1,
          'TOTP secret': 1,
          'recovery code': 10,
          'refresh token': 2,
          'webhook secret': 1,
        });
        expect(clean.scanned).toMatchObject({ logFiles: 1, dataFolders: 1 });
        expect(clean.scanned.answers).toBeGreaterThanOrEqual(5);
        expect(clean.allowed.issuingAnswer).toBeGreaterThanOrEqual(13);

        const leak = await t.app.inject({
          method: 'POST',
          url: '/api/leak',
          payload: { password: PASSWORD },
        });
        expect(leak.statusCode).toBe(200);
      } finally {
        await t.close();
      }
    } finally {
      if (before === undefined) delete process.env.SECRET_SCAN_DIR;
      else process.env.SECRET_SCAN_DIR = before;
    }
    try {
      const [folder] = await readdir(path.join(recording, 'data'));
      // The in-memory database, dumped at close: the account is there, its password only as a hash.
      const dump = await readFile(path.join(recording, 'data', folder ?? '', 'database.jsonl'), 'utf8');
      expect(dump).toContain('"rita"');
      const dirty = await scan(recording, await productText(ROOT));
      expect(dirty.found.map((f) => [f.kind, f.form, f.where, f.answer ?? ''])).toEqual([
        ['password', 'plain', 'answer', 'POST /api/leak 200'],
        ['password', 'plain', 'log', ''],
      ]);
    } finally {
      await rm(recording, { recursive: true, force: true });
    }
  });
});
