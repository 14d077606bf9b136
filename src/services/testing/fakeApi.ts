import { createApi } from '../api';
import { createSessionStore } from '../stores/session';
import { createFakeServer } from './fakeServer';

/** The real API clients over a fake server, with a session holding `token` (none when null). */
export function createFakeApi(token: string | null = 'tok') {
  const server = createFakeServer();
  const session = createSessionStore();
  if (token !== null) session.setToken(token);
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: session,
    navigate: () => undefined,
  });
  return { server, session, api };
}
