import type { Api } from '../api';
import type { ApiClient } from '../api/client';
import type { Stores } from '../stores';
import type { SessionStore } from '../stores/session';
import { createAuthClient } from './client';

/** Loads the signed-in user; docs/product.md §4: if that fails, the user is logged out. */
export async function loadUser(main: ApiClient, session: SessionStore): Promise<boolean> {
  try {
    const me = await createAuthClient(main).me();
    session.setUser({
      id: me.id,
      email: me.email ?? undefined,
      username: me.username,
      role: me.role,
      subscriptionStatus: me.subscription.status,
      isTwoFactorEnabled: me.is_two_factor_enabled,
    });
    return true;
  } catch {
    session.clear();
    return false;
  }
}

/** At start: a quiet refresh (a guest stays a guest), then the user when it worked. */
export async function resumeSession(
  api: Pick<Api, 'refreshOnLoad' | 'main'>,
  session: SessionStore,
): Promise<void> {
  if (await api.refreshOnLoad()) await loadUser(api.main, session);
}

/** Holds a fresh access token and loads its user. */
export async function beginSession(
  main: ApiClient,
  session: SessionStore,
  accessToken: string,
): Promise<boolean> {
  session.setToken(accessToken);
  return loadUser(main, session);
}

/**
 * docs/product.md §4 logout: the browser forgets the token, then the server revokes the session (by its cookie) and
 * clears its cookies. Forgetting first closes the browser's sockets on its own terms: the server closes
 * a logged-out session's sockets too, and a socket closed that way before the token was forgotten would
 * ask for a new ticket with a token the server has just revoked.
 */
export async function endSession(main: ApiClient, stores: Pick<Stores, 'session' | 'auth'>): Promise<void> {
  stores.session.clear();
  stores.auth.reset();
  try {
    await createAuthClient(main).logout();
  } catch {
    // Already gone on the server; the browser has forgotten it all the same.
  }
}
