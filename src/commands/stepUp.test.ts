import { describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../contracts/exchanges';
import { STEP_UP_DETAILS } from '../contracts/auth';
import { createTestConsole } from './testing/scripted';

const KEY: ExchangeKey = {
  id: '0b3c9a52-6f1e-4d3a-9c2b-5e8f7a1d2c3b',
  exchangeName: 'binance',
  environment: 'live',
  keyHint: 'Plai…y123',
  permissions: ['read', 'futures'],
  status: 'verified',
  warnings: [],
  created_at: '2026-11-23T09:00:00.000Z',
};
const REQUIRED = { status: 403, body: { detail: STEP_UP_DETAILS.required, code: 'step_up_required' } };

/** A console whose server wants the sign-in confirmed (with `password`) before it saves a key. */
function session(state = { password: true, two_factor: false }) {
  const s = createTestConsole({ token: 'tok' });
  let confirmed = false;
  const stepUps: unknown[] = [];
  const secretAsked: boolean[] = [];
  let saves = 0;
  s.stores.terminal.subscribe((event) => {
    if (event.type === 'question' && event.question !== null) secretAsked.push(event.question.secret);
  });
  s.server.on('GET /auth/step-up', () => ({ status: 200, body: { ...state, confirmed_until: null } }));
  s.server.on('POST /auth/step-up', (r) => {
    const body = JSON.parse(r.body ?? '{}') as { password?: string; code?: string };
    stepUps.push(body);
    if (body.password === 'right horse' || body.code === '123456') {
      confirmed = true;
      return { status: 200, body: { confirmed_until: '2026-11-23T09:05:00.000Z' } };
    }
    return { status: 401, body: { detail: body.code ? 'Invalid 2FA code.' : 'Incorrect password.' } };
  });
  s.server.on('POST /exchanges/', () => {
    saves += 1;
    return confirmed ? { status: 201, body: KEY } : REQUIRED;
  });
  return { ...s, stepUps, secretAsked, saves: () => saves };
}

describe('step-up at the terminal', () => {
  it('asks for the password with the input masked, again after a wrong one, then saves the key', async () => {
    const s = session();
    const out = await s.answering('key add', 'PlainKey123', 'the-secret', 'wrong horse', 'right horse');
    expect(out[0]).toBe(`success: ${KEY_TEXTS.saved}`);
    expect(s.asked).toEqual(['API Key: ', 'Secret Key: ', 'Password: ', 'Password: ']);
    expect(s.secretAsked).toEqual([false, true, true, true]);
    expect(s.stepUps).toEqual([{ password: 'wrong horse' }, { password: 'right horse' }]);
    expect(s.saves()).toBe(2);
    const transcript = s.state().transcript.join('\n');
    expect(transcript).toContain('Incorrect password.');
    expect(transcript).not.toContain('right horse');
  });

  it('gives up on Ctrl+C: the key is not sent again and the refusal is shown', async () => {
    const s = session();
    const out = await s.answering('key add', 'PlainKey123', 'the-secret', null);
    expect(out).toEqual([`error: ${STEP_UP_DETAILS.required}`]);
    expect(s.stepUps).toEqual([]);
    expect(s.saves()).toBe(1);
  });

  it('sends a 6-digit answer as a 2FA code when the account has 2FA', async () => {
    const s = session({ password: true, two_factor: true });
    const out = await s.answering('key add', 'PlainKey123', 'the-secret', '123456');
    expect(out[0]).toBe(`success: ${KEY_TEXTS.saved}`);
    expect(s.asked[2]).toBe('Password or 2FA code: ');
    expect(s.stepUps).toEqual([{ code: '123456' }]);
  });

  it('tells an account without a password or 2FA to sign in again, asking nothing', async () => {
    const s = session({ password: false, two_factor: false });
    const out = await s.answering('key add', 'PlainKey123', 'the-secret');
    expect(out).toEqual([`error: ${STEP_UP_DETAILS.required}`]);
    expect(s.asked).toEqual(['API Key: ', 'Secret Key: ']);
    expect(s.state().transcript.join('\n')).toContain('sign in again');
  });
});
