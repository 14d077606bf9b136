import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbTargets, useDatabase, type DbTarget } from '../helpers/db';
import { freePort, startServerProcess, waitForHealth } from '../helpers/process';
import {
  nodeRun,
  npmRun,
  readRestored,
  seed,
  writtenPath,
  type Seeded,
  type ToolRun,
} from './backup.support';

type Env = Record<string, string>;

/** Where one run backs up from and restores to, on one kind of database. */
interface Places {
  /** The first server and `npm run backup`. */
  source: Env;
  /** The server on the restored database. */
  restored: Env;
  /** `npm run restore` into the restored place. */
  restore: { args: string[]; env: Env };
  /** A restore where the secrets key is not the one that sealed the backup. */
  wrongKey: { args: string[]; env: Env };
  /** What the README tells users to do before a restore (copy the key file). */
  beforeRestore(): Promise<void>;
  cleanup(): Promise<void>;
}

const newKey = () => randomBytes(32).toString('hex');

/**
 * Two fresh databases on the target: the one backed up and the one restored into. PGlite adds a place
 * holding another key (`c`) and a decoy DATA_DIR under `root`; on PostgreSQL, where there is no key
 * file to copy, the restored database's server runs with the source's SECRETS_KEY.
 */
async function placesOn(target: DbTarget, root: string): Promise<Places> {
  const [source, restored] = await Promise.all([
    useDatabase(target, { server: true }),
    useDatabase(target, { server: true }),
  ]);
  const cleanup = async () => {
    await Promise.all([source.cleanup(), restored.cleanup()]);
  };
  if (target === 'pglite') {
    const [a, b] = [source.env.DATA_DIR ?? '', restored.env.DATA_DIR ?? ''];
    const c = path.join(root, 'c');
    await mkdir(c);
    await writeFile(path.join(c, 'secrets.key'), `${newKey()}\n`, { mode: 0o600 });
    // Where DATA_DIR points while --data-dir names the real target: nothing may land there.
    const decoy = { DATA_DIR: path.join(root, 'decoy') };
    return {
      source: source.env,
      restored: restored.env,
      restore: { args: ['--data-dir', b], env: decoy },
      wrongKey: { args: ['--data-dir', c], env: decoy },
      async beforeRestore() {
        await copyFile(path.join(a, 'secrets.key'), path.join(b, 'secrets.key'));
      },
      cleanup,
    };
  }
  const sameKey = { ...restored.env, SECRETS_KEY: source.env.SECRETS_KEY ?? '' };
  return {
    source: source.env,
    restored: sameKey,
    restore: { args: [], env: sameKey },
    wrongKey: { args: ['--force'], env: { ...sameKey, SECRETS_KEY: newKey() } },
    beforeRestore: async () => {},
    cleanup,
  };
}

describe.each(dbTargets())('npm run backup and npm run restore on %s', (target) => {
  let root: string;
  let places: Places;
  let seeded: Seeded;
  let whileRunning: ToolRun;
  let backup: ToolRun;
  let file: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sc-backup-'));
    places = await placesOn(target, root);
    const port = await freePort();
    const server = startServerProcess({ ...places.source, PORT: String(port), LOG_LEVEL: 'warn' });
    try {
      await waitForHealth(`http://127.0.0.1:${port}`);
      seeded = await seed(`http://127.0.0.1:${port}`);
      whileRunning = await npmRun('backup', ['--out', path.join(root, 'live.backup')], places.source);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    backup = await npmRun('backup', [], places.source);
    file = writtenPath(backup);
  }, 120_000);
  afterAll(async () => {
    await places?.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  it('backs up only a database no server has open (PostgreSQL is read from one snapshot)', async () => {
    if (target === 'pglite') {
      expect(whileRunning.code).toBe(1);
      expect(whileRunning.stderr).toContain('Stop the server first');
      await expect(stat(path.join(root, 'live.backup'))).rejects.toThrow();
    } else {
      expect(whileRunning.code, whileRunning.stderr).toBe(0);
    }
  });

  it('writes one owner-only file under DATA_DIR/backups, prints it and its size, and reminds of the key', async () => {
    expect(backup.code, backup.stderr).toBe(0);
    expect(path.dirname(file)).toBe(path.join(places.source.DATA_DIR ?? '', 'backups'));
    expect(path.basename(file)).toMatch(/^\d{8}T\d{6}Z\.(pglite\.tar\.gz|pgdump)$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(backup.stdout).toMatch(/\(\d+(\.\d)? (B|KiB|MiB)\)/);
    expect(backup.stdout).toContain('does not hold the secrets key');
    const raw = await readFile(file);
    const plain = file.endsWith('.gz') ? gunzipSync(raw) : raw;
    const key =
      places.source.SECRETS_KEY ??
      (await readFile(path.join(places.source.DATA_DIR ?? '', 'secrets.key'), 'utf8')).trim();
    expect(plain.includes(key)).toBe(false);
    // PGlite's pages hold text as is: the account is there, so the key would be found if it were.
    if (target === 'pglite') expect(plain.includes('bella@example.com')).toBe(true);
  });

  it('restores into an empty place, reads it back and finds that the secrets key opens it', async () => {
    await places.beforeRestore();
    const run = await npmRun('restore', [file, ...places.restore.args], places.restore.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Migrations applied: \d+\./);
    expect(run.stdout).toContain('users 2, paper_ledger ');
    expect(run.stdout).toContain('rules 1, watchlist_items 2, exchange_keys 0, two_factor 1.');
    expect(run.stdout).toContain('opens the sealed secrets (checked a two-factor secret)');
    expect(run.stderr).not.toContain('WARNING');
  }, 60_000);

  it('refuses to restore over a database that is not empty, and replaces it with --force', async () => {
    const refused = await npmRun('restore', [file, ...places.restore.args], places.restore.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not empty: pass --force');
    const forced = await npmRun('restore', [file, ...places.restore.args, '--force'], places.restore.env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('users 2,');
  }, 60_000);

  it('warns clearly when the secrets key is not the one that sealed the backup', async () => {
    const run = await npmRun('restore', [file, ...places.wrongKey.args], places.wrongKey.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('WARNING: The secrets key');
    expect(run.stderr).toContain('does NOT open the sealed secrets');
  }, 60_000);

  // PostgreSQL has no key file: the server does not start on it without SECRETS_KEY.
  if (target === 'pglite') {
    it('warns when there is no key at all, and does not make one', async () => {
      const dir = path.join(root, 'keyless');
      const run = await npmRun('restore', [file, '--data-dir', dir], {});
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `WARNING: No secrets key: ${path.join(dir, 'secrets.key')} does not exist`,
      );
      await expect(stat(path.join(dir, 'secrets.key'))).rejects.toThrow();
      await expect(stat(path.join(root, 'decoy'))).rejects.toThrow();
    }, 60_000);
  }

  it('gives a server on the restored database every user, order, rule and watchlist entry, and working 2FA', async () => {
    const port = await freePort();
    const server = startServerProcess({ ...places.restored, PORT: String(port), LOG_LEVEL: 'warn' });
    try {
      await waitForHealth(`http://127.0.0.1:${port}`);
      const { totpSecret: _secret, ...expected } = seeded;
      expect(expected.positions).toHaveLength(1);
      expect(await readRestored(`http://127.0.0.1:${port}`, seeded)).toEqual(expected);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 90_000);
});

describe('npm run backup on PostgreSQL without pg_dump', () => {
  it('names what to install, and writes nothing', async () => {
    const bin = await mkdtemp(path.join(tmpdir(), 'sc-nopg-'));
    try {
      const out = path.join(bin, 'never.pgdump');
      const run = await nodeRun('backup', ['--out', out], {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
        SECRETS_KEY: newKey(),
        PATH: bin,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr.trim()).toBe(
        "pg_dump is not on PATH: install PostgreSQL's client programs, of the server's major version or " +
          'newer (Debian and Ubuntu: apt-get install postgresql-client).',
      );
      await expect(readdir(bin)).resolves.toEqual([]);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
