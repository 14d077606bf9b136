import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { PLANS, TRIAL_DAYS, type PaymentProvider, type PlanType } from '../../../src/contracts/billing';
import { appError } from '../../plugins/errors';
import type { Config } from '../../config';

export type Gateway = 'stripe' | 'btcpay' | 'sandbox';

export interface CheckoutInput {
  checkoutId: string;
  userId: string;
  plan: PlanType;
  provider: PaymentProvider;
  /** Whether the checkout offers the free trial: only to an account that never had one. */
  trial: boolean;
  /** The account's Stripe customer, when it has one: its later checkouts are that customer's. */
  customer: string | null;
}

/** One way of taking a payment: it opens a checkout and says where to send the browser. */
export interface CheckoutGateway {
  readonly gateway: Gateway;
  create(input: CheckoutInput): Promise<{ externalId: string; url: string }>;
  /**
   * Closes a checkout so that it can no longer be paid (`expired`), or says that it was paid already
   * (`complete`, its event still on the way). Card checkouts only.
   */
  expire?(externalId: string): Promise<'expired' | 'complete'>;
}

/** Where the providers send the browser back to. */
export interface ReturnUrls {
  success: string;
  cancel: string;
  pending: string;
}

const PRODUCT_NAME = 'Signal Console Premium';

/** A provider that is configured but does not answer: a 503, never a crash. */
function unavailable(err: unknown): never {
  void err;
  throw appError('SERVICE_UNAVAILABLE', 'The payment provider is unavailable. Please try again later.');
}

/**
 * Card: Stripe Checkout in subscription mode, for the account's own Stripe customer once it has one, and
 * with the 7-day trial only when the account never had it.
 */
export function stripeGateway(stripe: Stripe, urls: ReturnUrls): CheckoutGateway {
  return {
    gateway: 'stripe',
    async create({ checkoutId, userId, plan, trial, customer }) {
      const spec = PLANS[plan];
      const metadata = { userId, plan, checkoutId };
      const session = await stripe.checkout.sessions
        .create({
          mode: 'subscription',
          client_reference_id: userId,
          ...(customer === null ? {} : { customer }),
          metadata,
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: 'usd',
                unit_amount: spec.price * 100,
                recurring: { interval: plan === 'monthly' ? 'month' : 'year' },
                product_data: { name: PRODUCT_NAME },
              },
            },
          ],
          subscription_data: { ...(trial ? { trial_period_days: TRIAL_DAYS } : {}), metadata },
          success_url: `${urls.success}?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: urls.cancel,
        })
        .catch(unavailable);
      if (session.url === null) unavailable(new Error('checkout session without url'));
      return { externalId: session.id, url: session.url };
    },
    async expire(externalId) {
      try {
        await stripe.checkout.sessions.expire(externalId);
        return 'expired';
      } catch (err) {
        // Stripe expires only an open session: ask it what this one is instead.
        if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) unavailable(err);
      }
      try {
        const session = await stripe.checkout.sessions.retrieve(externalId);
        if (session.status === 'complete') return 'complete';
        if (session.status === 'expired') return 'expired';
      } catch (err) {
        // A session Stripe does not know can never be paid.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404)
          return 'expired';
        unavailable(err);
      }
      return unavailable(new Error('an open checkout session Stripe would not expire'));
    },
  };
}

export interface BtcpayOptions {
  url: string;
  apiKey: string;
  storeId: string;
  fetch?: typeof fetch;
}

/** Crypto: a BTCPay Server Greenfield invoice; its checkout page sends the browser to the pending page. */
export function btcpayGateway(opts: BtcpayOptions, urls: ReturnUrls): CheckoutGateway {
  const doFetch = opts.fetch ?? fetch;
  const base = opts.url.replace(/\/+$/, '');
  return {
    gateway: 'btcpay',
    async create({ checkoutId, userId, plan }) {
      const res = await doFetch(`${base}/api/v1/stores/${encodeURIComponent(opts.storeId)}/invoices`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `token ${opts.apiKey}` },
        body: JSON.stringify({
          amount: String(PLANS[plan].price),
          currency: 'USD',
          metadata: { orderId: checkoutId, userId, plan, itemDesc: PRODUCT_NAME },
          checkout: { redirectURL: urls.pending, redirectAutomatically: true },
        }),
        signal: AbortSignal.timeout(10_000),
      }).catch(unavailable);
      if (!res.ok) unavailable(new Error(`BTCPay answered ${res.status}`));
      const body = (await res.json().catch(unavailable)) as { id?: unknown; checkoutLink?: unknown };
      if (typeof body.id !== 'string' || typeof body.checkoutLink !== 'string') {
        unavailable(new Error('BTCPay invoice without id or checkoutLink'));
      }
      return { externalId: body.id, url: body.checkoutLink };
    },
  };
}

/** What serves each provider: its real gateway, the sandbox, or nothing (the provider is not offered). */
export interface PaymentSetup {
  card: 'stripe' | 'sandbox' | null;
  crypto: 'btcpay' | 'sandbox' | null;
  /** The sandbox runs in production because PAYMENT_SANDBOX=true asked for it: said in the log and header. */
  sandboxOptIn: boolean;
}

type PaymentConfig = Pick<
  Config,
  'NODE_ENV' | 'PAYMENT_SANDBOX' | 'STRIPE_SECRET_KEY' | 'BTCPAY_URL' | 'BTCPAY_API_KEY' | 'BTCPAY_STORE_ID'
>;

export const btcpayConfigured = (cfg: PaymentConfig): boolean =>
  cfg.BTCPAY_URL !== undefined && cfg.BTCPAY_API_KEY !== undefined && cfg.BTCPAY_STORE_ID !== undefined;

/**
 * The sandbox grants Premium without payment, so it serves the offline demo only: never beside a real
 * provider (which would otherwise sell the other provider's Premium for nothing), and in production only
 * when PAYMENT_SANDBOX=true says so.
 */
export function paymentSetup(cfg: PaymentConfig): PaymentSetup {
  const stripe = cfg.STRIPE_SECRET_KEY !== undefined;
  const btcpay = btcpayConfigured(cfg);
  const sandbox =
    !stripe &&
    !btcpay &&
    (cfg.PAYMENT_SANDBOX === 'true' || (cfg.PAYMENT_SANDBOX === 'auto' && cfg.NODE_ENV !== 'production'));
  return {
    card: stripe ? 'stripe' : sandbox ? 'sandbox' : null,
    crypto: btcpay ? 'btcpay' : sandbox ? 'sandbox' : null,
    sandboxOptIn: sandbox && cfg.NODE_ENV === 'production',
  };
}

/** The names `GET /healthz` lists under `payments`: what the Upgrade modal offers. */
export function paymentNames(setup: PaymentSetup): string[] {
  const names: string[] = [];
  if (setup.card !== null) names.push(setup.card === 'sandbox' ? 'sandbox-card' : 'stripe');
  if (setup.crypto !== null) names.push(setup.crypto === 'sandbox' ? 'sandbox-crypto' : 'btcpay');
  return names;
}

/**
 * The built-in TEST MODE checkout on our own origin, for the offline demo (see {@link paymentSetup}). Its
 * checkouts live in our own table only: closing one is the caller's conditional UPDATE of its row.
 */
export function sandboxGateway(): CheckoutGateway {
  return {
    gateway: 'sandbox',
    async create({ checkoutId }) {
      return {
        externalId: `sbx_${randomBytes(12).toString('hex')}`,
        url: `/api/subscriptions/sandbox/${checkoutId}`,
      };
    },
    async expire() {
      return 'expired';
    },
  };
}

/** A Stripe client pointed at `apiUrl` (the real API, or a local double in the tests). */
export function stripeClient(secretKey: string, apiUrl: string): Stripe {
  const url = new URL(apiUrl);
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 0,
    timeout: 10_000,
  });
}
