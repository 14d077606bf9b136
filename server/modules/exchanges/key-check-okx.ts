import type { KeyEnvironment, KeyWarning } from '../../../src/contracts/exchanges';
import {
  ExchangeError,
  VenueRateLimited,
  VenueUnreachable,
  readVenueAnswer,
} from '../trading/exchange-error';
import { AccountConfig } from '../trading/live/okx/answers';
import type { KeyCheck, KeyChecker, VenueCredentials } from './credentials';
import type { OkxClient } from './okx-client';

const UNVERIFIED: KeyCheck = { status: 'unverified', permissions: [], warnings: [], canWithdraw: false };

/**
 * The account is in long/short position mode: Binance's "position side does not match the user's
 * setting" (-4061), the app's word for a position mode it does not trade.
 */
export const OKX_POSITION_MODE_REFUSED = -4061;
/** OKX's own code for an account mode that cannot use an endpoint (here: Spot mode, no swaps). */
export const OKX_ACCOUNT_MODE_REFUSED = 51010;

export const LONG_SHORT_TEXT =
  'This OKX account is in long/short position mode; the console trades net mode only. Switch the account to net (one-way) mode in OKX’s trading settings (Position mode), then add the key again.';
export const SPOT_MODE_TEXT =
  'This OKX account is in Spot mode, which cannot trade swaps. Switch it to Futures mode (or a margin mode) in OKX’s trading settings, then add the key again.';

/**
 * Reads what OKX says of a key with `GET /api/v5/account/config` (any key may call it, so it also proves
 * key, secret and passphrase, and on demo trading the key's environment):
 * - `perm` holds `read_only`, `trade`, `withdraw`: it trades futures with `trade`, it can withdraw with
 *   `withdraw` (and that warns);
 * - `ip` empty: no IP whitelist (a warning);
 * - `posMode` long_short_mode is refused: the product trades net mode only, and the user is told to
 *   switch the account to net (one-way) mode; `acctLv` 1 (Spot mode, no swaps) is refused likewise.
 * A refusal (50111 key, 50113 sign, 50105 passphrase, 50101 environment) throws OKX's ExchangeError; no
 * answer, a 5xx or a rate limit is `unverified`; an answer that cannot be read throws VenueAnswerUnreadable.
 */
export function okxKeyChecker(clients: Record<KeyEnvironment, OkxClient>): KeyChecker {
  return async (environment, creds) => {
    try {
      return await checkOnce(clients[environment], creds);
    } catch (err) {
      if (err instanceof VenueUnreachable || err instanceof VenueRateLimited) return UNVERIFIED;
      throw err;
    }
  };
}

async function checkOnce(client: OkxClient, creds: VenueCredentials): Promise<KeyCheck> {
  const [config] = readVenueAnswer(
    AccountConfig,
    await client.signed('GET', '/api/v5/account/config', {}, creds),
    "the key's permissions",
    { venue: 'OKX' },
  );
  if (config === undefined) throw new Error('the schema takes one row at least');
  if (config.posMode === 'long_short_mode')
    throw new ExchangeError(OKX_POSITION_MODE_REFUSED, LONG_SHORT_TEXT);
  if (config.acctLv === '1') throw new ExchangeError(OKX_ACCOUNT_MODE_REFUSED, SPOT_MODE_TEXT);
  const perms = new Set(config.perm.split(',').map((p) => p.trim()));
  const canWithdraw = perms.has('withdraw');
  const permissions = ['read'];
  if (perms.has('trade')) permissions.push('futures');
  if (canWithdraw) permissions.push('withdraw');
  const warnings: KeyWarning[] = [];
  if (canWithdraw) warnings.push('withdrawals-enabled');
  if (config.ip.trim() === '') warnings.push('no-ip-whitelist');
  return { status: 'verified', permissions, warnings, canWithdraw };
}
