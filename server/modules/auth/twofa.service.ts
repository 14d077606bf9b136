import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { AUTH_DETAILS, RECOVERY_CODE, TOTP_CODE } from '../../../src/contracts/auth';
import type { Db } from '../../db/client';
import { appError } from '../../plugins/errors';
import type { Secrets } from '../../plugins/secrets';
import type { UsersService } from '../users/users.service';
import { verifyPassword } from './crypto';
import { TwoFactorRepo } from './twofa.repo';

export const ISSUER = 'Signal Console';
const PERIOD = 30;
const RECOVERY_COUNT = 10;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function totpFor(secret: string, label: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

/** `XXXXX-XXXXX` from the base32 alphabet: 50 random bits. */
function recoveryCode(): string {
  const chars = [...randomBytes(10)].map((b) => BASE32[b % 32] ?? 'A').join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * What a second factor that was accepted was: a TOTP code, or a recovery code (spent) with the count of
 * those still unspent. Null when it was not accepted.
 */
export type SecondFactor = { kind: 'totp' } | { kind: 'recovery'; left: number };

/**
 * TOTP two-factor login (RFC 6238, 30 s, 6 digits, ±1 step). The secret is stored encrypted; each
 * accepted time step is recorded so a code cannot be used twice; ten one-time recovery codes, kept as
 * keyed hashes, are shown once when 2FA is enabled.
 */
export class TwoFactorService {
  readonly repo: TwoFactorRepo;

  constructor(
    db: Db,
    private readonly secrets: Secrets,
    private readonly users: UsersService,
    private readonly now: () => number = Date.now,
  ) {
    this.repo = new TwoFactorRepo(db);
  }

  private hashRecovery(code: string): string {
    return this.secrets.keyedHash('recovery-code', code.toUpperCase());
  }

  async isEnabled(userId: string): Promise<boolean> {
    return (await this.repo.find(userId))?.enabled === true;
  }

  /** When two-factor login was turned on, or null while it is off. */
  async enabledSince(userId: string): Promise<Date | null> {
    const row = await this.repo.find(userId);
    return row?.enabled === true ? row.updatedAt : null;
  }

  /** Starts (or restarts) setup: a fresh secret, not yet enabled. */
  async setup(userId: string, label: string): Promise<{ secret: string; otpauth_url: string }> {
    if (await this.isEnabled(userId)) throw appError('BAD_REQUEST', AUTH_DETAILS.twoFactorAlreadyOn);
    const secret = new Secret({ size: 20 }).base32;
    await this.repo.saveSecret(userId, this.secrets.encrypt(secret));
    return { secret, otpauth_url: totpFor(secret, label).toString() };
  }

  /** The setup's otpauth URI as a PNG QR code. */
  async qrPng(userId: string, label: string): Promise<Buffer> {
    const row = await this.repo.find(userId);
    if (row === undefined || row.enabled) throw appError('BAD_REQUEST', AUTH_DETAILS.twoFactorNotStarted);
    const uri = totpFor(this.secrets.decrypt(row.secretEnc), label).toString();
    return QRCode.toBuffer(uri, { type: 'png', margin: 2, width: 240 });
  }

  /** Enables 2FA when `code` matches the setup's secret; answers the recovery codes (shown once). */
  async enable(userId: string, code: string): Promise<string[]> {
    const row = await this.repo.find(userId);
    if (row === undefined) throw appError('BAD_REQUEST', AUTH_DETAILS.twoFactorNotStarted);
    if (row.enabled) throw appError('BAD_REQUEST', AUTH_DETAILS.twoFactorAlreadyOn);
    if (!(await this.acceptTotp(userId, this.secrets.decrypt(row.secretEnc), code))) {
      throw appError('BAD_REQUEST', AUTH_DETAILS.invalidCode);
    }
    const codes = Array.from({ length: RECOVERY_COUNT }, recoveryCode);
    await this.repo.replaceRecoveryCodes(
      userId,
      codes.map((c) => this.hashRecovery(c)),
    );
    await this.repo.setEnabled(userId, true);
    await this.users.setTwoFactorEnabled(userId, true);
    return codes;
  }

  /** Turns 2FA off after checking the account password. */
  async disable(userId: string, password: string): Promise<void> {
    const user = await this.users.findById(userId);
    if (!(await verifyPassword(user?.passwordHash, password))) {
      throw appError('BAD_REQUEST', AUTH_DETAILS.wrongPassword);
    }
    if (!user?.twoFactorEnabled) throw appError('BAD_REQUEST', AUTH_DETAILS.twoFactorNotOn);
    await this.repo.remove(userId);
    await this.users.setTwoFactorEnabled(userId, false);
  }

  /** A login's second factor: a fresh TOTP code, or an unspent recovery code. */
  async check(userId: string, code: string): Promise<boolean> {
    return (await this.verify(userId, code)) !== null;
  }

  /** As {@link check}, saying which kind of code it was and, for a recovery code, how many are left. */
  async verify(userId: string, code: string): Promise<SecondFactor | null> {
    const row = await this.repo.find(userId);
    if (row === undefined || !row.enabled) return null;
    if (RECOVERY_CODE.test(code.toUpperCase())) {
      if (!(await this.repo.useRecoveryCode(userId, this.hashRecovery(code)))) return null;
      return { kind: 'recovery', left: await this.repo.recoveryCodesLeft(userId) };
    }
    const ok = await this.acceptTotp(userId, this.secrets.decrypt(row.secretEnc), code);
    return ok ? { kind: 'totp' } : null;
  }

  private async acceptTotp(userId: string, secret: string, code: string): Promise<boolean> {
    if (!TOTP_CODE.test(code)) return false;
    const timestamp = this.now();
    const delta = totpFor(secret, 'check').validate({ token: code, timestamp, window: 1 });
    if (delta === null) return false;
    const step = Math.floor(timestamp / 1000 / PERIOD) + delta;
    return this.repo.claimStep(userId, step);
  }
}
