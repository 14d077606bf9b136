import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { LiveIndicator } from './LiveIndicator';
import { SimulatedBadge } from './SimulatedBadge';
import { SymbolSearch } from './SymbolSearch';

afterEach(cleanup);

const options = () => screen.queryAllByRole('option').map((o) => o.textContent);

describe('header symbol search', () => {
  it('lists prefix matches and picks with the keyboard, running the symbol command', async () => {
    const { services } = renderWithServices(<SymbolSearch />);
    const input = screen.getByRole('combobox', { name: 'Search symbol' });
    fireEvent.change(input, { target: { value: 'et' } });
    expect(options()).toEqual([
      'ETH/USDTEthereum',
      'ETC/USDTEthereum Classic',
      'ETHFI/USDTether.fi',
      'ENA/USDTEthena',
      'ENS/USDTEthereum Name Service',
    ]);
    expect(screen.getAllByRole('option')[0]?.getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.getAttribute('aria-activedescendant')).toBe('symbol-option-ETC');
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(services.stores.ui.symbol.value).toBe('ETC/USDT'));
    expect(services.stores.terminal.entries.value.map((e) => (e.kind === 'input' ? e.text : e.text))).toEqual(
      expect.arrayContaining(['symbol ETC', 'Symbol set to ETC/USDT.']),
    );
    expect((input as HTMLInputElement).value).toBe('');
    expect(options()).toEqual([]);
  });

  it('picks with the mouse, closes on Escape, and wraps around with the arrows', async () => {
    const { services } = renderWithServices(<SymbolSearch />);
    const input = screen.getByRole('combobox');
    fireEvent.change(input, { target: { value: 'sol' } });
    expect(options()).toEqual(['SOL/USDTSolana']);
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(options()).toEqual([]);
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(options()).toHaveLength(1);
    fireEvent.mouseDown(screen.getByRole('option'));
    await waitFor(() => expect(services.stores.ui.symbol.value).toBe('SOL/USDT'));
  });

  it('shows the command error for an unknown ticker and keeps the symbol', async () => {
    const { services } = renderWithServices(<SymbolSearch />);
    const input = screen.getByRole('combobox');
    fireEvent.change(input, { target: { value: 'zzz' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(await screen.findByRole('alert')).toHaveProperty(
      'textContent',
      'Unknown symbol: ZZZ. Type a ticker such as BTC or ETH.',
    );
    expect(services.stores.ui.symbol.value).toBe('BTC/USDT');
  });
});

describe('live indicator and simulated-prices badge', () => {
  it('says Live only while the price channel and the signal stream are both connected', () => {
    const { services } = renderWithServices(<LiveIndicator />);
    expect(screen.getByTestId('live-indicator').textContent).toBe('Connecting');
    act(() => services.stores.connection.setChannel('prices', true));
    expect(screen.getByTestId('live-indicator').textContent).toBe('Connecting');
    act(() => services.stores.connection.setChannel('signals', true));
    expect(screen.getByTestId('live-indicator').textContent).toBe('Live');
    act(() => services.stores.connection.setChannel('prices', false));
    expect(screen.getByTestId('live-indicator').textContent).toBe('Connecting');
  });

  it('shows SIMULATED PRICES for the simulator, nothing for a healthy Binance feed', () => {
    const { services } = renderWithServices(<SimulatedBadge />);
    expect(screen.queryByTestId('simulated-badge')).toBeNull();
    act(() => services.stores.market.setFeed('sim', 'ok'));
    expect(screen.getByTestId('simulated-badge').textContent).toBe('SIMULATED PRICES');
    act(() => services.stores.market.setFeed('binance', 'ok'));
    expect(screen.queryByTestId('simulated-badge')).toBeNull();
    act(() => services.stores.market.setFeed('binance', 'degraded'));
    expect(screen.getByTestId('simulated-badge').textContent).toBe('PRICE FEED DELAYED');
  });
});
