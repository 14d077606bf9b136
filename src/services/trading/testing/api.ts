import { createFakeApi } from '../../testing/fakeApi';

/** The real API clients over a fake server, with a session holding `token`. */
export function fakeTradingApi(token: string | null = 'tok') {
  const { server, session, api } = createFakeApi(token);
  return { server, session, api, trading: api.trading };
}

/** Keys `key-1`, `key-2`, … in order. */
export function countingKeys(): () => string {
  let n = 0;
  return () => `key-${++n}`;
}
