import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Health } from '../contracts/health';
import { recordedReply } from '../services/testing/billingAnswers';
import { renderWithServices } from '../app/testing/renderWithServices';
import { AuthButtons } from './AuthButtons';
import { UpgradeModal } from './UpgradeModal';

afterEach(cleanup);

function signedIn(status: string) {
  const r = renderWithServices(
    <>
      <AuthButtons />
      <UpgradeModal />
    </>,
  );
  act(() => {
    r.services.stores.session.setToken('t');
    r.services.stores.session.setUser({ username: 'ann', role: 'user', subscriptionStatus: status });
  });
  return r;
}

describe('Upgrade to Premium', () => {
  it('shows the header button only while the subscription is not active', () => {
    const r = signedIn('inactive');
    expect(screen.queryByRole('button', { name: 'Upgrade to Premium' })).not.toBeNull();
    act(() =>
      r.services.stores.session.setUser({ username: 'ann', role: 'user', subscriptionStatus: 'active' }),
    );
    expect(screen.queryByRole('button', { name: 'Upgrade to Premium' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Admin Panel' })).toBeNull();
  });

  it('lists the features, both plans with the badge, the trial and both providers', () => {
    signedIn('inactive');
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Premium' }));
    const modal = screen.getByRole('dialog', { name: 'Upgrade to Premium' });
    const text = modal.textContent ?? '';
    for (const f of [
      'Real-time AI signals',
      'Unlimited auto-trading rules',
      'All news sources',
      'Priority support',
    ])
      expect(text).toContain(f);
    expect(screen.getByTestId('plan-monthly').textContent).toBe('Monthly$179 per month');
    expect(screen.getByTestId('plan-yearly').textContent).toBe('Yearly$1790 per yearSAVE 20%');
    expect(text).toContain('7-day free trial');
    expect(screen.getByRole('button', { name: /Pay by card/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Pay with crypto/ })).toBeTruthy();
  });

  it('does not advertise the free trial to an account that had it', async () => {
    const r = signedIn('canceled');
    r.server.on('GET /subscriptions/me', () => recordedReply('me canceled'));
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Premium' }));
    await waitFor(() =>
      expect(screen.getByTestId('premium-trial').textContent).toBe(
        'Free trial used: a card subscription is charged from the start',
      ),
    );
    const modal = screen.getByRole('dialog', { name: 'Upgrade to Premium' });
    expect(modal.textContent).not.toContain('7-day free trial');
    expect(screen.getByRole('button', { name: /Pay by card/ }).textContent).toContain(
      'charged from the start, then renews automatically',
    );
  });

  it('sends the chosen plan and provider, then leaves for checkout_url', async () => {
    const r = signedIn('inactive');
    r.server.on('POST /subscriptions/create-payment-session', () => ({
      status: 200,
      body: { checkout_url: '/api/subscriptions/sandbox/x1' },
    }));
    const went: string[] = [];
    r.services.stores.premium.onRedirect((url) => went.push(url));
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Premium' }));
    fireEvent.click(screen.getByRole('radio', { name: /Yearly/ }));
    fireEvent.click(screen.getByRole('button', { name: /Pay with crypto/ }));
    await waitFor(() => expect(went).toEqual(['/api/subscriptions/sandbox/x1']));
    expect(JSON.parse(r.server.requests.at(-1)?.body ?? '{}')).toEqual({
      planType: 'yearly',
      provider: 'crypto',
    });
  });

  it('shows docs/product.md §8’s message when the session cannot be made', async () => {
    const r = signedIn('inactive');
    r.server.on('POST /subscriptions/create-payment-session', () => ({ status: 500, body: {} }));
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Premium' }));
    fireEvent.click(screen.getByRole('button', { name: /Pay by card/ }));
    await waitFor(() =>
      expect(screen.getByTestId('upgrade-error').textContent).toBe(
        'An unexpected error occurred. Please try again.',
      ),
    );
  });

  it('offers only the providers the server has, and says so when it has none', () => {
    const r = signedIn('inactive');
    const health = (payments: string[]): Health => ({
      status: 'ok',
      degraded: [],
      db: 'pglite',
      dbOk: true,
      bus: 'memory',
      busOk: true,
      market: 'sim',
      news: ['replay'],
      exchange: 'paper',
      analyzer: 'local',
      payments,
      mail: 'outbox',
      standins: [],
      version: '0.1.0',
      uptimeSeconds: 3,
      role: 'all',
      leases: [],
    });
    act(() => r.services.stores.connection.markAnswered(health(['stripe'])));
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Premium' }));
    expect(screen.queryByRole('button', { name: /Pay by card/ })).not.toBeNull();
    expect(screen.queryByRole('button', { name: /Pay with crypto/ })).toBeNull();
    act(() => r.services.stores.connection.markAnswered(health(['sandbox-card', 'sandbox-crypto'])));
    expect(screen.queryByRole('button', { name: /Pay with crypto/ })).not.toBeNull();
    act(() => r.services.stores.connection.markAnswered(health([])));
    expect(screen.queryByRole('button', { name: /Pay by/ })).toBeNull();
    expect(screen.getByTestId('no-providers').textContent).toBe(
      'Payments are not available on this server yet.',
    );
  });
});
