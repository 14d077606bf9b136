import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { SCORECARD_TEXTS } from '../contracts/scorecard';
import { group, makeScorecard } from '../services/scorecard/testing/cards';
import { FeedPane } from './FeedPane';
import { ScorecardModal } from './ScorecardModal';

afterEach(cleanup);

function setup(card = makeScorecard()) {
  const r = renderWithServices(
    <>
      <FeedPane />
      <ScorecardModal />
    </>,
  );
  r.server.on('GET /signals/scorecard', () => ({ status: 200, body: card }));
  return r;
}

const dialog = () => screen.getByRole('dialog', { name: 'Signal scorecard' });
const bars = (name: string) =>
  within(within(dialog()).getByRole('list', { name }))
    .getAllByTestId('score-bar')
    .map((b) => b.textContent);

describe('Scorecard modal', () => {
  it('opens from the feed header through the scorecard command, and shows bars, counts and the price source', async () => {
    const r = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Scorecard' }));
    await waitFor(() => expect(screen.getByTestId('scorecard-summary').textContent).toContain('12 signals'));
    expect(r.server.count('GET /signals/scorecard')).toBe(1);
    expect(screen.getByTestId('scorecard-summary').textContent).toBe(
      'Last 7 days · 12 signals measuredsimulated prices',
    );
    expect(screen.getByTestId('scorecard-prices').className).toBe('scorecard-prices sim');
    // The 5-minute horizon by default.
    expect(bars('Hit rate by impact band')).toEqual(['80+80% of 5', '50-7960% of 5', '<5050% of 2']);
    expect(bars('Hit rate by source')).toEqual([
      'Binance Announcements83% of 6',
      'Blockwire News67% of 3',
      'Whale Tracker33% of 3',
    ]);
    const rows = within(screen.getByTestId('scorecard-sentiment')).getAllByRole('row');
    expect(rows.map((row) => [...row.children].map((c) => c.textContent))).toEqual([
      ['Sentiment', 'Signals', 'Moves', 'Hit rate', 'Mean move'],
      ['positive', '7', '8', '75%', '+0.80%'],
      ['negative', '3', '4', '50%', '-0.20%'],
      ['neutral', '2', '2', '—', '±0.31%'],
    ]);
    // The command printed the table in the terminal as well.
    expect(r.services.stores.terminal.entries.value.map((e) => e.text).join('\n')).toContain(
      'Scorecard, last 7 days (simulated prices)',
    );
  });

  it('shows retracted stories and their retractions apart, only when there are some', async () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'Scorecard' }));
    await waitFor(() => expect(screen.getByTestId('scorecard-summary').textContent).toContain('12 signals'));
    expect(screen.queryByTestId('scorecard-retraction')).toBeNull();
    cleanup();
    setup(
      makeScorecard({
        by_retraction: [group('retracted', 2, [2, 2, 0, -3.1]), group('retraction', 1, [1, 1, 1, 2.4])],
      }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Scorecard' }));
    await waitFor(() => expect(screen.getByTestId('scorecard-retraction')).toBeTruthy());
    const rows = within(screen.getByTestId('scorecard-retraction')).getAllByRole('row');
    expect(rows.map((row) => [...row.children].map((c) => c.textContent))).toEqual([
      ['Role', 'Signals', 'Moves', 'Hit rate', 'Mean move'],
      ['retracted', '2', '2', '0%', '-3.10%'],
      ['retraction', '1', '1', '100%', '+2.40%'],
    ]);
  });

  it('switches the horizon of the charts, and Close and Esc close it', async () => {
    const r = setup();
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    const fill = () =>
      (dialog().querySelector('[data-key="80+"] .score-bar-fill') as HTMLElement | null)?.style.width;
    expect(fill()).toBe('80%');
    fireEvent.click(within(dialog()).getByRole('radio', { name: '30m' }));
    expect(r.services.stores.scorecard.horizon.value).toBe('30m');
    expect(bars('Hit rate by impact band')[0]).toBe('80+25% of 4');
    expect(fill()).toBe('25%');
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    fireEvent.click(within(dialog()).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('says beside the figures that hit rates on simulated prices are chance, and not on real ones', async () => {
    const r = setup(makeScorecard({ note: SCORECARD_TEXTS.simulated }));
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    expect(within(dialog()).getByTestId('scorecard-note').textContent).toBe(SCORECARD_TEXTS.simulated);
    r.server.on('GET /signals/scorecard', () => ({
      status: 200,
      body: makeScorecard({ price_source: 'binance', note: null }),
    }));
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    expect(within(dialog()).queryByTestId('scorecard-note')).toBeNull();
  });

  it('says the prices are real when they are, and shows a failure', async () => {
    const r = setup(makeScorecard({ price_source: 'binance' }));
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    expect(screen.getByTestId('scorecard-prices').textContent).toBe('Binance prices');
    expect(screen.getByTestId('scorecard-prices').className).toBe('scorecard-prices binance');
    r.server.on('GET /signals/scorecard', () => ({ status: 503, body: { detail: 'Try later.' } }));
    await act(() => r.services.terminal.execute('scorecard', 'ui'));
    expect(within(dialog()).getByRole('alert').textContent).toBe('Try later.');
  });
});
