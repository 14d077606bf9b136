import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../config';
import { createSecrets, loadMasterKey, SECRETS_FILE, type Secrets } from '../../plugins/secrets';
import { openDatabase, pgliteDir, type Db } from '../client';
import { exchangeKeys, serverKeys, twoFactor } from '../schema';

/**
 * Re-seals every value stored under the old master key with the new one, in one transaction: exchange
 * API keys (key, secret, OKX's passphrase, and their master key's id), two-factor secrets and the server's own private keys (Web Push's VAPID
 * pair). Either all move or none do.
 */
export async function rotateSecretsKey(
  db: Db,
  from: Secrets,
  to: Secrets,
): Promise<{ exchangeKeys: number; twoFactor: number; serverKeys: number }> {
  return db.transaction(async (tx) => {
    const keys = await tx
      .select({
        id: exchangeKeys.id,
        a: exchangeKeys.apiKeySealed,
        s: exchangeKeys.secretSealed,
        p: exchangeKeys.passphraseSealed,
      })
      .from(exchangeKeys)
      .where(eq(exchangeKeys.masterKeyId, from.keyId))
      .for('update');
    for (const k of keys) {
      await tx
        .update(exchangeKeys)
        .set({
          apiKeySealed: to.encrypt(from.decrypt(k.a)),
          secretSealed: to.encrypt(from.decrypt(k.s)),
          passphraseSealed: k.p === null ? null : to.encrypt(from.decrypt(k.p)),
          masterKeyId: to.keyId,
        })
        .where(eq(exchangeKeys.id, k.id));
    }
    const totp = await tx
      .select({ userId: twoFactor.userId, sealed: twoFactor.secretEnc })
      .from(twoFactor)
      .for('update');
    for (const t of totp) {
      await tx
        .update(twoFactor)
        .set({ secretEnc: to.encrypt(from.decrypt(t.sealed)) })
        .where(eq(twoFactor.userId, t.userId));
    }
    const own = await tx
      .select({ name: serverKeys.name, sealed: serverKeys.privateKeySealed })
      .from(serverKeys)
      .for('update');
    let resealed = 0;
    for (const k of own) {
      // A key sealed under the new key already (an earlier run) stays as it is.
      if (opens(to, k.sealed) && !opens(from, k.sealed)) continue;
      resealed += 1;
      await tx
        .update(serverKeys)
        .set({ privateKeySealed: to.encrypt(from.decrypt(k.sealed)) })
        .where(eq(serverKeys.name, k.name));
    }
    return { exchangeKeys: keys.length, twoFactor: totp.length, serverKeys: resealed };
  });
}

function opens(secrets: Secrets, sealed: string): boolean {
  try {
    secrets.decrypt(sealed);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm run rotate-secrets-key`: the new key comes from NEW_SECRETS_KEY (required when SECRETS_KEY is
 * set, since the operator must then set SECRETS_KEY to it); with the key in DATA_DIR/secrets.key a new
 * one is generated and written there after the database commit. Neither key is ever printed.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, 'rotate');
  const next = process.env.NEW_SECRETS_KEY;
  if (next !== undefined && !/^[0-9a-fA-F]{64}$/.test(next)) {
    throw new Error('NEW_SECRETS_KEY must be 64 hex characters (32 bytes).');
  }
  if (config.SECRETS_KEY !== undefined && next === undefined) {
    throw new Error('SECRETS_KEY is set: pass the new key as NEW_SECRETS_KEY, then set SECRETS_KEY to it.');
  }
  const newHex = next ?? randomBytes(32).toString('hex');
  const from = createSecrets(await loadMasterKey(config));
  const to = createSecrets(Buffer.from(newHex, 'hex'));
  const database = await openDatabase(
    config.DATABASE_URL !== undefined
      ? { kind: 'postgres', url: config.DATABASE_URL }
      : { kind: 'pglite', dataDir: pgliteDir(config.DATA_DIR) },
  );
  try {
    const moved = await rotateSecretsKey(database.db, from, to);
    if (config.SECRETS_KEY === undefined) {
      const file = path.join(config.DATA_DIR, SECRETS_FILE);
      await writeFile(`${file}.new`, `${newHex}\n`, { mode: 0o600 });
      await rename(`${file}.new`, file);
    }
    process.stdout.write(
      `Re-sealed ${moved.exchangeKeys} exchange key(s), ${moved.twoFactor} two-factor secret(s) and ${moved.serverKeys} server key(s) under key ${to.keyId}.\n` +
        (config.SECRETS_KEY === undefined
          ? `${SECRETS_FILE} now holds the new key. Restart the server.\n`
          : 'Set SECRETS_KEY to the value of NEW_SECRETS_KEY and restart the server.\n'),
    );
  } finally {
    await database.close();
  }
}

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
