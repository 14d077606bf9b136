import path from 'node:path';
import { loadConfig } from '../../config';
import { openDatabase, pgliteDir } from '../client';
import { runMain } from './backup-files';

/**
 * `npm run migrate`: applies the committed migrations a release brings, once, before its servers start
 * (which then run with MIGRATE_ON_START=false and only check). On PostgreSQL it takes the same advisory
 * lock as a server that migrates at start, so two releases or a server and a release never race.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, 'migrate');
  const database = await openDatabase(
    config.DATABASE_URL
      ? { kind: 'postgres', url: config.DATABASE_URL, poolSize: 1 }
      : { kind: 'pglite', dataDir: pgliteDir(config.DATA_DIR) },
    { migrate: true },
  );
  await database.close();
  process.stdout.write(`Migrations applied (${database.driver}).\n`);
}

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) runMain(main);
