import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config';
import { defaultBackupPath, formatSize, KEY_REMINDER, prepareOutput, runMain } from './backup-files';
import { assertBackupSource, dumpPglite } from './backup-pglite';
import { dumpPostgres } from './backup-postgres';

const USAGE = 'Usage: npm run backup [-- --out <file>] [--data-dir <dir>]';

/**
 * `npm run backup`: one file holding the whole database. The embedded database is dumped by PGlite
 * itself and only while no server has it open; PostgreSQL is dumped by `pg_dump --format=custom`, which
 * reads one consistent snapshot while the server runs. The secrets key is never in the file.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const dataDir = values['data-dir'];
  const config = loadConfig({ ...process.env, ...(dataDir ? { DATA_DIR: dataDir } : {}) }, 'backup');
  const kind = config.DATABASE_URL === undefined ? 'pglite' : 'pgdump';
  // What the tool writes (the file, a new backups folder) is the owner's alone, as the server's files are.
  process.umask(0o077);
  const file = path.resolve(values.out ?? defaultBackupPath(config.DATA_DIR, kind));
  // Checked before the backups folder is made, so a wrong DATA_DIR is left as it was.
  if (kind === 'pglite') await assertBackupSource(config.DATA_DIR);
  await prepareOutput(file, values.out === undefined);
  if (config.DATABASE_URL === undefined) await dumpPglite(config.DATA_DIR, file);
  else await dumpPostgres(config.DATABASE_URL, file);
  const { size } = await stat(file);
  process.stdout.write(`Backup written to ${file} (${formatSize(size)}).\n${KEY_REMINDER}\n`);
}

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) runMain(main);
