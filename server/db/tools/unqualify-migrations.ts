import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * drizzle-kit writes foreign keys as `REFERENCES "public"."users"`. The migrations must land in whatever
 * schema the connection's search_path names (each Postgres test file runs in a schema of its own), so
 * after every `npm run db:generate` this removes the `"public".` qualifier from the SQL files.
 */
const folder = path.resolve(import.meta.dirname, '../migrations');
let changed = 0;
for (const file of readdirSync(folder).filter((f) => f.endsWith('.sql'))) {
  const full = path.join(folder, file);
  const sql = readFileSync(full, 'utf8');
  const next = sql.replaceAll('"public".', '');
  if (next !== sql) {
    writeFileSync(full, next);
    changed += 1;
  }
}
process.stdout.write(`unqualified ${changed} migration file(s)\n`);
