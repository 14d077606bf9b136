import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { appError } from '../../plugins/errors';
import type { BillingRepo, CheckoutRow } from './billing.repo';
import type { BillingService } from './billing.service';
import { btcpaySignature } from './webhooks';

export interface SandboxDeps {
  repo: BillingRepo;
  billing: Pick<BillingService, 'receiveStripe' | 'receiveBtcpay'>;
  /** Signs the events the Pay button sends (no network). */
  stripe: Stripe;
  /** The sandbox's own webhook secret. */
  secret: string;
  /** False when the sandbox is not offered: its pages and buttons answer 404, old checkouts included. */
  enabled: boolean;
  now?: () => Date;
}

const CHECKOUT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The built-in TEST MODE checkout of the offline demo: Pay signs the event the real provider would send
 * and feeds it through the same webhook entry point; Cancel closes the checkout for good.
 */
export class SandboxCheckout {
  constructor(private readonly deps: SandboxDeps) {}

  private now(): Date {
    return (this.deps.now ?? (() => new Date()))();
  }

  /** A sandbox checkout, for its page; 404 for anything else, or when the sandbox is off. */
  async checkout(checkoutId: string): Promise<CheckoutRow> {
    const row =
      this.deps.enabled && CHECKOUT_ID.test(checkoutId)
        ? await this.deps.repo.checkoutById(checkoutId)
        : undefined;
    if (row === undefined || row.gateway !== 'sandbox') throw appError('NOT_FOUND');
    return row;
  }

  /** The Cancel button: the checkout can no longer be paid. Answers where the browser goes next. */
  async cancel(checkoutId: string): Promise<string> {
    const row = await this.checkout(checkoutId);
    await this.deps.repo.claimCheckout(row.id, 'canceled');
    return '/payment/cancel';
  }

  /** The Pay button. A checkout that is no longer open (paid, cancelled) pays nothing more. */
  async pay(checkoutId: string): Promise<string> {
    const row = await this.checkout(checkoutId);
    const next = row.provider === 'card' ? '/payment/success' : '/payment/pending';
    if (row.status !== 'open') return row.status === 'canceled' ? '/payment/cancel' : next;
    const id = randomBytes(12).toString('hex');
    const created = Math.floor(this.now().getTime() / 1000);
    if (row.provider === 'card') {
      const payload = JSON.stringify({
        id: `evt_sbx_${id}`,
        object: 'event',
        type: 'checkout.session.completed',
        created,
        data: {
          object: {
            id: row.externalId,
            object: 'checkout.session',
            client_reference_id: row.userId,
            subscription: `sub_sbx_${id}`,
            metadata: { userId: row.userId, plan: row.plan, checkoutId: row.id },
          },
        },
      });
      const header = this.deps.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: this.deps.secret,
        timestamp: created,
      });
      await this.deps.billing.receiveStripe(payload, header);
      return next;
    }
    const payload = JSON.stringify({
      deliveryId: `sbx_${id}`,
      originalDeliveryId: `sbx_${id}`,
      isRedelivery: false,
      type: 'InvoiceSettled',
      timestamp: created,
      storeId: 'sandbox',
      invoiceId: row.externalId,
    });
    await this.deps.billing.receiveBtcpay(payload, btcpaySignature(payload, this.deps.secret));
    return next;
  }
}
