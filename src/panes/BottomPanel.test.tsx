import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { recordedFill, recordedReply } from '../services/trading/testing/serverAnswers';
import { BottomPanel } from './BottomPanel';

afterEach(cleanup);

describe('bottom panel', () => {
  it('asks a guest to log in, in the positions and the trade tab', () => {
    renderWithServices(<BottomPanel />);
    expect(screen.getByText('Please log in to view positions.')).toBeTruthy();

    fireEvent.click(screen.getByRole('tab', { name: 'Trade' }));
    const total = screen.getByLabelText<HTMLInputElement>('Total (USDT)');
    // The default is a total the exchange takes: BTC/USDT's minimum order.
    expect([total.value, total.min, total.step]).toEqual(['100', '0', '1']);
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

  it('disables the inputs while placing, then shows the order id', async () => {
    const { services, server } = renderWithServices(<BottomPanel />);
    let release = (): void => undefined;
    server.on(
      'POST /orders',
      () =>
        new Promise((resolve) => {
          release = () => resolve(recordedReply('btc long 200'));
        }),
    );
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.ui.showBottomTab('trade'));
    fireEvent.change(screen.getByLabelText('Total (USDT)'), { target: { value: '100' } });
    fireEvent.click(screen.getByRole('button', { name: 'Buy / Long' }));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(screen.getByTestId('trade-status').textContent).toBe('Placing order…');
    const controls = [
      screen.getByLabelText<HTMLInputElement>('Total (USDT)'),
      screen.getByRole<HTMLButtonElement>('button', { name: 'Buy / Long' }),
      screen.getByRole<HTMLButtonElement>('button', { name: 'Sell / Short' }),
    ];
    expect(controls.map((c) => c.disabled)).toEqual([true, true, true]);
    await act(async () => {
      release();
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(screen.getByTestId('trade-status').textContent).toContain(
      `Success! Order ID: ${recordedFill('btc long 200').id}`,
    );
    expect(controls.map((c) => c.disabled)).toEqual([false, false, false]);
    expect(screen.getByTestId('account-badge').textContent).toBe('PAPER');
  });

  it('lists the fills in the Trades tab, newest first, with older ones on demand', async () => {
    const { services, server } = renderWithServices(<BottomPanel />);
    const fill = recordedFill('btc long 200');
    const trade = (id: string) => ({
      id,
      time: Date.UTC(2026, 10, 26, 21, 48, Number(id)),
      symbol: fill.symbol,
      side: fill.side,
      quantity: fill.quantity,
      price: fill.price,
      realizedPnl: 0,
      fee: fill.fee,
      accountId: 'paper',
      account: fill.account,
      source: 'rule',
      ruleId: 'r1',
      ruleName: 'Bad news short',
      orderId: fill.id,
    });
    server.on('GET /trades', (r) => ({
      status: 200,
      body: r.search.includes('cursor=')
        ? { trades: [trade('1')], nextCursor: null }
        : { trades: [trade('3'), trade('2')], nextCursor: '2' },
    }));
    act(() => services.stores.session.setToken('t'));
    act(() => services.stores.ui.showBottomTab('trades'));
    await act(() => services.trades.reload());
    const rows = () => screen.getAllByTestId('trade-row');
    expect(rows()).toHaveLength(2);
    const cells = [...rows()[0]!.querySelectorAll('td')].map((td) => td.textContent);
    expect(cells.slice(0, 3)).toEqual(['11-26 21:48:03', 'BTC/USDT', 'BUY']);
    expect(cells.slice(5)).toEqual(['0.00', fill.fee.toFixed(2), 'PAPER', "rule 'Bad news short'"]);
    fireEvent.click(screen.getByRole('button', { name: 'Older trades' }));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(rows()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Older trades' })).toBeNull();
  });
});
