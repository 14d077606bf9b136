import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../server/db/client';

const TAG = '0029_billing_per_provider';
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const D = '00000000-0000-4000-8000-00000000000d';

/** The committed migrations up to (not including) the one that gave each way of paying its own row. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'billing-migration-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const file = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(file, 'utf8')) as { entries: { idx: number; tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 0) throw new Error(`no migration ${tag}`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(file, JSON.stringify(journal));
  return dir;
}

describe('the migration to a subscription per way of paying', () => {
  const before = migrationsBefore(TAG);
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every row of today's one-per-user table, and records the trials already used", async () => {
    const client = new PGlite();
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: before });
    await client.exec(`
      INSERT INTO users (id, username) VALUES ('${A}', 'a'), ('${B}', 'b'), ('${C}', 'c'), ('${D}', 'd');
      INSERT INTO subscriptions (user_id, status, plan, provider, gateway, external_id, current_period_end, trial_end) VALUES
        ('${A}', 'active', 'monthly', 'card', 'stripe', 'sub_a', now() + interval '7 days', now() + interval '7 days'),
        ('${B}', 'active', 'yearly', 'crypto', 'btcpay', 'inv_b', now() + interval '300 days', NULL),
        ('${C}', 'canceled', NULL, NULL, NULL, NULL, NULL, NULL);
      INSERT INTO checkout_sessions (user_id, plan, provider, gateway, external_id, status, created_at) VALUES
        ('${B}', 'monthly', 'card', 'stripe', 'cs_b', 'completed', now() - interval '40 days'),
        ('${B}', 'yearly', 'crypto', 'btcpay', 'inv_b', 'completed', now() - interval '10 days'),
        ('${D}', 'yearly', 'card', 'stripe', 'cs_d', 'open', now());
    `);
    await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });

    const subs = await client.query<{
      user_id: string;
      provider: string;
      status: string;
      external_id: string;
    }>('SELECT user_id, provider, status, external_id FROM subscriptions ORDER BY user_id');
    expect(subs.rows).toEqual([
      { user_id: A, provider: 'card', status: 'active', external_id: 'sub_a' },
      { user_id: B, provider: 'crypto', status: 'active', external_id: 'inv_b' },
      // An admin's revoke of an account that had no subscription was the only row without a provider.
      { user_id: C, provider: 'admin', status: 'canceled', external_id: null },
    ]);
    // A: a card subscription with a trial. B: a completed card checkout whose row a crypto payment took.
    const accounts = await client.query<{ user_id: string; used: boolean }>(
      'SELECT user_id, trial_used_at IS NOT NULL AS used FROM billing_accounts ORDER BY user_id',
    );
    expect(accounts.rows).toEqual([
      { user_id: A, used: true },
      { user_id: B, used: true },
    ]);
    const checkouts = await client.query<{ external_id: string; trial: boolean }>(
      'SELECT external_id, trial FROM checkout_sessions ORDER BY external_id',
    );
    expect(checkouts.rows).toEqual([
      { external_id: 'cs_b', trial: true },
      { external_id: 'cs_d', trial: true },
      { external_id: 'inv_b', trial: false },
    ]);
    // Now a card subscription and a crypto period of one account live side by side, one row each.
    await client.exec(
      `INSERT INTO subscriptions (user_id, provider, status) VALUES ('${A}', 'crypto', 'active')`,
    );
    await expect(
      client.exec(
        `INSERT INTO subscriptions (user_id, provider, status) VALUES ('${A}', 'crypto', 'active')`,
      ),
    ).rejects.toThrow(/subscriptions_user_id_provider_pk/);
    await client.close();
  });
});
