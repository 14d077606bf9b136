import {
  type NotificationSettings,
  type NotificationSettingsPatch,
  type NotificationsState,
  type PushSubscriptionBody,
  type TelegramState,
} from '../../../src/contracts/notifications';
import { appError } from '../../plugins/errors';
import type { NotificationsRepo } from './notifications.repo';
import type { VapidKeys } from './push/vapid';

/** What GET answers for Telegram when the server has no Telegram part. */
export const NO_TELEGRAM: TelegramState = {
  configured: false,
  bot: null,
  linked: false,
  chat: null,
  linked_at: null,
};

export const PUSH_DETAILS = {
  notHttps: 'endpoint must be an https URL.',
  notSubscribed: 'This browser is not subscribed.',
  unavailable: 'This server cannot send Web Push right now.',
} as const;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether a push endpoint may be used: https, or plain http to a loopback test double when allowed. */
export function endpointAllowed(endpoint: string, allowLoopbackHttp: boolean): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return allowLoopbackHttp && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}

export interface NotificationsServiceDeps {
  /** The Telegram part's view of a user, or NO_TELEGRAM without one. */
  telegram(userId: string): Promise<TelegramState>;
  /** The VAPID pair, or null when the server has none. */
  vapid(): Promise<VapidKeys | null>;
  allowLoopbackHttp: boolean;
  /** A user's settings or channels changed: the dispatcher re-reads them. */
  changed(userId: string): void;
}

/** Per-user notification settings (the defaults until changed) and the browsers subscribed to Web Push. */
export class NotificationsService {
  constructor(
    private readonly repo: NotificationsRepo,
    private readonly deps: NotificationsServiceDeps,
  ) {}

  settings(userId: string): Promise<NotificationSettings> {
    return this.repo.settings(userId);
  }

  async state(userId: string): Promise<NotificationsState> {
    const [settings, telegram, keys, subscriptions] = await Promise.all([
      this.repo.settings(userId),
      this.deps.telegram(userId).catch(() => NO_TELEGRAM),
      this.deps.vapid(),
      this.repo.subscriptionCount(userId),
    ]);
    return {
      settings,
      telegram,
      push: { configured: keys !== null, public_key: keys?.publicKey ?? null, subscriptions },
    };
  }

  /**
   * Whether a change needs a confirmed sign-in: turning on orders on live keys from Telegram. Turning it
   * off, or sending `true` when it is on already, does not.
   */
  async needsStepUp(userId: string, patch: NotificationSettingsPatch): Promise<boolean> {
    if (patch.telegram_live_orders !== true) return false;
    return !(await this.repo.settings(userId)).telegram_live_orders;
  }

  async patch(userId: string, patch: NotificationSettingsPatch): Promise<NotificationSettings> {
    const settings = await this.repo.patch(userId, patch);
    this.deps.changed(userId);
    return settings;
  }

  /** For the Telegram part: whether a button or command may place an order on a live key. */
  async liveOrdersAllowed(userId: string): Promise<boolean> {
    return (await this.repo.settings(userId)).telegram_live_orders;
  }

  async subscribe(userId: string, body: PushSubscriptionBody, userAgent: string | null): Promise<void> {
    if (!endpointAllowed(body.endpoint, this.deps.allowLoopbackHttp)) {
      throw appError('BAD_REQUEST', PUSH_DETAILS.notHttps);
    }
    if ((await this.deps.vapid()) === null) throw appError('SERVICE_UNAVAILABLE', PUSH_DETAILS.unavailable);
    await this.repo.saveSubscription(
      userId,
      { endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth },
      userAgent === null ? null : userAgent.slice(0, 300),
    );
    this.deps.changed(userId);
  }

  /** 404 when this user had no such subscription. */
  async unsubscribe(userId: string, endpoint: string): Promise<void> {
    if (!(await this.repo.removeSubscription(userId, endpoint))) {
      throw appError('NOT_FOUND', PUSH_DETAILS.notSubscribed);
    }
    this.deps.changed(userId);
  }
}
