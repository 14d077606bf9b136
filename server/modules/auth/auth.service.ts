import { randomUUID } from 'node:crypto';
import { AUTH_DETAILS, STEP_UP_DETAILS, type Role, type StepUpRequest } from '../../../src/contracts/auth';
import type { Bus } from '../../plugins/bus';
import { appError } from '../../plugins/errors';
import type { UserRow, UsersService } from '../users/users.service';
import { hashPassword, randomToken, sha256, verifyPassword } from './crypto';
import { retryText } from '../../plugins/rate-limit';
import type { ActivityService } from '../activity/activity.service';
import { MemoryLoginThrottle, type LoginThrottle } from './login-throttle';
import { assertPasswordAllowed } from './password-policy';
import type { IdentitiesRepo, IdentityRow } from './identities.repo';
import type { IdentityService } from './identity.service';
import { NEW_IDENTITY_MS } from './identity.service';
import type { IssuedSession, RememberRequest, SessionsService, SignInCredential } from './sessions.service';
import type { SecondFactor, TwoFactorService } from './twofa.service';

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** 429 "Too many requests. Please try again in N s." with Retry-After, while an account must wait. */
function waitError(waitMs: number) {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return appError('RATE_LIMITED', retryText(seconds), { 'retry-after': String(seconds) });
}
export const CHALLENGE_TRIES = 5;

/**
 * The activity detail of a finished sign-in: how the first step proved itself and, with a second factor,
 * which one. A recovery code is named as such with the count still unspent: its owner must know one went.
 */
export function signInDetail(via: SignInVia['method'], second: SecondFactor | null): Record<string, string> {
  if (second === null) return { method: via };
  if (second.kind === 'totp') return { method: 'two_factor' };
  return { method: 'recovery_code', left: String(second.left), ...(via === 'password' ? {} : { via }) };
}

/** The activity detail of a confirmation (step-up) that passed. */
const stepUpDetail = (second: SecondFactor | null): Record<string, string> =>
  second === null
    ? { method: 'password' }
    : second.kind === 'totp'
      ? { method: 'two_factor' }
      : { method: 'recovery_code', left: String(second.left) };

/** What sign-up answers (`SignupResponse`). */
export interface SignupAnswer {
  id: string;
  email: string;
  username: string;
  role: Role;
}

/** How a sign-in's first step proved itself: a password, or an identity (wallet, Google, Twitter). */
export type SignInVia =
  { method: 'password' } | { method: 'wallet' | 'google' | 'twitter'; identity: IdentityRow };

export type LoginOutcome =
  | { kind: 'session'; session: IssuedSession }
  /** `challenge`: the opaque token the second step presents (sent to the client as `user_id`). */
  | { kind: 'two-factor'; challenge: string };

export interface LoginInput {
  login: string;
  password: string;
  /** Present when the user ticked remember-me. */
  remember: RememberRequest | null;
  /** What to remember if the login finishes after a 2FA step. */
  device: RememberRequest;
  /** The account whose remembered-device cookie came with the request, if any. */
  rememberedBy?: string | null;
  /** A 2FA code (or recovery code) sent with the password, for accounts with 2FA on. */
  code?: string | null;
}

/** Sign-up, the password step, the finish step every sign-in shares, and the second factor. */
export class AuthService {
  constructor(
    private readonly deps: {
      users: UsersService;
      sessions: SessionsService;
      twoFactor: TwoFactorService;
      /** Whether a sign-in with an identity counts as a confirmation. */
      identities: Pick<IdentityService, 'confirmsSignIn'> & { repo: Pick<IdentitiesRepo, 'byId'> };
      bus: Bus;
      now?: () => Date;
      throttle?: LoginThrottle;
      /** The account activity log (sign-ins and failed attempts). */
      activity?: Pick<ActivityService, 'record'>;
      /** Tells the owner of a taken address that someone tried to sign up with it (after the answer). */
      signupAttempted?: (owner: UserRow) => void;
    },
  ) {
    this.throttle = deps.throttle ?? new MemoryLoginThrottle();
  }

  private readonly throttle: LoginThrottle;

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  /**
   * A new password account. A taken e-mail is answered as a new one is (an id, the name and e-mail as
   * given, the role a new account would get) and nothing is made: its owner is mailed instead. The
   * password is hashed either way, so the time taken says nothing either. A taken username is a 409.
   */
  async signup(input: { email: string; username: string; password: string }): Promise<SignupAnswer> {
    assertPasswordAllowed(input.password, input, 'password');
    const passwordHash = await hashPassword(input.password);
    const outcome = await this.deps.users.create({
      email: input.email,
      username: input.username,
      passwordHash,
    });
    if ('emailTakenBy' in outcome) {
      this.deps.signupAttempted?.(outcome.emailTakenBy);
      return { id: randomUUID(), email: input.email, username: input.username, role: outcome.role };
    }
    const user = outcome.created;
    await this.deps.bus.publish('user.created', { id: user.id, username: user.username });
    return { id: user.id, email: user.email ?? input.email, username: user.username, role: user.role };
  }

  /**
   * Counts a try before the password (or code) is checked, and refuses it (429) while the account's run
   * of failed attempts makes it wait. A success clears the run.
   */
  private async assertMayTry(account: string): Promise<void> {
    const wait = await this.throttle.attempt(account);
    if (wait > 0) throw waitError(wait);
  }

  /**
   * `POST /auth/step-up`: the password or a 2FA code asked again confirms the sign-in `familyId` for five
   * minutes; answers until when. Failures count in the same per-account run as failed logins, so the
   * confirmation is no easier to guess than the login. An account with neither a password nor 2FA
   * (wallet, Google, Twitter) has nothing to confirm with: only a new sign-in confirms it.
   */
  async stepUp(userId: string, familyId: string, input: StepUpRequest): Promise<Date> {
    const user = await this.deps.users.findById(userId);
    if (user === undefined || user.disabledAt !== null) throw appError('UNAUTHORIZED');
    if (user.passwordHash === null && !user.twoFactorEnabled) throw appError('SIGN_IN_REQUIRED');
    const account = `user:${user.id}`;
    await this.assertMayTry(account);
    const byPassword = input.password !== undefined;
    if (byPassword && user.passwordHash === null) throw appError('BAD_REQUEST', STEP_UP_DETAILS.noPassword);
    const second =
      byPassword || !user.twoFactorEnabled
        ? null
        : await this.deps.twoFactor.verify(user.id, input.code ?? '');
    const ok = byPassword ? await verifyPassword(user.passwordHash, input.password ?? '') : second !== null;
    if (!ok) {
      await this.deps.activity?.record(user.id, {
        kind: 'step_up_failed',
        detail: { reason: byPassword ? 'password' : 'code' },
      });
      throw appError('UNAUTHORIZED', byPassword ? AUTH_DETAILS.wrongPassword : AUTH_DETAILS.invalidCode);
    }
    await this.throttle.succeeded(account);
    const until = await this.deps.sessions.markSteppedUp(user.id, familyId);
    await this.deps.activity?.record(user.id, { kind: 'step_up', detail: stepUpDetail(second) });
    return until;
  }

  /**
   * The password step. The failure never says whether the account or the password was wrong.
   *
   * With a `code`, an account with 2FA on signs in at once when the password and the code are both right
   * (no code step). That is also its owner's way in while failed logins from elsewhere make the account
   * wait: such a try is let past the wait, but counted as a failure before anything is checked (a success
   * clears the run), and every failure answers the wait, whichever part was wrong. Guessing gains nothing
   * over the code step: it needs the password and a fresh code at once, and each miss lengthens the wait.
   */
  async login(input: LoginInput): Promise<LoginOutcome> {
    const user = await this.deps.users.findByLogin(input.login);
    // One count per account, whether its username or its e-mail was typed.
    const account = user === undefined ? `login:${input.login.trim().toLowerCase()}` : `user:${user.id}`;
    const code = input.code ?? null;
    // A device this account remembered is its owner's: guesses from elsewhere do not delay it (its
    // failures still count for everyone else).
    const trusted = user !== undefined && input.rememberedBy === user.id;
    let waiting = false;
    if (trusted) await this.throttle.failed(account);
    else {
      const wait = await this.throttle.attempt(account);
      if (wait > 0 && code === null) throw waitError(wait);
      if (wait > 0) {
        waiting = true;
        await this.throttle.failed(account);
      }
    }
    const passwordOk = await verifyPassword(user?.passwordHash, input.password);
    const withCode = user?.twoFactorEnabled === true && code !== null;
    // The code is looked at (and spent) only after the right password: a wrong one never burns it.
    const second =
      withCode && passwordOk && code !== null ? await this.deps.twoFactor.verify(user.id, code) : null;
    const ok = passwordOk && (withCode ? second !== null : !waiting);
    if (user === undefined || !ok) {
      if (user !== undefined) {
        const reason = passwordOk ? 'code' : 'password';
        await this.recordDevice(user.id, 'sign_in_failed', input.device, { reason });
      }
      if (waiting) throw waitError(await this.throttle.waitMs(account));
      throw appError('UNAUTHORIZED', AUTH_DETAILS.badCredentials);
    }
    await this.throttle.succeeded(account);
    return this.finish(user, input.remember, input.device, { method: 'password' }, second);
  }

  /**
   * What a finished sign-in records and whether it confirms the sign-in for sensitive actions: a
   * password always does; an identity when it is not one added to the account in the last day; failing
   * that, a 2FA code does when two-factor login has been on for a day.
   */
  private async credential(user: UserRow, via: SignInVia, codeGiven: boolean): Promise<SignInCredential> {
    if (via.method === 'password') {
      return { method: codeGiven ? 'two_factor' : 'password', identityId: null, confirms: true };
    }
    let confirms = this.deps.identities.confirmsSignIn(via.identity, user);
    if (!confirms && codeGiven) {
      const since = await this.deps.twoFactor.enabledSince(user.id);
      confirms = since !== null && this.now().getTime() - since.getTime() >= NEW_IDENTITY_MS;
    }
    return { method: via.method, identityId: via.identity.id, confirms };
  }

  /**
   * The last step of every sign-in (password, wallet, Google, Twitter): a session, or, when the account
   * has two-factor login on, a pending challenge that `loginTwoFactor` finishes.
   */
  async finish(
    user: UserRow,
    remember: RememberRequest | null,
    device: RememberRequest,
    via: SignInVia,
    /** The 2FA code came with the password and was right: no code step. */
    second: SecondFactor | null = null,
  ): Promise<LoginOutcome> {
    const codeGiven = second !== null;
    // A disabled account signs in by no method at all.
    if (user.disabledAt !== null) throw appError('UNAUTHORIZED', AUTH_DETAILS.badCredentials);
    if (user.twoFactorEnabled && !codeGiven) {
      const challenge = randomToken();
      await this.deps.twoFactor.repo.startChallenge({
        userId: user.id,
        tokenHash: sha256(challenge),
        rememberMe: remember !== null,
        deviceInfo: device.deviceInfo,
        fingerprint: device.fingerprint,
        expiresAt: new Date(this.now().getTime() + CHALLENGE_TTL_MS),
        signInMethod: via.method,
        identityId: via.method === 'password' ? null : via.identity.id,
      });
      return { kind: 'two-factor', challenge };
    }
    const credential = await this.credential(user, via, codeGiven);
    const session = await this.deps.sessions.issue(user, remember, credential);
    await this.recordDevice(user.id, 'sign_in', device, signInDetail(via.method, second));
    return { kind: 'session', session };
  }

  private recordDevice(
    userId: string,
    kind: 'sign_in' | 'sign_in_failed',
    device: RememberRequest,
    detail: Record<string, string>,
  ): Promise<void> {
    return (
      this.deps.activity?.record(userId, {
        kind,
        detail,
        device: { info: device.deviceInfo, fingerprint: device.fingerprint },
      }) ?? Promise.resolve()
    );
  }

  /** The second step: a pending login (5 minutes, 5 tries) finished with a TOTP or recovery code. */
  async loginTwoFactor(challengeToken: string, code: string): Promise<IssuedSession> {
    const repo = this.deps.twoFactor.repo;
    const challenge = await repo.challengeByToken(sha256(challengeToken));
    if (challenge === undefined || challenge.expiresAt <= this.now()) {
      throw appError('UNAUTHORIZED', AUTH_DETAILS.challengeExpired);
    }
    const tries = await repo.countAttempt(challenge.id);
    if (tries > CHALLENGE_TRIES) {
      await repo.endChallenge(challenge.id);
      throw appError('UNAUTHORIZED', AUTH_DETAILS.challengeExpired);
    }
    const userId = challenge.userId;
    const user = await this.deps.users.findById(userId);
    const device = { deviceInfo: challenge.deviceInfo, fingerprint: challenge.fingerprint };
    const second = user === undefined ? null : await this.deps.twoFactor.verify(userId, code);
    if (user === undefined || second === null) {
      if (user !== undefined) await this.recordDevice(userId, 'sign_in_failed', device, { reason: 'code' });
      throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidCode);
    }
    await repo.endChallenge(challenge.id);
    const via = await this.viaOf(challenge);
    const credential = await this.credential(user, via, true);
    const session = await this.deps.sessions.issue(user, challenge.rememberMe ? device : null, credential);
    await this.recordDevice(userId, 'sign_in', device, signInDetail(via.method, second));
    return session;
  }

  /** How a pending 2FA login's first step signed in; its identity must still be linked. */
  private async viaOf(challenge: {
    userId: string;
    signInMethod: string | null;
    identityId: string | null;
  }): Promise<SignInVia> {
    const method = challenge.signInMethod;
    if (method !== 'wallet' && method !== 'google' && method !== 'twitter') return { method: 'password' };
    const identity =
      challenge.identityId === null ? undefined : await this.deps.identities.repo.byId(challenge.identityId);
    if (identity?.userId !== challenge.userId) {
      throw appError('UNAUTHORIZED', AUTH_DETAILS.challengeExpired);
    }
    return { method, identity };
  }

  /** The user's role now, or null when the account is gone (refresh and auto-login read it). */
  async roleOf(userId: string): Promise<Role | null> {
    const user = await this.deps.users.findById(userId);
    return user === undefined || user.disabledAt !== null ? null : user.role;
  }
}
