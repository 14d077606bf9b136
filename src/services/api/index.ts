import { withBrowserLock, type BrowserLockDeps } from './browserLock';
import { z } from 'zod';
import type { TokenStore } from '../stores/session';
import {
  createApiClient,
  createRawFetch,
  sharedPrompt,
  type ApiClient,
  type FetchImpl,
  type StepUpPrompt,
} from './client';
import { createRefresher } from './refresh';

export type { ApiClient, FetchImpl, RequestOptions, StepUpPrompt } from './client';
export { isStepUpRequired, sharedPrompt, withSignal } from './client';
export { errorMessage, errorText, statusOf } from './errors';
export { isAuthPath } from './refresh';

const TokenResponse = z.object({ access_token: z.string().min(1) });

export interface ApiConfig {
  /** Main base (auth, users, watchlist, …); `VITE_API_BASE`, default `/api`. */
  mainBase: string;
  /** Trading/price base (orders, positions, prices); `VITE_TRADING_API_BASE`, default `/api`. */
  tradingBase: string;
  fetch: FetchImpl;
  tokens: TokenStore;
  navigate(path: string): void;
  /** The cross-tab lock around refreshes (the app passes the browser's own); none when absent. */
  lock?: BrowserLockDeps;
  /** Asks the person to confirm it's them when a sensitive call needs it (the app's dialog). */
  stepUp?: StepUpPrompt;
}

export interface Api {
  main: ApiClient;
  trading: ApiClient;
  /** Tries a refresh at start; resolves to whether the user is now signed in. Never throws. */
  refreshOnLoad(): Promise<boolean>;
}

export function createApi(config: ApiConfig): Api {
  const rawMain = createRawFetch(config.mainBase, config.fetch);
  const refresher = createRefresher({
    tokens: config.tokens,
    navigate: config.navigate,
    // One refresh per browser at a time: a second tab waits, then presents the cookie the first got.
    requestToken: () =>
      withBrowserLock(
        'signal-console-refresh',
        async () => {
          const body: unknown = await rawMain('/auth/refresh', { method: 'POST' });
          return TokenResponse.parse(body).access_token;
        },
        config.lock ?? {},
      ),
  });
  const stepUp = config.stepUp === undefined ? undefined : sharedPrompt(config.stepUp);
  const client = (baseURL: string): ApiClient =>
    createApiClient({
      baseURL,
      fetch: config.fetch,
      tokens: config.tokens,
      refresher,
      ...(stepUp === undefined ? {} : { stepUp }),
    });
  return {
    main: client(config.mainBase),
    trading: client(config.tradingBase),
    async refreshOnLoad() {
      return (await refresher.refreshQuietly()) !== null;
    },
  };
}
