import {
  BILLING_MESSAGES,
  CancelAnswer,
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

/** `POST /api/subscriptions/cancel`: Stripe's customer portal address, or Premium ended (the sandbox). */
export async function cancelPlan(main: ApiClient): Promise<Outcome<CancelAnswer>> {
  try {
    return { ok: true, value: await main.call(CancelAnswer, '/subscriptions/cancel', { method: 'POST' }) };
  } catch (error) {
    return { ok: false, message: errorMessage(error, BILLING_MESSAGES.cancelFailed) };
  }
}

/**
 * The Plan tab's cancel button: with Stripe, leaves for its customer portal; in the sandbox, asks in the
 * app's dialog and ends Premium now. Answers what to show, or null when the person said no.
 */
export async function cancelFromPlanTab(
  deps: { main: ApiClient; dialogs: Dialogs; redirect(url: string): boolean },
  action: 'portal' | 'end',
): Promise<Outcome<string> | null> {
  if (action === 'end') {
    const yes = await deps.dialogs.confirm('End Premium now?', {
      title: 'Cancel Premium',
      details: ['The sandbox charged nothing and nothing renews.', 'Premium features stop at once.'],
      confirmLabel: 'End Premium',
    });
    if (!yes) return null;
  }
  const cancelled = await cancelPlan(deps.main);
  if (!cancelled.ok) return cancelled;
  const { url, message } = cancelled.value;
  if (url !== null && deps.redirect(url)) return { ok: true, value: "Opening Stripe's customer portal…" };
  return { ok: true, value: url === null ? message : `${message} ${url}` };
}
