import { DEFAULT_RISK, MAX_ORDER_SHARE } from '../../../src/contracts/rules';
import { venueLabel, type AccountVenue } from '../../../src/contracts/venues';

/** An account's balance as the risk envelope reads it: null when the venue did not say. */
export interface AccountBalanceRead {
  /** Null when not even the account was found. */
  venue: AccountVenue | null;
  balance: number | null;
}

/** The maximum order that holds for an order, and where the figure comes from, in a trader's words. */
export interface MaxOrder {
  usd: number;
  basis: string;
  saved: boolean;
}

/** `10,000`: whole USDT with thousands separators. */
const whole = (usd: number) => Math.floor(usd).toLocaleString('en-US');

const times = `${MAX_ORDER_SHARE} ×`;

/**
 * The default maximum order of an account: the smaller of the ceiling and a share of its balance (the
 * paper balance; a key's venue balance). A key whose balance is not known has the live default.
 */
export function defaultMaxOrder(read: AccountBalanceRead): MaxOrder {
  const ceiling = DEFAULT_RISK.max_order_usd;
  const whose = read.venue === null ? 'account' : read.venue === 'paper' ? 'paper' : venueLabel(read.venue);
  if (read.balance === null) {
    const usd = DEFAULT_RISK.live_max_order_usd;
    return {
      usd,
      basis: `the live default of ${whole(usd)}: your ${whose} balance is not known`,
      saved: false,
    };
  }
  const share = Math.max(1, Math.floor(read.balance * MAX_ORDER_SHARE));
  if (share > ceiling) {
    return {
      usd: ceiling,
      basis: `the ceiling of ${whole(ceiling)}; ${times} your ${whole(read.balance)} ${whose} balance is more`,
      saved: false,
    };
  }
  return { usd: share, basis: `${times} your ${whole(read.balance)} ${whose} balance`, saved: false };
}

/** A balance read is used this long before the venue is asked again. */
const BALANCE_TTL_MS = 60_000;

/**
 * The balances the default maximum order is a share of, kept a minute per (user, account): an order
 * does not wait for its venue's balance more than once a minute. A read that fails is not kept.
 */
export class BalanceBook {
  private readonly held = new Map<string, { read: Promise<AccountBalanceRead>; at: number }>();

  constructor(
    private readonly readBalance: (userId: string, account?: string) => Promise<AccountBalanceRead>,
    private readonly now: () => number,
  ) {}

  of(userId: string, account?: string): Promise<AccountBalanceRead> {
    // The account the user chose may change any moment: only a named account's balance is kept.
    if (account === undefined) return this.readBalance(userId);
    const key = `${userId}\u0000${account}`;
    const hit = this.held.get(key);
    if (hit !== undefined && this.now() - hit.at < BALANCE_TTL_MS) return hit.read;
    const read = this.readBalance(userId, account);
    if (this.held.size > 10_000) this.held.clear();
    this.held.set(key, { read, at: this.now() });
    read.then(
      (r) => {
        if (r.balance === null) this.held.delete(key);
      },
      () => this.held.delete(key),
    );
    return read;
  }

  /** Drops what is held of a user (a deposit, a reset of the paper account, a change of account). */
  forget(userId: string): void {
    for (const key of this.held.keys()) if (key.startsWith(`${userId}\u0000`)) this.held.delete(key);
  }
}
