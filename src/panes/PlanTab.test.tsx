import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { formatDay } from '../services/premium';
import { createFakeClock } from '../services/testing/fakeClock';
import {
  RECORDED_AT,
  recordedReply,
  recordedSources,
  recordedSubscription,
  recordedSwitch,
  type BillingAnswer,
} from '../services/testing/billingAnswers';
import { PlanTab } from './PlanTab';

afterEach(cleanup);

/** The Plan tab of a signed-in account, on the sandbox server that recorded the answers. */
function planTab(me: BillingAnswer) {
  const r = renderWithServices(<PlanTab />, { clock: createFakeClock(RECORDED_AT) });
  r.server.on('GET /subscriptions/me', () => recordedReply(me));
  act(() => {
    r.services.stores.connection.markAnswered(recordedSources().health);
    r.services.stores.session.setToken('t');
    r.services.stores.session.setUser({ username: 'bob', role: 'user', subscriptionStatus: 'active' });
    r.services.stores.session.markResumed();
  });
  return r;
}

const facts = async () => {
  await waitFor(() => expect(screen.queryByTestId('plan-facts')).not.toBeNull());
  return [...screen.getByTestId('plan-facts').querySelectorAll('.plan-fact')].map((f) => [
    f.querySelector('dt')?.textContent,
    f.querySelector('dd')?.textContent,
  ]);
};

describe('the Plan tab', () => {
  it('shows a card subscription and a crypto period side by side until one ends', async () => {
    planTab('me card and crypto');
    const both = recordedSubscription('me card and crypto');
    const card = both.subscriptions.find((e) => e.provider === 'card');
    const crypto = both.subscriptions.find((e) => e.provider === 'crypto');
    expect(await facts()).toEqual([
      ['Plan', 'Premium, paid 2 ways'],
      ['Status', 'Active'],
      ['By crypto', `yearly ($1790 per year), ends on ${formatDay(crypto?.current_period_end ?? null)}`],
      [
        'By card',
        `monthly ($179 per month), free trial until ${formatDay(card?.trial_end ?? null)}, ends on ${formatDay(card?.current_period_end ?? null)}`,
      ],
      ['Premium until', `at least ${formatDay(both.current_period_end)}`],
    ]);
    // The sandbox ends its Premium now; the card subscription can switch to yearly.
    expect(screen.getByRole('button', { name: 'Cancel Premium' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Switch to yearly' })).toBeTruthy();
  });

  it('switches the card subscription after asking what it costs, then reads the plan again', async () => {
    const r = planTab('me yearly card');
    let switched = false;
    r.server.on('POST /subscriptions/change-plan', () => {
      switched = true;
      return recordedReply('switch to monthly');
    });
    r.server.on('GET /subscriptions/me', () =>
      switched ? { status: 200, body: recordedSwitch().subscription } : recordedReply('me yearly card'),
    );
    await facts();
    fireEvent.click(screen.getByRole('button', { name: 'Switch to monthly' }));
    await waitFor(() => expect(r.services.confirmations.current.value).not.toBeNull());
    expect(r.services.confirmations.current.value).toMatchObject({
      message: 'Switch your card subscription to monthly ($179 per month)?',
      details: ['The sandbox charges nothing.'],
      confirmLabel: 'Switch to monthly',
    });
    act(() => r.services.confirmations.answer(true));
    await waitFor(() => expect(screen.getByTestId('plan-notice').textContent).toBe(recordedSwitch().message));
    expect(JSON.parse(r.server.requests.find((q) => q.path.endsWith('/change-plan'))?.body ?? '{}')).toEqual({
      planType: 'monthly',
    });
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Switch to yearly' })).not.toBeNull());
  });

  it('says the free trial was used once Premium has ended', async () => {
    planTab('me canceled');
    expect((await facts()).at(-1)).toEqual(['Free trial', 'used (one per account)']);
    expect(screen.getByRole('button', { name: 'Upgrade to Premium' })).toBeTruthy();
  });
});
