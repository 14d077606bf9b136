import { z } from 'zod';

/**
 * Notifications away from the open tab: which kinds of events reach a user, through a linked Telegram chat
 * and Web Push. `GET /api/notifications` answers `NotificationsState`; `PATCH /api/notifications` takes a
 * partial `NotificationSettings` (turning `telegram_live_orders` on needs step-up).
 */
export const ALERT_THRESHOLD = { min: 50, max: 95, step: 5 } as const;

export const NotificationSettings = z.object({
  alerts: z.boolean({ error: 'alerts must be true or false.' }),
  alert_threshold: z
    .number({ error: 'The alert threshold is a number from 50 to 95 in steps of 5.' })
    .int({ error: 'The alert threshold is a number from 50 to 95 in steps of 5.' })
    .min(ALERT_THRESHOLD.min, { error: 'The alert threshold is a number from 50 to 95 in steps of 5.' })
    .max(ALERT_THRESHOLD.max, { error: 'The alert threshold is a number from 50 to 95 in steps of 5.' })
    .refine((n) => n % ALERT_THRESHOLD.step === 0, {
      error: 'The alert threshold is a number from 50 to 95 in steps of 5.',
    }),
  fills: z.boolean({ error: 'fills must be true or false.' }),
  retractions: z.boolean({ error: 'retractions must be true or false.' }),
  liquidation: z.boolean({ error: 'liquidation must be true or false.' }),
  daily_pnl: z.boolean({ error: 'daily_pnl must be true or false.' }),
  telegram_live_orders: z.boolean({ error: 'telegram_live_orders must be true or false.' }),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  alerts: true,
  alert_threshold: 80,
  fills: true,
  retractions: true,
  liquidation: true,
  daily_pnl: false,
  telegram_live_orders: false,
};

export const NotificationSettingsPatch = NotificationSettings.partial().strict();
export type NotificationSettingsPatch = z.infer<typeof NotificationSettingsPatch>;

export const TelegramState = z.object({
  /** False when the server has no bot token: nothing is sent, and the settings say so. */
  configured: z.boolean(),
  /** The bot's @username once known, for the t.me link. */
  bot: z.string().nullable(),
  linked: z.boolean(),
  /** The linked chat's @username or title, when Telegram gave one. */
  chat: z.string().nullable(),
  linked_at: z.string().nullable(),
});
export type TelegramState = z.infer<typeof TelegramState>;

export const PushState = z.object({
  /** False when the server cannot send Web Push (no keys could be made or kept). */
  configured: z.boolean(),
  /** The VAPID public key (base64url) a browser subscribes with. */
  public_key: z.string().nullable(),
  /** How many browsers of this user are subscribed. */
  subscriptions: z.number().int(),
});
export type PushState = z.infer<typeof PushState>;

export const NotificationsState = z.object({
  settings: NotificationSettings,
  telegram: TelegramState,
  push: PushState,
});
export type NotificationsState = z.infer<typeof NotificationsState>;

/** `POST /api/notifications/telegram/link`: a one-time code (10 minutes, single use) and its t.me link. */
export const TelegramLinkAnswer = z.object({
  code: z.string(),
  url: z.string(),
  expires_at: z.string(),
});
export type TelegramLinkAnswer = z.infer<typeof TelegramLinkAnswer>;

/** `POST /api/notifications/push`: a browser's PushSubscription.toJSON(). */
export const PushSubscriptionBody = z.object({
  endpoint: z.url({ error: 'endpoint must be an https URL.' }).max(2048),
  keys: z.object({
    p256dh: z.string().min(1).max(200),
    auth: z.string().min(1).max(100),
  }),
});
export type PushSubscriptionBody = z.infer<typeof PushSubscriptionBody>;
