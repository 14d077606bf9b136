import { openAsBlob } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { ownerOnly, pgliteDir } from '../client';
import { exists, ToolError, type KeyLookup } from './backup-files';
import { checkRestored, type RestoreReport } from './backup-verify';

/**
 * PGlite writes `postmaster.pid` into its folder when it opens it and removes it on a clean close; it
 * takes no lock, so two processes on one folder would corrupt it. The file is the only sign that a
 * server has the database open (or that the last one was killed before it could close it).
 */
export async function assertNotInUse(dataDir: string): Promise<void> {
  const marker = path.join(pgliteDir(dataDir), 'postmaster.pid');
  if (await exists(marker)) {
    throw new ToolError(
      `Stop the server first: the embedded database in ${dataDir} is in use (${marker} exists). ` +
        'If no server is running, the last one did not stop cleanly: start it once and stop it with Ctrl+C.',
    );
  }
}

/** Refuses a DATA_DIR without a database (PGlite would make an empty one) or with a server on it. */
export async function assertBackupSource(dataDir: string): Promise<void> {
  const dir = pgliteDir(dataDir);
  if (!(await exists(path.join(dir, 'PG_VERSION')))) {
    throw new ToolError(`There is no embedded database in ${dir}: is DATA_DIR right?`);
  }
  await assertNotInUse(dataDir);
}

/** Writes PGlite's own dump of the data folder (a gzipped tarball) to `file` with mode 0600. */
export async function dumpPglite(dataDir: string, file: string): Promise<void> {
  await assertBackupSource(dataDir);
  const client = new PGlite(pgliteDir(dataDir));
  try {
    await client.waitReady;
    const tarball = await client.dumpDataDir('gzip');
    const partial = `${file}.partial`;
    try {
      await writeFile(partial, new Uint8Array(await tarball.arrayBuffer()), { mode: 0o600, flag: 'wx' });
      await rename(partial, file);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  } finally {
    await client.close();
  }
}

/**
 * Unpacks a dump into a fresh folder beside DATA_DIR/pglite, checks it there, and only then puts it in
 * place: a backup that does not open never replaces anything. A non-empty DATA_DIR/pglite is replaced
 * only with `force`.
 */
export async function restorePglite(
  file: string,
  dataDir: string,
  force: boolean,
  key: KeyLookup,
): Promise<RestoreReport> {
  const target = pgliteDir(dataDir);
  await assertNotInUse(dataDir);
  const occupied = (await exists(target)) && (await readdir(target)).length > 0;
  if (occupied && !force) {
    throw new ToolError(
      `${target} is not empty: pass --force to replace the database there with the backup.`,
    );
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const staging = `${target}.restoring-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  let report: RestoreReport;
  try {
    const client = new PGlite({
      dataDir: staging,
      loadDataDir: await openAsBlob(file, { type: 'application/gzip' }),
    });
    try {
      await client.waitReady;
      report = await checkRestored(client, key);
    } finally {
      await client.close();
    }
    await ownerOnly(staging);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  const replaced = `${target}.replaced-${process.pid}`;
  if (occupied) await rename(target, replaced);
  else await rm(target, { recursive: true, force: true });
  try {
    await rename(staging, target);
  } catch (err) {
    if (occupied) await rename(replaced, target);
    throw err;
  }
  if (occupied) await rm(replaced, { recursive: true, force: true });
  return report;
}
