import { describe, expect, it } from 'vitest';
import { KEY_TEXTS, type ExchangeKey } from '../../contracts/exchanges';
import type { AccountState } from '../../contracts/trading';
import type { VenueName } from '../../contracts/venues';
import { createTestConsole } from '../testing/scripted';

const ID = '5c4b3a29-1d0e-4f8a-9b7c-6d5e4f3a2b1c';
const USAGE = 'muted: Usage: key add [exchange] [environment]';

function session(status: ExchangeKey['status'] = 'verified') {
  const s = createTestConsole({ token: 'tok' });
  const saved: ExchangeKey[] = [];
  const bodies: Record<string, unknown>[] = [];
  s.server.on('GET /exchanges/', () => ({ status: 200, body: saved }));
  s.server.on('POST /exchanges/', (r) => {
    const body = JSON.parse(r.body ?? '{}') as Record<string, unknown>;
    bodies.push(body);
    const key: ExchangeKey = {
      id: ID,
      exchangeName: body.exchangeName as VenueName,
      environment: body.environment === 'demo' ? 'demo' : 'live',
      keyHint: 'Venu…1234',
      permissions: ['read', 'trade'],
      status,
      warnings: [],
      created_at: '2026-11-23T09:00:00.000Z',
    };
    saved.push(key);
    return { status: 201, body: key };
  });
  return { ...s, bodies };
}

describe('key add on each venue', () => {
  it('--venue bybit asks for the key and the secret only, and sends Bybit without a passphrase', async () => {
    const s = session();
    const out = await s.answering('key add --venue bybit', ' BybitKey123 ', 'bybit-secret');
    expect(out).toEqual([
      `success: ${KEY_TEXTS.saved}`,
      `info: ${ID}  Bybit  DEMO  Venu…1234  verified  read,trade`,
      'muted: Demo: this key trades simulated funds on Bybit demo trading. For real funds: key add bybit live.',
    ]);
    expect(s.asked).toEqual(['API Key: ', 'Secret Key: ']);
    expect(s.bodies).toEqual([
      {
        exchangeName: 'bybit',
        apiKey: 'BybitKey123',
        secretKey: 'bybit-secret',
        environment: 'demo',
        confirmWithdrawals: false,
      },
    ]);
    expect((await s.type('keys'))[0]).toBe(`info: ${ID}  Bybit  DEMO  Venu…1234  verified  read,trade`);
  });

  it('live says in plain words that real funds trade, when asking and when saved', async () => {
    const s = session();
    const out = await s.answering('key add bybit live', 'BybitKey123', 'bybit-secret');
    expect(s.asked).toEqual(['API Key (LIVE, trades real funds): ', 'Secret Key: ']);
    expect(out).toEqual([
      `success: ${KEY_TEXTS.saved}`,
      `info: ${ID}  Bybit  LIVE  Venu…1234  verified  read,trade`,
      'info: Live: orders sent with this key trade real funds on your Bybit account.',
    ]);
    expect(s.bodies[0]).toMatchObject({ exchangeName: 'bybit', environment: 'live' });
  });

  it('takes the venue and the environment as words in either order; Binance and demo when left out', async () => {
    const s = session();
    await s.answering('key add bybit demo', 'k1', 's1');
    await s.answering('key add DEMO okx', 'k2', 's2', 'p2');
    await s.answering('key add', 'k3', 's3');
    await s.answering('keys add --venue=bybit', 'k4', 's4');
    await s.answering('key add live', 'k5', 's5');
    expect(s.bodies.map((b) => [b.exchangeName, b.environment])).toEqual([
      ['bybit', 'demo'],
      ['okx', 'demo'],
      ['binance', 'demo'],
      ['bybit', 'demo'],
      ['binance', 'live'],
    ]);
  });

  it('okx asks for the passphrase without echo and sends it with the key', async () => {
    const s = session();
    const out = await s.answering('key add okx', 'OkxKey123', 'okx-secret', ' okx pass ');
    expect(out[0]).toBe(`success: ${KEY_TEXTS.saved}`);
    expect(s.asked).toEqual(['API Key: ', 'Secret Key: ', 'Passphrase: ']);
    expect(s.bodies[0]).toEqual({
      exchangeName: 'okx',
      apiKey: 'OkxKey123',
      secretKey: 'okx-secret',
      passphrase: 'okx pass',
      environment: 'demo',
      confirmWithdrawals: false,
    });
    const transcript = s.state().transcript.join('\n');
    expect(transcript).not.toContain('okx pass');
    expect(transcript).not.toContain('okx-secret');
  });

  it('never takes the passphrase on the line, where the history would keep it', async () => {
    const s = session();
    const out = await s.type('key add okx --passphrase "my pass"');
    expect(out).toEqual([
      "error: Unknown option '--passphrase'.",
      'muted: Usage: key add [exchange] [environment]',
    ]);
    expect(s.asked).toEqual([]);
    expect(s.bodies).toEqual([]);
  });

  it('an OKX key without its passphrase is refused before any call; a cancelled passphrase sends nothing', async () => {
    const s = session();
    expect(await s.answering('key add okx', 'OkxKey123', 'okx-secret', '  ')).toEqual([
      `error: ${KEY_TEXTS.passphraseMissing}`,
    ]);
    expect(await s.answering('key add okx', 'OkxKey123', 'okx-secret', null)).toEqual(['muted: Cancelled.']);
    expect(s.bodies).toEqual([]);
  });

  it('a key saved unverified says which venue could not be reached', async () => {
    const s = session('unverified');
    const out = await s.answering('key add bybit demo', 'k', 's');
    expect(out.at(-1)).toBe(`muted: ${KEY_TEXTS.unverified('bybit')}`);
  });

  it('Tab offers the venues and the environments', () => {
    const s = session();
    expect(s.complete('key add o')).toEqual(['okx']);
    expect(s.complete('key add bybit d')).toEqual(['demo']);
  });
});

describe('key add refusals, before any question', () => {
  const refused: [string, string][] = [
    ['key add --venue kraken', '--venue must be one of binance, bybit, okx.'],
    ['key add bybit okx', 'One venue, please: bybit or okx?'],
    ['key add okx --venue bybit', 'One venue, please: okx or bybit?'],
    ['key add live demo', 'One environment, please: live or demo?'],
    [
      'key add --venue bybit MyKey MySecret',
      "'MyKey' is neither a venue (binance, bybit, okx) nor an environment (live, demo). The key and the secret are asked for next, so they stay out of the history.",
    ],
  ];
  it.each(refused)('%s', async (line, message) => {
    const s = session();
    expect(await s.answering(line, 'k', 's', 'p')).toEqual([`error: ${message}`, USAGE]);
    expect(s.asked).toEqual([]);
    expect(s.bodies).toEqual([]);
  });
});

describe('account names the venue orders go to', () => {
  const at = (state: AccountState) => {
    const s = session();
    s.server.on('GET /account', () => ({ status: 200, body: state }));
    return s;
  };

  it('a live Bybit key and a demo OKX key', async () => {
    const bybit = at({ account: ID, venue: 'bybit', mode: 'live', keyHint: 'Venu…1234' });
    expect(await bybit.type('account')).toEqual([
      `info: Orders go to: LIVE Bybit USDT perpetuals (linear), key Venu…1234 (${ID}).`,
      'muted: Real funds. The first order of each session asks first.',
    ]);
    const okx = at({ account: ID, venue: 'okx', mode: 'demo', keyHint: 'Venu…1234' });
    expect(await okx.type('account')).toEqual([
      `info: Orders go to: DEMO OKX USDT perpetual swaps, key Venu…1234 (${ID}).`,
      'muted: OKX demo trading: simulated funds.',
    ]);
  });
});
