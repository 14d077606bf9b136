import {
  BILLING_MESSAGES,
  PaymentSession,
  SubscriptionView,
  type PaymentProvider,
  type PlanType,
} from '../contracts/billing';
import type { ApiClient } from './api/client';
import { errorMessage } from './api/errors';

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** `GET /api/subscriptions/me`; spec §8's message when it cannot be read. */
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
