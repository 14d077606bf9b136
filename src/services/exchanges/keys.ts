import { ExchangeKey, ExchangeKeys, KEY_TEXTS, type KeyEnvironment } from '../../contracts/exchanges';
import type { ApiClient } from '../api/client';
import { errorMessage, statusOf } from '../api/errors';

export type KeysOutcome<T> = { ok: true; value: T } | { ok: false; message: string; status?: number };

/** `GET /api/exchanges/`. */
export async function listKeys(main: ApiClient): Promise<KeysOutcome<ExchangeKey[]>> {
  try {
    return { ok: true, value: await main.call(ExchangeKeys, '/exchanges/') };
  } catch (error) {
    return { ok: false, message: errorMessage(error, KEY_TEXTS.fetchFailed) };
  }
}

/** `POST /api/exchanges/`: key and secret trimmed, empty ones refused before any call (docs/product.md §5). */
export async function addKey(
  main: ApiClient,
  input: { apiKey: string; secretKey: string; environment: KeyEnvironment; confirmWithdrawals?: boolean },
): Promise<KeysOutcome<ExchangeKey>> {
  const apiKey = input.apiKey.trim();
  const secretKey = input.secretKey.trim();
  if (apiKey === '' || secretKey === '') return { ok: false, message: KEY_TEXTS.empty };
  try {
    const body = {
      exchangeName: 'binance',
      apiKey,
      secretKey,
      environment: input.environment,
      confirmWithdrawals: input.confirmWithdrawals === true,
    };
    return { ok: true, value: await main.call(ExchangeKey, '/exchanges/', { method: 'POST', body }) };
  } catch (error) {
    const status = statusOf(error);
    return {
      ok: false,
      message: errorMessage(error, KEY_TEXTS.saveFailed),
      ...(status === undefined ? {} : { status }),
    };
  }
}

/** `DELETE /api/exchanges/{id}`. */
export async function removeKey(main: ApiClient, id: string): Promise<KeysOutcome<null>> {
  try {
    await main.send(`/exchanges/${encodeURIComponent(id)}`, { method: 'DELETE' });
    return { ok: true, value: null };
  } catch (error) {
    return { ok: false, message: errorMessage(error, KEY_TEXTS.deleteFailed) };
  }
}

/** One line per key for the terminal: hint, environment, status, permissions, then its warnings. */
export function describeKey(k: ExchangeKey): { line: string; warnings: string[] } {
  const perms = k.permissions.length > 0 ? k.permissions.join(',') : '-';
  return {
    line: `${k.id}  ${k.keyHint}  ${k.environment.toUpperCase()}  ${k.status}  ${perms}`,
    warnings: k.warnings.map((w) => KEY_TEXTS.warnings[w]),
  };
}
