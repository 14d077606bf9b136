import {
  ExchangeKey,
  ExchangeKeys,
  KEY_TEXTS,
  type ExchangeKeyCreate,
  type KeyEnvironment,
} from '../../contracts/exchanges';
import { VENUE_KEY_FORMS, VENUE_LABELS, type VenueName } from '../../contracts/venues';
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

/** What the key form and `key add` send: the venue the key is for, its key, secret and (OKX) passphrase. */
export interface KeyInput {
  exchangeName: VenueName;
  apiKey: string;
  secretKey: string;
  /** OKX only: the passphrase chosen when the key was made. */
  passphrase?: string;
  environment: KeyEnvironment;
  confirmWithdrawals?: boolean;
}

/**
 * Why a key cannot be sent as typed, before any call (docs/product.md §5): an empty key or secret, an OKX
 * key without its passphrase, a passphrase for a venue that has none. Null when it can be sent.
 */
export function keyInputProblem(input: KeyInput): string | null {
  if (input.apiKey.trim() === '' || input.secretKey.trim() === '') return KEY_TEXTS.empty;
  const passphrase = input.passphrase?.trim() ?? '';
  const needs = VENUE_KEY_FORMS[input.exchangeName].passphrase;
  if (needs && passphrase === '') return KEY_TEXTS.passphraseMissing;
  if (!needs && passphrase !== '') return KEY_TEXTS.passphraseUnused(input.exchangeName);
  return null;
}

/**
 * `POST /api/exchanges/`: key, secret and passphrase trimmed; a key that cannot be sent as typed is
 * refused before any call ({@link keyInputProblem}). The passphrase goes only with an OKX key.
 */
export async function addKey(main: ApiClient, input: KeyInput): Promise<KeysOutcome<ExchangeKey>> {
  const problem = keyInputProblem(input);
  if (problem !== null) return { ok: false, message: problem };
  const passphrase = input.passphrase?.trim() ?? '';
  try {
    const body = {
      exchangeName: input.exchangeName,
      apiKey: input.apiKey.trim(),
      secretKey: input.secretKey.trim(),
      ...(VENUE_KEY_FORMS[input.exchangeName].passphrase ? { passphrase } : {}),
      environment: input.environment,
      confirmWithdrawals: input.confirmWithdrawals === true,
    } satisfies ExchangeKeyCreate;
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

/** `Bybit · LIVE · ab…cd`: a saved key by its venue, environment and hint. */
export const keyName = (k: Pick<ExchangeKey, 'exchangeName' | 'environment' | 'keyHint'>): string =>
  `${VENUE_LABELS[k.exchangeName]} · ${k.environment.toUpperCase()} · ${k.keyHint}`;

/** One line per key for the terminal: venue, environment, hint, status, permissions, then its warnings. */
export function describeKey(k: ExchangeKey): { line: string; warnings: string[] } {
  const perms = k.permissions.length > 0 ? k.permissions.join(',') : '-';
  return {
    line: `${k.id}  ${VENUE_LABELS[k.exchangeName]}  ${k.environment.toUpperCase()}  ${k.keyHint}  ${k.status}  ${perms}`,
    warnings: k.warnings.map((w) => KEY_TEXTS.warnings[w]),
  };
}
