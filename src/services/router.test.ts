import { describe, expect, it } from 'vitest';
import { createRouter, matchRoute, type HistoryPort } from './router';

function fakeHistory(start: string): HistoryPort & { back(): void } {
  const stack = [new URL(start, 'http://x')];
  const listeners = new Set<() => void>();
  const top = (): URL => stack[stack.length - 1] ?? new URL('/', 'http://x');
  return {
    current: () => ({ pathname: top().pathname, search: top().search }),
    push: (url) => void stack.push(new URL(url, top())),
    listen(onChange) {
      listeners.add(onChange);
      return () => void listeners.delete(onChange);
    },
    back() {
      stack.pop();
      for (const l of listeners) l();
    },
  };
}

describe('router', () => {
  it('matches the five routes and sends unknown paths to the dashboard', () => {
    expect(matchRoute('/')).toBe('dashboard');
    expect(matchRoute('/reset-password')).toBe('reset-password');
    expect(matchRoute('/payment/success/')).toBe('payment-success');
    expect(matchRoute('/payment/cancel')).toBe('payment-cancel');
    expect(matchRoute('/payment/pending')).toBe('payment-pending');
    expect(matchRoute('/nope')).toBe('dashboard');
  });

  it('reads the query, navigates, and follows back until disposed', () => {
    const history = fakeHistory('/reset-password?token=abc');
    const router = createRouter(history);
    expect(router.route.value).toBe('reset-password');
    expect(router.query('token')).toBe('abc');

    const stop = router.start();
    router.navigate('/payment/cancel');
    expect(router.route.value).toBe('payment-cancel');
    expect(router.query('token')).toBeNull();
    history.back();
    expect(router.route.value).toBe('reset-password');

    stop();
    router.navigate('/payment/success');
    history.back();
    expect(router.route.value).toBe('payment-success');
  });
});
