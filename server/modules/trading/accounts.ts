import type { AccountState } from '../../../src/contracts/trading';
import { KEY_TEXTS, type ExchangeKey, type KeyEnvironment } from '../../../src/contracts/exchanges';
import { type AccountVenue, type VenueName } from '../../../src/contracts/venues';
import { appError } from '../../plugins/errors';
import type { AccountsRepo } from './accounts.repo';
import type { ExchangeAdapter } from './exchange';

/** Where one user's orders go: the adapter, and the account name that adapter knows them by. */
export interface ResolvedAccount {
  adapter: ExchangeAdapter;
  /** The user id on the paper exchange; `userId:keyId` on a live one. */
  account: string;
  /** `paper`, or the key id: what an Idempotency-Key record remembers. */
  name: string;
  /** `paper`, or the key's venue. */
  venue: AccountVenue;
  mode: AccountState['mode'];
  /** The key's hint (first and last characters); null on paper. */
  keyHint: string | null;
}

/** The part of the exchanges module the resolver reads: the user's own keys. */
export interface KeyDirectory {
  list(userId: string): Promise<ExchangeKey[]>;
}

/** The name of a live account as the live adapter knows it. */
export function liveAccount(userId: string, keyId: string): string {
  return `${userId}:${keyId}`;
}

/** Splits a live account name back into its owner and key. */
export function parseLiveAccount(account: string): { userId: string; keyId: string } {
  const at = account.indexOf(':');
  if (at <= 0) throw new Error('not a live account name');
  return { userId: account.slice(0, at), keyId: account.slice(at + 1) };
}

/**
 * Resolves each user's account per request: the paper exchange unless the user chose one of their
 * keys with `account use <key id>` (remembered in the database). A deleted key falls back to paper.
 */
export class AccountResolver {
  constructor(
    private readonly repo: AccountsRepo,
    private readonly keys: KeyDirectory,
    private readonly paper: ExchangeAdapter,
    /** The live adapter per venue and key environment. */
    private readonly live: Record<VenueName, Record<KeyEnvironment, ExchangeAdapter>>,
  ) {}

  async resolve(userId: string): Promise<ResolvedAccount> {
    const keyId = await this.repo.chosenKey(userId);
    if (keyId === null) return this.paperOf(userId);
    const key = (await this.keys.list(userId)).find((k) => k.id === keyId);
    if (key === undefined) return this.paperOf(userId);
    return this.keyed(userId, key);
  }

  /** The account an earlier order (by its remembered name) went to, for lookups and retries. */
  async byName(userId: string, name: string): Promise<ResolvedAccount> {
    if (name === 'paper') return this.paperOf(userId);
    const key = (await this.keys.list(userId)).find((k) => k.id === name);
    if (key === undefined) throw appError('NOT_FOUND', KEY_TEXTS.notFound);
    return this.keyed(userId, key);
  }

  /** Where an order goes: `account` ('paper' or a key id) when given, else the account the user chose. */
  target(userId: string, account: string | undefined): Promise<ResolvedAccount> {
    return account === undefined ? this.resolve(userId) : this.byName(userId, account);
  }

  async state(userId: string): Promise<AccountState> {
    const keyId = await this.repo.chosenKey(userId);
    const key = keyId === null ? undefined : (await this.keys.list(userId)).find((k) => k.id === keyId);
    if (key === undefined) return { account: 'paper', venue: 'paper', mode: 'paper', keyHint: null };
    return { account: key.id, venue: key.exchangeName, mode: key.environment, keyHint: key.keyHint };
  }

  /** `account use paper|<key id>`: only the user's own keys. */
  async choose(userId: string, account: string): Promise<AccountState> {
    if (account === 'paper') {
      await this.repo.choose(userId, null);
      return this.state(userId);
    }
    const key = (await this.keys.list(userId)).find((k) => k.id === account);
    if (key === undefined) throw appError('NOT_FOUND', KEY_TEXTS.notFound);
    await this.repo.choose(userId, key.id);
    return this.state(userId);
  }

  private keyed(userId: string, key: ExchangeKey): ResolvedAccount {
    return {
      adapter: this.live[key.exchangeName][key.environment],
      account: liveAccount(userId, key.id),
      name: key.id,
      venue: key.exchangeName,
      mode: key.environment,
      keyHint: key.keyHint,
    };
  }

  private paperOf(userId: string): ResolvedAccount {
    return {
      adapter: this.paper,
      account: userId,
      name: 'paper',
      venue: 'paper',
      mode: 'paper',
      keyHint: null,
    };
  }
}
