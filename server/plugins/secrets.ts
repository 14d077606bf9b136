import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config';

/**
 * The server's one master key (`SECRETS_KEY`, or 32 random bytes generated once into
 * `DATA_DIR/secrets.key` with mode 0600) and what is derived from it: AES-256-GCM for secrets stored at
 * rest (TOTP secrets, exchange keys) and purpose-bound sub-keys (JWT signing, keyed hashes). The key
 * itself is never logged or sent anywhere.
 */
export interface Secrets {
  /** Encrypts UTF-8 text; the result is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plain: string): string;
  /** Reverses `encrypt`; throws when the text was tampered with or made with another key. */
  decrypt(sealed: string): string;
  /** A 32-byte key for one purpose (HKDF-SHA256), e.g. "jwt". */
  deriveKey(purpose: string): Uint8Array;
  /** HMAC-SHA256 under the purpose's key, hex: hashes low-entropy secrets such as recovery codes. */
  keyedHash(purpose: string, value: string): string;
  /** A public fingerprint of the master key (16 hex): stored beside sealed values to know which key sealed them. */
  readonly keyId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    secrets: Secrets;
  }
}

export const SECRETS_FILE = 'secrets.key';

/** Where the master key comes from: the environment, a file of its own, or the one beside the data. */
export type KeySource = 'env' | 'file' | 'data-dir';

export function keySource(config: Pick<Config, 'SECRETS_KEY' | 'SECRETS_KEY_FILE'>): KeySource {
  if (config.SECRETS_KEY !== undefined) return 'env';
  return config.SECRETS_KEY_FILE !== undefined ? 'file' : 'data-dir';
}

/**
 * Reads SECRETS_KEY, else the file SECRETS_KEY_FILE names (which must exist), else DATA_DIR/secrets.key,
 * creating that file (0600) on first start.
 */
export async function loadMasterKey(
  config: Pick<Config, 'SECRETS_KEY' | 'DATA_DIR'> & Partial<Pick<Config, 'SECRETS_KEY_FILE'>>,
): Promise<Buffer> {
  if (config.SECRETS_KEY !== undefined) return Buffer.from(config.SECRETS_KEY, 'hex');
  if (config.SECRETS_KEY_FILE !== undefined) return readKeyFile(config.SECRETS_KEY_FILE);
  const file = path.join(config.DATA_DIR, SECRETS_FILE);
  await mkdir(config.DATA_DIR, { recursive: true });
  try {
    // `wx` fails when the file exists, so two processes starting together never overwrite each other.
    await writeFile(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readKeyFile(file);
}

async function readKeyFile(file: string): Promise<Buffer> {
  const text = (await readFile(file, 'utf8')).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${file} does not hold 64 hex characters.`);
  return Buffer.from(text, 'hex');
}

export function createSecrets(master: Buffer): Secrets {
  const derived = new Map<string, Buffer>();
  const deriveKey = (purpose: string): Buffer => {
    let key = derived.get(purpose);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `signal-console/${purpose}`, 32));
      derived.set(purpose, key);
    }
    return key;
  };
  const aesKey = deriveKey('aes-256-gcm');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', aesKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv, tag, body]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('Not a sealed secret.');
      }
      const decipher = createDecipheriv('aes-256-gcm', aesKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    deriveKey: (purpose) => new Uint8Array(deriveKey(purpose)),
    keyedHash: (purpose, value) =>
      createHmac('sha256', deriveKey(`hash/${purpose}`))
        .update(value)
        .digest('hex'),
    keyId: createHmac('sha256', deriveKey('key-id')).update('fingerprint').digest('hex').slice(0, 16),
  };
}

/** Decorates `app.secrets`. */
export default fp(
  async function secretsPlugin(app: FastifyInstance) {
    app.decorate('secrets', createSecrets(await loadMasterKey(app.config)));
    if (app.config.NODE_ENV === 'production' && keySource(app.config) === 'data-dir') {
      app.log.warn(
        'the secrets key is DATA_DIR/secrets.key, beside the data it protects: a copy of DATA_DIR carries both. ' +
          'Set SECRETS_KEY or SECRETS_KEY_FILE to keep it apart (docs/operations.md: Backups).',
      );
    }
  },
  { name: 'secrets' },
);
