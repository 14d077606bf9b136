import { createApi } from '../../api';
import { createSessionStore } from '../../stores/session';
import { createFakeServer } from '../../testing/fakeServer';

/** The real API clients over a fake server, with a session holding `token`. */
export function fakeTradingApi(token: string | null = 'tok') {
  const server = createFakeServer();
  const session = createSessionStore();
  session.setToken(token);
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: session,
    navigate: () => undefined,
  });
  return { server, session, api, trading: api.trading };
}

/** Keys `key-1`, `key-2`, … in order. */
export function countingKeys(): () => string {
  let n = 0;
  return () => `key-${++n}`;
}
