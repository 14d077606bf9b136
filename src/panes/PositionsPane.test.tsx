import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { BTC_LONG, ETH_SHORT } from '../services/trading/testing/fixtures';
import { recordedReply } from '../services/trading/testing/serverAnswers';
import { decision } from '../services/rules/testing/decisions';
import { ConfirmDialog } from './ConfirmDialog';
import { PositionsPane } from './PositionsPane';

afterEach(cleanup);

describe('Open Positions pane', () => {
  it("tags a position one of the user's rules opened AUTO, with the rule's name on hover", () => {
    const { services } = renderWithServices(<PositionsPane />);
    act(() => {
      services.stores.session.setToken('t');
      services.stores.positions.setPositions([BTC_LONG, ETH_SHORT], 1_000);
      services.stores.rules.setLedger([decision({ symbol: 'ETHUSDT', side: 'short' })]);
    });
    const [btc, eth] = screen.getAllByTestId('position-row');
    expect(within(btc as HTMLElement).queryByTestId('auto-tag')).toBeNull();
    const tag = within(eth as HTMLElement).getByTestId('auto-tag');
    expect(tag.textContent).toBe('AUTO');
    expect(tag.title).toBe("Opened by your rule 'Bad news short'");
    // Closed by the rule's exit: no longer the rule's.
    act(() => services.stores.rules.setLedger([decision({ exit: 'stop loss: 2% at 3200' })]));
    expect(screen.queryByTestId('auto-tag')).toBeNull();
  });

  it('asks a guest to log in', () => {
    renderWithServices(<PositionsPane />);
    expect(screen.getByTestId('positions').textContent).toBe('Please log in to view positions.');
  });

  it('shows the columns, the rows with green and red PnL, Live, the stamp and the PAPER badge', () => {
    const { services } = renderWithServices(<PositionsPane />);
    const store = services.stores.positions;
    act(() => services.stores.session.setToken('t'));
    act(() => store.setPositions([], 0));
    expect(screen.getByText('No open positions.')).toBeTruthy();
    expect(screen.getByTestId('positions-live').textContent).toBe('Polling');

    act(() => {
      store.setPositions([BTC_LONG, ETH_SHORT], 1_000);
      store.tick(21_000);
      store.setLive(true);
    });
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual([
      'SYMBOL',
      'SIDE',
      'SIZE',
      'ENTRY PRICE',
      'MARK PRICE',
      'LIQ. PRICE',
      'MARGIN (USDT)',
      'UNREALIZED PNL',
      'ACTIONS',
    ]);
    const [btc, eth] = screen.getAllByTestId('position-row');
    expect(
      within(btc as HTMLElement)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual([
      'BTC/USDT',
      'LONG',
      '0.052',
      '96,150.5000',
      '96,400.2500',
      '87,010.1234',
      '499.98',
      '+12.99 (+2.60%)',
      'Close',
    ]);
    expect(within(btc as HTMLElement).getByTestId('pnl').className).toContain('gain');
    expect(within(eth as HTMLElement).getByTestId('pnl').className).toContain('loss');
    expect(screen.getByTestId('positions-live').textContent).toBe('Live');
    expect(screen.getByTestId('positions-updated').textContent).toBe('Updated 20s ago');
    expect(screen.getByTestId('account-badge').textContent).toBe('PAPER');
  });

  it('says "Failed to fetch positions." when loading fails', () => {
    const { services } = renderWithServices(<PositionsPane />);
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.positions.setError('Failed to fetch positions.'));
    expect(screen.getByRole('alert').textContent).toBe('Failed to fetch positions.');
    expect(screen.queryByText('Loading…')).toBeNull();
  });

  it("Close asks in the app's own dialog, naming the position and its PnL, then closes it", async () => {
    const { services, server } = renderWithServices(
      <>
        <PositionsPane />
        <ConfirmDialog />
      </>,
    );
    server.on('POST /close_position', () => recordedReply('close eth'));
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.positions.setPositions([ETH_SHORT], 0));
    const close = screen.getByRole('button', { name: 'Close' });
    close.focus();
    act(() => fireEvent.click(close));
    const dialog = screen.getByRole('dialog', { name: 'Close ETH/USDT' });
    expect(screen.getByTestId('confirm-message').textContent).toBe(
      'Are you sure you want to close the ETH/USDT position?',
    );
    expect(screen.getByTestId('confirm-details').textContent).toContain('SHORT 1.5 ETH/USDT');
    expect(screen.getByTestId('confirm-details').textContent).toContain('Unrealized PnL -18.75 USDT');
    // Cancel has focus first: Enter alone never closes a position.
    expect(document.activeElement?.textContent).toBe('Cancel');
    expect(dialog.contains(document.activeElement)).toBe(true);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Close position' }));
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toEqual({ symbol: 'ETH/USDT' });
    // What the close filled is written in the terminal, from the server's answer.
    const printed = services.stores.terminal.entries.value.map((e) => ('text' in e ? e.text : ''));
    expect(
      printed.some((t) => /^Closed SHORT 0\.079 ETH .* realised -0\.10 USDT, fee 0\.12 USDT\.$/.test(t)),
    ).toBe(true);
  });

  it('Cancel sends nothing and gives focus back to the Close button', () => {
    const { services, server } = renderWithServices(
      <>
        <PositionsPane />
        <ConfirmDialog />
      </>,
    );
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.positions.setPositions([ETH_SHORT], 0));
    const close = screen.getByRole('button', { name: 'Close' });
    close.focus();
    act(() => fireEvent.click(close));
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Cancel' })));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(close);
    expect(server.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('Close All is disabled with nothing open', () => {
    const { services } = renderWithServices(<PositionsPane />);
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.positions.setPositions([], 0));
    expect((screen.getByRole('button', { name: 'Close All' }) as HTMLButtonElement).disabled).toBe(true);
    act(() => services.stores.positions.setPositions([ETH_SHORT], 0));
    expect((screen.getByRole('button', { name: 'Close All' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
