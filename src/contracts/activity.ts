import { z } from 'zod';
import { decimal } from './numbers';

/** What can happen to an account that its owner should be able to look back on. */
export const ActivityKind = z.enum([
  'sign_in',
  'sign_in_failed',
  'two_factor_enabled',
  'two_factor_disabled',
  'password_changed',
  'password_reset',
  'key_added',
  'key_removed',
  'device_removed',
  'devices_revoked',
  'plan_changed',
  'kill_switch',
  'step_up',
  'step_up_failed',
  'wallet_linked',
  'wallet_unlinked',
  'identity_linked',
  'identity_unlinked',
  'telegram_linked',
  'telegram_unlinked',
  'push_subscribed',
  'push_unsubscribed',
]);
export type ActivityKind = z.infer<typeof ActivityKind>;

/** `GET /api/account/activity`: newest first. */
export const ActivityEntry = z.object({
  id: z.string(),
  at: z.iso.datetime({ offset: true }),
  kind: ActivityKind,
  /** One line saying what happened, e.g. "Signed in with a password on Chrome on Linux (near Berlin)". */
  text: z.string(),
  /** Browser and OS of the device it came from, when known. */
  device: z.string().nullable(),
  place: z.string().nullable(),
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;
export const ActivityList = z.array(ActivityEntry);

export const ActivityQuery = z.object({
  limit: decimal(z.number().int().min(1).max(200)).default(50),
});
