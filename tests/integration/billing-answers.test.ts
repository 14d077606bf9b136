import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AnswerBook } from '../helpers/answers';
import { startTestApp, type TestApp } from '../helpers/app';
import { useDatabase } from '../helpers/db';
import { signUpAndLogIn } from '../helpers/session';

/**
 * The browser's billing and admin tests answer with what this server really says: this test asks the
 * running app (in-process, on PGlite, with the sandbox payment provider of the offline demo) what
 * `plan`, `upgrade`, `plan cancel`, `plan switch` and the admin commands ask (a second card checkout
 * while Premium is active included), and compares its answers with
 * `src/services/testing/billing-answers.json`. `npm run fixtures:billing` records them again.
 */
const FILE = path.resolve(import.meta.dirname, '../../src/services/testing/billing-answers.json');

describe('recorded billing answers (pglite)', () => {
  const target = useDatabase('pglite');
  let t: TestApp;
  let book: AnswerBook;
  /** The sandbox's Pay button, as the browser posts its form. */
  const pay = async (checkoutUrl: string) => {
    const paid = await t.app.inject({
      method: 'POST',
      url: `${checkoutUrl}/pay`,
      headers: { origin: 'http://localhost:80', host: 'localhost:80' },
    });
    if (paid.statusCode !== 303) throw new Error(`the sandbox did not take the payment: ${paid.body}`);
  };

  beforeAll(async () => {
    t = await startTestApp(target);
    book = new AnswerBook(t.app, FILE, 'fixtures:billing');
    const root = await signUpAndLogIn(t.app, 'root'); // the first account is the admin
    const ann = await signUpAndLogIn(t.app, 'ann');
    await book.ask('me inactive', ann, 'GET', '/subscriptions/me');
    await book.ask('checkout yearly crypto', ann, 'POST', '/subscriptions/create-payment-session', {
      planType: 'yearly',
      provider: 'crypto',
    });
    const checkout = await book.ask<{ checkout_url: string }>(
      'checkout monthly card',
      ann,
      'POST',
      '/subscriptions/create-payment-session',
      { planType: 'monthly', provider: 'card' },
    );
    await pay(checkout.checkout_url);
    await book.ask('me active', ann, 'GET', '/subscriptions/me');
    await book.ask('cancel in the sandbox', ann, 'POST', '/subscriptions/cancel');
    await book.ask('me canceled', ann, 'GET', '/subscriptions/me');

    await book.ask('admin refused', ann, 'GET', '/admin/users');
    const users = await book.ask<{ id: string; username: string }[]>(
      'admin users',
      root,
      'GET',
      '/admin/users',
    );
    const annId = users.find((u) => u.username === 'ann')?.id ?? '';
    await book.ask('admin grant', root, 'POST', `/admin/users/${annId}/premium`, { premium: true, days: 90 });
    // Premium active (the grant): a card checkout is refused, saying what is active and until when.
    await book.ask('checkout while premium', ann, 'POST', '/subscriptions/create-payment-session', {
      planType: 'monthly',
      provider: 'card',
    });
    await book.ask('admin audit', root, 'GET', '/admin/audit');
    await book.ask('admin sources', root, 'GET', '/admin/sources');

    // Another account switches its card subscription's plan (after the admin's lists, which it stays out of).
    const bob = await signUpAndLogIn(t.app, 'bob');
    const yearly = await book.ask<{ checkout_url: string }>(
      'checkout yearly card',
      bob,
      'POST',
      '/subscriptions/create-payment-session',
      { planType: 'yearly', provider: 'card' },
    );
    await pay(yearly.checkout_url);
    await book.ask('me yearly card', bob, 'GET', '/subscriptions/me');
    await book.ask('switch to monthly', bob, 'POST', '/subscriptions/change-plan', { planType: 'monthly' });
    // The sandbox's card subscription does not renew: a crypto year is added after it, both shown.
    const crypto = await book.ask<{ checkout_url: string }>(
      'checkout yearly crypto after card',
      bob,
      'POST',
      '/subscriptions/create-payment-session',
      { planType: 'yearly', provider: 'crypto' },
    );
    await pay(crypto.checkout_url);
    await book.ask('me card and crypto', bob, 'GET', '/subscriptions/me');
    await book.save();
  });
  afterAll(() => t.close());

  it('are what the server answers now (same shapes, same words)', async () => {
    await book.expectCurrent();
  });
});
