import { describe, expect, it } from 'vitest';
import type { AccountState } from '../../contracts/trading';
import { ACCOUNT_TEXT } from '../../services/trading/account';
import { recordedReply } from '../../services/trading/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';

const KEY_ID = '0b3c9a52-6f1e-4d3a-9c2b-5e8f7a1d2c3b';

function session() {
  const s = createTestConsole({ token: 'tok' });
  let state: AccountState = { account: 'paper', venue: 'paper', mode: 'paper', keyHint: null };
  s.server.on('GET /account', () => ({ status: 200, body: state }));
  s.server.on('PUT /account', (r) => {
    const { account } = JSON.parse(r.body ?? '{}') as { account: string };
    if (account === 'paper') state = { account: 'paper', venue: 'paper', mode: 'paper', keyHint: null };
    else if (account === KEY_ID)
      state = { account: KEY_ID, venue: 'binance', mode: 'live', keyHint: 'Live…cdef' };
    else return { status: 404, body: { detail: 'API key not found.' } };
    return { status: 200, body: state };
  });
  // The fake exchange fills where the account says, and its answer names that account.
  s.server.on('POST /orders', () => {
    const reply = recordedReply('btc long 200');
    return {
      ...reply,
      body: {
        ...(reply.body as object),
        account: { venue: state.venue, mode: state.mode, keyHint: state.keyHint },
      },
    };
  });
  const orders = () => s.server.requests.filter((r) => r.method === 'POST' && r.path === '/orders').length;
  return { ...s, orders };
}

describe('account commands', () => {
  it('account shows PAPER; account use <key> switches to LIVE and the prompt says so', async () => {
    const s = session();
    expect((await s.type('account'))[0]).toBe(
      'info: Orders go to: PAPER (the built-in paper exchange, no real funds).',
    );
    expect(s.stores.account.badge.value).toBe('PAPER');
    const out = await s.type(`account use ${KEY_ID}`);
    expect(out[0]).toBe(`info: Orders go to: LIVE Binance USDS-M futures, key Live…cdef (${KEY_ID}).`);
    expect(s.stores.account.badge.value).toBe('BINANCE LIVE');
    expect(await s.type('account use nope')).toEqual(['error: API key not found.']);
    expect(s.stores.account.badge.value).toBe('BINANCE LIVE');
  });

  it('asks before the first live order of the session only, and a no sends nothing', async () => {
    const s = session();
    await s.type(`account use ${KEY_ID}`);
    expect(await s.answering('btc long 250', 'n')).toEqual(['muted: Cancelled.']);
    expect(s.orders()).toBe(0);
    expect(s.asked.at(-1)).toBe(
      `${ACCOUNT_TEXT.confirmFirstLive({ venue: 'binance', mode: 'live', keyHint: 'Live…cdef' })} [y/N] `,
    );
    const first = await s.answering('btc long 250', 'y');
    expect(first.at(-1)).toBe('muted: Binance LIVE account (key Live…cdef): real funds.');
    expect(s.orders()).toBe(1);
    const asked = s.asked.length;
    await s.type('btc long 250');
    expect(s.asked.length).toBe(asked);
    expect(s.orders()).toBe(2);
    // Back to paper and to live again: a new decision, asked again.
    await s.type('account use paper');
    await s.type('btc long 250');
    expect(s.asked.length).toBe(asked);
    await s.type(`account use ${KEY_ID}`);
    expect(await s.answering('btc long 250', 'n')).toEqual(['muted: Cancelled.']);
  });
});
