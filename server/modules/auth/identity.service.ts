import { getAddress } from 'viem/utils';
import { AUTH_DETAILS } from '../../../src/contracts/auth';
import { WEB3_DETAILS, shortAddress } from '../../../src/contracts/web3';
import type { Db } from '../../db/client';
import { isUniqueViolation } from '../../db/errors';
import { appError } from '../../plugins/errors';
import type { ActivityService } from '../activity/activity.service';
import { UsersService, type AdminPolicy, type UserRow } from '../users/users.service';
import { IdentitiesRepo, type IdentityRow, type Provider } from './identities.repo';
import type { SessionsService } from './sessions.service';

/**
 * How long a way to sign in added to an account (a wallet linked, a Google account joined) stays new:
 * until then, a sign-in with it alone does not count as "Confirm it's you". A thief who linked their
 * own wallet with a stolen token gets a session, not the sensitive actions.
 */
export const NEW_IDENTITY_MS = 24 * 3600 * 1000;

/** What a sign-in with an identity found: the account, the identity, and whether it joined the account now. */
export interface IdentitySignIn {
  user: UserRow;
  identity: IdentityRow;
  /** The identity was added to an account that existed before (linked by a verified e-mail). */
  joined: boolean;
}

/** The sign-in being used, for what an unlink keeps. */
export interface CurrentSignIn {
  familyId: string | null;
  identityId: string | null;
}

export const IDENTITY_DETAILS = {
  emailTaken:
    'An account with a password already uses this e-mail address, so this sign-in was not joined to it. Sign in to that account with its password (or reset the password by e-mail).',
} as const;

/** What a provider told us about the person signing in. */
export interface ExternalProfile {
  provider: Provider;
  subject: string;
  /** An e-mail the provider says it verified, else null. */
  verifiedEmail: string | null;
  /** A username to start from when a new account is made. */
  usernameHint: string;
  chainId?: number;
  ensName?: string | null;
}

/**
 * Accounts reached through an identity (a wallet, Google, Twitter): sign-in finds or makes the account,
 * linking by a verified e-mail; link and unlink keep one account per identity and never remove an
 * account's last way to sign in. Every multi-step write runs in one transaction.
 */
export class IdentityService {
  readonly repo: IdentitiesRepo;

  constructor(
    private readonly db: Db,
    private readonly admins: AdminPolicy,
    private readonly deps: {
      /** Every identity added or removed is a line of the activity log (and a mail for an added one). */
      activity?: Pick<ActivityService, 'record'>;
      /** Ends the sign-ins a removed identity started. */
      sessions?: Pick<SessionsService, 'endIdentities'>;
      now?: () => Date;
    } = {},
  ) {
    this.repo = new IdentitiesRepo(db);
  }

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  /**
   * Whether a sign-in with this identity alone counts as a confirmation: not while the identity is one
   * added to the account less than {@link NEW_IDENTITY_MS} ago. The identity a wallet-only (or social)
   * account was made with is the account's own since its creation.
   */
  confirmsSignIn(identity: IdentityRow, user: UserRow): boolean {
    const added = identity.createdAt.getTime();
    // Made in the transaction that made the account (its first sign-in): both rows have its start time.
    const madeWithAccount = added <= user.createdAt.getTime();
    return madeWithAccount || this.now().getTime() - added >= NEW_IDENTITY_MS;
  }

  /**
   * The account of this identity: found, linked by verified e-mail to an account a provider's verified
   * e-mail made (never to a password account), or made now.
   */
  async signIn(profile: ExternalProfile): Promise<IdentitySignIn> {
    const found = await this.findOrMake(profile);
    if (found.joined) await this.recordAdded(found.user.id, found.identity);
    return found;
  }

  private async findOrMake(profile: ExternalProfile): Promise<IdentitySignIn> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await this.db.transaction(async (tx) => {
          const users = new UsersService(tx, this.admins);
          const repo = new IdentitiesRepo(tx);
          const known = await repo.find(profile.provider, profile.subject);
          if (known !== undefined) {
            await repo.touch(known.id, walletFields(profile));
            const user = await users.findById(known.userId);
            if (user === undefined) throw appError('UNAUTHORIZED');
            return { user, identity: known, joined: false };
          }
          const byEmail =
            profile.verifiedEmail === null ? undefined : await users.findByEmail(profile.verifiedEmail);
          if (byEmail !== undefined && byEmail.passwordHash !== null) {
            // Nothing of ours proved this address when the password account was made: whoever set the
            // password may have registered someone else's e-mail in advance, with wallets, 2FA and keys
            // of their own. Joining the two would hand the provider's user that account.
            throw appError('CONFLICT', IDENTITY_DETAILS.emailTaken);
          }
          const user =
            byEmail ??
            (await users.createExternal({ email: profile.verifiedEmail, username: profile.usernameHint }));
          const identity = await this.add(repo, user.id, profile);
          return { user, identity, joined: byEmail !== undefined };
        });
      } catch (err) {
        // Another request made the same identity first: the second pass finds it.
        if (!isUniqueViolation(err) || attempt > 0) throw err;
      }
    }
    throw appError('CONFLICT');
  }

  /**
   * Adds an identity to a signed-in account (the route asks for a confirmed sign-in first); refused when
   * it belongs to an account already. The owner is told (activity line and mail).
   */
  async link(userId: string, profile: ExternalProfile): Promise<IdentityRow> {
    const row = await this.insertLinked(userId, profile);
    await this.recordAdded(userId, row);
    return row;
  }

  private async insertLinked(userId: string, profile: ExternalProfile): Promise<IdentityRow> {
    const known = await this.repo.find(profile.provider, profile.subject);
    if (known !== undefined) {
      throw appError(
        'CONFLICT',
        known.userId === userId ? WEB3_DETAILS.alreadyLinked : WEB3_DETAILS.linkedElsewhere,
      );
    }
    try {
      return await this.db.transaction(async (tx) => {
        await new UsersService(tx, this.admins).lock(userId);
        return this.add(new IdentitiesRepo(tx), userId, profile);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const now = await this.repo.find(profile.provider, profile.subject);
      throw appError(
        'CONFLICT',
        now?.userId === userId ? WEB3_DETAILS.alreadyLinked : WEB3_DETAILS.linkedElsewhere,
      );
    }
  }

  /**
   * Removes one of the account's identities of `provider`, and ends the sign-ins it started (but the
   * one asking). The last way to sign in (no password and no other identity) stays; a removed primary
   * wallet hands the mark to the oldest remaining one. Removing any is a sensitive action: refused
   * (`step_up_required`) unless `confirmed` (the sign-in was confirmed recently), after the last-method
   * rule, whose refusal is a 409 however recently the sign-in was confirmed.
   */
  async unlink(
    userId: string,
    provider: Provider,
    id: string,
    opts: { confirmed: boolean; current: CurrentSignIn },
  ): Promise<void> {
    const removed = await this.db.transaction(async (tx) => {
      const users = new UsersService(tx, this.admins);
      const repo = new IdentitiesRepo(tx);
      await users.lock(userId);
      const user = await users.findById(userId);
      if (user === undefined) throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
      const all = await repo.listOf(userId);
      const target = all.find((i) => i.id === id && i.provider === provider);
      if (target === undefined) throw appError('NOT_FOUND', WEB3_DETAILS.walletNotFound);
      if (user.passwordHash === null && all.length <= 1) throw appError('CONFLICT', WEB3_DETAILS.lastMethod);
      if (!opts.confirmed) throw appError('STEP_UP_REQUIRED');
      await repo.remove(userId, id);
      if (target.isPrimary) await repo.promoteOldestWallet(userId);
      return target;
    });
    await this.afterRemoval(userId, [removed], opts.current);
  }

  /**
   * Removes every identity of the account (a password change or "revoke all" asked for it) and ends
   * every sign-in they started, but the one asking. An account without a password keeps one, as its
   * way to sign in: the identity the asking sign-in used, else its oldest. Answers how many went.
   */
  async unlinkAll(userId: string, current: CurrentSignIn): Promise<number> {
    const removed = await this.db.transaction(async (tx) => {
      const users = new UsersService(tx, this.admins);
      const repo = new IdentitiesRepo(tx);
      await users.lock(userId);
      const user = await users.findById(userId);
      if (user === undefined) throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
      const all = await repo.listOf(userId);
      const kept =
        user.passwordHash !== null ? undefined : (all.find((i) => i.id === current.identityId) ?? all[0]);
      const going = all.filter((i) => i.id !== kept?.id);
      for (const identity of going) await repo.remove(userId, identity.id);
      if (going.some((i) => i.isPrimary)) await repo.promoteOldestWallet(userId);
      return going;
    });
    await this.afterRemoval(userId, removed, current);
    return removed.length;
  }

  /** Ends what removed identities started and tells the owner of each. */
  private async afterRemoval(
    userId: string,
    removed: readonly IdentityRow[],
    current: CurrentSignIn,
  ): Promise<void> {
    if (removed.length === 0) return;
    await this.deps.sessions?.endIdentities(
      userId,
      removed.map((i) => i.id),
      current.familyId,
    );
    for (const identity of removed) {
      await this.deps.activity?.record(
        userId,
        identity.provider === 'wallet'
          ? { kind: 'wallet_unlinked', detail: { hint: hintOf(identity) } }
          : { kind: 'identity_unlinked', detail: { provider: identity.provider } },
      );
    }
  }

  /** An identity added to an existing account: an activity line, mailed to the owner. */
  private async recordAdded(userId: string, identity: IdentityRow): Promise<void> {
    await this.deps.activity?.record(
      userId,
      identity.provider === 'wallet'
        ? { kind: 'wallet_linked', detail: { hint: hintOf(identity) } }
        : { kind: 'identity_linked', detail: { provider: identity.provider } },
    );
  }

  list(userId: string, provider: Provider): Promise<IdentityRow[]> {
    return this.repo.listOf(userId, provider);
  }

  /** The first wallet of an account is its primary one. */
  private async add(repo: IdentitiesRepo, userId: string, profile: ExternalProfile): Promise<IdentityRow> {
    const isWallet = profile.provider === 'wallet';
    const first = isWallet && (await repo.listOf(userId, 'wallet')).length === 0;
    return repo.insert({
      userId,
      provider: profile.provider,
      subject: profile.subject,
      email: profile.verifiedEmail,
      chainId: profile.chainId ?? null,
      ensName: profile.ensName ?? null,
      isPrimary: first,
      lastUsedAt: new Date(),
    });
  }
}

/** A wallet as its owner recognises it in a line: `0x12Ab…cD34`. */
function hintOf(identity: IdentityRow): string {
  return shortAddress(getAddress(identity.subject));
}

function walletFields(profile: ExternalProfile): { chainId?: number; ensName?: string | null } {
  if (profile.provider !== 'wallet') return {};
  return {
    ...(profile.chainId === undefined ? {} : { chainId: profile.chainId }),
    ...(profile.ensName === undefined ? {} : { ensName: profile.ensName }),
  };
}
