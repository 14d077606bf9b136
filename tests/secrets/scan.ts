import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnswerRecord, SecretKind, SecretRecord } from './record';

/**
 * The secrets scan: reads what a test run recorded under SECRET_SCAN_DIR (see record.ts) and searches
 * every recorded answer, every log file and every file of the kept data folders, byte for byte, for each
 * recorded secret: as sent, and URL-, form-, JSON-, base64-, base64url- and hex-encoded.
 *
 * Allowed, each in one place only:
 * - a secret in the very answer that issued it to its owner (2FA setup: the TOTP secret and its otpauth
 *   URL; 2FA verify: the recovery codes; a sign-in or refresh: the refresh token in its Set-Cookie);
 * - a mailed token (a password reset link) in the mail's own file, `outbox/*.eml`: never in a log;
 * - the sealing key in the data folder's own `secrets.key`.
 *
 * Not searched: secrets shorter than MIN_LENGTH (a 6-digit code or a 3-letter password would match by
 * chance anywhere), and secrets that are words the product writes itself, found in the text of its
 * source (`server/`, `src/`): a test's wrong password "wrong password" is also what the activity log
 * says of a failed sign-in. Prints a JSON summary (never a secret); exits 1 on any finding, 2 when the folder
 * holds no recording (a scan of nothing must not pass).
 */
export const MIN_LENGTH = 8;

export interface Finding {
  kind: SecretKind;
  /** How the secret was written there: `plain`, `url`, `form`, `json`, `base64`, `base64url`, `hex`. */
  form: string;
  where: 'answer' | 'log' | 'data';
  /** The file, relative to the scan folder. */
  file: string;
  /** For an answer: its method, path and status. */
  answer?: string;
}

export interface ScanSummary {
  scanned: {
    answers: number;
    answerBytes: number;
    logFiles: number;
    logBytes: number;
    dataFolders: number;
    dataFiles: number;
    dataBytes: number;
  };
  secrets: {
    checked: number;
    byKind: Partial<Record<SecretKind, number>>;
    tooShort: number;
    productWords: number;
  };
  allowed: { issuingAnswer: number; outboxMail: number; keyFile: number };
  findings: number;
  found: Finding[];
  seconds: number;
}

interface Secret {
  kind: SecretKind;
  value: string;
  issuedIn: Set<string>;
}

interface Needle {
  secret: Secret;
  form: string;
  bytes: Buffer;
}

/** The encodings a secret is searched in, by name; a form equal to the plain one is left out. */
function forms(value: string): [string, string][] {
  const raw = Buffer.from(value, 'utf8');
  const all: [string, string][] = [
    ['plain', value],
    ['url', encodeURIComponent(value)],
    ['form', encodeURIComponent(value).replaceAll('%20', '+')],
    ['json', JSON.stringify(value).slice(1, -1)],
    ['base64', raw.toString('base64').replace(/=+$/, '')],
    ['base64url', raw.toString('base64url')],
    ['hex', raw.toString('hex')],
  ];
  const seen = new Set<string>();
  return all.filter(([, text]) => !seen.has(text) && (seen.add(text), true));
}

/**
 * Many needles in one pass over the bytes: each needle is filed under its first four bytes, and a bitmap
 * of their hashes lets almost every position go after one multiply and one bit test.
 */
class NeedleIndex {
  private readonly byPrefix = new Map<number, Needle[]>();
  private readonly bits = new Uint32Array(1 << 15);
  readonly longest: number;

  constructor(readonly needles: Needle[]) {
    let longest = 0;
    for (const needle of needles) {
      const prefix = needle.bytes.readUInt32BE(0);
      const list = this.byPrefix.get(prefix) ?? [];
      list.push(needle);
      this.byPrefix.set(prefix, list);
      const h = Math.imul(prefix, 0x9e3779b1) >>> 12;
      this.bits[h >>> 5]! |= 1 << (h & 31);
      longest = Math.max(longest, needle.bytes.length);
    }
    this.longest = longest;
  }

  /** Calls `hit` for each needle found in `buf` starting before `limit`. */
  search(buf: Buffer, hit: (needle: Needle) => void, limit = buf.length): void {
    const bits = this.bits;
    let x = 0;
    const end = Math.min(buf.length, limit + 3);
    for (let i = 0; i < end; i++) {
      x = ((x << 8) | buf[i]!) >>> 0;
      if (i < 3) continue;
      const h = Math.imul(x, 0x9e3779b1) >>> 12;
      if ((bits[h >>> 5]! & (1 << (h & 31))) === 0) continue;
      const list = this.byPrefix.get(x);
      if (list === undefined) continue;
      const start = i - 3;
      for (const needle of list) {
        const stop = start + needle.bytes.length;
        if (stop <= buf.length && buf.compare(needle.bytes, 0, needle.bytes.length, start, stop) === 0)
          hit(needle);
      }
    }
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function jsonLines<T>(file: string): Promise<T[]> {
  const out: T[] = [];
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a line cut short by a killed worker: nothing to search in it
    }
  }
  return out;
}

/** A mail file's text with quoted-printable undone (soft breaks and =XX escapes). */
function unquote(mail: string): string {
  return mail
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Reads a file in chunks that overlap by the longest needle, so a match across two chunks is seen. */
function searchFile(file: string, index: NeedleIndex, hit: (needle: Needle) => void): number {
  const overlap = index.longest;
  const chunk = Math.max(overlap, Math.min(16 * 1024 * 1024, statSync(file).size + 1));
  const buf = Buffer.allocUnsafe(chunk + overlap);
  const fd = openSync(file, 'r');
  let total = 0;
  try {
    let carried = 0;
    for (;;) {
      const read = readSync(fd, buf, carried, chunk, null);
      total += read;
      const filled = carried + read;
      if (filled === 0) break;
      const last = read === 0;
      // Positions kept for the next chunk are searched there, once, with all their bytes.
      const limit = last ? filled : Math.max(0, filled - overlap);
      index.search(buf.subarray(0, filled), hit, limit);
      if (last) break;
      carried = filled - limit;
      buf.copy(buf, 0, limit, filled);
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

/** The product's own text: every source file of the server and the browser app, tests left out. */
export async function productText(root: string): Promise<string> {
  const files = [
    ...(await filesUnder(path.join(root, 'server'))),
    ...(await filesUnder(path.join(root, 'src'))),
  ].filter((f) => /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f));
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

/** `product`: the product's own text (see productText); a secret found in it is not searched. */
export async function scan(dir: string, product = ''): Promise<ScanSummary> {
  const started = Date.now();
  const rel = (file: string) => path.relative(dir, file);

  // The secrets, merged by value; mailed tokens are read from the kept outboxes.
  const secrets = new Map<string, Secret>();
  const add = (record: SecretRecord) => {
    const known = secrets.get(record.value);
    const secret = known ?? { kind: record.kind, value: record.value, issuedIn: new Set<string>() };
    if (record.issuedIn !== undefined) secret.issuedIn.add(record.issuedIn);
    secrets.set(record.value, secret);
  };
  for (const file of await filesUnder(path.join(dir, 'secrets'))) {
    for (const record of await jsonLines<SecretRecord>(file)) add(record);
  }
  const dataRoot = path.join(dir, 'data');
  const dataFiles = await filesUnder(dataRoot);
  const isMail = (file: string) => file.endsWith('.eml') && rel(file).split(path.sep).includes('outbox');
  for (const file of dataFiles.filter(isMail)) {
    for (const [, token] of unquote(await readFile(file, 'utf8')).matchAll(/[?&]token=([A-Za-z0-9_%-]+)/g)) {
      add({ kind: 'reset token', value: decodeURIComponent(token ?? '') });
    }
  }

  const long = [...secrets.values()].filter((s) => s.value.length >= MIN_LENGTH);
  const checked = long.filter((s) => !product.includes(s.value));
  const byKind: Partial<Record<SecretKind, number>> = {};
  for (const s of checked) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
  const index = new NeedleIndex(
    checked.flatMap((secret) =>
      forms(secret.value).map(([form, text]) => ({ secret, form, bytes: Buffer.from(text, 'utf8') })),
    ),
  );

  const summary: ScanSummary = {
    scanned: {
      answers: 0,
      answerBytes: 0,
      logFiles: 0,
      logBytes: 0,
      dataFolders: (await readdir(dataRoot).catch(() => [])).length,
      dataFiles: dataFiles.length,
      dataBytes: 0,
    },
    secrets: {
      checked: checked.length,
      byKind,
      tooShort: secrets.size - long.length,
      productWords: long.length - checked.length,
    },
    allowed: { issuingAnswer: 0, outboxMail: 0, keyFile: 0 },
    findings: 0,
    found: [],
    seconds: 0,
  };
  const seen = new Set<string>();
  const report = (finding: Finding) => {
    summary.findings++;
    const key = JSON.stringify(finding);
    if (!seen.has(key) && summary.found.length < 100) summary.found.push(finding);
    seen.add(key);
  };

  for (const file of await filesUnder(path.join(dir, 'answers'))) {
    for (const answer of await jsonLines<AnswerRecord>(file)) {
      summary.scanned.answers++;
      const parts = [
        Buffer.from(JSON.stringify(answer.headers), 'utf8'),
        answer.body.startsWith('base64:')
          ? Buffer.from(answer.body.slice(7), 'base64')
          : Buffer.from(answer.body, 'utf8'),
      ];
      for (const part of parts) {
        summary.scanned.answerBytes += part.length;
        index.search(part, ({ secret, form }) => {
          if (secret.issuedIn.has(answer.id)) summary.allowed.issuingAnswer++;
          else
            report({
              kind: secret.kind,
              form,
              where: 'answer',
              file: rel(file),
              answer: `${answer.method} ${answer.url} ${answer.status}`,
            });
        });
      }
    }
  }

  for (const file of await filesUnder(path.join(dir, 'logs'))) {
    summary.scanned.logFiles++;
    summary.scanned.logBytes += searchFile(file, index, ({ secret, form }) =>
      report({ kind: secret.kind, form, where: 'log', file: rel(file) }),
    );
  }

  for (const file of dataFiles) {
    summary.scanned.dataBytes += searchFile(file, index, ({ secret, form }) => {
      if (secret.kind === 'reset token' && isMail(file)) summary.allowed.outboxMail++;
      else if (secret.kind === 'secrets key' && path.basename(file) === 'secrets.key')
        summary.allowed.keyFile++;
      else report({ kind: secret.kind, form, where: 'data', file: rel(file) });
    });
  }

  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  return summary;
}

/** `npm run scan:secrets [folder]`: the folder defaults to SECRET_SCAN_DIR. */
async function main(): Promise<void> {
  const dir = process.argv[2] ?? process.env.SECRET_SCAN_DIR;
  if (dir === undefined || dir === '') {
    console.error('usage: npm run scan:secrets -- <folder> (or set SECRET_SCAN_DIR)');
    process.exit(2);
  }
  const root = path.resolve(import.meta.dirname, '../..');
  const summary = await scan(path.resolve(dir), await productText(root));
  console.log(JSON.stringify(summary, null, 2));
  if (summary.scanned.answers === 0 || summary.secrets.checked === 0) {
    console.error(`nothing was recorded in ${dir}: were the tests run with SECRET_SCAN_DIR set?`);
    process.exit(2);
  }
  if (summary.findings > 0) {
    console.error(`${summary.findings} secret(s) found in plain text or encoded; see "found" above`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
