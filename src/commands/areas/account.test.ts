import { describe, expect, it } from 'vitest';
import { STEP_UP_DETAILS, unlinkedText } from '../../contracts/auth';
import { createTestConsole } from '../testing/scripted';

/** A logged-in scripted session whose questions are answered in order. */
function loggedIn() {
  const s = createTestConsole();
  s.stores.session.setToken('tok');
  s.stores.session.setUser({ username: 'ann', role: 'user', subscriptionStatus: null });
  let answers: (string | null)[] = [];
  s.stores.terminal.subscribe((event) => {
    if (event.type === 'question' && event.question !== null) {
      const next = answers.shift() ?? null;
      queueMicrotask(() => s.stores.terminal.answer(next));
    }
  });
  const answering = (line: string, ...given: (string | null)[]) => {
    answers = given;
    return s.type(line);
  };
  s.server.on('GET /users/me', () => ({
    status: 200,
    body: {
      id: 'u1',
      email: 'a@x.io',
      username: 'ann',
      role: 'user',
      subscription: { status: 'inactive' },
      is_two_factor_enabled: false,
    },
  }));
  return { ...s, answering };
}

const DEVICE = {
  id: '3f2a9c1d-0000-4000-8000-000000000001',
  device_info: { browser: 'Chrome', os: 'Linux' },
  device_fingerprint: 'abcdef0123456789'.repeat(4),
  last_used_at: '2026-05-01T10:20:30.000Z',
  is_current: true,
};

describe('account commands: 2fa and devices', () => {
  it('2fa setup prints the secret and URI and shows the QR code in the Account modal', async () => {
    const s = loggedIn();
    s.server.on('POST /auth/2fa/setup', () => ({
      status: 200,
      body: {
        secret: 'JBSWY3DPEHPK3PXP',
        otpauth_url: 'otpauth://totp/Signal%20Console:ann?secret=JBSWY3DPEHPK3PXP',
      },
    }));
    s.server.on('GET /auth/2fa/qr-code', () => ({ status: 200, body: 'png' }));
    const out = await s.type('2fa setup');
    expect(out.slice(0, 2)).toEqual([
      'info: Secret: JBSWY3DPEHPK3PXP',
      'info: URI: otpauth://totp/Signal%20Console:ann?secret=JBSWY3DPEHPK3PXP',
    ]);
    expect(s.stores.ui.accountModal.value).toBe('security');
    const state = s.stores.auth.twoFactor.value;
    expect(state.step).toBe('setup');
    expect(state.step === 'setup' && state.qr?.startsWith('data:image/png;base64,')).toBe(true);
    s.server.on('POST /auth/2fa/setup', () => ({ status: 500, body: {} }));
    expect(await s.type('2fa setup')).toEqual(['error: Failed to start 2FA setup.']);
  });

  it('2fa verify checks the code, then prints the recovery codes once', async () => {
    const s = loggedIn();
    s.server.on('POST /auth/2fa/verify', (req) =>
      JSON.parse(req.body ?? '{}').code === '123456'
        ? {
            status: 200,
            body: {
              message: 'Two-factor authentication enabled.',
              recovery_codes: ['AAAAA-BBBBB', 'CCCCC-DDDDD'],
            },
          }
        : { status: 400, body: { detail: 'Invalid 2FA code.' } },
    );
    expect(await s.type('2fa verify 12a456')).toEqual(['error: Please enter a valid 6-digit code.']);
    expect(await s.type('2fa verify 000000')).toEqual([
      'error: Verification failed. The code may be incorrect or expired.',
    ]);
    expect(await s.type('2fa verify 123456')).toEqual([
      'success: Two-factor authentication enabled.',
      'info: Recovery codes:',
      'info:   AAAAA-BBBBB',
      'info:   CCCCC-DDDDD',
      'muted: Store them now, somewhere other than this computer (a password manager, or on paper): they are not shown again, and each works once in place of a 2FA code.',
    ]);
  });

  it('2fa disable asks for the password', async () => {
    const s = loggedIn();
    s.server.on('POST /auth/2fa/disable', (req) =>
      JSON.parse(req.body ?? '{}').password === 'right'
        ? { status: 200, body: { message: 'Two-factor authentication disabled.' } }
        : { status: 400, body: { detail: 'Incorrect password.' } },
    );
    expect(await s.answering('2fa disable', '')).toEqual([
      'error: Please enter your password to disable 2FA.',
    ]);
    expect(await s.answering('2fa disable', 'wrong')).toEqual([
      'error: Failed to disable 2FA. Please check your password.',
    ]);
    expect(await s.answering('2fa disable', 'right')).toEqual([
      'success: Two-factor authentication disabled.',
    ]);
    expect(await s.answering('2fa disable', null)).toEqual(['muted: Cancelled.']);
  });

  it('devices lists each device with an 8-character fingerprint', async () => {
    const s = loggedIn();
    s.server.on('GET /auth/devices', () => ({ status: 200, body: [DEVICE] }));
    expect(await s.type('devices')).toEqual([
      'info: 3f2a9c1d  Chrome on Linux  abcdef01  last used 2026-05-01 10:20:30 UTC  (this one)',
    ]);
    s.server.on('GET /auth/devices', () => ({ status: 200, body: [] }));
    expect(await s.type('devices')).toEqual(['muted: No remembered devices.']);
    s.server.on('GET /auth/devices', () => ({ status: 500, body: {} }));
    expect(await s.type('devices')).toEqual(['error: Failed to load devices.']);
  });

  it('devices rm forgets the device whose id starts with what was typed', async () => {
    const s = loggedIn();
    const other = { ...DEVICE, id: '3f2a0000-0000-4000-8000-000000000002', is_current: false };
    s.server.on('GET /auth/devices', () => ({ status: 200, body: [DEVICE, other] }));
    s.server.on(`DELETE /auth/devices/${DEVICE.id}`, () => ({
      status: 200,
      body: { message: 'Device removed.' },
    }));
    expect(await s.type('devices rm 3f2a')).toEqual([
      'error: 3f2a matches several devices; give more of the id.',
    ]);
    expect(await s.type('devices rm ffff')).toEqual(['error: No device ffff.']);
    expect(await s.type('devices rm 3f2a9c')).toEqual(['success: Device removed.']);
    expect(s.server.count(`DELETE /auth/devices/${DEVICE.id}`)).toBe(1);
  });

  it('devices revoke-all, and its failure text', async () => {
    const s = loggedIn();
    s.server.on('GET /auth/devices', () => ({ status: 200, body: [] }));
    s.server.on('POST /auth/devices/revoke-all', () => ({
      status: 200,
      body: { message: 'All devices revoked.' },
    }));
    expect(await s.type('devices revoke-all')).toEqual(['success: All devices revoked.']);
    s.server.on('POST /auth/devices/revoke-all', () => ({ status: 500, body: {} }));
    expect(await s.type('devices revoke-all')).toEqual(['error: Failed to revoke all devices.']);
  });

  it('devices revoke-all --unlink-wallets also unlinks the wallets, asking for the password first', async () => {
    const s = createTestConsole({ token: 'tok' });
    let confirmed = false;
    const bodies: unknown[] = [];
    s.server.on('GET /auth/devices', () => ({ status: 200, body: [] }));
    s.server.on('GET /auth/step-up', () => ({
      status: 200,
      body: { password: true, two_factor: false, confirmed_until: null },
    }));
    s.server.on('POST /auth/step-up', (r) => {
      confirmed = (JSON.parse(r.body ?? '{}') as { password?: string }).password === 'right horse';
      return confirmed
        ? { status: 200, body: { confirmed_until: '2026-11-23T09:05:00.000Z' } }
        : { status: 401, body: { detail: 'Incorrect password.' } };
    });
    s.server.on('POST /auth/devices/revoke-all', (r) => {
      bodies.push(r.body == null ? null : JSON.parse(r.body));
      if (!confirmed) {
        return { status: 403, body: { detail: STEP_UP_DETAILS.required, code: 'step_up_required' } };
      }
      const message = `All devices revoked. ${unlinkedText(2)}`;
      return { status: 200, body: { message, count: 1, unlinked: 2 } };
    });
    expect(await s.answering('devices revoke-all --unlink-wallets', 'right horse')).toEqual([
      'success: All devices revoked. 2 linked sign-ins were unlinked and signed out.',
    ]);
    expect(s.asked).toEqual(['Password: ']);
    expect(bodies).toEqual([{ unlink_wallets: true }, { unlink_wallets: true }]);
  });

  it('activity prints the newest lines with device and place, failures in red, and says when it cannot', async () => {
    const s = loggedIn();
    const entries = [
      {
        id: '3',
        at: '2026-11-20T09:15:00.000Z',
        kind: 'sign_in',
        text: 'Signed in with a password',
        device: 'Safari on iOS',
        place: 'Lisbon',
      },
      {
        id: '2',
        at: '2026-11-20T09:14:00.000Z',
        kind: 'sign_in_failed',
        text: 'A sign-in failed: wrong password',
        device: 'Safari on iOS',
        place: null,
      },
      {
        id: '1',
        at: '2026-11-19T18:00:00.000Z',
        kind: 'password_changed',
        text: 'Password changed',
        device: null,
        place: null,
      },
    ];
    s.server.on('GET /account/activity', () => ({ status: 200, body: entries }));
    expect(await s.type('activity')).toEqual([
      'info: 2026-11-20 09:15:00 UTC  Signed in with a password  Safari on iOS near Lisbon',
      'error: 2026-11-20 09:14:00 UTC  A sign-in failed: wrong password  Safari on iOS',
      'info: 2026-11-19 18:00:00 UTC  Password changed',
    ]);
    expect(await s.type('activity 1')).toHaveLength(1);
    expect(await s.type('activity 0')).toContain('error: Count must be a whole number from 1 to 200.');
    s.server.on('GET /account/activity', () => ({ status: 500, body: {} }));
    expect(await s.type('activity')).toEqual(['error: Failed to load the activity log.']);
  });
});
