import type { Me } from '../../../src/contracts/auth';
import { AUTH_DETAILS } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import { appError } from '../../plugins/errors';
import { UsersRepo, type UserRow } from './users.repo';

export type { UserRow } from './users.repo';

/** Postgres' unique_violation, as both drivers report it. */
function isUniqueViolation(err: unknown): err is { constraint?: string } {
  const code = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined);
  return code(err) === '23505' || code((err as { cause?: unknown } | null)?.cause) === '23505';
}

function constraintOf(err: unknown): string {
  const own = (err as { constraint?: unknown }).constraint;
  const inner = (err as { cause?: { constraint?: unknown } }).cause?.constraint;
  return String(own ?? inner ?? '');
}

/**
 * Accounts: creation (with the admin rule), look-ups and the account view. Password hashing and sessions
 * belong to the auth module, which calls this service.
 */
export class UsersService {
  private readonly repo: UsersRepo;

  constructor(
    db: Db,
    private readonly adminEmails: readonly string[],
  ) {
    this.repo = new UsersRepo(db);
  }

  /**
   * Creates an account; 409 when the email or username is taken (case-insensitive). The first account
   * while no admin exists, and any account whose email is in ADMIN_EMAILS, is an admin.
   */
  async create(input: { email: string; username: string; passwordHash: string }): Promise<UserRow> {
    if (await this.repo.findByEmail(input.email)) throw appError('CONFLICT', AUTH_DETAILS.emailTaken);
    if (await this.repo.findByUsername(input.username))
      throw appError('CONFLICT', AUTH_DETAILS.usernameTaken);
    const listed = this.adminEmails.some((e) => e.toLowerCase() === input.email.toLowerCase());
    const role = listed || !(await this.repo.hasAdmin()) ? 'admin' : 'user';
    try {
      return await this.repo.insert({ ...input, role });
    } catch (err) {
      // Two sign-ups raced for the same name: the unique index decides.
      if (!isUniqueViolation(err)) throw err;
      throw appError(
        'CONFLICT',
        constraintOf(err).includes('email') ? AUTH_DETAILS.emailTaken : AUTH_DETAILS.usernameTaken,
      );
    }
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

  setPasswordHash(id: string, hash: string): Promise<void> {
    return this.repo.setPasswordHash(id, hash);
  }

  setTwoFactorEnabled(id: string, enabled: boolean): Promise<void> {
    return this.repo.setTwoFactorEnabled(id, enabled);
  }

  /** `GET /users/me`. There is no billing module yet, so every subscription reads "inactive". */
  async me(id: string): Promise<Me> {
    const user = await this.repo.findById(id);
    if (user === undefined) throw appError('UNAUTHORIZED');
    return {
      id: user.id,
      email: user.email,
      username: user.username,
      role: user.role,
      subscription: { status: 'inactive' },
      is_two_factor_enabled: user.twoFactorEnabled,
    };
  }
}
