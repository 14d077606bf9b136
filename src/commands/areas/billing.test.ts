import { describe, expect, it } from 'vitest';
import {
  recordedCancel,
  recordedCheckout,
  recordedDetail,
  recordedSources,
  recordedSubscription,
  recordedSwitch,
} from '../../services/testing/billingAnswers';
import { billingSession, day, recorded } from '../testing/billingConsole';
import { createTestConsole } from '../testing/scripted';

/** What the server answered once the sandbox's card checkout was paid. */
const ACTIVE = recordedSubscription('me active');
/** The health of the server that recorded them: the sandbox stands in for both providers. */
const sandboxHealth = recordedSources().health;

describe('plan and upgrade', () => {
  it('plan prints the status, the period end and, on the free plan, the prices', async () => {
    const s = billingSession();
    s.server.on('GET /subscriptions/me', recorded('me inactive'));
    expect(await s.type('plan')).toEqual([
      'info: Plan:       Free',
      'info: Status:     No subscription',
      'muted: Free: 3 active auto-trading rules and the default news sources.',
      'info: Premium: real-time ai signals, unlimited auto-trading rules, all news sources, priority support.',
      'info:   monthly  $179 per month',
      'info:   yearly   $1790 per year  SAVE 20%',
      'muted: By card: 7-day trial, $0 today, then renews. By crypto: the period paid at once, no trial. upgrade monthly|yearly [card|crypto]',
    ]);
  });

  it('plan on Premium shows the end of the period and updates the header’s status', async () => {
    const s = billingSession();
    s.server.on('GET /subscriptions/me', recorded('me active'));
    const out = await s.type('plan');
    expect(out.slice(0, 3)).toEqual([
      'info: Plan:       Premium monthly ($179 per month)',
      'info: Status:     Active',
      'info: Paid by:    card (Stripe)',
    ]);
    expect(out).toContain(`info: Renews on:  ${day(ACTIVE.current_period_end)}`);
    expect(out.slice(-2)).toEqual([
      `muted: Your card subscription with Stripe renews on ${day(ACTIVE.current_period_end)}. plan cancel (or Cancel renewal here) cancels it at the end of the period: Premium stays until then.`,
      'muted: plan switch yearly moves the card subscription to yearly.',
    ]);
    expect(s.stores.session.user.value?.subscriptionStatus).toBe('active');
  });

  it('plan shows a card subscription and a crypto period side by side', async () => {
    const s = billingSession();
    s.stores.connection.markAnswered(sandboxHealth);
    s.server.on('GET /subscriptions/me', recorded('me card and crypto'));
    const both = recordedSubscription('me card and crypto');
    const card = both.subscriptions.find((e) => e.provider === 'card');
    const crypto = both.subscriptions.find((e) => e.provider === 'crypto');
    expect((await s.type('plan')).slice(0, 5)).toEqual([
      'info: Plan:       Premium, paid 2 ways',
      'info: Status:     Active',
      `info: By crypto:  yearly ($1790 per year), ends on ${day(crypto?.current_period_end ?? null)}`,
      `info: By card:    monthly ($179 per month), free trial until ${day(card?.trial_end ?? null)}, ends on ${day(card?.current_period_end ?? null)}`,
      `info: Premium until: at least ${day(both.current_period_end)}`,
    ]);
  });

  it('plan cancel says what this server can cancel, sending nothing but the read', async () => {
    const s = billingSession();
    const crypto = {
      ...ACTIVE,
      provider: 'crypto',
      trial_end: null,
      subscriptions: ACTIVE.subscriptions.map((e) => ({ ...e, provider: 'crypto', trial_end: null })),
    };
    s.server.on('GET /subscriptions/me', () => ({ status: 200, body: crypto }));
    expect(await s.type('plan cancel')).toEqual([
      `info: A crypto payment covers one period and does not renew: Premium ends on ${day(ACTIVE.current_period_end)}, with nothing more to pay.`,
    ]);
    s.server.on('GET /subscriptions/me', recorded('me inactive'));
    expect(await s.type('plan cancel')).toEqual(['info: You have no Premium subscription to cancel.']);
    expect(s.server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('plan cancel with Stripe asks, then cancels the card subscription at the end of its period', async () => {
    const s = billingSession();
    s.server.on('GET /subscriptions/me', recorded('me active'));
    // Only Stripe cancels at the period's end; the sandbox that recorded the answers ends Premium instead.
    const end = day(ACTIVE.current_period_end);
    const message = `Your card subscription is cancelled: the free trial runs until ${end} and nothing is charged.`;
    s.server.on('POST /subscriptions/cancel', () => ({
      status: 200,
      body: { action: 'scheduled', message },
    }));
    const question = `Cancel your card subscription? Premium stays until ${end}; nothing more is charged. It does not renew after that. [y/N] `;
    expect(await s.answering('plan cancel', 'n')).toEqual(['muted: Nothing was cancelled.']);
    expect(s.asked).toEqual([question]);
    expect(s.server.count('POST /subscriptions/cancel')).toBe(0);
    expect(await s.answering('plan cancel', 'y')).toEqual([`success: ${message}`]);
    expect(s.server.count('POST /subscriptions/cancel')).toBe(1);
  });

  it('plan cancel in the sandbox asks, then ends Premium now', async () => {
    const s = billingSession();
    s.stores.connection.markAnswered(sandboxHealth);
    s.server.on('GET /subscriptions/me', recorded('me active'));
    expect(await s.answering('plan cancel', 'n')).toEqual(['muted: Nothing was cancelled.']);
    expect(s.asked).toEqual(['End Premium now? The sandbox charged nothing and nothing renews. [y/N] ']);
    expect(s.server.count('POST /subscriptions/cancel')).toBe(0);
    let ended = false;
    s.server.on('POST /subscriptions/cancel', (r) => {
      ended = true;
      return recorded('cancel in the sandbox')(r);
    });
    s.server.on('GET /subscriptions/me', (r) => recorded(ended ? 'me canceled' : 'me active')(r));
    expect(await s.answering('plan cancel', 'y')).toEqual([`success: ${recordedCancel().message}`]);
    expect(s.stores.session.user.value?.subscriptionStatus).toBe('canceled');
  });

  it('upgrade on Premium says so instead of offering to pay again', async () => {
    const s = billingSession();
    s.stores.session.setUser({ username: 'ann', role: 'user', subscriptionStatus: 'active', id: 'u-ann' });
    s.server.on('GET /subscriptions/me', recorded('me active'));
    expect(await s.type('upgrade yearly')).toEqual([
      `success: You have Premium already (active, monthly by card, until ${day(ACTIVE.current_period_end)} (trial until ${day(ACTIVE.trial_end)})). plan shows it.`,
      'muted: plan switch yearly moves the card subscription to yearly.',
    ]);
    expect(s.server.count('POST /subscriptions/create-payment-session')).toBe(0);
  });

  it('upgrade says what the server refused: Premium is active, and until when', async () => {
    // The header still reads Free (a grant made elsewhere): the server is asked, and says no.
    const s = billingSession();
    s.server.on('POST /subscriptions/create-payment-session', recorded('checkout while premium'));
    expect(await s.type('upgrade monthly')).toEqual([`error: ${recordedDetail('checkout while premium')}`]);
    expect(recordedDetail('checkout while premium')).toMatch(
      /^Premium is active until \d{4}-\d\d-\d\d \(granted by an administrator\)/,
    );
  });

  it('plan, on an account that had its free trial, no longer advertises it', async () => {
    const s = billingSession();
    s.server.on('GET /subscriptions/me', recorded('me canceled'));
    const out = await s.type('plan');
    expect(out).toContain('info: Free trial: used (one per account)');
    expect(out.at(-1)).toBe(
      'muted: By card: renews, charged from the start (your free trial was used). By crypto: the period paid at once. upgrade monthly|yearly [card|crypto]',
    );
    expect(out.some((l) => l.includes('7-day free trial'))).toBe(false);
  });

  it('plan switch asks what it costs, then moves the card subscription to the other plan', async () => {
    const s = billingSession();
    s.stores.connection.markAnswered(sandboxHealth);
    s.server.on('GET /subscriptions/me', recorded('me yearly card'));
    s.server.on('POST /subscriptions/change-plan', recorded('switch to monthly'));
    expect(await s.answering('plan switch monthly', 'n')).toEqual(['muted: Nothing was changed.']);
    expect(s.asked).toEqual([
      'Switch your card subscription to monthly ($179 per month)? The sandbox charges nothing. [y/N] ',
    ]);
    expect(s.server.count('POST /subscriptions/change-plan')).toBe(0);
    expect(await s.answering('plan switch monthly', 'y')).toEqual([`success: ${recordedSwitch().message}`]);
    expect(recordedSwitch().subscription.plan).toBe('monthly');
  });

  it('plan says docs/product.md §8’s message when the status cannot be read', async () => {
    const s = billingSession();
    s.server.on('GET /subscriptions/me', () => ({ status: 500, body: { detail: 'boom' } }));
    expect(await s.type('plan')).toEqual([
      'error: Could not verify subscription status. Please check your account page or contact support.',
    ]);
  });

  it('upgrade yearly crypto asks for a session and sends the browser to its checkout_url', async () => {
    const s = billingSession();
    s.server.on('POST /subscriptions/create-payment-session', recorded('checkout yearly crypto'));
    const { checkout_url } = recordedCheckout('checkout yearly crypto');
    const went: string[] = [];
    s.stores.premium.onRedirect((url) => went.push(url));
    const out = await s.run('upgrade yearly crypto');
    expect(out.exit).toBe(0);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({
      planType: 'yearly',
      provider: 'crypto',
    });
    expect(went).toEqual([checkout_url]);
    expect(out.data).toEqual({ checkout_url });
  });

  it('upgrade with no listener (the CLI) prints where to pay; card is the default provider', async () => {
    const s = billingSession();
    s.server.on('POST /subscriptions/create-payment-session', recorded('checkout monthly card'));
    const out = await s.type('upgrade monthly');
    expect(out).toEqual([
      'success: Checkout ready. Pay at:',
      `info: ${recordedCheckout('checkout monthly card').checkout_url}`,
    ]);
    expect(JSON.parse(s.server.requests.at(-1)?.body ?? '{}')).toEqual({
      planType: 'monthly',
      provider: 'card',
    });
  });

  it('upgrade shows docs/product.md §8’s message when the session cannot be made, and opens the modal alone', async () => {
    const s = billingSession();
    s.server.on('POST /subscriptions/create-payment-session', () => ({ status: 502, body: {} }));
    expect(await s.type('upgrade monthly')).toEqual([
      'error: An unexpected error occurred. Please try again.',
    ]);
    expect(s.stores.premium.upgradeOpen.value).toBe(false);
    await s.type('upgrade');
    expect(s.stores.premium.upgradeOpen.value).toBe(true);
    const bad = await s.run('upgrade weekly');
    expect(bad.exit).toBe(2);
  });

  it('asks a guest to log in', async () => {
    const s = createTestConsole();
    expect(await s.type('plan')).toEqual(['error: You must be logged in.']);
    expect(s.stores.ui.authModal.value).toBe('login');
  });
});
