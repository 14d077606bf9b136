import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BillingRepo } from './billing.repo';
import billingRoutes from './billing.routes';
import { BillingService } from './billing.service';
import {
  btcpayGateway,
  paymentSetup,
  sandboxGateway,
  stripeClient,
  stripeGateway,
  type ReturnUrls,
} from './providers';
import { SandboxCheckout } from './sandbox';

declare module 'fastify' {
  interface FastifyInstance {
    billing: BillingService;
  }
}

/**
 * Builds the services from the configuration: a configured provider is its real gateway; the sandbox
 * stands in for both only in the offline demo (`paymentSetup`); any other provider is not offered.
 */
function buildServices(app: FastifyInstance): { billing: BillingService; sandbox: SandboxCheckout } {
  const cfg = app.config;
  const setup = paymentSetup(cfg);
  const urls: ReturnUrls = {
    success: `${cfg.PUBLIC_URL}/payment/success`,
    cancel: `${cfg.PUBLIC_URL}/payment/cancel`,
    pending: `${cfg.PUBLIC_URL}/payment/pending`,
  };
  const sandboxSecret = Buffer.from(app.secrets.deriveKey('billing-sandbox-webhooks')).toString('hex');
  const stripe = stripeClient(cfg.STRIPE_SECRET_KEY ?? 'sk_test_sandbox', cfg.STRIPE_API_URL);
  const btcpay =
    setup.crypto === 'btcpay' && cfg.BTCPAY_URL && cfg.BTCPAY_API_KEY && cfg.BTCPAY_STORE_ID
      ? { url: cfg.BTCPAY_URL, apiKey: cfg.BTCPAY_API_KEY, storeId: cfg.BTCPAY_STORE_ID }
      : undefined;
  const secretOf = (gateway: string | null, own: string | undefined) =>
    gateway === 'sandbox' ? sandboxSecret : gateway === null ? undefined : own;
  const repo = new BillingRepo(app.database.db);
  const billing = new BillingService({
    repo,
    stripe,
    gateways: {
      card:
        setup.card === 'stripe'
          ? stripeGateway(stripe, urls)
          : setup.card === 'sandbox'
            ? sandboxGateway()
            : null,
      crypto:
        btcpay !== undefined
          ? btcpayGateway(btcpay, urls)
          : setup.crypto === 'sandbox'
            ? sandboxGateway()
            : null,
    },
    secrets: {
      stripe: secretOf(setup.card, cfg.STRIPE_WEBHOOK_SECRET),
      btcpay: secretOf(setup.crypto, cfg.BTCPAY_WEBHOOK_SECRET),
    },
    activity: app.activity,
  });
  const enabled = setup.card === 'sandbox' || setup.crypto === 'sandbox';
  if (setup.sandboxOptIn) {
    app.log.warn(
      'PAYMENT_SANDBOX=true: the TEST MODE checkout is on in production and grants Premium without payment',
    );
  } else if (cfg.PAYMENT_SANDBOX === 'true' && !enabled) {
    app.log.warn('PAYMENT_SANDBOX=true is ignored: a payment provider is configured');
  }
  const sandbox = new SandboxCheckout({ repo, billing, stripe, secret: sandboxSecret, enabled });
  return { billing, sandbox };
}

/**
 * The billing module: checkout, the subscription, the providers' signed webhooks and the sandbox
 * checkout. `app.billing` reaches the modules registered after it (admin).
 */
export default fp(
  async function billingModule(app: FastifyInstance) {
    const services = buildServices(app);
    app.decorate('billing', services.billing);
    await billingRoutes(app, services);
  },
  { name: 'billing', dependencies: ['activity'] },
);
