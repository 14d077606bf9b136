import type { FastifyBaseLogger } from 'fastify';
import type { ActivityEntry, ActivityKind } from '../../../src/contracts/activity';
import type { DeviceInfo } from '../../../src/contracts/auth';
import type { Mailer } from '../auth/mailer';
import type { ActivityRepo, ActivityRow } from './activity.repo';

/** Where an event came from, when a device was involved. */
export interface ActivityDevice {
  info: DeviceInfo;
  fingerprint: string;
}

export interface ActivityEvent {
  kind: ActivityKind;
  /** Plain words only (a method, a key's hint, a plan): never a secret. */
  detail?: Record<string, string>;
  device?: ActivityDevice;
}

/** The owner's address, for the mails that follow some events. */
export type AddressOf = (userId: string) => Promise<{ email: string | null; username: string } | undefined>;

const METHOD: Record<string, string> = {
  password: 'with a password',
  two_factor: 'with a password and a 2FA code',
  wallet: 'with a wallet',
  google: 'with Google',
  twitter: 'with Twitter',
  remembered: 'on a remembered device',
};

const FIRST_STEP: Record<string, string> = {
  wallet: 'a wallet',
  google: 'Google',
  twitter: 'Twitter',
};

/** "a recovery code (3 left)": a spent recovery code always says how many remain. */
const recoveryCode = (detail: Record<string, string>): string =>
  `a recovery code (${detail.left ?? '?'} left)`;

function signInText(detail: Record<string, string>): string {
  if (detail.method === 'recovery_code') {
    const first = FIRST_STEP[detail.via ?? ''] ?? 'a password';
    return `Signed in with ${first} and ${recoveryCode(detail)}`;
  }
  return `Signed in ${METHOD[detail.method ?? ''] ?? ''}`.trim();
}

function stepUpText(detail: Record<string, string>): string {
  if (detail.method === 'recovery_code') return `Confirmed it was you with ${recoveryCode(detail)}`;
  return detail.method === 'two_factor'
    ? 'Confirmed it was you with a 2FA code'
    : 'Confirmed it was you with the password';
}

/** The one line an entry shows, from its kind and detail. */
export function describeActivity(kind: ActivityKind, detail: Record<string, string>): string {
  switch (kind) {
    case 'sign_in':
      return signInText(detail);
    case 'sign_in_failed':
      return detail.reason === 'code'
        ? 'A sign-in failed: wrong 2FA code'
        : 'A sign-in failed: wrong password';
    case 'two_factor_enabled':
      return 'Two-factor login turned on';
    case 'two_factor_disabled':
      return 'Two-factor login turned off';
    case 'password_changed':
      return 'Password changed';
    case 'password_reset':
      return 'Password reset from a mailed link';
    case 'key_added':
      return `Exchange API key ${detail.hint ?? ''} added (${detail.environment ?? 'live'})`;
    case 'key_removed':
      return `Exchange API key ${detail.hint ?? ''} removed`;
    case 'device_removed':
      return 'A remembered device was removed';
    case 'devices_revoked':
      return `Every other remembered device was signed out (${detail.count ?? '0'})`;
    case 'plan_changed':
      return `Plan: ${detail.plan ?? 'changed'}`;
    case 'kill_switch':
      return detail.on === 'true' ? 'Kill switch on: automated trading stopped' : 'Kill switch off';
    case 'step_up':
      return stepUpText(detail);
    case 'step_up_failed':
      return detail.reason === 'code'
        ? 'A confirmation failed: wrong 2FA code'
        : 'A confirmation failed: wrong password';
    case 'wallet_linked':
      return `Wallet ${detail.hint ?? ''} linked: it can sign in to this account`;
    case 'wallet_unlinked':
      return `Wallet ${detail.hint ?? ''} unlinked`;
    case 'identity_linked':
      return `${PROVIDER[detail.provider ?? ''] ?? 'An account'} linked: it can sign in to this account`;
    case 'identity_unlinked':
      return `${PROVIDER[detail.provider ?? ''] ?? 'An account'} unlinked`;
    case 'telegram_linked':
      return 'A Telegram chat was linked: it receives alerts and can act on this account';
    case 'telegram_unlinked':
      return 'The Telegram chat was unlinked';
    case 'push_subscribed':
      return `Web Push turned on for a browser${detail.host ? ` (${detail.host})` : ''}`;
    case 'push_unsubscribed':
      return 'Web Push turned off for a browser';
  }
}

const PROVIDER: Record<string, string> = { google: 'A Google account', twitter: 'A Twitter account' };

/** A spent recovery code is mailed whatever it let in: a thief with the password uses one first. */
const RECOVERY_SUBJECT = 'A recovery code was used on your Signal Console account';

/** The subject of the mail that follows an event, if one does. */
function subjectOf(event: ActivityEvent, firstFromDevice: boolean): string | undefined {
  if (event.detail?.method === 'recovery_code') return RECOVERY_SUBJECT;
  return firstFromDevice ? 'New sign-in to your Signal Console account' : MAILED[event.kind];
}

/** What the mail adds about the recovery codes left, when one was spent. */
function recoveryNote(detail: Record<string, string> | undefined): string[] {
  if (detail?.method !== 'recovery_code') return [];
  return [
    '',
    `Each recovery code works once; ${detail.left ?? 'some'} are left. To get a fresh set, turn two-factor`,
    'login off and on again in Account settings.',
  ];
}

const MAILED: Partial<Record<ActivityKind, string>> = {
  key_added: 'An exchange API key was added to your Signal Console account',
  key_removed: 'An exchange API key was removed from your Signal Console account',
  // A new way to sign in or to be reached is what a thief adds first: the owner hears of each at once.
  wallet_linked: 'A wallet was linked to your Signal Console account',
  identity_linked: 'A sign-in was linked to your Signal Console account',
  two_factor_enabled: 'Two-factor login was turned on for your Signal Console account',
  telegram_linked: 'A Telegram chat was linked to your Signal Console account',
  push_subscribed: 'A browser will receive Web Push alerts of your Signal Console account',
};

/**
 * The activity log: every security-relevant event of an account, with the device it came from. Recording
 * never fails the action it describes (a failure is logged). A sign-in from a device the account never
 * signed in from before, and key changes, are also mailed to the owner.
 */
export class ActivityService {
  constructor(
    private readonly deps: {
      repo: ActivityRepo;
      mailer: Mailer;
      addressOf: AddressOf;
      log: FastifyBaseLogger;
      publicUrl: string;
    },
  ) {}

  async record(userId: string, event: ActivityEvent): Promise<void> {
    try {
      const firstFromDevice =
        event.kind === 'sign_in' &&
        event.device !== undefined &&
        (await this.deps.repo.anySignIn(userId)) &&
        !(await this.deps.repo.seenDevice(userId, event.device.fingerprint));
      await this.deps.repo.insert({
        userId,
        kind: event.kind,
        detail: event.detail ?? {},
        device: event.device === undefined ? null : `${event.device.info.browser} on ${event.device.info.os}`,
        place: event.device?.info.place ?? null,
        fingerprint: event.device?.fingerprint ?? null,
      });
      const subject = subjectOf(event, firstFromDevice);
      if (subject !== undefined) await this.mail(userId, subject, event);
    } catch (err) {
      this.deps.log.warn({ err, kind: event.kind }, 'activity not recorded');
    }
  }

  async list(userId: string, limit: number): Promise<ActivityEntry[]> {
    return (await this.deps.repo.list(userId, limit)).map(toEntry);
  }

  private async mail(userId: string, subject: string, event: ActivityEvent): Promise<void> {
    const owner = await this.deps.addressOf(userId);
    if (owner?.email == null) return;
    const where =
      event.device === undefined
        ? ''
        : ` from ${event.device.info.browser} on ${event.device.info.os}${event.device.info.place ? ` near ${event.device.info.place}` : ''}`;
    await this.deps.mailer.send({
      to: owner.email,
      subject,
      link: `${this.deps.publicUrl}/`,
      text: [
        `Hello ${owner.username},`,
        '',
        `${describeActivity(event.kind, event.detail ?? {})}${where}, at ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC.`,
        ...recoveryNote(event.detail),
        '',
        'If this was you, there is nothing to do. If not, change your password, turn on two-factor login',
        'and remove unknown devices and keys in Account settings.',
      ].join('\n'),
    });
  }
}

function toEntry(row: ActivityRow): ActivityEntry {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    kind: row.kind as ActivityKind,
    text: describeActivity(row.kind as ActivityKind, row.detail),
    device: row.device,
    place: row.place,
  };
}
