import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CancelAnswer,
  ChangePlanAnswer,
  ChangePlanRequest,
  CreatePaymentSessionRequest,
  PaymentSession,
  SubscriptionView,
} from '../../../src/contracts/billing';
import type { BillingService } from './billing.service';
import type { SandboxCheckout } from './sandbox';
import { sandboxPage } from './sandbox-page';

/**
 * The sandbox page is the one HTML answer under /api: its own inline styles and its form (posting to
 * this origin) are allowed, nothing else (no script, no frame, no other origin).
 */
const SandboxParams = z.object({ id: z.string() });
/** What a webhook answers the provider (`WebhookResult`). */
const WebhookAnswer = z.object({ received: z.literal(true), applied: z.boolean() });

const SANDBOX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function userOf(request: FastifyRequest): string {
  if (request.principal === null) throw new Error('requireUser did not set a principal');
  return request.principal.userId;
}

/**
 * `/subscriptions/*`: checkout, cancelling and switching the plan, the subscription, the two signed
 * webhooks and the sandbox checkout.
 */
export default async function billingRoutes(
  instance: FastifyInstance,
  { billing, sandbox }: { billing: BillingService; sandbox: SandboxCheckout },
) {
  const app = instance.withTypeProvider<ZodTypeProvider>();

  const sessionSchema = {
    summary: 'Start a checkout for Premium',
    description:
      'Refused (409, saying what is active and until when) while Premium is active, except a crypto ' +
      'payment added after a period that does not renew. The 7-day trial is offered once per account.',
    body: CreatePaymentSessionRequest,
    response: { 200: PaymentSession },
  };
  const sessionOptions = { preValidation: app.requireUser, schema: sessionSchema };
  app.post('/subscriptions/create-payment-session', sessionOptions, async (request) =>
    billing.createSession(userOf(request), request.body),
  );

  const cancelPlanSchema = {
    summary: 'Cancel your Premium',
    description:
      'With Stripe, cancels the card subscription at the end of its period (Premium stays until then, ' +
      'nothing more is charged); in the sandbox, ends Premium now. A crypto period or a grant has nothing ' +
      'to cancel (409, saying when it runs out).',
    response: { 200: CancelAnswer },
  };
  app.post(
    '/subscriptions/cancel',
    { preValidation: app.requireUser, schema: cancelPlanSchema },
    async (request) => billing.cancel(userOf(request)),
  );

  const changePlanSchema = {
    summary: 'Switch the card subscription to the other plan',
    description:
      "Changes the price of the same Stripe subscription (Stripe prorates, and charges the new plan's " +
      'first period at once unless the trial is still running); a declined card changes nothing (409). ' +
      'A crypto period has no plan to switch (409).',
    body: ChangePlanRequest,
    response: { 200: ChangePlanAnswer },
  };
  app.post(
    '/subscriptions/change-plan',
    { preValidation: app.requireUser, schema: changePlanSchema },
    async (request) => billing.changePlan(userOf(request), request.body.planType),
  );

  const meSchema = { summary: 'Your subscription', response: { 200: SubscriptionView } };
  app.get('/subscriptions/me', { preValidation: app.requireUser, schema: meSchema }, async (request) =>
    billing.me(userOf(request)),
  );

  const sandboxSchema = {
    summary: 'The sandbox checkout page (the offline payment provider)',
    params: SandboxParams,
    response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
  };
  app.get<{ Params: { id: string } }>(
    '/subscriptions/sandbox/:id',
    { schema: sandboxSchema },
    async (request, reply) => {
      const row = await sandbox.checkout(request.params.id);
      return (
        reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', SANDBOX_CSP)
          // With the API's no-referrer, a form post carries `Origin: null`, which the origin guard refuses.
          .header('referrer-policy', 'same-origin')
          .send(sandboxPage(row))
      );
    },
  );

  const paySchema = {
    summary: 'Pay a sandbox checkout (a browser form post)',
    params: SandboxParams,
    response: { 303: z.undefined().describe('See Other: on to the success page.') },
  };
  app.post<{ Params: { id: string } }>(
    '/subscriptions/sandbox/:id/pay',
    { schema: paySchema },
    async (request, reply) => reply.redirect(await sandbox.pay(request.params.id), 303),
  );
  const cancelSchema = {
    summary: 'Cancel a sandbox checkout (a browser form post); it can no longer be paid',
    params: SandboxParams,
    response: { 303: z.undefined().describe('See Other: on to the cancel page.') },
  };
  app.post<{ Params: { id: string } }>(
    '/subscriptions/sandbox/:id/cancel',
    { schema: cancelSchema },
    async (request, reply) => reply.redirect(await sandbox.cancel(request.params.id), 303),
  );

  // Signatures are over the exact bytes received, so these two routes keep the body as text.
  await app.register(async (hooks) => {
    hooks.removeContentTypeParser('application/json');
    hooks.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      done(null, body);
    });
    const raw = (request: FastifyRequest) => (typeof request.body === 'string' ? request.body : '');
    const header = (request: FastifyRequest, name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const webhook = (provider: string, signature: string) => ({
      schema: {
        summary: `${provider} payment events`,
        description: `The provider's own JSON, signed in the \`${signature}\` header; called by ${provider} only.`,
        // Unsigned, an event is refused by the service like a forged one (400), not as a malformed request.
        headers: z.object({ [signature]: z.string().optional() }),
        response: { 200: WebhookAnswer },
      },
    });
    hooks.post('/subscriptions/webhooks/stripe', webhook('Stripe', 'stripe-signature'), async (request) =>
      billing.receiveStripe(raw(request), header(request, 'stripe-signature')),
    );
    hooks.post('/subscriptions/webhooks/btcpay', webhook('BTCPay', 'btcpay-sig'), async (request) =>
      billing.receiveBtcpay(raw(request), header(request, 'btcpay-sig')),
    );
  });
}
