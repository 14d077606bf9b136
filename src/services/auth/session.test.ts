import { describe, expect, it } from 'vitest';
import { resumeSession } from './session';
import { createFakeApi } from '../testing/fakeApi';

function setup() {
  const { server, session, api } = createFakeApi(null);
  return { server, session, api };
}

describe('resumeSession', () => {
  it('signs the user back in from the refresh cookie', async () => {
    const { server, session, api } = setup();
    server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'tok' } }));
    server.on('GET /users/me', (req) =>
      req.authorization === 'Bearer tok'
        ? {
            status: 200,
            body: {
              id: 'u1',
              email: 'ann@example.com',
              username: 'ann',
              role: 'admin',
              subscription: { status: 'active' },
              is_two_factor_enabled: true,
            },
          }
        : { status: 401, body: { detail: 'Not authenticated' } },
    );
    await resumeSession(api, session);
    expect(session.isLoggedIn.value).toBe(true);
    expect(session.user.value).toEqual({
      id: 'u1',
      email: 'ann@example.com',
      username: 'ann',
      role: 'admin',
      subscriptionStatus: 'active',
      isTwoFactorEnabled: true,
    });
  });

  it('stays a guest without a cookie, and logs out when the user cannot be loaded', async () => {
    const guest = setup();
    await resumeSession(guest.api, guest.session);
    expect(guest.session.isLoggedIn.value).toBe(false);
    expect(guest.server.count('GET /users/me')).toBe(0);

    const broken = setup();
    broken.server.on('POST /auth/refresh', () => ({ status: 200, body: { access_token: 'tok' } }));
    broken.server.on('GET /users/me', () => ({ status: 500, body: { detail: 'boom' } }));
    await resumeSession(broken.api, broken.session);
    expect(broken.session.isLoggedIn.value).toBe(false);
  });
});
