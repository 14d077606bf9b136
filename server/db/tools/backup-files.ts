import { constants } from 'node:fs';
import { access, chmod, mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { SECRETS_FILE } from '../../plugins/secrets';

/** A failure the operator can act on: its message is printed as is, without a stack. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** What a backup file holds: PGlite's data folder as a gzipped tarball, or `pg_dump --format=custom`. */
export type BackupKind = 'pglite' | 'pgdump';

export const EXTENSIONS: Record<BackupKind, string> = { pglite: 'pglite.tar.gz', pgdump: 'pgdump' };

/** Tells the kind from the file's first bytes (gzip magic, or pg_dump's `PGDMP`), not from its name. */
export async function detectKind(file: string): Promise<BackupKind> {
  let head: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      head = Buffer.alloc(5);
      await handle.read(head, 0, 5, 0);
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolError(`${file} does not exist.`);
    throw err;
  }
  if (head[0] === 0x1f && head[1] === 0x8b) return 'pglite';
  if (head.toString('latin1') === 'PGDMP') return 'pgdump';
  throw new ToolError(`${file} is neither an embedded-database backup nor a pg_dump archive.`);
}

/** `DATA_DIR/backups/20250102T030405Z.<ext>`: UTC, sortable, no characters a shell would mind. */
export function defaultBackupPath(dataDir: string, kind: BackupKind, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return path.join(dataDir, 'backups', `${stamp}.${EXTENSIONS[kind]}`);
}

/** Makes the backup's folder (0700 when it is the default one) and refuses to overwrite a file. */
export async function prepareOutput(file: string, ownFolder: boolean): Promise<void> {
  const folder = path.dirname(file);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  if (ownFolder) await chmod(folder, 0o700);
  if (await exists(file)) throw new ToolError(`${file} already exists: choose another --out.`);
}

export async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? ''}`;
}

export const KEY_REMINDER =
  `The backup does not hold the secrets key: keep SECRETS_KEY (or DATA_DIR/${SECRETS_FILE}) apart from it; ` +
  'without that key the sealed secrets (exchange API keys, two-factor logins) cannot be read.';

/** The master key the restored server will use, read without ever creating one. */
export type KeyLookup = { found: true; key: Buffer; where: string } | { found: false; where: string };

export async function findMasterKey(secretsKey: string | undefined, dataDir: string): Promise<KeyLookup> {
  if (secretsKey !== undefined)
    return { found: true, key: Buffer.from(secretsKey, 'hex'), where: 'SECRETS_KEY' };
  const file = path.join(dataDir, SECRETS_FILE);
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, where: file };
    throw err;
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ToolError(`${file} does not hold 64 hex characters.`);
  return { found: true, key: Buffer.from(text, 'hex'), where: file };
}

/** Runs a tool's main: any failure prints its message (never a stack) and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
