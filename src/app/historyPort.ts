import type { HistoryPort } from '../services/router';

/** The router's view of the real browser history. */
export function browserHistory(): HistoryPort {
  return {
    current: () => ({ pathname: window.location.pathname, search: window.location.search }),
    push(url) {
      window.history.pushState(null, '', url);
    },
    listen(onChange) {
      window.addEventListener('popstate', onChange);
      return () => window.removeEventListener('popstate', onChange);
    },
  };
}
