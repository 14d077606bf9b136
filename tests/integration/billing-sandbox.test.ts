import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health } from '../../src/contracts/health';
import { SubscriptionView } from '../../src/contracts/billing';
import { ConfigError, loadConfig } from '../../server/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { dbTargets, useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

type Auth = { authorization: string };
const target = useDatabase(dbTargets()[0]);

const session = (t: TestApp, auth: Auth, provider: 'card' | 'crypto', planType = 'yearly') =>
  t.app.inject({
    method: 'POST',
    url: '/api/subscriptions/create-payment-session',
    headers: auth,
    payload: { planType, provider },
  });
const formPost = (t: TestApp, url: string) =>
  t.app.inject({ method: 'POST', url, headers: { origin: 'http://localhost:80', host: 'localhost:80' } });
const me = async (t: TestApp, auth: Auth) =>
  SubscriptionView.parse((await t.app.inject({ url: '/api/subscriptions/me', headers: auth })).json());
const health = async (t: TestApp) => Health.parse((await t.app.inject({ url: '/api/healthz' })).json());

/** Starts a server with its log kept as lines. */
async function start(env: Record<string, string>): Promise<{ t: TestApp; log: string[] }> {
  const log: string[] = [];
  const t = await startTestApp(
    target as NonNullable<typeof target>,
    { LOG_LEVEL: 'info', ...env },
    { logger: true, logStream: { write: (line: string) => void log.push(line) } },
  );
  return { t, log };
}

describe('the sandbox payment provider in production', () => {
  it('is off without PAYMENT_SANDBOX=true: no provider is offered and nothing grants Premium', async () => {
    const { t } = await start({ NODE_ENV: 'production' });
    try {
      const auth = await signUpAndLogIn(t.app, 'eve');
      for (const provider of ['card', 'crypto'] as const) {
        const res = await session(t, auth, provider);
        expect(res.statusCode, provider).toBe(503);
        expect(res.json()).toEqual({
          detail: `${provider === 'card' ? 'Card' : 'Crypto'} payments are not offered on this server.`,
        });
      }
      const h = await health(t);
      expect(h.payments).toEqual([]);
      expect(h.standins.some((s) => s.includes('sandbox'))).toBe(false);
      // A checkout id of the old sandbox route pays nothing.
      const pay = await formPost(t, `/api/subscriptions/sandbox/${crypto.randomUUID()}/pay`);
      expect(pay.statusCode).toBe(404);
      expect((await me(t, auth)).status).toBe('inactive');
    } finally {
      await t.close();
    }
  });

  it('runs with PAYMENT_SANDBOX=true, named in the log and in the header badge', async () => {
    const { t, log } = await start({ NODE_ENV: 'production', PAYMENT_SANDBOX: 'true' });
    try {
      expect(log.join('\n')).toContain('PAYMENT_SANDBOX=true: the TEST MODE checkout is on in production');
      const h = await health(t);
      expect(h.payments).toEqual(['sandbox-card', 'sandbox-crypto']);
      expect(h.standins).toContain('sandbox payments (TEST MODE, PAYMENT_SANDBOX=true)');
      const auth = await signUpAndLogIn(t.app, 'fay');
      const url = (await session(t, auth, 'card')).json<{ checkout_url: string }>().checkout_url;
      expect((await formPost(t, `${url}/pay`)).headers.location).toBe('/payment/success');
      expect((await me(t, auth)).status).toBe('active');
    } finally {
      await t.close();
    }
  });
});

describe.each(dbTargets())('the sandbox beside a real provider on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target, {
      STRIPE_SECRET_KEY: 'sk_test_double',
      STRIPE_WEBHOOK_SECRET: 'whsec_double',
      STRIPE_API_URL: 'http://127.0.0.1:9',
      PAYMENT_SANDBOX: 'true',
    });
  });
  afterAll(() => t.close());

  it('is off: the provider that is not configured is not offered, even with PAYMENT_SANDBOX=true', async () => {
    const auth = await signUpAndLogIn(t.app, 'gus');
    const res = await session(t, auth, 'crypto');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Crypto payments are not offered on this server.' });
    const h = await health(t);
    expect(h.payments).toEqual(['stripe']);
    expect(h.standins.some((s) => s.includes('sandbox'))).toBe(false);
    expect((await me(t, auth)).status).toBe('inactive');
  });
});

describe.each(dbTargets())('sandbox checkout in the offline demo on %s', (name) => {
  const target = useDatabase(name);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(target);
  });
  afterAll(() => t.close());

  it('cannot be paid once cancelled', async () => {
    const auth = await signUpAndLogIn(t.app, 'hal');
    for (const provider of ['card', 'crypto'] as const) {
      const url = (await session(t, auth, provider)).json<{ checkout_url: string }>().checkout_url;
      const page = await t.app.inject({ url });
      expect(page.body).toContain(`action="${url}/cancel"`);
      const cancel = await formPost(t, `${url}/cancel`);
      expect(cancel.statusCode).toBe(303);
      expect(cancel.headers.location).toBe('/payment/cancel');
      const pay = await formPost(t, `${url}/pay`);
      expect(pay.headers.location).toBe('/payment/cancel');
      expect((await me(t, auth)).status).toBe('inactive');
      expect((await t.app.inject({ url })).body).toContain('This checkout is canceled.');
    }
  });

  it('pays one period for 30 Pay posts at once', async () => {
    const auth = await signUpAndLogIn(t.app, 'ida');
    const url = (await session(t, auth, 'crypto', 'monthly')).json<{ checkout_url: string }>().checkout_url;
    const answers = await Promise.all(Array.from({ length: 30 }, () => formPost(t, `${url}/pay`)));
    expect(answers.every((a) => a.statusCode === 303)).toBe(true);
    const view = await me(t, auth);
    expect(view.status).toBe('active');
    const days = (Date.parse(view.current_period_end ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });
});

describe('payment configuration', () => {
  it('refuses STRIPE_SECRET_KEY without STRIPE_WEBHOOK_SECRET in one line', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_live_x' })).toThrow(ConfigError);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_live_x' })).toThrow(
      'STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY: without it no Stripe event can be verified and paying users would never be upgraded',
    );
    expect(() => loadConfig({ PAYMENT_SANDBOX: 'yes' })).toThrow(
      'Invalid PAYMENT_SANDBOX="yes": expected auto, true or false',
    );
  });
});
