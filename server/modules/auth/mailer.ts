import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The one link the mail is about (a reset link holds a live token: it is never logged). */
  link: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
  close(): void;
}

export const FROM = 'Signal Console <no-reply@signal-console.local>';

/** Mail over SMTP (`SMTP_URL`), through nodemailer. */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send({ to, subject, text }) {
      await transport.sendMail({ from: FROM, to, subject, text });
    },
    close: () => transport.close(),
  };
}

/**
 * The offline stand-in: each mail becomes `DATA_DIR/outbox/<time>-<id>.eml` (RFC 822, as nodemailer
 * would send it, owner-only). The log names the file, never the link: a reset link is a live credential.
 */
export function outboxMailer(dataDir: string, log: FastifyBaseLogger): Mailer {
  const dir = path.join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send({ to, subject, text }) {
      const info = await transport.sendMail({ from: FROM, to, subject, text });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info({ file }, `mail written to the outbox: ${subject}`);
    },
    close: () => transport.close(),
  };
}
