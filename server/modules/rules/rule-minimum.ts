import type { FastifyInstance } from 'fastify';
import { RULE_DETAILS } from '../../../src/contracts/rules';
import { findTicker } from '../../../src/contracts/symbols';
import { venueLabel, type AccountVenue } from '../../../src/contracts/venues';
import { RequestValidationError } from '../../plugins/errors';

/** The smallest order an account's venue takes on an asset, in USDT; null when it does not say. */
export type MinimumOf = (
  userId: string,
  account: string,
  asset: string,
) => Promise<{ venue: AccountVenue; usd: number } | null>;

/** The venue's minimum on the asset's ticker, at its latest price seen; null for an asset not traded here. */
export function minimumOf(
  trading: Pick<FastifyInstance['trading'], 'minimumOrder'>,
  priceOf: (symbol: string) => number | undefined,
): MinimumOf {
  return async (userId, account, asset) => {
    const symbol = findTicker(asset)?.symbol;
    if (symbol === undefined) return null;
    return trading.minimumOrder(userId, account, symbol, priceOf(symbol));
  };
}

/** What of a rule its account's venue would size: the asset (none: any), the amount, the account. */
export interface RuleOrderShape {
  asset: string | undefined;
  amount: number;
  account: string;
}

/**
 * Refuses (422, on the amount) a rule whose every order its account's venue would refuse as below its
 * minimum, when it is saved rather than when the news comes. A rule on any asset, or a venue that did
 * not say, is let through: the order's own answer says it then.
 */
export async function checkRuleMinimum(
  minimumOf: MinimumOf,
  userId: string,
  r: RuleOrderShape,
): Promise<void> {
  if (r.asset === undefined) return;
  const min = await minimumOf(userId, r.account, r.asset).catch(() => null);
  if (min === null || r.amount >= min.usd) return;
  const venue = min.venue === 'paper' ? 'The paper exchange' : venueLabel(min.venue);
  throw new RequestValidationError([
    {
      loc: ['body', 'action', 'amount_usd'],
      msg: RULE_DETAILS.belowMinimum(venue, r.asset, min.usd, r.amount),
      type: 'value_error',
    },
  ]);
}
