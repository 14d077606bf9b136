import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { recordedReply } from '../services/trading/testing/serverAnswers';
import { TradePanel } from './TradePanel';

afterEach(cleanup);

describe('trade panel', () => {
  it('sends the stop loss and take profit typed as the order’s protection, and forgets them on another symbol', async () => {
    const { services, server } = renderWithServices(<TradePanel />);
    server.on('POST /orders', () => recordedReply('btc long 200'));
    act(() => services.stores.session.setToken('t'));
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: '2%' } });
    fireEvent.change(screen.getByLabelText('Take profit'), { target: { value: '110000' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Buy / Long' }));
      await new Promise((r) => setTimeout(r, 10));
    });
    const order = JSON.parse(server.requests.find((r) => r.path === '/orders')?.body ?? '{}');
    expect(order).toMatchObject({
      side: 'buy',
      protection: { stop_loss_pct: 2, take_profit_price: 110_000 },
    });
    act(() => void services.stores.ui.chooseTicker('ETH'));
    expect((screen.getByLabelText('Stop loss') as HTMLInputElement).value).toBe('');
  });

  it('shows a mistyped stop in the status line and sends nothing', async () => {
    const { services, server } = renderWithServices(<TradePanel />);
    act(() => services.stores.session.setToken('t'));
    fireEvent.change(screen.getByLabelText('Stop loss'), { target: { value: 'tight' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Sell / Short' }));
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(screen.getByTestId('trade-status').textContent).toBe(
      "Stop loss: 'tight' is neither a percent (2%) nor a price (98000).",
    );
    expect(server.requests.filter((r) => r.path === '/orders')).toEqual([]);
  });
});
