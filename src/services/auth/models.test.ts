import { describe, expect, it, vi } from 'vitest';
import { createApi } from '../api';
import { createStores } from '../stores';
import { createFakeClock } from '../testing/fakeClock';
import { createFakeServer } from '../testing/fakeServer';
import { createAuthModels, RESET_REDIRECT_MS } from './models';

const ME = {
  id: 'u1',
  email: 'ann@example.com',
  username: 'ann',
  role: 'admin',
  subscription: { status: 'inactive' },
  is_two_factor_enabled: false,
};

function setup() {
  const server = createFakeServer();
  const stores = createStores();
  const clock = createFakeClock();
  const navigate = vi.fn<(path: string) => void>();
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: stores.session,
    navigate,
  });
  const models = createAuthModels({
    main: api.main,
    stores,
    ui: stores.ui,
    clock,
    navigate,
    deviceInfo: { browser: 'Chrome', os: 'Linux' },
  });
  server.on('GET /users/me', (req) =>
    req.authorization === 'Bearer tok'
      ? { status: 200, body: ME }
      : { status: 401, body: { detail: 'Not authenticated' } },
  );
  const notice = () => stores.auth.notices.value.auth;
  return { server, stores, clock, navigate, models, notice };
}

describe('auth modal (docs/product.md §4 modes)', () => {
  it('LOGIN → TFA_VERIFY when the server asks for a code, then closes signed in', async () => {
    const t = setup();
    t.server.on('POST /auth/token', () => ({
      status: 200,
      body: { two_factor_required: true, user_id: 'u1' },
    }));
    t.server.on('POST /auth/2fa/login', () => ({
      status: 200,
      body: { access_token: 'tok', token_type: 'bearer' },
    }));
    t.models.modal.switchTo('login');
    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: true });
    expect(t.stores.ui.authModal.value).toBe('tfa-verify');
    const form = new URLSearchParams(t.server.requests[0]?.body ?? '');
    expect(form.get('remember_me')).toBe('true');
    expect(JSON.parse(form.get('device_info') ?? '{}')).toEqual({ browser: 'Chrome', os: 'Linux' });

    await t.models.modal.verifyCode('12345');
    expect(t.notice()).toEqual({ tone: 'error', text: 'Please enter a valid 6-digit code.' });
    await t.models.modal.verifyCode('123456');
    expect(t.stores.ui.authModal.value).toBeNull();
    expect(t.stores.session.user.value?.username).toBe('ann');
  });

  it('offers the 2FA code when the login is answered with a wait, and signs in with password and code', async () => {
    const t = setup();
    const wait = { detail: 'Too many requests. Please try again in 64 s.' };
    t.server.on('POST /auth/token', (req) =>
      new URLSearchParams(req.body ?? '').get('code') === '123456'
        ? { status: 200, body: { access_token: 'tok', token_type: 'bearer' } }
        : { status: 429, body: wait },
    );
    t.models.modal.switchTo('login');
    expect(t.stores.auth.loginCodeOffered.value).toBe(false);
    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: false });
    expect(t.notice()).toEqual({ tone: 'error', text: wait.detail });
    expect(t.stores.auth.loginCodeOffered.value).toBe(true);
    expect(new URLSearchParams(t.server.requests[0]?.body ?? '').has('code')).toBe(false);

    // A malformed code is not sent; a wrong one gets the same wait.
    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: false, code: '12345' });
    expect(t.notice()).toEqual({ tone: 'error', text: 'Please enter a valid 6-digit code.' });
    expect(t.server.requests).toHaveLength(1);
    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: false, code: '654321' });
    expect(t.notice()).toEqual({ tone: 'error', text: wait.detail });

    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: false, code: ' 123456 ' });
    expect(new URLSearchParams(t.server.requests.at(-2)?.body ?? '').get('code')).toBe('123456');
    expect(t.stores.ui.authModal.value).toBeNull();
    expect(t.stores.session.user.value?.username).toBe('ann');
    expect(t.stores.auth.loginCodeOffered.value).toBe(false);
  });

  it('shows the spec fallbacks when the server gives no detail', async () => {
    const t = setup();
    t.server.on('POST /auth/token', () => ({ status: 502, body: 'bad gateway' }));
    t.server.on('POST /auth/signup', () => ({ status: 502, body: 'bad gateway' }));
    t.server.on('POST /auth/forgot-password', () => ({ status: 502, body: 'bad gateway' }));
    await t.models.modal.login({ username: 'ann', password: 'pw', rememberMe: false });
    expect(t.notice()?.text).toBe('Login failed. Please check your credentials.');
    await t.models.modal.signup({ email: 'a@x.io', username: 'ann', password: 'longenough' });
    expect(t.notice()?.text).toBe('Sign up failed. Please try again.');
    await t.models.modal.forgot('a@x.io');
    expect(t.notice()?.text).toBe('An error occurred. Please try again later.');
    t.stores.auth.setPendingTwoFactor({ userId: 'u1' });
    t.server.on('POST /auth/2fa/login', () => ({ status: 500, body: 'x' }));
    await t.models.modal.verifyCode('123456');
    expect(t.notice()?.text).toBe('Invalid 2FA code.');
  });

  it('successful signup returns to LOGIN with a success message', async () => {
    const t = setup();
    t.server.on('POST /auth/signup', () => ({
      status: 201,
      body: { id: 'u1', email: 'a@x.io', username: 'ann', role: 'user' },
    }));
    t.models.modal.switchTo('signup');
    await t.models.modal.signup({ email: ' ', username: 'ann', password: 'pw' });
    expect(t.notice()).toEqual({ tone: 'error', text: 'Email, username and password are required.' });
    await t.models.modal.signup({ email: 'a@x.io', username: 'ann', password: 'longenough' });
    expect(t.stores.ui.authModal.value).toBe('login');
    expect(t.notice()).toEqual({ tone: 'success', text: 'Registration successful! Please log in.' });
  });

  it('forgot password shows the server message; on open the modal tries auto-login', async () => {
    const t = setup();
    t.server.on('POST /auth/forgot-password', () => ({ status: 200, body: { message: 'If an account…' } }));
    await t.models.modal.forgot('a@x.io');
    expect(t.notice()).toEqual({ tone: 'success', text: 'If an account…' });

    t.server.on('POST /auth/auto-login', () => ({ status: 204 }));
    t.models.modal.switchTo('login');
    await t.models.modal.opened();
    expect(t.stores.ui.authModal.value).toBe('login');
    t.server.on('POST /auth/auto-login', () => ({
      status: 200,
      body: { access_token: 'tok', token_type: 'bearer' },
    }));
    await t.models.modal.opened();
    expect(t.stores.ui.authModal.value).toBeNull();
    expect(t.stores.session.isLoggedIn.value).toBe(true);
  });

  it('logout clears the session and goes to "/"', async () => {
    const t = setup();
    t.stores.session.setToken('tok');
    t.server.on('POST /auth/logout', () => ({ status: 200, body: { message: 'Logged out.' } }));
    await t.models.logout();
    expect(t.stores.session.isLoggedIn.value).toBe(false);
    expect(t.navigate).toHaveBeenCalledWith('/');
  });
});

describe('account modal', () => {
  it('loads devices, and says so when it cannot', async () => {
    const t = setup();
    t.stores.session.setToken('tok');
    t.server.on('GET /auth/devices', () => ({ status: 500, body: {} }));
    await t.models.account.show('devices');
    expect(t.stores.ui.accountModal.value).toBe('devices');
    expect(t.stores.auth.devices.value).toEqual({ status: 'error', message: 'Failed to load devices.' });
    t.server.on('GET /auth/devices', () => ({ status: 200, body: [] }));
    t.server.on('DELETE /auth/devices/d1', () => ({ status: 500, body: {} }));
    await t.models.account.removeDevice('d1');
    expect(t.stores.auth.notices.value.devices?.text).toBe('Failed to remove device.');
  });

  it('walks 2FA from disabled through setup to enabled and back, with the spec messages', async () => {
    const t = setup();
    t.stores.session.setToken('tok');
    await t.models.account.show('security');
    expect(t.stores.auth.twoFactor.value).toEqual({ step: 'disabled' });
    t.server.on('POST /auth/2fa/setup', () => ({
      status: 200,
      body: { secret: 'S3CRET', otpauth_url: 'otpauth://x' },
    }));
    t.server.on('GET /auth/2fa/qr-code', () => ({ status: 200, body: 'png' }));
    await t.models.account.startTwoFactorSetup();
    expect(t.stores.auth.twoFactor.value).toMatchObject({
      step: 'setup',
      secret: 'S3CRET',
      otpauthUrl: 'otpauth://x',
    });
    t.server.on('POST /auth/2fa/verify', () => ({ status: 400, body: { detail: 'Invalid 2FA code.' } }));
    await t.models.account.verifyTwoFactor('000000');
    expect(t.stores.auth.notices.value.twoFactor?.text).toBe(
      'Verification failed. The code may be incorrect or expired.',
    );
    t.server.on('POST /auth/2fa/verify', () => ({
      status: 200,
      body: { message: 'on', recovery_codes: ['AAAAA-BBBBB'] },
    }));
    await t.models.account.verifyTwoFactor('123456');
    expect(t.stores.auth.twoFactor.value).toEqual({ step: 'enabled', recoveryCodes: ['AAAAA-BBBBB'] });
    t.models.account.hideRecoveryCodes();
    expect(t.stores.auth.twoFactor.value).toEqual({ step: 'enabled', recoveryCodes: null });

    await t.models.account.disableTwoFactor('');
    expect(t.stores.auth.notices.value.twoFactor?.text).toBe('Please enter your password to disable 2FA.');
    t.server.on('POST /auth/2fa/disable', () => ({ status: 400, body: { detail: 'Incorrect password.' } }));
    await t.models.account.disableTwoFactor('wrong');
    expect(t.stores.auth.notices.value.twoFactor?.text).toBe(
      'Failed to disable 2FA. Please check your password.',
    );
    t.server.on('POST /auth/2fa/disable', () => ({ status: 200, body: { message: 'off' } }));
    await t.models.account.disableTwoFactor('right');
    expect(t.stores.auth.twoFactor.value).toEqual({ step: 'disabled' });
  });

  it('says "Failed to load user data." when the Security tab cannot load the user', async () => {
    const t = setup();
    t.stores.session.setToken('expired');
    t.server.on('POST /auth/refresh', () => ({ status: 401, body: { detail: 'Invalid refresh token.' } }));
    await t.models.account.show('security');
    expect(t.stores.auth.notices.value.twoFactor?.text).toBe('Failed to load user data.');
  });

  it('change password: confirmation, length, then the server', async () => {
    const t = setup();
    t.stores.session.setToken('tok');
    await t.models.account.changePassword({ current: 'a', next: 'longenough', confirm: 'different' });
    expect(t.stores.auth.notices.value.password?.text).toBe('New passwords do not match.');
    await t.models.account.changePassword({ current: 'a', next: 'short', confirm: 'short' });
    expect(t.stores.auth.notices.value.password?.text).toBe('Password must be at least 8 characters long.');
    t.server.on('POST /auth/change-password', () => ({ status: 500, body: {} }));
    await t.models.account.changePassword({ current: 'a', next: 'longenough', confirm: 'longenough' });
    expect(t.stores.auth.notices.value.password?.text).toBe('Failed to change password.');
    expect(t.server.count('POST /auth/change-password')).toBe(1);
  });
});

describe('reset password page', () => {
  it('checks the token and the confirmation, then goes to "/" 3 s after success', async () => {
    const t = setup();
    const reset = () => t.stores.auth.notices.value.reset;
    await t.models.resetPage.submit(null, 'longenough', 'longenough');
    expect(reset()?.text).toBe('Reset token is missing.');
    await t.models.resetPage.submit('tkn', 'longenough', 'other');
    expect(reset()?.text).toBe('Passwords do not match.');
    t.server.on('POST /auth/reset-password', () => ({ status: 400, body: 'x' }));
    await t.models.resetPage.submit('tkn', 'longenough', 'longenough');
    expect(reset()?.text).toBe('Failed to reset password. The link may have expired.');

    t.server.on('POST /auth/reset-password', () => ({
      status: 200,
      body: { message: 'Your password has been reset successfully.' },
    }));
    await t.models.resetPage.submit('tkn', 'longenough', 'longenough');
    expect(reset()).toEqual({ tone: 'success', text: 'Your password has been reset successfully.' });
    t.clock.advance(RESET_REDIRECT_MS - 1);
    expect(t.navigate).not.toHaveBeenCalled();
    t.clock.advance(1);
    expect(t.navigate).toHaveBeenCalledWith('/');
  });

  it('cancels the redirect when the page goes away', async () => {
    const t = setup();
    t.server.on('POST /auth/reset-password', () => ({ status: 200, body: { message: 'ok' } }));
    await t.models.resetPage.submit('tkn', 'longenough', 'longenough');
    t.models.resetPage.dispose();
    expect(t.clock.pendingTimers()).toBe(0);
  });
});
