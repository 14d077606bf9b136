import type { FastifyBaseLogger } from 'fastify';
import { AUTH_DETAILS, AUTH_MESSAGES } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import { appError } from '../../plugins/errors';
import type { UsersService } from '../users/users.service';
import { hashPassword, randomToken, sha256, verifyPassword } from './crypto';
import type { ActivityService } from '../activity/activity.service';
import { assertPasswordAllowed } from './password-policy';
import type { Mailer } from './mailer';
import { ResetsRepo } from './resets.repo';
import type { SessionsService } from './sessions.service';
import { SignupNoticesRepo } from './signup-notices.repo';

export const RESET_TTL_MS = 3600 * 1000;
/** The owner of a taken address hears of sign-ups with it at most this often. */
export const SIGNUP_NOTICE_EVERY_MS = 3600 * 1000;

/** Changing, forgetting and resetting passwords. */
export class PasswordService {
  private readonly resets: ResetsRepo;
  private readonly notices: SignupNoticesRepo;
  /** Reset mails being prepared after their answer went out. */
  private readonly mailing = new Set<Promise<void>>();

  constructor(
    db: Db,
    private readonly deps: {
      users: UsersService;
      sessions: SessionsService;
      mailer: Mailer;
      publicUrl: string;
      log: FastifyBaseLogger;
      now?: () => Date;
      activity?: Pick<ActivityService, 'record'>;
    },
  ) {
    this.resets = new ResetsRepo(db);
    this.notices = new SignupNoticesRepo(db);
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
    assertPasswordAllowed(next, user, 'new_password');
    await this.deps.users.setPasswordHash(userId, await hashPassword(next));
    // A reset link mailed before the change would set the password back to the sender's choice.
    await this.resets.voidAll(userId, this.now());
    await this.deps.sessions.revokeOthers(userId, keep);
    return AUTH_MESSAGES.passwordChanged;
  }

  /**
   * Answers at once, the same for every address, and mails a reset link afterwards when the address
   * has an account: neither the answer nor its timing says whether it has one.
   */
  forgot(email: string): Promise<string> {
    // A failure must not answer differently from an unknown email; it is logged.
    this.inBackground(this.mailReset(email), 'could not prepare the password reset mail');
    return Promise.resolve(AUTH_MESSAGES.forgot);
  }

  /**
   * Someone signed up with the address of an existing account: its owner is mailed (after the answer,
   * at most once an hour), so that the sign-up's answer need not say the address is taken.
   */
  signupAttempted(owner: { id: string; email: string | null; username: string }): void {
    this.inBackground(this.mailSignupAttempt(owner), 'could not send the sign-up notice');
  }

  private inBackground(job: Promise<void>, failure: string): void {
    const work = job
      .catch((err: unknown) => this.deps.log.error({ err }, failure))
      .finally(() => this.mailing.delete(work));
    this.mailing.add(work);
  }

  private async mailSignupAttempt(owner: { id: string; email: string | null; username: string }) {
    if (owner.email === null) return;
    const now = this.now();
    if (!(await this.notices.claim(owner.id, now, new Date(now.getTime() - SIGNUP_NOTICE_EVERY_MS)))) return;
    const link = `${this.deps.publicUrl}/`;
    await this.deps.mailer.send({
      to: owner.email,
      subject: 'Someone tried to sign up with your address',
      link,
      text: [
        `Hello ${owner.username},`,
        '',
        'Someone tried to create a new Signal Console account with this e-mail address, which already',
        'has an account: yours. No new account was made.',
        '',
        `If it was you, sign in at ${link} instead (use "Forgot password" if you need a new one).`,
        'If not, there is nothing to do.',
      ].join('\n'),
    });
  }

  /** Resolves once every reset mail asked for so far is sent (or failed): for shutdown. */
  async idle(): Promise<void> {
    while (this.mailing.size > 0) await Promise.all([...this.mailing]);
  }

  private async mailReset(email: string): Promise<void> {
    const user = await this.deps.users.findByEmail(email);
    if (user?.email == null) return;
    const token = randomToken();
    await this.resets.insert(user.id, sha256(token), new Date(this.now().getTime() + RESET_TTL_MS));
    const link = `${this.deps.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    await this.deps.mailer.send({
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
    });
  }

  /** Sets a new password from a mailed token (single use, one hour) and ends every session. */
  async reset(token: string, next: string): Promise<string> {
    // Checked before the token is spent, so a refused password leaves the link usable.
    const owner = await this.resets.ownerOf(sha256(token), this.now());
    if (owner === undefined) throw appError('BAD_REQUEST', AUTH_DETAILS.invalidReset);
    const user = await this.deps.users.findById(owner);
    assertPasswordAllowed(next, user ?? {}, 'newPassword');
    const userId = await this.resets.spend(sha256(token), this.now());
    if (userId === undefined) throw appError('BAD_REQUEST', AUTH_DETAILS.invalidReset);
    await this.deps.activity?.record(userId, { kind: 'password_reset' });
    await this.deps.users.setPasswordHash(userId, await hashPassword(next));
    await this.resets.voidAll(userId, this.now());
    await this.deps.sessions.revokeOthers(userId, null);
    return AUTH_MESSAGES.reset;
  }
}
