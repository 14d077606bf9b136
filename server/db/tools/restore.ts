import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config';
import { pgliteDir } from '../client';
import { detectKind, findMasterKey, runMain, ToolError } from './backup-files';
import { restorePglite } from './backup-pglite';
import { restorePostgres, shownUrl } from './backup-postgres';

const USAGE = 'Usage: npm run restore -- <file> [--data-dir <dir>] [--force]';

/**
 * `npm run restore -- <file>`: puts a backup made by `npm run backup` back, into an empty DATA_DIR/pglite
 * or an empty DATABASE_URL database (`--force` replaces what is there), then reads it back and checks
 * that the secrets key opens its sealed values.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [given, ...extra] = positionals;
  if (given === undefined || extra.length > 0) throw new ToolError(USAGE);
  const file = path.resolve(given);
  const dataDir = values['data-dir'];
  const config = loadConfig({ ...process.env, ...(dataDir ? { DATA_DIR: dataDir } : {}) }, 'restore');
  process.umask(0o077);
  const kind = await detectKind(file);
  const force = values.force === true;
  const key = await findMasterKey(config.SECRETS_KEY, config.DATA_DIR);
  const url = config.DATABASE_URL;
  if (kind === 'pglite' && url !== undefined) {
    throw new ToolError(
      `${file} is an embedded-database backup: unset DATABASE_URL to restore it into DATA_DIR.`,
    );
  }
  if (kind === 'pgdump' && url === undefined) {
    throw new ToolError(`${file} is a PostgreSQL dump: set DATABASE_URL to the database to restore it into.`);
  }
  const report =
    url === undefined
      ? await restorePglite(file, config.DATA_DIR, force, key)
      : await restorePostgres(file, url, force, key);
  const where = url === undefined ? pgliteDir(config.DATA_DIR) : shownUrl(url);
  process.stdout.write(`Restored ${file} into ${where}.\n${report.lines.join('\n')}\n`);
  for (const warning of report.warnings) process.stderr.write(`WARNING: ${warning}\n`);
}

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) runMain(main);
