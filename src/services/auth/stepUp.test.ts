import { describe, expect, it, vi } from 'vitest';
import { STEP_UP_DETAILS } from '../../contracts/auth';
import { createApi } from '../api';
import { errorMessage } from '../api/errors';
import { createSessionStore } from '../stores/session';
import { createFakeServer } from '../testing/fakeServer';
import { createStepUpModel, stepUpBody } from './stepUp';

const REQUIRED = { status: 403, body: { detail: STEP_UP_DETAILS.required, code: 'step_up_required' } };

/** An app's API with the dialog model behind it, over a server that saves a risk change once confirmed. */
function setup(state = { password: true, two_factor: false }) {
  const server = createFakeServer();
  const session = createSessionStore();
  session.setToken('tok');
  const signInAgain = vi.fn();
  let confirmed = false;
  let puts = 0;
  const api = createApi({
    mainBase: '/api',
    tradingBase: '/api',
    fetch: server.fetch,
    tokens: session,
    navigate: () => undefined,
    stepUp: () => model.ask(),
  });
  const model = createStepUpModel({ main: () => api.main, signInAgain });
  server.on('GET /auth/step-up', () => ({ status: 200, body: { ...state, confirmed_until: null } }));
  server.on('POST /auth/step-up', (r) => {
    const body = JSON.parse(r.body ?? '{}') as { password?: string };
    if (body.password !== 'right horse') return { status: 401, body: { detail: 'Incorrect password.' } };
    confirmed = true;
    return { status: 200, body: { confirmed_until: '2026-11-23T09:05:00.000Z' } };
  });
  server.on('PUT /rules/risk', () => {
    puts += 1;
    return confirmed ? { status: 200, body: { ok: true } } : REQUIRED;
  });
  const opened = async () => {
    await vi.waitFor(() => expect(model.request.value).not.toBeNull());
    return model.request.value;
  };
  return { server, api, model, signInAgain, opened, puts: () => puts };
}

describe('the step-up dialog model', () => {
  it('opens on step_up_required, keeps a wrong password open, and sends the call again once confirmed', async () => {
    const s = setup();
    const call = s.api.main.send('/rules/risk', { method: 'PUT', body: { max_positions: 9 } });
    expect((await s.opened())?.state.password).toBe(true);
    await s.model.submit('wrong');
    expect(s.model.request.value?.error).toBe('Incorrect password.');
    await s.model.submit('right horse');
    await expect(call).resolves.toEqual({ ok: true });
    expect(s.model.request.value).toBeNull();
    expect(s.puts()).toBe(2);
  });

  it('fails the call as the server answered it when the dialog is cancelled', async () => {
    const s = setup();
    const call = s.api.main.send('/rules/risk', { method: 'PUT', body: { max_positions: 9 } });
    await s.opened();
    s.model.cancel();
    const error = await call.catch((e: unknown) => e);
    expect(errorMessage(error, '')).toBe(STEP_UP_DETAILS.required);
    expect(s.puts()).toBe(1);
  });

  it('opens one dialog for calls refused together and retries each', async () => {
    const s = setup();
    const calls = [1, 2].map((n) =>
      s.api.main.send('/rules/risk', { method: 'PUT', body: { max_positions: n } }),
    );
    await s.opened();
    await s.model.submit('right horse');
    await expect(Promise.all(calls)).resolves.toEqual([{ ok: true }, { ok: true }]);
    const asked = s.server.requests.filter((r) => r.path === '/auth/step-up').map((r) => r.method);
    expect(asked).toEqual(['GET', 'POST']);
    expect(s.puts()).toBe(4);
  });

  it('offers a sign-in to an account with neither a password nor 2FA', async () => {
    const s = setup({ password: false, two_factor: false });
    const call = s.api.main.send('/rules/risk', { method: 'PUT', body: { max_positions: 9 } });
    expect((await s.opened())?.signInAgain).toBe(true);
    s.model.signInAgain();
    await expect(call).rejects.toBeDefined();
    expect(s.signInAgain).toHaveBeenCalledOnce();
  });

  it('reads a code-shaped answer as a 2FA code only when the account has 2FA', () => {
    const both = { password: true, two_factor: true, confirmed_until: null };
    expect(stepUpBody(both, '123456')).toEqual({ code: '123456' });
    expect(stepUpBody(both, 'abcde-fghij')).toEqual({ code: 'abcde-fghij' });
    expect(stepUpBody(both, 'my password')).toEqual({ password: 'my password' });
    expect(stepUpBody({ ...both, two_factor: false }, '123456')).toEqual({ password: '123456' });
  });
});
