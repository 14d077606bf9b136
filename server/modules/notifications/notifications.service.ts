import {
  type NotificationSettings,
  type NotificationSettingsPatch,
  type NotificationsState,
  type PushSubscriptionBody,
  type TelegramState,
} from '../../../src/contracts/notifications';
import type { ActivityEvent } from '../activity/activity.service';
import { appError, RequestValidationError } from '../../plugins/errors';
import type { NotificationsRepo } from './notifications.repo';
import { PushEndpointRefused, type PushEndpointPolicy } from './push/endpoint-policy';
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
  notSubscribed: 'This browser is not subscribed.',
  unavailable: 'This server cannot send Web Push right now.',
} as const;

/**
 * How many browsers of one user take Web Push. A subscription past it makes the oldest give way rather
 * than being refused: a browser's endpoint can change without the server hearing of it (the old one
 * lingers until its push service says it is gone), and a user can remove only the browser in front of
 * them, so a refusal would lock out their new browser for rows they cannot see.
 */
export const MAX_PUSH_SUBSCRIPTIONS = 10;

/** The host of an endpoint (the push service), the only part of it the activity log names. */
export function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return '';
  }
}

export interface NotificationsServiceDeps {
  /** The Telegram part's view of a user, or NO_TELEGRAM without one. */
  telegram(userId: string): Promise<TelegramState>;
  /** The VAPID pair, or null when the server has none. */
  vapid(): Promise<VapidKeys | null>;
  /** Which endpoints may be subscribed (and pushed to). */
  endpoints: PushEndpointPolicy;
  /** A user's settings or channels changed: the dispatcher re-reads them. */
  changed(userId: string): void;
  /** The account's activity log: a browser taking Web Push is a new way to reach the account. */
  activity(userId: string, event: ActivityEvent): Promise<void>;
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

  /**
   * Keeps a browser's subscription once its endpoint passed the policy (resolved, every address checked,
   * nothing connected to): a refused one is a 422 naming why. Past MAX_PUSH_SUBSCRIPTIONS the user's
   * oldest give way; each change is a line in the activity log.
   */
  async subscribe(userId: string, body: PushSubscriptionBody, userAgent: string | null): Promise<void> {
    try {
      await this.deps.endpoints.target(body.endpoint);
    } catch (err) {
      if (!(err instanceof PushEndpointRefused)) throw err;
      throw new RequestValidationError([{ loc: ['body', 'endpoint'], msg: err.detail, type: 'value_error' }]);
    }
    if ((await this.deps.vapid()) === null) throw appError('SERVICE_UNAVAILABLE', PUSH_DETAILS.unavailable);
    const evicted = await this.repo.saveSubscription(
      userId,
      { endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth },
      userAgent === null ? null : userAgent.slice(0, 300),
      MAX_PUSH_SUBSCRIPTIONS,
    );
    this.deps.changed(userId);
    await this.deps.activity(userId, { kind: 'push_subscribed', detail: { host: hostOf(body.endpoint) } });
    for (const endpoint of evicted) {
      await this.deps.activity(userId, {
        kind: 'push_unsubscribed',
        detail: { host: hostOf(endpoint), reason: 'limit' },
      });
    }
  }

  /** 404 when this user had no such subscription. */
  async unsubscribe(userId: string, endpoint: string): Promise<void> {
    if (!(await this.repo.removeSubscription(userId, endpoint))) {
      throw appError('NOT_FOUND', PUSH_DETAILS.notSubscribed);
    }
    this.deps.changed(userId);
    await this.deps.activity(userId, { kind: 'push_unsubscribed', detail: { host: hostOf(endpoint) } });
  }
}
