import { z } from 'zod';
import type { Api } from './api';
import type { ApiClient } from './api/client';
import type { SessionStore } from './stores/session';

/** The part of `GET /users/me` the browser uses (spec §3 User: role, subscription, 2FA flag). */
const Me = z.object({
  username: z.string(),
  role: z.string().default('user'),
  subscription: z.object({ status: z.string() }).nullish(),
});

/** Loads the signed-in user; spec §4: if that fails, the user is logged out. */
export async function loadUser(main: ApiClient, session: SessionStore): Promise<boolean> {
  try {
    const me = await main.call(Me, '/users/me');
    session.setUser({
      username: me.username,
      role: me.role,
      subscriptionStatus: me.subscription?.status ?? null,
    });
    return true;
  } catch {
    session.clear();
    return false;
  }
}

/** At start: a quiet refresh (a guest stays a guest), then the user when it worked. */
export async function resumeSession(api: Api, session: SessionStore): Promise<void> {
  if (await api.refreshOnLoad()) await loadUser(api.main, session);
}
