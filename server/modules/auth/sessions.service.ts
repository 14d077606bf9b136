import { randomUUID } from 'node:crypto';
import { AUTH_DETAILS, type Device, type Role } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import type { StoredDeviceInfo } from '../../db/schema';
import type { AccessTokens } from '../../plugins/auth-guard';
import { appError } from '../../plugins/errors';
import { randomToken, sha256 } from './crypto';
import { SessionsRepo } from './sessions.repo';

export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;
export const DEVICE_TTL_MS = 30 * 24 * 3600 * 1000;

/** What a login, a refresh or an auto-login hands back to the route, which turns it into cookies. */
export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  /** The refresh cookie outlives the browser session. */
  persistent: boolean;
  refreshExpiresAt: Date;
  /** Set when this login remembered the device: the device cookie's value. */
  deviceToken?: string;
  deviceExpiresAt?: Date;
}

export interface RememberRequest {
  deviceInfo: StoredDeviceInfo;
  fingerprint: string;
}

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
  ) {
    this.repo = new SessionsRepo(db);
  }

  /** Starts a session; with `remember`, also a remembered device bound to the new refresh family. */
  async issue(user: { id: string; role: Role }, remember: RememberRequest | null): Promise<IssuedSession> {
    const now = this.now();
    let device: { id: string; token: string; expiresAt: Date } | null = null;
    if (remember !== null) {
      const token = randomToken();
      const expiresAt = new Date(now.getTime() + DEVICE_TTL_MS);
      const row = await this.repo.insertDevice({
        userId: user.id,
        tokenHash: sha256(token),
        deviceInfo: remember.deviceInfo,
        fingerprint: remember.fingerprint,
        expiresAt,
      });
      device = { id: row.id, token, expiresAt };
    }
    const session = await this.startFamily(user, device?.id ?? null, remember !== null);
    return device === null
      ? session
      : { ...session, deviceToken: device.token, deviceExpiresAt: device.expiresAt };
  }

  private async startFamily(user: { id: string; role: Role }, deviceId: string | null, persistent: boolean) {
    return this.addToken(user, randomUUID(), deviceId, persistent);
  }

  private async addToken(
    user: { id: string; role: Role },
    familyId: string,
    deviceId: string | null,
    persistent: boolean,
  ): Promise<IssuedSession> {
    const refreshToken = randomToken();
    const refreshExpiresAt = new Date(this.now().getTime() + REFRESH_TTL_MS);
    await this.repo.insertRefresh({
      userId: user.id,
      familyId,
      deviceId,
      tokenHash: sha256(refreshToken),
      persistent,
      expiresAt: refreshExpiresAt,
    });
    const accessToken = await this.tokens.sign({ userId: user.id, role: user.role });
    return { accessToken, refreshToken, persistent, refreshExpiresAt };
  }

  /**
   * `POST /auth/refresh`: exchanges a refresh token for a new pair. A token that was already rotated
   * revokes its family. `roleOf` reads the user's current role (and fails for a deleted user).
   */
  async refresh(presented: string, roleOf: (userId: string) => Promise<Role | null>): Promise<IssuedSession> {
    const now = this.now();
    const row = await this.repo.findRefresh(sha256(presented));
    if (row === undefined || row.revokedAt !== null || row.expiresAt <= now) {
      throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
    }
    if (row.rotatedAt !== null || !(await this.repo.markRotated(row.id, now))) {
      await this.repo.revokeFamily(row.familyId, now);
      throw appError('UNAUTHORIZED', AUTH_DETAILS.refreshReused);
    }
    const role = await roleOf(row.userId);
    if (role === null) throw appError('UNAUTHORIZED', AUTH_DETAILS.invalidRefresh);
    return this.addToken({ id: row.userId, role }, row.familyId, row.deviceId, row.persistent);
  }

  /** `POST /auth/auto-login`: a new family from a remembered device's token. */
  async autoLogin(deviceToken: string, roleOf: (userId: string) => Promise<Role | null>) {
    const now = this.now();
    const device = await this.repo.findDeviceByToken(sha256(deviceToken), now);
    const role = device === undefined ? null : await roleOf(device.userId);
    if (device === undefined || role === null) throw appError('UNAUTHORIZED', AUTH_DETAILS.unknownDevice);
    await this.repo.touchDevice(device.id, now);
    return this.startFamily({ id: device.userId, role }, device.id, true);
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
      if (row !== undefined) await this.repo.revokeFamily(row.familyId, now);
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
    return this.repo.deleteDevice(userId, deviceId);
  }

  /** Forgets every device of a user (but `keep`), with their refresh families; answers how many. */
  async forgetDevices(userId: string, keep: string | null = null): Promise<number> {
    await this.repo.revokeDeviceFamilies(userId, { keep }, this.now());
    return (await this.repo.deleteDevices(userId, keep)).length;
  }

  /** Ends every other session of a user (password change or reset). */
  async revokeOthers(userId: string, keep: { familyId: string; deviceId: string | null } | null) {
    await this.repo.revokeUserFamilies(userId, keep?.familyId ?? null, this.now());
    await this.forgetDevices(userId, keep?.deviceId ?? null);
  }
}
