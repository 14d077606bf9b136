import { z } from 'zod';
import type { KeyEnvironment, KeyWarning } from '../../../src/contracts/exchanges';
import {
  ExchangeError,
  VenueRateLimited,
  VenueUnreachable,
  readVenueAnswer,
} from '../trading/exchange-error';
import { ApiKeyInfo } from '../trading/live/bybit/answers';
import type { BybitClient } from './bybit-client';
import type { KeyCheck, KeyChecker, VenueCredentials } from './credentials';

const VENUE = { venue: 'Bybit' } as const;
/** Bybit revokes a key without an IP whitelist after 90 days; warn two weeks before (`deadlineDay`). */
const EXPIRY_WARNING_DAYS = 14;
/** 10017 "Route not found" (HTTP 404 too): a host that does not answer `/v5/user/query-api`. */
const NO_ROUTE: ReadonlySet<number> = new Set([10017, 404]);

const UNVERIFIED: KeyCheck = { status: 'unverified', permissions: [], warnings: [], canWithdraw: false };

/**
 * Reads what Bybit says of a key (`GET /v5/user/query-api`, which any key may call, so it also proves
 * key and secret):
 * - it trades futures when it is not read-only and ContractTrade holds `Order` or `Position`, or
 *   Derivatives holds `DerivativesTrade`;
 * - it can withdraw when Wallet holds `Withdraw`;
 * - no IP whitelist when `ips` is empty or `["*"]`; and such a key's `deadlineDay` (days left before
 *   Bybit expires it) under 14 warns that it expires soon.
 * Demo trading does not list `/v5/user/query-api` among its endpoints: when the demo host answers that
 * it has no such route, the key is proven with the wallet balance instead and reads `read` only (a demo
 * account holds no funds to withdraw). A refusal (10003 key invalid, 10004 sign, 10010 IP) throws Bybit's
 * ExchangeError; no answer, a 5xx or a rate limit is `unverified`; an answer that cannot be read throws
 * VenueAnswerUnreadable.
 */
export function bybitKeyChecker(clients: Record<KeyEnvironment, BybitClient>): KeyChecker {
  return async (environment, creds) => {
    try {
      return await checkOnce(clients[environment], environment, creds);
    } catch (err) {
      if (err instanceof VenueUnreachable || err instanceof VenueRateLimited) return UNVERIFIED;
      throw err;
    }
  };
}

async function checkOnce(
  client: BybitClient,
  environment: KeyEnvironment,
  creds: VenueCredentials,
): Promise<KeyCheck> {
  let body: unknown;
  try {
    body = await client.signed('GET', '/v5/user/query-api', {}, creds);
  } catch (err) {
    if (environment === 'demo' && err instanceof ExchangeError && NO_ROUTE.has(err.code)) {
      readVenueAnswer(
        z.object({ list: z.array(z.unknown()) }),
        await client.signed('GET', '/v5/account/wallet-balance', { accountType: 'UNIFIED' }, creds),
        'the balance',
        VENUE,
      );
      return { status: 'verified', permissions: ['read'], warnings: [], canWithdraw: false };
    }
    throw err;
  }
  const info = readVenueAnswer(ApiKeyInfo, body, "the key's permissions", VENUE);
  const trades =
    info.readOnly === 0 &&
    (info.permissions.ContractTrade.some((p) => p === 'Order' || p === 'Position') ||
      info.permissions.Derivatives.includes('DerivativesTrade'));
  const canWithdraw = info.permissions.Wallet.includes('Withdraw');
  const permissions = ['read'];
  if (trades) permissions.push('futures');
  if (canWithdraw) permissions.push('withdraw');
  const warnings: KeyWarning[] = [];
  if (canWithdraw) warnings.push('withdrawals-enabled');
  const open = info.ips.length === 0 || info.ips.includes('*');
  if (open) warnings.push('no-ip-whitelist');
  if (
    open &&
    info.deadlineDay !== undefined &&
    info.deadlineDay >= 0 &&
    info.deadlineDay < EXPIRY_WARNING_DAYS
  ) {
    warnings.push('expiry-near');
  }
  return { status: 'verified', permissions, warnings, canWithdraw };
}
