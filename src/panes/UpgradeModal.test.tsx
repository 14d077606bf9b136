import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import {
  recordedReply,
  recordedSources,
  recordedSubscription,
  type BillingAnswer,
} from '../services/testing/billingAnswers';
import { UpgradeModal } from './UpgradeModal';

afterEach(cleanup);

/** The Upgrade window of a signed-in account on the sandbox server that recorded the answers. */
function opened(me: BillingAnswer, trialUsed = false) {
  const r = renderWithServices(<UpgradeModal />);
  r.server.on('GET /subscriptions/me', () =>
    trialUsed
      ? { status: 200, body: { ...recordedSubscription('me inactive'), trial_used: true } }
      : recordedReply(me),
  );
  act(() => {
    r.services.stores.connection.markAnswered(recordedSources().health);
    r.services.stores.session.setToken('t');
    r.services.stores.session.setUser({ username: 'bob', role: 'user', subscriptionStatus: null });
    r.services.stores.premium.openUpgrade();
  });
  const modal = screen.getByRole('dialog', { name: 'Upgrade to Premium' });
  const cardNote = () =>
    within(modal)
      .getByRole('button', { name: /Pay by card/ })
      .querySelector('.provider-note')?.textContent;
  return { ...r, modal, cardNote };
}

describe('the Upgrade window', () => {
  it('where the trial applies, the card checkout says "7-day trial, $0 today" and what follows', async () => {
    const { modal, cardNote } = opened('me inactive');
    await waitFor(() =>
      expect(cardNote()).toBe('7-day trial, $0 today, then $179 per month, renewing automatically'),
    );
    // The spec's words stay as they are.
    expect(within(modal).getByTestId('premium-trial').textContent).toBe('7-day free trial');
    expect(within(modal).getByTestId('plan-yearly').textContent).toContain('SAVE 20%');
    fireEvent.click(within(modal).getByTestId('plan-yearly'));
    expect(cardNote()).toBe('7-day trial, $0 today, then $1790 per year, renewing automatically');
  });

  it('an account that had its trial is told a card is charged from the start: no "$0 today"', async () => {
    const { modal, cardNote } = opened('me inactive', true);
    await waitFor(() => expect(cardNote()).toBe('charged from the start, then renews automatically'));
    expect(modal.textContent).not.toContain('$0 today');
  });
});
