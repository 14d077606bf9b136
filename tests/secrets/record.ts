import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * What the secrets scan (`npm run scan:secrets`, tests/secrets/scan.ts) reads after a test run, recorded
 * while the tests run when SECRET_SCAN_DIR names a folder; nothing at all otherwise:
 *
 * - `secrets/<pid>-<thread>.jsonl`: every secret the tests used or were issued, with its kind, and for an
 *   issued one the answer that issued it;
 * - `answers/<pid>-<thread>.jsonl`: every server answer (status, headers, body) the tests received;
 * - `logs/`: the server's log lines, one file per app or server process;
 * - `data/`: the DATA_DIRs tests ran the server on, kept (with a dump of each in-memory database).
 *
 * One file per process and thread, appended line by line: test workers never write to the same file.
 */
export function scanDir(): string | undefined {
  const dir = process.env.SECRET_SCAN_DIR;
  return dir ? path.resolve(dir) : undefined;
}

export type SecretKind =
  | 'password'
  | 'TOTP secret'
  | 'recovery code'
  | 'refresh token'
  | 'reset token'
  | 'exchange secret'
  | 'webhook secret'
  | 'configured secret'
  | 'secrets key';

/** One recorded secret: `issuedIn` names the answer that handed it to its owner, when one did. */
export interface SecretRecord {
  kind: SecretKind;
  value: string;
  issuedIn?: string;
}

/** One recorded answer. Only `headers` and `body` are searched; `url` says where it came from. */
export interface AnswerRecord {
  id: string;
  source: 'inject' | 'fetch' | 'browser';
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as text, or `base64:` and its bytes when it is not UTF-8 text. */
  body: string;
}

const fds = new Map<string, number>();
let answerSeq = 0;
let fileSeq = 0;
const tag = `${process.pid}-${threadId}`;

function append(kind: 'secrets' | 'answers', line: object): void {
  const dir = scanDir();
  if (dir === undefined) return;
  const file = path.join(dir, kind, `${tag}.jsonl`);
  let fd = fds.get(file);
  if (fd === undefined) {
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(file, 'a');
    fds.set(file, fd);
  }
  writeSync(fd, `${JSON.stringify(line)}\n`);
}

process.once('exit', () => {
  for (const fd of fds.values()) closeSync(fd);
});

/** A fresh path under SECRET_SCAN_DIR/<folder> (created), unique across workers: `<folder>/<prefix>-<pid>-<n>`. */
export function scanPath(folder: 'logs' | 'data', prefix: string, ext = ''): string {
  const dir = scanDir();
  if (dir === undefined) throw new Error('SECRET_SCAN_DIR is not set');
  mkdirSync(path.join(dir, folder), { recursive: true });
  return path.join(dir, folder, `${prefix}-${tag}-${++fileSeq}${ext}`);
}

export function recordSecret(kind: SecretKind, value: unknown, issuedIn?: string): void {
  if (typeof value !== 'string' || value === '') return;
  append('secrets', { kind, value, ...(issuedIn === undefined ? {} : { issuedIn }) } satisfies SecretRecord);
}

/** Request fields that carry a secret, by name, wherever they are in a body. */
const FIELD_KINDS: Record<string, SecretKind> = {
  password: 'password',
  current_password: 'password',
  new_password: 'password',
  newPassword: 'password',
  currentPassword: 'password',
  secretKey: 'exchange secret',
  secret_key: 'exchange secret',
  apiSecret: 'exchange secret',
  webhookSecret: 'webhook secret',
  webhook_secret: 'webhook secret',
};

/** Configuration a server is given that is a secret: webhook secrets, provider secrets, the sealing key. */
export function recordConfigSecrets(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (name.endsWith('_FILE') || name.endsWith('_URL') || value === undefined) continue;
    if (name === 'SECRETS_KEY') recordSecret('secrets key', value);
    else if (name.endsWith('WEBHOOK_SECRET')) recordSecret('webhook secret', value);
    else if (/SECRET|PASSWORD|TOKEN/.test(name)) recordSecret('configured secret', value);
  }
}

/** The secrets a request sends: password and secret fields; the token of a password reset. */
export function recordRequestSecrets(url: string, body: unknown): void {
  if (scanDir() === undefined) return;
  let fields: unknown = body;
  if (typeof body === 'string') {
    try {
      fields = JSON.parse(body) as unknown;
    } catch {
      fields = Object.fromEntries(new URLSearchParams(body));
    }
  } else if (body instanceof URLSearchParams) fields = Object.fromEntries(body);
  if (typeof fields !== 'object' || fields === null) return;
  for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
    const kind = FIELD_KINDS[name];
    if (kind !== undefined) recordSecret(kind, value);
  }
  if (url.includes('/auth/reset-password'))
    recordSecret('reset token', (fields as { token?: unknown }).token);
}

const REFRESH_COOKIE = /(?:^|,\s*)sc_refresh=([^;,\s]+)/;

/** Records one answer, and the secrets it issued (a TOTP secret, recovery codes, a refresh cookie). */
export function recordAnswer(answer: Omit<AnswerRecord, 'id'>): void {
  if (scanDir() === undefined) return;
  const id = `${tag}-${++answerSeq}`;
  append('answers', { id, ...answer } satisfies AnswerRecord);
  const setCookie = answer.headers['set-cookie'];
  for (const line of Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie]) {
    recordSecret('refresh token', REFRESH_COOKIE.exec(line)?.[1], id);
  }
  if (!answer.body.startsWith('{')) return;
  let json: unknown;
  try {
    json = JSON.parse(answer.body) as unknown;
  } catch {
    return;
  }
  const fields = json as { secret?: unknown; otpauth_url?: unknown; recovery_codes?: unknown };
  if (typeof fields.otpauth_url === 'string') recordSecret('TOTP secret', fields.secret, id);
  if (Array.isArray(fields.recovery_codes)) {
    for (const code of fields.recovery_codes) recordSecret('recovery code', code, id);
  }
}

/** A body as the answers file keeps it: text when it is valid UTF-8, base64 otherwise. */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : `base64:${bytes.toString('base64')}`;
}

function headerRecord(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) if (name !== 'set-cookie') out[name] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

const watchedOrigins = new Set<string>();
let fetchWrapped = false;

/**
 * Records what `fetch` in this process sends to and receives from the given origin (a server process a
 * test started). Other origins (the doubles an in-process server calls) are left alone.
 */
export function watchFetch(origin: string): void {
  if (scanDir() === undefined) return;
  watchedOrigins.add(origin);
  if (fetchWrapped) return;
  fetchWrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!watchedOrigins.has(new URL(href).origin)) return original(input, init);
    const request = new Request(input, init);
    const url = new URL(request.url);
    const sent = request.body === null ? '' : await request.clone().text();
    recordRequestSecrets(url.pathname, sent);
    const res = await original(request);
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const copy = res.clone();
    void copy
      .arrayBuffer()
      .then((bytes) =>
        recordAnswer({
          source: 'fetch',
          method: request.method,
          url: url.pathname,
          status: res.status,
          headers: headerRecord(res.headers),
          body: bodyText(Buffer.from(bytes)),
        }),
      )
      .catch(() => undefined);
    return res;
  };
}
