import type { Me, Role } from '../../../src/contracts/auth';
import { AUTH_DETAILS } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import { constraintOf, isUniqueViolation } from '../../db/errors';
import { appError } from '../../plugins/errors';
import { UsersRepo, type UserRow } from './users.repo';

export type { UserRow } from './users.repo';

/**
 * Who is made an admin at sign-up: any e-mail in `emails`; and, when `firstAccount` holds, the first
 * account while no admin exists. Only a server that listens on loopback alone keeps that second rule: on
 * an exposed one, whoever signed up first would own it.
 */
export interface AdminPolicy {
  emails: readonly string[];
  firstAccount: boolean;
}

const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function adminPolicy(config: { ADMIN_EMAILS: readonly string[]; HOST: string }): AdminPolicy {
  return { emails: config.ADMIN_EMAILS, firstAccount: LOOPBACK_HOSTS.test(config.HOST) };
}

/**
 * Accounts: creation (with the admin rule), look-ups and the account view. Password hashing and sessions
 * belong to the auth module, which calls this service.
 */
export class UsersService {
  private readonly repo: UsersRepo;

  constructor(
    private readonly db: Db,
    private readonly admins: AdminPolicy,
  ) {
    this.repo = new UsersRepo(db);
  }

  /**
   * Creates an account; 409 when the username is taken (case-insensitive). A taken e-mail is not an
   * error the caller may show (it would say who has an account): it answers the account that has it, and
   * the role a new account would have had. The first account while no admin exists (see `AdminPolicy`),
   * and any account whose email is in ADMIN_EMAILS, is an admin.
   */
  async create(input: {
    email: string;
    username: string;
    passwordHash: string;
  }): Promise<{ created: UserRow } | { emailTakenBy: UserRow; role: Role }> {
    // Usernames are public handles (shown to others): saying one is taken tells nothing private.
    if (await this.repo.findByUsername(input.username))
      throw appError('CONFLICT', AUTH_DETAILS.usernameTaken);
    const owner = await this.repo.findByEmail(input.email);
    if (owner !== undefined) return { emailTakenBy: owner, role: await this.roleFor(input.email) };
    try {
      return { created: await this.insert({ ...input }, this.listed(input.email)) };
    } catch (err) {
      // Two sign-ups raced for the same name: the unique index decides.
      if (!isUniqueViolation(err)) throw err;
      const racer = constraintOf(err).includes('email')
        ? await this.repo.findByEmail(input.email)
        : undefined;
      if (racer === undefined) throw appError('CONFLICT', AUTH_DETAILS.usernameTaken);
      return { emailTakenBy: racer, role: await this.roleFor(input.email) };
    }
  }

  /** The role a new account with this e-mail would be given now. */
  private async roleFor(email: string): Promise<Role> {
    if (this.listed(email)) return 'admin';
    return this.admins.firstAccount && !(await this.repo.hasAdmin()) ? 'admin' : 'user';
  }

  /**
   * An account made by a wallet or a social sign-in: no password, an e-mail only when the provider vouched
   * for one, and the first free username from `base` (a number is appended while it is taken).
   */
  async createExternal(input: { email: string | null; username: string }): Promise<UserRow> {
    const base = input.username.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 24) || 'user';
    const listed = this.listed(input.email);
    for (let n = 0; n < 20; n++) {
      const username = n === 0 ? base : `${base}-${n + 1}`;
      if (await this.repo.findByUsername(username)) continue;
      try {
        return await this.insert({ email: input.email, username, passwordHash: null }, listed);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (constraintOf(err).includes('email')) throw appError('CONFLICT', AUTH_DETAILS.emailTaken);
      }
    }
    throw appError('CONFLICT', AUTH_DETAILS.usernameTaken);
  }

  private listed(email: string | null): boolean {
    return email !== null && this.admins.emails.some((e) => e.toLowerCase() === email.toLowerCase());
  }

  /**
   * Inserts with the role the policy gives, in its own (sub)transaction: a unique violation then undoes
   * only this insert, and a caller inside a transaction can go on and try another name. "The first
   * account" is decided under one lock, so two sign-ups racing on an empty database make one admin.
   */
  private insert(
    row: { email: string | null; username: string; passwordHash: string | null },
    listed: boolean,
  ): Promise<UserRow> {
    return this.db.transaction(async (tx) => {
      const repo = new UsersRepo(tx);
      if (listed) return repo.insert({ ...row, role: 'admin' });
      if (!this.admins.firstAccount || (await repo.hasAdmin())) return repo.insert({ ...row, role: 'user' });
      await repo.lockFirstAdmin();
      return repo.insert({ ...row, role: (await repo.hasAdmin()) ? 'user' : 'admin' });
    });
  }

  /** Ends password sign-in for an account (a provider proved its e-mail; see IdentityService). */
  dropPassword(id: string): Promise<void> {
    return this.repo.setPasswordHash(id, null);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.repo.findById(id);
  }

  findByLogin(login: string): Promise<UserRow | undefined> {
    return this.repo.findByLogin(login);
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.repo.findByEmail(email);
  }

  /** Holds the account still for the rest of a transaction (a service built on that transaction). */
  lock(id: string): Promise<void> {
    return this.repo.lock(id);
  }

  setPasswordHash(id: string, hash: string): Promise<void> {
    return this.repo.setPasswordHash(id, hash);
  }

  setTwoFactorEnabled(id: string, enabled: boolean): Promise<void> {
    return this.repo.setTwoFactorEnabled(id, enabled);
  }

  /** `GET /users/me`, with the subscription's status as the billing side reads it (docs/product.md §3 User). */
  async me(id: string, subscriptionStatus: (id: string) => Promise<string>): Promise<Me> {
    const user = await this.repo.findById(id);
    if (user === undefined) throw appError('UNAUTHORIZED');
    return {
      id: user.id,
      email: user.email,
      username: user.username,
      role: user.role,
      subscription: { status: await subscriptionStatus(user.id) },
      is_two_factor_enabled: user.twoFactorEnabled,
    };
  }

  listAll(): Promise<UserRow[]> {
    return this.repo.listAll();
  }

  setDisabled(id: string, disabled: boolean): Promise<boolean> {
    return this.repo.setDisabled(id, disabled);
  }

  /** Of these accounts, the disabled ones. */
  disabledAmong(ids: readonly string[]): Promise<ReadonlySet<string>> {
    return this.repo.disabledAmong(ids);
  }
}
