import { randomUUID } from 'node:crypto';
import { AUTH_DETAILS, STEP_UP_TTL_MS, type Device, type Role } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import type { SignInMethod, StoredDeviceInfo } from '../../db/schema';
import type { AccessTokens } from '../../plugins/auth-guard';
import { appError } from '../../plugins/errors';
import { randomToken, sha256 } from './crypto';
import { SessionsRepo } from './sessions.repo';

export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;
export const DEVICE_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * How long a just-rotated refresh token still buys a sibling in its family: two tabs that refreshed at
 * the same moment both stay signed in. Presented later, it is reuse and revokes the family.
 */
export const ROTATION_GRACE_MS = 10 * 1000;

/** Points where a test can hold a rotation or a revocation to order concurrent events. */
export interface SessionHooks {
  /** Called while a refresh holds its family's lock, before it decides. */
  familyLocked?: () => Promise<void>;
  /** Some of the user's sign-ins ended (logout, reuse, device revoked, password changed): close their sockets. */
  ended?: (userId: string) => void;
  /** A remembered device signed in by itself (auto-login). */
  remembered?: (
    userId: string,
    device: { deviceInfo: StoredDeviceInfo; fingerprint: string },
  ) => Promise<void>;
}

/** What a login, a refresh or an auto-login hands back to the route, which turns it into cookies. */
export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  /** The refresh cookie outlives the browser session. */
  persistent: boolean;
  refreshExpiresAt: Date;
  /** The sign-in (refresh family) the tokens belong to. */
  familyId: string;
  /** Set when this login remembered the device: the device cookie's value. */
  deviceToken?: string;
  deviceExpiresAt?: Date;
}

export interface RememberRequest {
  deviceInfo: StoredDeviceInfo;
  fingerprint: string;
}

/** What a sign-in proved itself with, recorded on the family it starts. */
export interface SignInCredential {
  method: SignInMethod;
  /** The identity (wallet, Google, Twitter) it signed in with; null for a password. */
  identityId: string | null;
  /**
   * Whether the sign-in counts as a confirmation ("Confirm it's you") for the next few minutes: not when
   * it proved itself only with a way to sign in that was added to the account less than a day ago.
   */
  confirms: boolean;
}

type FamilyCredential = Pick<SignInCredential, 'method' | 'identityId'>;

/**
 * Sessions: a short access token plus an opaque refresh token stored hashed and rotated on every use;
 * a rotated token presented again revokes its whole family (RFC 9700 §4.14.2). Remember-me adds a device
 * record whose 30-day token starts new families by auto-login.
 */
export class SessionsService {
  private readonly repo: SessionsRepo;

  constructor(
    db: Db,
    private readonly tokens: AccessTokens,
    private readonly now: () => Date = () => new Date(),
    private readonly hooks: SessionHooks = {},
  ) {
    this.repo = new SessionsRepo(db);
  }

  /**
   * Starts a session that records `credential`; with `remember`, also a remembered device bound to the
   * new refresh family. A sign-in by an identity is written while its row is held, so an unlink running
   * at the same moment either finds the new family and ends it, or this sign-in finds the identity gone
   * (401).
   */
  async issue(
    user: { id: string; role: Role },
    remember: RememberRequest | null,
    credential: SignInCredential,
  ): Promise<IssuedSession> {
    const now = this.now();
    const issued = await this.repo.transaction(async (repo) => {
      const { identityId } = credential;
      if (identityId !== null && !(await repo.holdIdentity(identityId))) {
        throw appError('UNAUTHORIZED', AUTH_DETAILS.badCredentials);
      }
      let device: { id: string; token: string; expiresAt: Date } | null = null;
      if (remember !== null) {
        const token = randomToken();
        const expiresAt = new Date(now.getTime() + DEVICE_TTL_MS);
        const row = await repo.insertDevice({
          userId: user.id,
          tokenHash: sha256(token),
          deviceInfo: remember.deviceInfo,
          fingerprint: remember.fingerprint,
          expiresAt,
          identityId,
        });
        device = { id: row.id, token, expiresAt };
      }
      const session = await this.startFamily(user, device?.id ?? null, remember !== null, credential, repo);
      return device === null
        ? session
        : { ...session, deviceToken: device.token, deviceExpiresAt: device.expiresAt };
    });
    // A sign-in that just proved who it is (password, 2FA, a wallet or Google account the account has had
    // for a while) is confirmed for the next few minutes: adding a key right after signing in asks
    // nothing more. A wallet linked today proves only that whoever linked it holds it.
    if (credential.confirms) await this.markSteppedUp(user.id, issued.familyId);
    return issued;
  }

  private async startFamily(
    user: { id: string; role: Role },
    deviceId: string | null,
    persistent: boolean,
    credential: FamilyCredential,
    repo: SessionsRepo = this.repo,
  ) {
    return this.addToken(user, randomUUID(), deviceId, persistent, credential, repo);
  }

  private async addToken(
    user: { id: string; role: Role },
    familyId: string,
    deviceId: string | null,
    persistent: boolean,
    credential: { method: SignInMethod | null; identityId: string | null },
    repo: SessionsRepo = this.repo,
  ): Promise<IssuedSession> {
    const refreshToken = randomToken();
    const refreshExpiresAt = new Date(this.now().getTime() + REFRESH_TTL_MS);
    await repo.insertRefresh({
      userId: user.id,
      familyId,
      deviceId,
      tokenHash: sha256(refreshToken),
      persistent,
      expiresAt: refreshExpiresAt,
      signInMethod: credential.method,
      identityId: credential.identityId,
    });
    const accessToken = await this.tokens.sign({ userId: user.id, role: user.role, familyId });
    return { accessToken, refreshToken, persistent, refreshExpiresAt, familyId };
  }

  /**
   * `POST /auth/refresh`: exchanges a refresh token for a new pair, in one transaction holding the
   * family's row locks. A token rotated less than `ROTATION_GRACE_MS` ago buys one sibling (a second tab's
   * simultaneous refresh) without the family's step-up; presented later it revokes its family. `roleOf` reads the user's current role
   * (and fails for a deleted user).
   */
  async refresh(presented: string, roleOf: (userId: string) => Promise<Role | null>): Promise<IssuedSession> {
    const hash = sha256(presented);
    const seen = await this.repo.findRefresh(hash);
    const role = seen === undefined ? null : await roleOf(seen.userId);
    if (seen === undefined || role === null) throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
    const outcome = await this.repo.transaction(async (repo) => {
      await repo.lockFamily(seen.familyId);
      await this.hooks.familyLocked?.();
      const now = this.now();
      const row = await repo.findRefresh(hash);
      if (row === undefined || row.revokedAt !== null) return { failure: AUTH_DETAILS.invalidRefresh };
      // A rotated token whose grace sibling was given has `expiresAt` set to `rotatedAt`: it is not
      // merely expired, its reuse after the grace still revokes the family.
      const graceSpent = row.rotatedAt !== null && row.expiresAt.getTime() === row.rotatedAt.getTime();
      if (!graceSpent && row.expiresAt <= now) return { failure: AUTH_DETAILS.invalidRefresh };
      if (await repo.familyRevoked(row.familyId)) return { failure: AUTH_DETAILS.invalidRefresh };
      const fresh = row.rotatedAt === null && (await repo.markRotated(row.id, now));
      if (!fresh) {
        if (row.rotatedAt === null || now.getTime() - row.rotatedAt.getTime() > ROTATION_GRACE_MS) {
          await repo.revokeFamily(row.familyId, now);
          return { failure: AUTH_DETAILS.refreshReused, userId: row.userId };
        }
        // One sibling per rotated token (a second tab's simultaneous refresh), and it does not carry
        // the family's step-up: whoever holds the sibling confirms again before a sensitive change.
        if (!(await repo.spendGrace(row.id))) return { failure: AUTH_DETAILS.invalidRefresh };
        await repo.clearStepUp(row.familyId);
      }
      return {
        session: await this.addToken(
          { id: row.userId, role },
          row.familyId,
          row.deviceId,
          row.persistent,
          { method: row.signInMethod, identityId: row.identityId },
          repo,
        ),
      };
    });
    if ('failure' in outcome) {
      if ('userId' in outcome && outcome.userId !== undefined) this.hooks.ended?.(outcome.userId);
      throw appError('UNAUTHORIZED', outcome.failure);
    }
    return outcome.session;
  }

  /** The account a remembered device's token belongs to, or null when it is unknown or expired. */
  async deviceOwner(deviceToken: string): Promise<string | null> {
    const device = await this.repo.findDeviceByToken(sha256(deviceToken), this.now());
    return device?.userId ?? null;
  }

  /** `POST /auth/auto-login`: a new family from a remembered device's token. */
  async autoLogin(deviceToken: string, roleOf: (userId: string) => Promise<Role | null>) {
    const now = this.now();
    const device = await this.repo.findDeviceByToken(sha256(deviceToken), now);
    const role = device === undefined ? null : await roleOf(device.userId);
    if (device === undefined || role === null) throw appError('UNAUTHORIZED', AUTH_DETAILS.unknownDevice);
    await this.repo.touchDevice(device.id, now);
    // A device a wallet's sign-in remembered starts families of that wallet: unlinking it ends them.
    const credential = { method: 'remembered' as const, identityId: device.identityId };
    const session = await this.repo.transaction(async (repo) => {
      if (device.identityId !== null && !(await repo.holdIdentity(device.identityId))) {
        throw appError('UNAUTHORIZED', AUTH_DETAILS.unknownDevice);
      }
      return this.startFamily({ id: device.userId, role }, device.id, true, credential, repo);
    });
    await this.hooks.remembered?.(device.userId, {
      deviceInfo: device.deviceInfo,
      fingerprint: device.fingerprint,
    });
    return session;
  }

  /** Confirms a sign-in for the next {@link STEP_UP_TTL_MS}; answers until when. */
  async markSteppedUp(userId: string, familyId: string): Promise<Date> {
    const now = this.now();
    const until = new Date(now.getTime() + STEP_UP_TTL_MS);
    await this.repo.markSteppedUp(userId, familyId, until);
    await this.repo.purgeStepUps(userId, now);
    return until;
  }

  /** Until when a sign-in is confirmed, or null when it is not confirmed now. */
  async steppedUpUntil(userId: string, familyId: string): Promise<Date | null> {
    const until = await this.repo.steppedUpUntil(userId, familyId);
    return until !== undefined && until > this.now() ? until : null;
  }

  /** Of these sign-ins, those logged out or revoked: their access tokens stop working too. */
  endedAmong(familyIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.repo.revokedFamilies(familyIds);
  }

  /** The family and device a refresh token belongs to, if it is still live. */
  async currentOf(refreshToken: string | undefined) {
    if (refreshToken === undefined) return null;
    const row = await this.repo.findRefresh(sha256(refreshToken));
    if (row === undefined || row.revokedAt !== null) return null;
    return { userId: row.userId, familyId: row.familyId, deviceId: row.deviceId };
  }

  /** `POST /auth/logout`: revokes the presented family and forgets the presented device. */
  async logout(refreshToken: string | undefined, deviceToken: string | undefined): Promise<void> {
    const now = this.now();
    if (refreshToken !== undefined) {
      const row = await this.repo.findRefresh(sha256(refreshToken));
      if (row !== undefined) {
        await this.repo.revokeFamily(row.familyId, now);
        this.hooks.ended?.(row.userId);
      }
    }
    if (deviceToken !== undefined) {
      const device = await this.repo.findDeviceByToken(sha256(deviceToken), now);
      if (device !== undefined) await this.forgetDevice(device.userId, device.id);
    }
  }

  async listDevices(userId: string, currentDeviceId: string | null): Promise<Device[]> {
    const rows = await this.repo.listDevices(userId, this.now());
    return rows.map((r) => ({
      id: r.id,
      device_info: r.deviceInfo,
      device_fingerprint: r.fingerprint,
      last_used_at: r.lastUsedAt.toISOString(),
      is_current: r.id === currentDeviceId,
    }));
  }

  /** Forgets one device and kills the refresh families it started. */
  async forgetDevice(userId: string, deviceId: string): Promise<boolean> {
    await this.repo.revokeDeviceFamilies(userId, { only: deviceId }, this.now());
    this.hooks.ended?.(userId);
    return this.repo.deleteDevice(userId, deviceId);
  }

  /**
   * Forgets every device of a user (but `keep`), with their refresh families (but `keepFamily`, the
   * sign-in asking, which goes on as a session that is not remembered); answers how many.
   */
  async forgetDevices(
    userId: string,
    keep: string | null = null,
    keepFamily: string | null = null,
  ): Promise<number> {
    await this.repo.revokeDeviceFamilies(userId, { keep }, this.now(), keepFamily);
    this.hooks.ended?.(userId);
    return (await this.repo.deleteDevices(userId, keep)).length;
  }

  /** What started a sign-in of the user: its method and identity, when they were recorded. */
  async credentialOf(
    userId: string,
    familyId: string,
  ): Promise<{ method: SignInMethod | null; identityId: string | null } | null> {
    const row = await this.repo.credentialOf(familyId);
    if (row?.userId !== userId) return null;
    return { method: row.signInMethod, identityId: row.identityId };
  }

  /**
   * Ends every sign-in these identities started (but `keepFamily`, the one asking), directly or through
   * a device they remembered, and forgets those devices.
   */
  async endIdentities(
    userId: string,
    identityIds: readonly string[],
    keepFamily: string | null,
  ): Promise<void> {
    if (identityIds.length === 0) return;
    await this.repo.revokeIdentityFamilies(userId, identityIds, keepFamily, this.now());
    await this.repo.deleteIdentityDevices(userId, identityIds);
    this.hooks.ended?.(userId);
  }

  /** Ends every other session of a user (password change or reset). */
  async revokeOthers(userId: string, keep: { familyId: string; deviceId: string | null } | null) {
    await this.repo.revokeUserFamilies(userId, keep?.familyId ?? null, this.now());
    await this.forgetDevices(userId, keep?.deviceId ?? null);
    this.hooks.ended?.(userId);
  }
}
