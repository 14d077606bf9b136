import { getTableName } from 'drizzle-orm';
import { createSecrets } from '../../plugins/secrets';
import { exchangeKeys, paperLedger, rules, twoFactor, users, watchlistItems } from '../schema';
import { ToolError, type KeyLookup } from './backup-files';

/** The little of a driver the checks need: PGlite's and node-postgres's `query` both fit. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface RestoreReport {
  /** What was found, one line each. */
  lines: string[];
  /** What the operator must act on before starting the server. */
  warnings: string[];
}

/** The tables whose row counts are printed after a restore. */
const COUNTED = [users, paperLedger, rules, watchlistItems, exchangeKeys, twoFactor].map(getTableName);

/**
 * Reads the restored database before any server touches it: the migrations journal and a few tables
 * must answer (else the restore failed: `ToolError`), and the master key must open one sealed value if
 * there is any (else a warning: the data is there, but exchange keys and 2FA would not work).
 */
export async function checkRestored(client: SqlClient, key: KeyLookup): Promise<RestoreReport> {
  const lines: string[] = [];
  const migrations = await count(client, 'drizzle.__drizzle_migrations').catch((err: unknown) => {
    throw new ToolError(
      `The restored database has no readable migrations journal (drizzle.__drizzle_migrations): ${errorText(err)}`,
    );
  });
  lines.push(`Migrations applied: ${migrations}.`);
  const counts: string[] = [];
  for (const table of COUNTED) {
    const n = await count(client, `"${table}"`).catch((err: unknown) => {
      throw new ToolError(`The restored table ${table} cannot be read: ${errorText(err)}`);
    });
    counts.push(`${table} ${n}`);
  }
  lines.push(`Rows: ${counts.join(', ')}.`);
  const warnings: string[] = [];
  const sealed = await oneSealedValue(client);
  if (sealed === undefined) {
    lines.push('No sealed secrets (exchange keys, two-factor) to open with the secrets key.');
  } else if (!key.found) {
    warnings.push(
      `No secrets key: ${key.where} does not exist and SECRETS_KEY is unset. Copy the key that sealed this ` +
        `backup's secrets there (or set SECRETS_KEY) before starting the server: without it the ${sealed.what} ` +
        'and every other sealed secret cannot be read, and a new key would be generated.',
    );
  } else if (opens(key.key, sealed.value)) {
    lines.push(`The secrets key (${key.where}) opens the sealed secrets (checked a ${sealed.what}).`);
  } else {
    warnings.push(
      `The secrets key (${key.where}) does NOT open the sealed secrets of this backup (a ${sealed.what} was ` +
        'checked): it is not the key they were sealed with. Put the original key back before starting the ' +
        'server, else exchange keys and two-factor logins will fail.',
    );
  }
  return { lines, warnings };
}

async function count(client: SqlClient, table: string): Promise<number> {
  const { rows } = await client.query(`select count(*)::int as n from ${table}`);
  return Number(rows[0]?.n ?? 0);
}

async function oneSealedValue(client: SqlClient): Promise<{ what: string; value: string } | undefined> {
  const sources = [
    { what: 'two-factor secret', table: getTableName(twoFactor), column: twoFactor.secretEnc.name },
    {
      what: 'exchange key secret',
      table: getTableName(exchangeKeys),
      column: exchangeKeys.secretSealed.name,
    },
  ];
  for (const { what, table, column } of sources) {
    const { rows } = await client.query(`select "${column}" as value from "${table}" limit 1`);
    const value = rows[0]?.value;
    if (typeof value === 'string') return { what, value };
  }
  return undefined;
}

function opens(key: Buffer, sealed: string): boolean {
  try {
    createSecrets(key).decrypt(sealed);
    return true;
  } catch {
    return false;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
