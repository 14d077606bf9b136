import type { TokenStore } from '../stores/session';

/** Paths under `/auth/` never trigger a refresh (docs/product.md §4). */
export function isAuthPath(path: string): boolean {
  return path.startsWith('/auth/');
}

export interface RefresherDeps {
  tokens: TokenStore;
  /** Calls `POST /auth/refresh` and resolves to the new access token; rejects when refused. */
  requestToken(): Promise<string>;
  /** Sends the browser to a route; called with "/" when a session cannot be refreshed. */
  navigate(path: string): void;
}

export interface Refresher {
  /**
   * For a call that was refused with 401 while sent with `sentWith`: the token to retry with, or null
   * when the session is gone (then the token is cleared and the browser is sent to "/").
   * Calls refused with the same token share one refresh.
   */
  recover(sentWith: string | null): Promise<string | null>;
  /** A refresh at start-up; failure is silent and leaves the user a guest. */
  refreshQuietly(): Promise<string | null>;
}

export function createRefresher({ tokens, requestToken, navigate }: RefresherDeps): Refresher {
  // The server rotates the refresh cookie on every use and treats reuse as theft, so at most one
  // refresh is ever in flight: every caller joins it.
  let inflight: Promise<string | null> | null = null;
  let last: { from: string | null; result: Promise<string | null>; settled: boolean } | null = null;

  const refreshOnce = (): Promise<string | null> => {
    inflight ??= requestToken()
      .then(
        (token) => {
          tokens.setToken(token);
          return token;
        },
        () => null,
      )
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };

  return {
    recover(sentWith) {
      const current = tokens.getToken();
      // Another call already refreshed since this one was sent: just retry with the new token.
      if (current !== null && current !== sentWith) return Promise.resolve(current);
      // Calls refused with the same token share one outcome. A dead token stays dead; a guest
      // (no token) shares only a refresh still in flight and may try again later.
      if (last !== null && last.from === sentWith && (sentWith !== null || !last.settled)) return last.result;
      const entry = { from: sentWith, result: Promise.resolve<string | null>(null), settled: false };
      entry.result = refreshOnce().then((token) => {
        entry.settled = true;
        if (token === null) {
          tokens.setToken(null);
          navigate('/');
        }
        return token;
      });
      last = entry;
      return entry.result;
    },
    refreshQuietly: refreshOnce,
  };
}
