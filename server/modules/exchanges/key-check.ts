import { z } from 'zod';
import type { KeyEnvironment, KeyWarning } from '../../../src/contracts/exchanges';
import { appError } from '../../plugins/errors';
import { VenueAnswerUnreadable, readVenueAnswer } from '../trading/exchange-error';
import type { BinanceClient } from './binance-client';
import type { KeyCheck, KeyChecker } from './credentials';
import { VenueRateLimited, VenueUnreachable, type BinanceCredentials } from './binance-client';

/** What the exchange says about a key: its permissions and the hygiene warnings they raise. */
export interface KeyCheckClients {
  /** USD-M REST, per environment. */
  fapi: Record<KeyEnvironment, BinanceClient>;
  /** Spot REST, where Binance keeps a key's restrictions (live keys only). */
  api: BinanceClient;
}

/** Binance revokes trading on keys without an IP whitelist; warn this long before. */
export const EXPIRY_WARNING_MS = 14 * 86_400_000;

/** `GET /fapi/v2/account`, the parts the check reads. */
const FuturesAccount = z.object({ canTrade: z.boolean(), canWithdraw: z.boolean() });

/** `GET /sapi/v1/account/apiRestrictions`, the parts the check reads. */
const ApiRestrictions = z.object({
  ipRestrict: z.boolean(),
  enableWithdrawals: z.boolean(),
  tradingAuthorityExpirationTime: z.number().optional(),
});

/**
 * Asks Binance about a key: the futures account (which proves the key and secret) and, for live keys,
 * the key's restrictions. A refusal (-2014, -2015, -1022, …) is thrown as Binance's ExchangeError; no
 * answer at all (or a rate limit) yields `unverified`; an answer that cannot be read is a 502 naming
 * what was asked (nothing is saved).
 */
export async function checkKey(
  clients: KeyCheckClients,
  environment: KeyEnvironment,
  creds: BinanceCredentials,
  now: number = Date.now(),
): Promise<KeyCheck> {
  try {
    return await checkOnce(clients, environment, creds, now);
  } catch (err) {
    if (err instanceof VenueAnswerUnreadable) throw appError('BAD_GATEWAY', err.detail);
    throw err;
  }
}

async function checkOnce(
  clients: KeyCheckClients,
  environment: KeyEnvironment,
  creds: BinanceCredentials,
  now: number,
): Promise<KeyCheck> {
  let account: z.output<typeof FuturesAccount>;
  try {
    account = readVenueAnswer(
      FuturesAccount,
      await clients.fapi[environment].signed<unknown>('GET', '/fapi/v2/account', {}, creds),
      'the futures account',
    );
  } catch (err) {
    if (err instanceof VenueUnreachable || err instanceof VenueRateLimited) {
      return { status: 'unverified', permissions: [], warnings: [], canWithdraw: false };
    }
    throw err;
  }
  let restrictions: z.output<typeof ApiRestrictions> | null = null;
  if (environment === 'live') {
    // Unreachable (or refused): the restrictions stay unknown, as before. An answer that came but cannot
    // be read is not taken as "no restrictions": it fails the check.
    const answer = await clients.api
      .signed<unknown>('GET', '/sapi/v1/account/apiRestrictions', {}, creds, '/api/v3/time')
      .catch(() => undefined);
    if (answer !== undefined)
      restrictions = readVenueAnswer(ApiRestrictions, answer, "the key's restrictions");
  }
  const canWithdraw = account.canWithdraw || restrictions?.enableWithdrawals === true;
  const permissions = ['read'];
  if (account.canTrade) permissions.push('futures');
  if (canWithdraw) permissions.push('withdraw');
  const warnings: KeyWarning[] = [];
  if (canWithdraw) warnings.push('withdrawals-enabled');
  if (restrictions !== null && !restrictions.ipRestrict) warnings.push('no-ip-whitelist');
  const expiry = restrictions?.tradingAuthorityExpirationTime;
  if (expiry !== undefined && expiry > 0 && expiry - now < EXPIRY_WARNING_MS) warnings.push('expiry-near');
  return { status: 'verified', permissions, warnings, canWithdraw };
}

/** Binance's key check as one venue's {@link KeyChecker}. */
export function binanceKeyChecker(clients: KeyCheckClients): KeyChecker {
  return (environment, creds, now) => checkKey(clients, environment, creds, now);
}
