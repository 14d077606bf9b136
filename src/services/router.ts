import { computed, signal, type ReadonlySignal } from '@preact/signals-core';

export type RouteName =
  'dashboard' | 'reset-password' | 'payment-success' | 'payment-cancel' | 'payment-pending';

const ROUTES: Readonly<Record<string, RouteName>> = {
  '/': 'dashboard',
  '/reset-password': 'reset-password',
  '/payment/success': 'payment-success',
  '/payment/cancel': 'payment-cancel',
  '/payment/pending': 'payment-pending',
};

/** The route for a path; unknown paths show the dashboard. A trailing slash is ignored. */
export function matchRoute(pathname: string): RouteName {
  const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return ROUTES[trimmed] ?? 'dashboard';
}

export interface Location {
  pathname: string;
  search: string;
}

/** The browser history, injected (the app passes `window.history`/`window.location`; tests a fake). */
export interface HistoryPort {
  current(): Location;
  push(url: string): void;
  /** Hears back/forward navigation; returns the disposer. */
  listen(onChange: () => void): () => void;
}

export interface Router {
  readonly location: ReadonlySignal<Location>;
  readonly route: ReadonlySignal<RouteName>;
  /** Reads a query parameter of the current location. */
  query(name: string): string | null;
  navigate(url: string): void;
  /** Follows back/forward; returns the disposer. */
  start(): () => void;
}

export function createRouter(history: HistoryPort): Router {
  const location = signal<Location>(history.current(), { name: 'router.location' });
  const sync = (): void => {
    location.value = history.current();
  };
  return {
    location,
    route: computed(() => matchRoute(location.value.pathname), { name: 'router.route' }),
    query: (name) => new URLSearchParams(location.value.search).get(name),
    navigate(url) {
      history.push(url);
      sync();
    },
    start: () => history.listen(sync),
  };
}
