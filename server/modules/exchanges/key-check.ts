import type { KeyEnvironment, KeyWarning } from '../../../src/contracts/exchanges';
import type { BinanceClient } from './binance-client';
import { BinanceRateLimited, BinanceUnreachable, type BinanceCredentials } from './binance-client';

/** What the exchange says about a key: its permissions and the hygiene warnings they raise. */
export interface KeyCheck {
  status: 'verified' | 'unverified';
  permissions: string[];
  warnings: KeyWarning[];
  canWithdraw: boolean;
}

export interface KeyCheckClients {
  /** USD-M REST, per environment. */
  fapi: Record<KeyEnvironment, BinanceClient>;
  /** Spot REST, where Binance keeps a key's restrictions (live keys only). */
  api: BinanceClient;
}

/** Binance revokes trading on keys without an IP whitelist; warn this long before. */
export const EXPIRY_WARNING_MS = 14 * 86_400_000;

interface FuturesAccount {
  canTrade: boolean;
  canWithdraw: boolean;
}

interface ApiRestrictions {
  ipRestrict: boolean;
  enableWithdrawals: boolean;
  enableFutures: boolean;
  tradingAuthorityExpirationTime?: number;
}

/**
 * Asks Binance about a key: the futures account (which proves the key and secret) and, for live keys,
 * the key's restrictions. A refusal (-2014, -2015, -1022, …) is thrown as Binance's ExchangeError; no
 * answer at all (or a rate limit) yields `unverified`.
 */
export async function checkKey(
  clients: KeyCheckClients,
  environment: KeyEnvironment,
  creds: BinanceCredentials,
  now: number = Date.now(),
): Promise<KeyCheck> {
  let account: FuturesAccount;
  try {
    account = await clients.fapi[environment].signed<FuturesAccount>('GET', '/fapi/v2/account', {}, creds);
  } catch (err) {
    if (err instanceof BinanceUnreachable || err instanceof BinanceRateLimited) {
      return { status: 'unverified', permissions: [], warnings: [], canWithdraw: false };
    }
    throw err;
  }
  let restrictions: ApiRestrictions | null = null;
  if (environment === 'live') {
    restrictions = await clients.api
      .signed<ApiRestrictions>('GET', '/sapi/v1/account/apiRestrictions', {}, creds, '/api/v3/time')
      .catch(() => null);
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
