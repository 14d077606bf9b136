import { describe, expect, it, vi } from 'vitest';
import { createSessionStore } from '../stores/session';
import { createFakeServer, type FakeServer } from '../testing/fakeServer';
import { createApi } from './index';

function setup(initialToken: string | null = 'old') {
  const server = createFakeServer();
  const session = createSessionStore();
  session.setToken(initialToken);
  const navigate = vi.fn<(path: string) => void>();
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: session,
    navigate,
  });
  return { server, session, navigate, api };
}

/** GET /positions answers 200 only to the bearer token `fresh`. */
function protectedRoute(server: FakeServer): void {
  server.on('GET /positions', (req) =>
    req.authorization === 'Bearer fresh'
      ? { status: 200, body: [] }
      : { status: 401, body: { detail: 'Expired' } },
  );
}

/** A gate the test opens, so a refresh stays in flight until every 401 has arrived. */
function gate() {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('api client', () => {
  it('sends the bearer token from the token store and cookies', async () => {
    const { server, api } = setup('abc');
    server.on('GET /users/me', () => ({ status: 200, body: { ok: true } }));
    await expect(api.main.send('/users/me')).resolves.toEqual({ ok: true });
    expect(server.requests[0]?.authorization).toBe('Bearer abc');
  });

  it('shares one refresh among three concurrent 401s and retries each with the new token', async () => {
    const { server, session, navigate, api } = setup('old');
    protectedRoute(server);
    const refreshGate = gate();
    server.on('POST /auth/refresh', async () => {
      await refreshGate.opened;
      return { status: 200, body: { access_token: 'fresh' } };
    });

    const calls = [
      api.trading.send('/positions'),
      api.trading.send('/positions'),
      api.main.send('/positions'),
    ];
    await vi.waitFor(() => expect(server.count('GET /positions')).toBe(3));
    refreshGate.open();

    await expect(Promise.all(calls)).resolves.toEqual([[], [], []]);
    expect(server.count('POST /auth/refresh')).toBe(1);
    const retries = server.requests.filter((r) => r.path === '/positions').slice(3);
    expect(retries.map((r) => r.authorization)).toEqual(['Bearer fresh', 'Bearer fresh', 'Bearer fresh']);
    expect(session.getToken()).toBe('fresh');
    expect(navigate).not.toHaveBeenCalled();
  });

  it('clears the token and goes to "/" when the refresh fails', async () => {
    const { server, session, navigate, api } = setup('old');
    session.setUser({ username: 'ann', role: 'user', subscriptionStatus: null });
    protectedRoute(server);
    server.on('POST /auth/refresh', () => ({ status: 401, body: { detail: 'Refresh token revoked' } }));

    const results = await Promise.allSettled([
      api.trading.send('/positions'),
      api.trading.send('/positions'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(server.count('POST /auth/refresh')).toBe(1);
    expect(session.getToken()).toBeNull();
    expect(session.user.value).toBeNull();
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate).toHaveBeenCalledWith('/');
  });

  it('a logout ends the calls sent with its token at once, and none of them asks for a refresh', async () => {
    const { server, session, navigate, api } = setup('old');
    const answer = gate();
    server.on('GET /users/me', async () => {
      await answer.opened;
      return { status: 401, body: { detail: 'Not authenticated' } };
    });
    server.on('POST /auth/refresh', () => ({ status: 401, body: { detail: 'Refresh token revoked' } }));
    server.on('GET /signals', () => ({ status: 200, body: [] }));

    const inFlight = api.main.send('/users/me');
    await vi.waitFor(() => expect(server.count('GET /users/me')).toBe(1));
    session.clear();
    await expect(inFlight).rejects.toMatchObject({ cause: { name: 'AbortError' } });
    answer.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(server.count('POST /auth/refresh')).toBe(0);
    expect(navigate).not.toHaveBeenCalled();
    // The guest's own calls are not tied to the sign-in that ended.
    await expect(api.main.send('/signals')).resolves.toEqual([]);
  });

  it("a command's call ends with the command or with the sign-in, whichever ends first", async () => {
    const { server, session, api } = setup('old');
    const answer = gate();
    server.on('GET /positions', async () => {
      await answer.opened;
      return { status: 200, body: [] };
    });
    const command = new AbortController();
    const cancelled = api.trading.send('/positions', { signal: command.signal });
    command.abort();
    await expect(cancelled).rejects.toMatchObject({ cause: { name: 'AbortError' } });

    const loggedOut = api.trading.send('/positions', { signal: new AbortController().signal });
    await vi.waitFor(() => expect(server.count('GET /positions')).toBe(2));
    session.clear();
    await expect(loggedOut).rejects.toMatchObject({ cause: { name: 'AbortError' } });

    session.setToken('next');
    const answered = api.trading.send('/positions', { signal: new AbortController().signal });
    answer.open();
    await expect(answered).resolves.toEqual([]);
  });

  it('a refreshed token is the same sign-in: the calls in flight go on', async () => {
    const { server, session, api } = setup('old');
    const answer = gate();
    server.on('GET /users/me', async () => {
      await answer.opened;
      return { status: 200, body: { ok: true } };
    });
    const inFlight = api.main.send('/users/me');
    await vi.waitFor(() => expect(server.count('GET /users/me')).toBe(1));
    session.setToken('fresh');
    answer.open();
    await expect(inFlight).resolves.toEqual({ ok: true });
  });

  it('a 401 to a call the token was forgotten under asks for no refresh, with any token store', async () => {
    const server = createFakeServer();
    let token: string | null = 'old';
    const navigate = vi.fn<(path: string) => void>();
    const api = createApi({
      mainBase: '/api',
      tradingBase: '/api',
      fetch: server.fetch,
      tokens: { getToken: () => token, setToken: (next) => (token = next) },
      navigate,
    });
    const answer = gate();
    server.on('GET /users/me', async () => {
      await answer.opened;
      return { status: 401, body: { detail: 'Not authenticated' } };
    });
    server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'fresh' } }));
    const inFlight = api.main.send('/users/me');
    await vi.waitFor(() => expect(server.count('GET /users/me')).toBe(1));
    token = null;
    answer.open();
    await expect(inFlight).rejects.toMatchObject({ status: 401 });
    expect(server.count('POST /auth/refresh')).toBe(0);
    expect(navigate).not.toHaveBeenCalled();
    expect(token).toBeNull();
  });

  it('never refreshes for an auth path', async () => {
    const { server, session, navigate, api } = setup('old');
    server.on('POST /auth/token', () => ({ status: 401, body: { detail: 'Bad credentials' } }));
    server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'fresh' } }));

    await expect(api.main.send('/auth/token', { method: 'POST' })).rejects.toMatchObject({ status: 401 });
    expect(server.count('POST /auth/refresh')).toBe(0);
    expect(session.getToken()).toBe('old');
    expect(navigate).not.toHaveBeenCalled();
  });

  it('passes other errors through without a refresh', async () => {
    const { server, api } = setup('old');
    server.on('POST /orders', () => ({ status: 422, body: { detail: 'Amount too small' } }));
    await expect(api.trading.send('/orders', { method: 'POST', body: {} })).rejects.toMatchObject({
      status: 422,
      data: { detail: 'Amount too small' },
    });
    expect(server.count('POST /auth/refresh')).toBe(0);
  });

  it('lets a 401 join the start-up refresh instead of sending a second one', async () => {
    const { server, session, api } = setup(null);
    protectedRoute(server);
    const refreshGate = gate();
    server.on('POST /auth/refresh', async () => {
      await refreshGate.opened;
      return { status: 200, body: { access_token: 'fresh' } };
    });
    const onLoad = api.refreshOnLoad();
    const call = api.trading.send('/positions');
    await vi.waitFor(() => expect(server.count('GET /positions')).toBe(1));
    await Promise.resolve();
    refreshGate.open();
    await expect(Promise.all([onLoad, call])).resolves.toEqual([true, []]);
    expect(server.count('POST /auth/refresh')).toBe(1);
    expect(session.getToken()).toBe('fresh');
  });

  it('refreshOnLoad signs in when the cookie is good and stays silent when it is not', async () => {
    const good = setup(null);
    good.server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'fresh' } }));
    await expect(good.api.refreshOnLoad()).resolves.toBe(true);
    expect(good.session.getToken()).toBe('fresh');

    const bad = setup(null);
    bad.server.on('POST /auth/refresh', () => ({ status: 401, body: { detail: 'No session' } }));
    await expect(bad.api.refreshOnLoad()).resolves.toBe(false);
    expect(bad.session.getToken()).toBeNull();
    expect(bad.navigate).not.toHaveBeenCalled();
  });
});
