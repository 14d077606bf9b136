import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { askingDecision, T0 } from '../services/rules/testing/decisions';
import { createFakeClock } from '../services/testing/fakeClock';
import { Toasts } from './Toasts';

afterEach(cleanup);

const asking = askingDecision();

function setup() {
  const clock = createFakeClock(T0);
  const r = renderWithServices(<Toasts />, { clock });
  act(() => r.services.stores.session.setToken('t'));
  act(() =>
    r.services.proposals.receive({
      type: 'proposal',
      decision: asking,
      headline: 'Spot BTC ETF approved by the SEC',
      reasoning: 'Approval opens the door to large inflows.',
      time: T0,
    }),
  );
  return { ...r, clock };
}

describe('a proposal toast', () => {
  it('shows the order, the news, its analysis and a countdown', () => {
    const { clock } = setup();
    const toast = screen.getByTestId('proposal');
    expect(toast.textContent).toContain('rule ‘BTC ask’ asks');
    expect(toast.textContent).toContain('LONG 200 USDT BTC on paper');
    expect(toast.textContent).toContain('#123 Spot BTC ETF approved by the SEC');
    expect(toast.textContent).toContain('positive · impact 82 · Approval opens the door to large inflows.');
    expect(within(toast).getByTestId('proposal-left').textContent).toBe('60 s');
    act(() => clock.advance(3_000));
    expect(within(toast).getByTestId('proposal-left').textContent).toBe('57 s');
  });

  it('confirms through rules confirm, and says so when another channel answered first', async () => {
    const r = setup();
    const sent: unknown[] = [];
    r.server.on('POST /rules/decisions/7/answer', (req) => {
      sent.push(JSON.parse(req.body ?? '{}'));
      return { status: 409, body: { detail: 'Already answered in Telegram.' } };
    });
    r.server.on('GET /rules/ledger', () => ({ status: 200, body: [] }));
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(screen.getByRole('button', { name: 'Confirming…' })).toHaveProperty('disabled', true);
    await waitFor(() => expect(sent).toEqual([{ answer: 'confirm', via: 'browser' }]));
    act(() =>
      r.services.proposals.receive({
        type: 'proposal_closed',
        event: 'answered',
        decision: { ...asking, outcome: 'pending', answered_via: 'telegram' },
        time: T0,
      }),
    );
    expect(screen.getByTestId('proposal-closed').textContent).toBe(
      'Confirmed in Telegram: placing the order…',
    );
    expect(screen.queryByRole('button', { name: 'Reject' })).toBeNull();
  });
});

describe('a toast that stays', () => {
  it('shows its action, and a click runs it and takes the toast away', async () => {
    const clock = createFakeClock(T0);
    const r = renderWithServices(<Toasts />, { clock });
    const ran: string[] = [];
    act(() =>
      r.services.toasts.push('Disputed by X: Visa story. Nothing was closed.', 'event', {
        sticky: true,
        action: { label: 'Close SOL', run: async () => void ran.push('close sol') },
      }),
    );
    act(() => clock.advance(60_000));
    const toast = screen.getByTestId('toast');
    expect(toast.textContent).toContain('Disputed by X: Visa story. Nothing was closed.');
    fireEvent.click(within(toast).getByRole('button', { name: 'Close SOL' }));
    await waitFor(() => expect(ran).toEqual(['close sol']));
    expect(screen.queryByTestId('toast')).toBeNull();
  });
});

describe('the Recent list under the toasts', () => {
  it('keeps a card trade result once its toast is gone, and counts what was not seen yet', () => {
    const clock = createFakeClock(T0);
    const { services } = renderWithServices(<Toasts />, { clock });
    expect(screen.queryByTestId('recent-button')).toBeNull();
    act(() => services.toasts.push('Successfully placed LONG order for BTC/USDT with 100 USDT.', 'success'));
    act(() => services.toasts.push('Error: Insufficient balance.', 'error'));
    act(() => clock.advance(8_000));
    expect(screen.queryAllByTestId('toast')).toEqual([]);
    const button = screen.getByTestId('recent-button');
    expect(button.textContent).toBe('Recent · 2');
    fireEvent.click(button);
    const items = within(screen.getByTestId('recent-list')).getAllByRole('listitem');
    expect(items.map((li) => li.getAttribute('data-tone'))).toEqual(['error', 'success']);
    expect(items[1]?.textContent).toContain('Successfully placed LONG order for BTC/USDT with 100 USDT.');
    expect(button.textContent).toBe('Recent');
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('recent-list')).toBeNull();
  });
});
