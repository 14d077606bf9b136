import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { AuthClient, decodeQuotedPrintable } from './auth.support';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
async function startSmtp(): Promise<{ port: number; inbox: Received[]; close(): Promise<void> }> {
  const inbox: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, inbox, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.each(dbTargets())('password reset mail over SMTP on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(target, {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PUBLIC_URL: 'http://127.0.0.1:9999',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends the reset link through the SMTP server, and the link works', async () => {
    expect((await t.app.inject('/api/healthz')).json()).toMatchObject({ mail: 'smtp' });
    const c = new AuthClient(t.app);
    await c.signup('sam', 'correct horse', 'sam@example.com');
    const res = await c.send('POST', '/auth/forgot-password', { email: 'sam@example.com' });
    expect(res.statusCode).toBe(200);
    await expect.poll(() => smtp.inbox.length).toBe(1);
    const [mail] = smtp.inbox;
    expect(mail?.to).toEqual(['sam@example.com']);
    expect(mail?.from).toBe('no-reply@signal-console.local');
    const body = decodeQuotedPrintable(mail?.data ?? '');
    const token = /http:\/\/127\.0\.0\.1:9999\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(body)?.[1];
    expect(token).toBeDefined();
    const reset = await c.send('POST', '/auth/reset-password', { token, newPassword: 'smtp new password' });
    expect(reset.statusCode).toBe(200);
    expect((await c.login('sam', 'smtp new password')).statusCode).toBe(200);
  });
});
