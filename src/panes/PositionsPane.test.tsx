import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { BTC_LONG, ETH_SHORT } from '../services/trading/testing/fixtures';
import { recordedReply } from '../services/trading/testing/serverAnswers';
import { decision } from '../services/rules/testing/decisions';
import type { PositionProtection } from '../contracts/protection';
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
      'PROTECTION',
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
      '96,150.5',
      '96,400.3',
      '87,010.1',
      '499.98',
      '+12.99 (+2.60%)',
      'unprotectedEditBE',
      'Close50%Flip',
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

describe('Open Positions: protection', () => {
  const AT = Date.parse('2026-11-26T14:05:00Z');
  const GUARDED: PositionProtection = {
    stop_loss: { price: 94_227.49, on: 'exchange', state: 'resting' },
    take_profit: { price: 101_000, on: 'exchange', state: 'placing' },
    trailing: { callback_pct: 1.5, on: 'exchange', state: 'missing' },
    exit_at: '2026-11-26T14:30:00Z',
  };
  const settle = () => act(async () => void (await new Promise((r) => setTimeout(r, 10))));

  function show(protection: PositionProtection, more: Parameters<typeof renderWithServices>[1] = {}) {
    const view = renderWithServices(
      <>
        <PositionsPane />
        <ConfirmDialog />
      </>,
      more,
    );
    act(() => view.services.stores.session.setToken('t'));
    act(() => view.services.stores.positions.setPositions([{ ...BTC_LONG, protection }, ETH_SHORT], AT));
    const row = (symbol: string) =>
      screen.getAllByTestId('position-row').find((r) => r.dataset.symbol === symbol) as HTMLElement;
    return { ...view, row };
  }

  const legs = (row: HTMLElement) =>
    within(row)
      .queryAllByTestId('protection-leg')
      .map((leg) => leg.textContent);

  it('shows each leg with where it rests and its state, and marks a row without a stop unprotected', () => {
    const { row } = show(GUARDED);
    const btc = row('BTC/USDT');
    expect(legs(btc)).toEqual([
      'SL 94,227.5 exchange resting',
      'TP 101,000.0 exchange placing',
      'Trail 1.5% exchange re-placing',
      'Exit in 25m app',
    ]);
    const badges = within(btc)
      .getAllByTestId('protection-leg')
      .map((leg) => leg.querySelector('.protection-place')?.getAttribute('title'));
    expect(badges).toEqual([
      'Rests on the paper exchange',
      'Rests on the paper exchange',
      'Rests on the paper exchange',
      'Rests in the app',
    ]);
    expect(within(btc).queryByTestId('unprotected')).toBeNull();
    // ETH came without protection: unprotected, nothing to remove.
    const eth = row('ETH/USDT');
    expect(within(eth).getByTestId('unprotected').textContent).toBe('unprotected');
    expect(within(eth).queryByRole('button', { name: /Remove protection/ })).toBeNull();
  });

  it('is unprotected once the stop fired or was refused, even with a target left', () => {
    const { row } = show({
      ...GUARDED,
      stop_loss: { price: 94_227.49, on: 'exchange', state: 'triggered' },
      trailing: { callback_pct: 1.5, on: 'exchange', state: 'refused' },
      exit_at: null,
    });
    const btc = row('BTC/USDT');
    expect(within(btc).getByTestId('unprotected')).toBeTruthy();
    expect(legs(btc)).toEqual([
      'SL 94,227.5 exchange triggered',
      'TP 101,000.0 exchange placing',
      'Trail 1.5% exchange refused',
    ]);
  });

  it("says Binance for a key account's legs", () => {
    const { row, services } = show(GUARDED);
    act(() =>
      services.stores.account.set({ account: 'k1', venue: 'binance', mode: 'live', keyHint: 'abcd…wxyz' }),
    );
    const title = within(row('BTC/USDT'))
      .getAllByTestId('protection-leg')[0]
      ?.querySelector('.protection-place');
    expect(title?.getAttribute('title')).toBe('Rests on Binance');
  });

  it("edits from the row: the form holds the legs, Save PUTs them, a refusal shows the server's words", async () => {
    const { row, server, services } = show(GUARDED);
    let reply: { status: number; body: unknown } = {
      status: 422,
      body: {
        detail: [
          {
            loc: ['body', 'stop_loss_price'],
            msg: "A long's stop loss must be below the price (96400.25).",
            type: 'value_error',
          },
        ],
      },
    };
    server.on('PUT /positions/BTCUSDT/protection', () => reply);
    act(() =>
      fireEvent.click(within(row('BTC/USDT')).getByRole('button', { name: 'Edit protection of BTC/USDT' })),
    );
    const form = screen.getByRole('form', { name: 'Protection of BTC/USDT' });
    const field = (name: string) => within(form).getByLabelText(name) as HTMLInputElement;
    expect(
      [field('Stop loss'), field('Take profit'), field('Trailing %'), field('Exit after')].map(
        (f) => f.value,
      ),
    ).toEqual(['94227.49', '101000', '1.5', '25']);
    act(() => fireEvent.change(field('Stop loss'), { target: { value: '97000' } }));
    act(() => fireEvent.change(field('Trailing %'), { target: { value: '' } }));
    act(() => fireEvent.click(within(form).getByRole('button', { name: 'Save' })));
    await settle();
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toEqual({
      stop_loss_price: 97_000,
      take_profit_price: 101_000,
      exit_after_min: 25,
    });
    expect(within(form).getByRole('alert').textContent).toBe(
      "A long's stop loss must be below the price (96400.25).",
    );

    // A mistyped field is refused here, without asking the server.
    const sent = server.requests.length;
    act(() => fireEvent.change(field('Stop loss'), { target: { value: 'abc' } }));
    act(() => fireEvent.click(within(form).getByRole('button', { name: 'Save' })));
    expect(within(form).getByRole('alert').textContent).toBe(
      "Stop loss: 'abc' is neither a percent (2%) nor a price (98000).",
    );
    expect(server.requests).toHaveLength(sent);

    reply = {
      status: 200,
      body: {
        message: 'Protection set on BTC/USDT.',
        protection: {
          ...GUARDED,
          stop_loss: { price: 94_477.5, on: 'exchange', state: 'resting' },
          trailing: null,
          unprotected_ms: null,
          note: null,
        },
      },
    };
    act(() => fireEvent.change(field('Stop loss'), { target: { value: '2%' } }));
    act(() => fireEvent.click(within(form).getByRole('button', { name: 'Save' })));
    await settle();
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toMatchObject({ stop_loss_pct: 2 });
    expect(screen.queryByRole('form')).toBeNull();
    const printed = services.stores.terminal.entries.value.map((e) => ('text' in e ? e.text : ''));
    const at = printed.indexOf('Protection of BTC/USDT:');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(printed[at + 1]).toBe('Stop loss 94,477.5: resting on the paper exchange.');
  });

  it('Remove asks, then DELETEs; Break-even POSTs and shows a refusal on the row', async () => {
    const { row, server } = show(GUARDED);
    server.on('DELETE /positions/BTCUSDT/protection', () => ({
      status: 200,
      body: {
        message: 'Protection removed from BTC/USDT.',
        protection: { stop_loss: null, take_profit: null, trailing: null, exit_at: null },
      },
    }));
    server.on('POST /positions/BTCUSDT/protection/break-even', () => ({
      status: 409,
      body: { detail: 'BTC/USDT is not far enough in profit for a break-even stop.' },
    }));
    act(() =>
      fireEvent.click(within(row('BTC/USDT')).getByRole('button', { name: 'Remove protection of BTC/USDT' })),
    );
    expect(screen.getByTestId('confirm-message').textContent).toBe('Remove the protection of BTC/USDT?');
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Cancel' })));
    expect(server.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    act(() =>
      fireEvent.click(within(row('BTC/USDT')).getByRole('button', { name: 'Remove protection of BTC/USDT' })),
    );
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Remove protection' }));
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(server.count('DELETE /positions/BTCUSDT/protection')).toBe(1);

    act(() =>
      fireEvent.click(
        within(row('BTC/USDT')).getByRole('button', { name: 'Move the stop of BTC/USDT to break-even' }),
      ),
    );
    await settle();
    expect(server.count('POST /positions/BTCUSDT/protection/break-even')).toBe(1);
    expect(within(row('BTC/USDT')).getByRole('alert').textContent).toBe(
      'BTC/USDT is not far enough in profit for a break-even stop.',
    );
  });
});
