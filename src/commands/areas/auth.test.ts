import { describe, expect, it } from 'vitest';
import type { FakeServer } from '../../services/testing/fakeServer';
import { createTestConsole } from '../testing/scripted';

const ME = {
  id: 'u1',
  email: 'ann@example.com',
  username: 'ann',
  role: 'user',
  subscription: { status: 'inactive' },
  is_two_factor_enabled: false,
};

/** A scripted session whose questions are answered in order; records what was asked. */
function session() {
  const s = createTestConsole();
  const asked: string[] = [];
  let answers: (string | null)[] = [];
  s.stores.terminal.subscribe((event) => {
    if (event.type !== 'question' || event.question === null) return;
    asked.push(`${event.question.label}${event.question.secret ? '(secret)' : ''}`);
    const next = answers.shift();
    queueMicrotask(() => s.stores.terminal.answer(next === undefined ? null : next));
  });
  const answering = (line: string, ...given: (string | null)[]) => {
    answers = given;
    return s.type(line);
  };
  return { ...s, asked, answering };
}

function serveMe(server: FakeServer, me: Record<string, unknown> = ME) {
  server.on('GET /users/me', (req) =>
    req.authorization === 'Bearer tok'
      ? { status: 200, body: me }
      : { status: 401, body: { detail: 'Not authenticated' } },
  );
}

describe('account commands: signup, login, logout, whoami, passwd', () => {
  it('signup asks for the password twice without echo and creates the account', async () => {
    const s = session();
    s.server.on('POST /auth/signup', () => ({
      status: 201,
      body: { id: 'u1', email: 'a@x.io', username: 'ann', role: 'user' },
    }));
    expect(await s.answering('signup a@x.io ann', 'pass word 1', 'pass word 1')).toEqual([
      'success: Registration successful! Please log in.',
      'muted: Log in with: login ann',
    ]);
    expect(s.asked).toEqual(['Password: (secret)', 'Confirm password: (secret)']);
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toEqual({
      email: 'a@x.io',
      username: 'ann',
      password: 'pass word 1',
    });
  });

  it('signup stops on a mismatch and shows the server detail on a conflict', async () => {
    const s = session();
    s.server.on('POST /auth/signup', () => ({ status: 409, body: { detail: 'Username is already taken.' } }));
    expect(await s.answering('signup a@x.io ann', 'one', 'two')).toEqual(['error: Passwords do not match.']);
    expect(s.server.count('POST /auth/signup')).toBe(0);
    expect(await s.answering('signup a@x.io ann', 'pass word', 'pass word')).toEqual([
      'error: Username is already taken.',
    ]);
    expect(await s.answering('signup a@x.io ann', null)).toEqual(['muted: Cancelled.']);
  });

  it('login sends the form, holds the token and names the user', async () => {
    const s = session();
    s.server.on('POST /auth/token', () => ({
      status: 200,
      body: { access_token: 'tok', token_type: 'bearer' },
    }));
    serveMe(s.server);
    expect(await s.answering('login ann --remember', 'pw')).toEqual(['success: Logged in as ann.']);
    expect(s.asked).toEqual(['Password: (secret)']);
    const form = new URLSearchParams(s.server.requests[0]?.body ?? '');
    expect(Object.fromEntries(form)).toEqual({ username: 'ann', password: 'pw', remember_me: 'true' });
    expect(s.stores.session.getToken()).toBe('tok');
    expect(s.stores.session.user.value?.username).toBe('ann');
  });

  it('login shows the server detail, or the spec fallback', async () => {
    const s = session();
    s.server.on('POST /auth/token', () => ({
      status: 401,
      body: { detail: 'Incorrect username or password.' },
    }));
    expect(await s.answering('login ann', 'bad')).toEqual(['error: Incorrect username or password.']);
    s.server.on('POST /auth/token', () => ({ status: 500, body: 'oops' }));
    expect(await s.answering('login ann', 'bad')).toEqual([
      'error: Login failed. Please check your credentials.',
    ]);
    expect(s.stores.session.isLoggedIn.value).toBe(false);
  });

  it('login asks for the 2FA code when the server requires it', async () => {
    const s = session();
    s.server.on('POST /auth/token', () => ({
      status: 200,
      body: { two_factor_required: true, user_id: 'u1' },
    }));
    s.server.on('POST /auth/2fa/login', (req) =>
      JSON.parse(req.body ?? '{}').code === '123456'
        ? { status: 200, body: { access_token: 'tok', token_type: 'bearer' } }
        : { status: 401, body: { detail: 'Invalid 2FA code.' } },
    );
    serveMe(s.server);
    expect(await s.answering('login ann', 'pw', '12345')).toEqual([
      'error: Please enter a valid 6-digit code.',
    ]);
    expect(await s.answering('login ann', 'pw', '654321')).toEqual(['error: Invalid 2FA code.']);
    expect(await s.answering('login ann', 'pw', '123456')).toEqual(['success: Logged in as ann.']);
    expect(s.asked.slice(-2)).toEqual(['Password: (secret)', '2FA code: ']);
    expect(JSON.parse(s.server.requests.at(-2)?.body ?? '{}')).toEqual({ user_id: 'u1', code: '123456' });
  });

  it('commands that need a login say so and open the login modal', async () => {
    for (const line of [
      'logout',
      'whoami',
      'passwd',
      '2fa setup',
      '2fa verify 123456',
      '2fa disable',
      'devices',
      'devices rm abcd',
      'devices revoke-all',
    ]) {
      const s = session();
      expect(await s.type(line)).toEqual(['error: You must be logged in.']);
      expect(s.stores.ui.authModal.value).toBe('login');
      expect(s.server.requests).toEqual([]);
    }
  });

  it('whoami and logout', async () => {
    const s = session();
    s.stores.session.setToken('tok');
    s.stores.session.setUser({
      username: 'ann',
      email: 'ann@example.com',
      role: 'admin',
      subscriptionStatus: 'inactive',
      isTwoFactorEnabled: true,
    });
    expect(await s.type('whoami')).toEqual([
      'info: ann <ann@example.com>',
      'muted: role: admin',
      'muted: subscription: inactive',
      'muted: two-factor login: on',
    ]);
    s.server.on('POST /auth/logout', () => ({ status: 200, body: { message: 'Logged out.' } }));
    expect(await s.type('logout')).toEqual(['success: Logged out.']);
    expect(s.server.count('POST /auth/logout')).toBe(1);
    expect(s.stores.session.isLoggedIn.value).toBe(false);
  });

  it('passwd checks the confirmation and the length before asking the server', async () => {
    const s = session();
    s.stores.session.setToken('tok');
    s.server.on('POST /auth/change-password', (req) =>
      JSON.parse(req.body ?? '{}').current_password === 'old pass'
        ? { status: 200, body: { message: 'Password changed successfully.' } }
        : { status: 400, body: { detail: 'Current password is incorrect.' } },
    );
    expect(await s.answering('passwd', 'old pass', 'new pass 1', 'new pass 2')).toEqual([
      'error: New passwords do not match.',
    ]);
    expect(await s.answering('passwd', 'old pass', 'short', 'short')).toEqual([
      'error: Password must be at least 8 characters long.',
    ]);
    expect(s.server.count('POST /auth/change-password')).toBe(0);
    expect(await s.answering('passwd', 'wrong', 'new pass 1', 'new pass 1')).toEqual([
      'error: Current password is incorrect.',
    ]);
    expect(await s.answering('passwd', 'old pass', 'new pass 1', 'new pass 1')).toEqual([
      'success: Password changed successfully.',
    ]);
    expect(s.asked.slice(-3)).toEqual([
      'Current password: (secret)',
      'New password: (secret)',
      'Confirm new password: (secret)',
    ]);
  });

  it('passwd --unlink-wallets asks the server to unlink the wallets as well', async () => {
    const s = session();
    s.stores.session.setToken('tok');
    const bodies: unknown[] = [];
    s.server.on('POST /auth/change-password', (req) => {
      bodies.push(JSON.parse(req.body ?? '{}'));
      return { status: 200, body: { message: 'Password changed successfully.' } };
    });
    await s.answering('passwd', 'old pass', 'new pass 1', 'new pass 1');
    await s.answering('passwd --unlink-wallets', 'old pass', 'new pass 2', 'new pass 2');
    expect(bodies).toEqual([
      { current_password: 'old pass', new_password: 'new pass 1' },
      { current_password: 'old pass', new_password: 'new pass 2', unlink_wallets: true },
    ]);
  });
});
