import type { FastifyBaseLogger } from 'fastify';
import { AUTH_DETAILS, AUTH_MESSAGES } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import { appError } from '../../plugins/errors';
import type { UsersService } from '../users/users.service';
import { hashPassword, randomToken, sha256, verifyPassword } from './crypto';
import type { Mailer } from './mailer';
import { ResetsRepo } from './resets.repo';
import type { SessionsService } from './sessions.service';

export const RESET_TTL_MS = 3600 * 1000;

/** Changing, forgetting and resetting passwords. */
export class PasswordService {
  private readonly resets: ResetsRepo;

  constructor(
    db: Db,
    private readonly deps: {
      users: UsersService;
      sessions: SessionsService;
      mailer: Mailer;
      publicUrl: string;
      log: FastifyBaseLogger;
      now?: () => Date;
    },
  ) {
    this.resets = new ResetsRepo(db);
  }

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  /** Checks the current password, sets the new one and ends every other session. */
  async change(
    userId: string,
    current: string,
    next: string,
    keep: { familyId: string; deviceId: string | null } | null,
  ): Promise<string> {
    const user = await this.deps.users.findById(userId);
    if (user === undefined) throw appError('UNAUTHORIZED');
    if (!(await verifyPassword(user.passwordHash, current))) {
      throw appError('BAD_REQUEST', AUTH_DETAILS.wrongCurrentPassword);
    }
    await this.deps.users.setPasswordHash(userId, await hashPassword(next));
    await this.deps.sessions.revokeOthers(userId, keep);
    return AUTH_MESSAGES.passwordChanged;
  }

  /** Mails a reset link when the email has an account; the answer is the same either way. */
  async forgot(email: string): Promise<string> {
    const user = await this.deps.users.findByEmail(email);
    if (user?.email != null) {
      const token = randomToken();
      await this.resets.insert(user.id, sha256(token), new Date(this.now().getTime() + RESET_TTL_MS));
      const link = `${this.deps.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await this.deps.mailer
        .send({
          to: user.email,
          subject: 'Reset your Signal Console password',
          link,
          text: [
            `Hello ${user.username},`,
            '',
            'Someone asked to reset the password of your Signal Console account. To choose a new one, open',
            link,
            '',
            'The link works once and expires in one hour. If you did not ask for it, ignore this mail.',
          ].join('\n'),
        })
        // A failed send must not answer differently from an unknown email.
        .catch((err: unknown) => this.deps.log.error({ err }, 'could not send the password reset mail'));
    }
    return AUTH_MESSAGES.forgot;
  }

  /** Sets a new password from a mailed token (single use, one hour) and ends every session. */
  async reset(token: string, next: string): Promise<string> {
    const userId = await this.resets.spend(sha256(token), this.now());
    if (userId === undefined) throw appError('BAD_REQUEST', AUTH_DETAILS.invalidReset);
    await this.deps.users.setPasswordHash(userId, await hashPassword(next));
    await this.deps.sessions.revokeOthers(userId, null);
    return AUTH_MESSAGES.reset;
  }
}
