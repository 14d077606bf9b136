import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { BTC_LONG, ETH_SHORT } from '../services/trading/testing/fixtures';
import { PositionsPane } from './PositionsPane';

afterEach(cleanup);

describe('Open Positions pane', () => {
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

  it('Close asks first and closes the row; Close All alerts when nothing is open', async () => {
    const asked: string[] = [];
    const alerts: string[] = [];
    const { services, server } = renderWithServices(<PositionsPane />, {
      dialogs: { confirm: (m) => (asked.push(m), true), alert: (m) => void alerts.push(m) },
    });
    server.on('POST /close_position', () => ({ status: 200, body: { message: 'Closed.' } }));
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.positions.setPositions([ETH_SHORT], 0));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Close' }));
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(asked).toEqual(['Are you sure you want to close the ETH/USDT position?']);
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toEqual({ symbol: 'ETH/USDT' });

    act(() => services.stores.positions.setPositions([], 0));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Close All' }));
      await Promise.resolve();
    });
    expect(alerts).toEqual(['There are no open positions to close.']);
  });
});
