import {
  BILLING_MESSAGES,
  CancelAnswer,
  ChangePlanAnswer,
  PaymentSession,
  SubscriptionView,
  type PaymentProvider,
  type PlanType,
} from '../contracts/billing';
import type { ApiClient } from './api/client';
import type { Dialogs } from './trading/dialogs';
import { errorMessage } from './api/errors';

/** The names `GET /healthz` lists under `payments` for each provider (the sandbox standing in, or the real one). */
const PROVIDER_OF: Record<string, PaymentProvider> = {
  stripe: 'card',
  'sandbox-card': 'card',
  btcpay: 'crypto',
  'sandbox-crypto': 'crypto',
};

/**
 * The providers this server offers, from its health answer's `payments`; both until the server has
 * answered (a provider it does not offer then answers 503 with its reason).
 */
export function offeredProviders(payments: readonly string[] | null | undefined): PaymentProvider[] {
  if (payments === null || payments === undefined) return ['card', 'crypto'];
  return (['card', 'crypto'] as const).filter((p) => payments.some((name) => PROVIDER_OF[name] === p));
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** `GET /api/subscriptions/me`; docs/product.md §8's message when it cannot be read. */
export async function loadSubscription(main: ApiClient): Promise<Outcome<SubscriptionView>> {
  try {
    return { ok: true, value: await main.call(SubscriptionView, '/subscriptions/me') };
  } catch {
    return { ok: false, message: BILLING_MESSAGES.statusUnreadable };
  }
}

/** `POST /api/subscriptions/create-payment-session`: where to send the browser to pay. */
export async function startCheckout(
  main: ApiClient,
  planType: PlanType,
  provider: PaymentProvider,
): Promise<Outcome<string>> {
  try {
    const session = await main.call(PaymentSession, '/subscriptions/create-payment-session', {
      method: 'POST',
      body: { planType, provider },
    });
    return { ok: true, value: session.checkout_url };
  } catch (error) {
    return { ok: false, message: errorMessage(error, BILLING_MESSAGES.sessionFailed) };
  }
}

/**
 * `POST /api/subscriptions/cancel`: the card subscription cancelled at the end of its period (Stripe), or
 * Premium ended now (the sandbox).
 */
export async function cancelPlan(main: ApiClient): Promise<Outcome<CancelAnswer>> {
  try {
    return { ok: true, value: await main.call(CancelAnswer, '/subscriptions/cancel', { method: 'POST' }) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, BILLING_MESSAGES.cancelFailed) };
  }
}

/** `POST /api/subscriptions/change-plan`: the card subscription moved to `planType`. */
export async function changePlan(main: ApiClient, planType: PlanType): Promise<Outcome<ChangePlanAnswer>> {
  try {
    const value = await main.call(ChangePlanAnswer, '/subscriptions/change-plan', {
      method: 'POST',
      body: { planType },
    });
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: errorMessage(error, BILLING_MESSAGES.changeFailed) };
  }
}

/** The question asked before cancelling, in the app's dialog or the terminal. */
export function cancelQuestion(
  action: 'schedule' | 'stop' | 'end',
  endsOn: string | null,
): { title: string; question: string; details: string[]; confirmLabel: string } {
  if (action === 'stop') {
    return {
      title: 'Cancel subscription',
      question: 'Cancel your card subscription?',
      details: ['It is on hold: a payment failed.', 'Stripe stops trying to charge it, and it ends now.'],
      confirmLabel: 'Cancel subscription',
    };
  }
  if (action === 'end') {
    return {
      title: 'Cancel Premium',
      question: 'End Premium now?',
      details: ['The sandbox charged nothing and nothing renews.', 'Premium features stop at once.'],
      confirmLabel: 'End Premium',
    };
  }
  return {
    title: 'Cancel renewal',
    question: 'Cancel your card subscription?',
    details: [
      `Premium stays until ${endsOn ?? 'the end of the period'}; nothing more is charged.`,
      'It does not renew after that.',
    ],
    confirmLabel: 'Cancel renewal',
  };
}

/**
 * The Plan tab's cancel button: asks in the app's dialog, then cancels (at the period's end with Stripe,
 * now in the sandbox). Answers what to show, or null when the person said no.
 */
export async function cancelFromPlanTab(
  deps: { main: ApiClient; dialogs: Dialogs },
  action: 'schedule' | 'stop' | 'end',
  endsOn: string | null,
): Promise<Outcome<string> | null> {
  const ask = cancelQuestion(action, endsOn);
  const yes = await deps.dialogs.confirm(ask.question, {
    title: ask.title,
    details: ask.details,
    confirmLabel: ask.confirmLabel,
  });
  if (!yes) return null;
  const cancelled = await cancelPlan(deps.main);
  return cancelled.ok ? { ok: true, value: cancelled.value.message } : cancelled;
}
