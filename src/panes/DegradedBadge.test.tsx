import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Health } from '../contracts/health';
import { renderWithServices } from '../app/testing/renderWithServices';
import { Header } from './Header';

afterEach(cleanup);

const health = (degraded: string[]): Health => ({
  status: degraded.length === 0 ? 'ok' : 'degraded',
  degraded,
  db: 'postgres',
  dbOk: !degraded.includes('database unreachable'),
  bus: 'redis',
  busOk: true,
  market: 'binance',
  news: ['webhook'],
  exchange: 'paper',
  analyzer: 'llm',
  payments: ['stripe'],
  mail: 'smtp',
  standins: [],
  version: '1',
  uptimeSeconds: 9,
  role: 'api',
  leases: [],
});

describe('the header’s degraded chip', () => {
  it('names the first problem, counts the rest, lists them all in its title, and goes once all is well', () => {
    const { services } = renderWithServices(<Header />);
    const { connection } = services.stores;
    expect(screen.queryByTestId('degraded-badge')).toBeNull();

    act(() => connection.markAnswered(health(['market feed stalled'])));
    const chip = screen.getByTestId('degraded-badge');
    expect(chip.textContent).toBe('DEGRADED: market feed stalled');
    expect(chip.getAttribute('title')).toBe('Degraded: market feed stalled.');
    expect(screen.getByRole('status', { name: 'Degraded: market feed stalled.' })).toBe(chip);

    act(() =>
      connection.markAnswered(
        health([
          'database unreachable',
          'AI analyzer not answering: local fallback',
          'exchange rate-limited for 3 s (429)',
        ]),
      ),
    );
    const many = screen.getByTestId('degraded-badge');
    expect(many.textContent).toBe('DEGRADED: database unreachable +2');
    expect(many.getAttribute('title')).toBe(
      'Degraded: database unreachable; AI analyzer not answering: local fallback; exchange rate-limited for 3 s (429).',
    );
    // Inside the header, before the sign-in buttons: it wraps with the header, never over them.
    const header = many.closest('header');
    expect(header?.className).toBe('header');

    act(() => connection.markAnswered(health([])));
    expect(screen.queryByTestId('degraded-badge')).toBeNull();
  });
});
