import { describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../../contracts/exchanges';
import { createTestConsole } from '../testing/scripted';

const ID = '0b3c9a52-6f1e-4d3a-9c2b-5e8f7a1d2c3b';

function session(token: string | null = 'tok') {
  const s = createTestConsole({ token });
  const saved: ExchangeKey[] = [];
  const bodies: Record<string, unknown>[] = [];
  s.server.on('GET /exchanges/', () => ({ status: 200, body: saved }));
  s.server.on('POST /exchanges/', (r) => {
    const body = JSON.parse(r.body ?? '{}') as Record<string, unknown>;
    bodies.push(body);
    if (body.apiKey === 'WithdrawKey123' && body.confirmWithdrawals !== true) {
      return { status: 409, body: { detail: KEY_TEXTS.withdrawalsRefused() } };
    }
    const key: ExchangeKey = {
      id: ID,
      exchangeName: 'binance',
      environment: body.environment === 'demo' ? 'demo' : 'live',
      keyHint: 'With…y123',
      permissions: ['read', 'futures'],
      status: 'verified',
      warnings: body.confirmWithdrawals === true ? ['withdrawals-enabled'] : [],
      created_at: '2026-11-23T09:00:00.000Z',
    };
    saved.push(key);
    return { status: 201, body: key };
  });
  s.server.on(`DELETE /exchanges/${ID}`, () => ({ status: 200, body: { message: KEY_TEXTS.deleted } }));
  return { ...s, saved, bodies };
}

describe('key commands', () => {
  it('key add asks for the key, then the secret without echo, and keys lists it', async () => {
    const s = session();
    expect(await s.type('keys')).toEqual([`muted: ${KEY_TEXTS.none}`]);
    const out = await s.answering('key add demo', ' PlainKey123 ', 'the-secret ');
    expect(out[0]).toBe(`success: ${KEY_TEXTS.saved}`);
    expect(s.bodies[0]).toEqual({
      exchangeName: 'binance',
      apiKey: 'PlainKey123',
      secretKey: 'the-secret',
      environment: 'demo',
      confirmWithdrawals: false,
    });
    expect(s.asked).toEqual(['API Key: ', 'Secret Key: ']);
    // The secret is never written to the terminal.
    expect(s.state().transcript.join('\n')).not.toContain('the-secret');
    expect((await s.type('keys'))[0]).toBe(`info: ${ID}  Binance  DEMO  With…y123  verified  read,futures`);
  });

  it('refuses empty input without calling the server', async () => {
    const s = session();
    expect(await s.answering('key add', 'Key123', '   ')).toEqual([`error: ${KEY_TEXTS.empty}`]);
    expect(s.bodies).toEqual([]);
  });

  it('a key that can withdraw is saved only after a yes, and then warns', async () => {
    const s = session();
    expect(await s.answering('key add', 'WithdrawKey123', 'sec', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.saved).toEqual([]);
    const out = await s.answering('key add', 'WithdrawKey123', 'sec', 'y');
    expect(out).toContain(`error:   ${KEY_TEXTS.warnings['withdrawals-enabled']}`);
    expect(s.bodies.at(-1)).toMatchObject({ confirmWithdrawals: true });
  });

  it('key rm asks first, and a guest is sent to log in', async () => {
    const s = session();
    expect(await s.answering(`key rm ${ID}`, 'n')).toEqual(['muted: Cancelled.']);
    expect(await s.answering(`key rm ${ID}`, 'y')).toEqual([`success: ${KEY_TEXTS.deleted}`]);
    expect(s.asked.at(-1)).toBe(`${KEY_TEXTS.confirmDelete} [y/N] `);
    const guest = session(null);
    expect(await guest.type('keys')).toEqual(['error: You must be logged in.']);
  });
});

describe('commands that open windows', () => {
  it('keys --open lists the keys and asks for the API Settings window; keys alone does not', async () => {
    const s = session();
    await s.type('keys');
    expect(s.stores.ui.keysWindowRequests.value).toBe(0);
    expect(await s.type('keys --open')).toEqual([`muted: ${KEY_TEXTS.none}`]);
    expect(s.stores.ui.keysWindowRequests.value).toBe(1);
  });

  it('account opens the Account window on its devices', async () => {
    const s = session();
    s.server.on('GET /account', () => ({ status: 200, body: { mode: 'paper', keyId: null, keys: [] } }));
    await s.type('account');
    expect(s.stores.ui.accountModal.value).toBe('devices');
  });
});
