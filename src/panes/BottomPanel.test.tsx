import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { BottomPanel } from './BottomPanel';

afterEach(cleanup);

describe('bottom panel', () => {
  it('asks a guest to log in, in the positions and the trade tab', () => {
    renderWithServices(<BottomPanel />);
    expect(screen.getByText('Please log in to view positions.')).toBeTruthy();

    fireEvent.click(screen.getByRole('tab', { name: 'Trade' }));
    const total = screen.getByLabelText<HTMLInputElement>('Total (USDT)');
    expect([total.value, total.min, total.step]).toEqual(['10', '0', '1']);
    fireEvent.click(screen.getByRole('button', { name: 'Buy / Long' }));
    expect(screen.getByTestId('trade-status').textContent).toBe('Please log in to trade.');
  });

  it('rejects a zero total for a signed-in user without sending an order', () => {
    const { services, server } = renderWithServices(<BottomPanel />);
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.ui.showBottomTab('trade'));
    fireEvent.change(screen.getByLabelText('Total (USDT)'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sell / Short' }));
    expect(screen.getByTestId('trade-status').textContent).toBe('Total must be greater than zero.');
    expect(server.count('POST /orders')).toBe(0);
  });
});
