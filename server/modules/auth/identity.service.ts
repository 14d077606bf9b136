import { AUTH_DETAILS } from '../../../src/contracts/auth';
import { WEB3_DETAILS } from '../../../src/contracts/web3';
import type { Db } from '../../db/client';
import { isUniqueViolation } from '../../db/errors';
import { appError } from '../../plugins/errors';
import { UsersService, type AdminPolicy, type UserRow } from '../users/users.service';
import { IdentitiesRepo, type IdentityRow, type Provider } from './identities.repo';

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
  ) {
    this.repo = new IdentitiesRepo(db);
  }

  /**
   * The account of this identity: found, linked by verified e-mail to an account a provider's verified
   * e-mail made (never to a password account), or made now.
   */
  async signIn(profile: ExternalProfile): Promise<UserRow> {
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
            return user;
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
          await this.add(repo, user.id, profile);
          return user;
        });
      } catch (err) {
        // Another request made the same identity first: the second pass finds it.
        if (!isUniqueViolation(err) || attempt > 0) throw err;
      }
    }
    throw appError('CONFLICT');
  }

  /** Adds an identity to a signed-in account; refused when it belongs to an account already. */
  async link(userId: string, profile: ExternalProfile): Promise<IdentityRow> {
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
   * Removes one of the account's identities of `provider`. The last way to sign in (no password and no
   * other identity) stays; a removed primary wallet hands the mark to the oldest remaining one. Removing
   * the account's last one of `provider` is a sensitive action: refused (`step_up_required`) unless
   * `confirmed()` says the sign-in was confirmed recently.
   */
  async unlink(
    userId: string,
    provider: Provider,
    id: string,
    confirmed: () => Promise<boolean> = async () => false,
  ): Promise<void> {
    // Asked before the transaction (it reads outside it); the transaction checks again what it removes.
    const before = await this.repo.listOf(userId, provider);
    const lastOne = before.length === 1 && before[0]?.id === id;
    const ok = !lastOne || (await confirmed());
    await this.db.transaction(async (tx) => {
      const users = new UsersService(tx, this.admins);
      const repo = new IdentitiesRepo(tx);
      await users.lock(userId);
      const user = await users.findById(userId);
      if (user === undefined) throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
      const all = await repo.listOf(userId);
      const target = all.find((i) => i.id === id && i.provider === provider);
      if (target === undefined) throw appError('NOT_FOUND', WEB3_DETAILS.walletNotFound);
      if (user.passwordHash === null && all.length <= 1) throw appError('CONFLICT', WEB3_DETAILS.lastMethod);
      // After the last-method rule: a removal it refuses is a 409 however recently the sign-in was confirmed.
      const isLast = all.filter((i) => i.provider === provider).length === 1;
      if (isLast && !(lastOne && ok)) throw appError('STEP_UP_REQUIRED');
      await repo.remove(userId, id);
      if (target.isPrimary) await repo.promoteOldestWallet(userId);
    });
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

function walletFields(profile: ExternalProfile): { chainId?: number; ensName?: string | null } {
  if (profile.provider !== 'wallet') return {};
  return {
    ...(profile.chainId === undefined ? {} : { chainId: profile.chainId }),
    ...(profile.ensName === undefined ? {} : { ensName: profile.ensName }),
  };
}
