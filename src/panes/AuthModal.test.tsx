import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithServices } from '../app/testing/renderWithServices';
import { AuthModal, LOGIN_CODE_HINT } from './AuthModal';

afterEach(cleanup);

describe('the login window while the account must wait', () => {
  it('offers the 2FA code field after a wait, and signs in with the password and the code', async () => {
    const r = renderWithServices(<AuthModal />);
    const wait = 'Too many requests. Please try again in 64 s.';
    r.server.on('POST /auth/token', (req) =>
      new URLSearchParams(req.body ?? '').get('code') === '123456'
        ? { status: 200, body: { access_token: 'tok', token_type: 'bearer' } }
        : { status: 429, body: { detail: wait } },
    );
    r.server.on('GET /users/me', () => ({
      status: 200,
      body: {
        id: 'u1',
        email: 'ann@example.com',
        username: 'ann',
        role: 'user',
        subscription: { status: 'inactive' },
        is_two_factor_enabled: true,
      },
    }));
    act(() => r.services.auth.modal.switchTo('login'));
    const dialog = await screen.findByRole('dialog', { name: 'Login' });
    expect(screen.queryByLabelText('2FA code')).toBeNull();
    expect(dialog.textContent).not.toContain(LOGIN_CODE_HINT);

    fireEvent.change(screen.getByLabelText('Username or email'), { target: { value: 'ann' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'correct horse battery' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(screen.getByTestId('auth-notice').textContent).toContain(wait));
    expect(screen.getByTestId('login-code-hint').textContent).toBe(
      'Have your 2FA code? Enter it to sign in now.',
    );
    const code = screen.getByLabelText('2FA code');
    await waitFor(() => expect(document.activeElement).toBe(code));

    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(r.services.stores.session.user.value?.username).toBe('ann'));
    const sent = new URLSearchParams(
      r.server.requests.filter((q) => q.path === '/auth/token').at(-1)?.body ?? '',
    );
    expect([sent.get('username'), sent.get('code')]).toEqual(['ann', '123456']);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
