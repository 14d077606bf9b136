import type { z } from 'zod';
import {
  AdminSources,
  AdminUser,
  AuditEntry,
  CancelAnswer,
  ChangePlanAnswer,
  PaymentSession,
  SubscriptionView,
} from '../../contracts/billing';
import answers from './billing-answers.json';

/**
 * What the real server answered to `plan`, `upgrade`, `plan cancel`, `plan switch` and the admin commands, with the
 * sandbox payment provider (recorded by `npm run fixtures:billing`, checked against the server by
 * tests/integration/billing-answers.test.ts): browser tests reply with these instead of invented bodies.
 */
export type BillingAnswer = keyof typeof answers;

const parsed = <T extends z.ZodType>(schema: T, name: BillingAnswer): z.infer<T> =>
  schema.parse(answers[name].body);

export const recordedSubscription = (
  name: 'me inactive' | 'me active' | 'me canceled' | 'admin grant' | 'me yearly card' | 'me card and crypto',
) => parsed(SubscriptionView, name);
export const recordedCheckout = (
  name: 'checkout monthly card' | 'checkout yearly crypto' | 'checkout yearly card',
) => parsed(PaymentSession, name);
export const recordedCancel = () => parsed(CancelAnswer, 'cancel in the sandbox');
export const recordedSwitch = () => parsed(ChangePlanAnswer, 'switch to monthly');
/** A refusal's words: what the server said instead of doing it. */
export const recordedDetail = (name: 'checkout while premium') =>
  (answers[name].body as { detail: string }).detail;
export const recordedUsers = () => parsed(AdminUser.array(), 'admin users');
export const recordedAudit = () => parsed(AuditEntry.array(), 'admin audit');
export const recordedSources = () => parsed(AdminSources, 'admin sources');

/** When the answers were recorded (the admin's grant, the last thing done): tests set their clock to it. */
export const RECORDED_AT = Date.parse(recordedAudit()[0]?.created_at ?? '');

/** The reply a fake server gives for a recorded answer. */
export const recordedReply = (name: BillingAnswer) => ({
  status: answers[name].status,
  body: answers[name].body,
});

/** The body the server was sent when it gave that answer (what the command should send too). */
export function recordedPayload(name: BillingAnswer): unknown {
  const { request } = answers[name];
  return 'payload' in request ? request.payload : undefined;
}
