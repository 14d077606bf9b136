import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, pgliteDir } from '../../server/db/client';
import { fromRoot } from '../../server/paths';

/**
 * A PGlite database created and migrated once per set of migrations, that tests start from instead of
 * running initdb and every migration again for each app and server they start (several seconds each on
 * two cores). The server still migrates on open, which finds nothing to do; creating a database from
 * nothing stays covered by the database tests and by this template's own creation.
 */
function templateKey(): string {
  const hash = createHash('sha256');
  const folder = fromRoot('server/db/migrations');
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    const full = path.join(folder, file);
    if (!file.endsWith('.sql') && !file.endsWith('.json')) continue;
    hash.update(file).update(readFileSync(full));
  }
  hash.update(readFileSync(fromRoot('node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

const root = () => path.join(tmpdir(), 'sc-pglite-template', templateKey());
/** The migrated database folder (what a server's DATA_DIR/pglite holds). */
const folder = () => path.join(root(), 'pglite');
/** The same database as a tarball, for in-memory PGlite (`loadDataDir`). */
const dump = () => path.join(root(), 'dump.tar');

/** Creates the template unless it exists (a global setup runs this once before the tests). */
export async function ensurePgliteTemplate(): Promise<void> {
  if (existsSync(dump())) return;
  const work = `${root()}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const db = await openDatabase({ kind: 'pglite', dataDir: path.join(work, 'pglite') });
  const client = (db.db as unknown as { $client: PGlite }).$client;
  const tarball = await client.dumpDataDir('none');
  await db.close();
  writeFileSync(path.join(work, 'dump.tar'), Buffer.from(await tarball.arrayBuffer()));
  try {
    renameSync(work, root());
  } catch {
    rmSync(work, { recursive: true, force: true }); // another process made it first
  }
}

/**
 * Puts a copy of the template in `dataDir` (as `pgliteDir(dataDir)`) when that holds no database yet and
 * the template exists; answers whether it did.
 */
export function seedDataDir(dataDir: string): boolean {
  const target = pgliteDir(dataDir);
  if (!existsSync(folder()) || existsSync(path.join(target, 'PG_VERSION'))) return false;
  cpSync(folder(), target, { recursive: true });
  return true;
}

let loaded: Blob | null = null;

/** The template as a tarball for an in-memory database, or undefined when it was not made. */
export function templateTarball(): Blob | undefined {
  if (loaded === null && existsSync(dump())) loaded = new Blob([readFileSync(dump())]);
  return loaded ?? undefined;
}
