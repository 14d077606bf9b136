import { describe, expect, it } from 'vitest';
import { BTC_LONG } from '../../services/trading/testing/fixtures';
import { recordedFill, recordedReply } from '../../services/trading/testing/serverAnswers';
import { parseShare, verbLine, verbQuestion } from '../../services/trading/positionVerbs';
import { createTestConsole } from '../testing/scripted';

const body = (s: ReturnType<typeof createTestConsole>, i: number) =>
  JSON.parse(s.server.requests[i]?.body ?? '{}') as Record<string, unknown>;

describe('shares of a position', () => {
  it('reads a percent or a fraction, and says what to type otherwise', () => {
    expect(parseShare('50%')).toEqual({ ok: true, share: 0.5, text: '50%' });
    expect(parseShare('12.5%')).toEqual({ ok: true, share: 0.125, text: '12.5%' });
    expect(parseShare('1/3')).toMatchObject({ ok: true, text: '1/3' });
    expect(parseShare('1/3').ok && parseShare('1/3')).toMatchObject({ share: 1 / 3 });
    expect(parseShare('100%')).toMatchObject({ ok: true, share: 1 });
    for (const bad of ['0%', '150%', '0/3', '4/3', '1/0']) {
      expect(parseShare(bad)).toEqual({ ok: false, message: 'The share must be above 0% and at most 100%.' });
    }
    expect(parseShare('half')).toEqual({
      ok: false,
      message: "Invalid share: 'half'. Use a percent (close btc 50%) or a fraction (close btc 1/3).",
    });
  });

  it('asks about the position each verb acts on, and names the line it runs', () => {
    expect(verbQuestion('half', BTC_LONG)).toBe('Close 50% of LONG 0.052 BTC/USDT? Enter / Esc');
    expect(verbQuestion('close', BTC_LONG)).toBe('Close LONG 0.052 BTC/USDT? Enter / Esc');
    expect(verbQuestion('flip', BTC_LONG)).toBe('Flip LONG 0.052 BTC/USDT to SHORT 0.052? Enter / Esc');
    expect([
      verbLine('close', 'BTC/USDT'),
      verbLine('half', 'BTC/USDT'),
      verbLine('flip', 'ETH/USDT'),
    ]).toEqual(['close btc', 'close btc 50%', 'flip eth']);
  });
});

describe('close <asset> <share> and flip', () => {
  it('close btc 50% sends one close of half with an Idempotency-Key, and prints its fill', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('POST /close_position', () => recordedReply('close eth'));
    const out = await s.type('close btc 50%');
    expect(out[0]).toMatch(/^success: Closed SHORT 0\.079 ETH/);
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /close_position']);
    expect(body(s, 0)).toEqual({ symbol: 'BTC/USDT', share: 0.5 });
    expect(s.server.requests[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    await s.type('close btc 1/3');
    expect(body(s, 1)).toEqual({ symbol: 'BTC/USDT', share: 1 / 3 });
    // 100% is the whole position: the plain close.
    await s.type('close btc 100%');
    expect(body(s, 2)).toEqual({ symbol: 'BTC/USDT' });
  });

  it('refuses a share it cannot read before sending anything, and passes the refusal of one too small on', async () => {
    const s = createTestConsole({ token: 'tok' });
    expect((await s.type('close btc half'))[0]).toBe(
      "error: Invalid share: 'half'. Use a percent (close btc 50%) or a fraction (close btc 1/3).",
    );
    expect(s.server.requests).toHaveLength(0);
    const small =
      '25% of 0.002 BTC rounds to nothing: the smallest BTC/USDT order on the paper exchange is 0.001 BTC. ' +
      'Close a larger share, or the whole position with close btc.';
    s.server.on('POST /close_position', () => ({ status: 400, body: { detail: small } }));
    expect(await s.type('close btc 25%')).toEqual([`error: Failed to close position: ${small}`]);
  });

  it('flip closes first, then opens the other way for what the close sold', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('GET /positions', () => ({ status: 200, body: [BTC_LONG] }));
    const closed = { ...recordedFill('btc long 200'), side: 'sell' as const, notional: 5_012.81 };
    s.server.on('POST /close_position', () => ({ status: 200, body: { message: 'Closed.', fill: closed } }));
    s.server.on('POST /orders', () => ({ status: 200, body: recordedFill('btc long 200') }));
    const out = await s.type('flip btc');
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /positions',
      'POST /close_position',
      'POST /orders',
    ]);
    expect(body(s, 1)).toEqual({ symbol: 'BTC/USDT' });
    expect(body(s, 2)).toMatchObject({ symbol: 'BTC/USDT', side: 'short', amount: 5_012.81, type: 'market' });
    expect(out[2]).toMatch(/^success: Success! Order ID: /);
  });

  it('flip that cannot open after its close says the user is flat, never doubled', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('GET /positions', () => ({ status: 200, body: [BTC_LONG] }));
    s.server.on('POST /close_position', () => recordedReply('close eth'));
    s.server.on('POST /orders', () => ({ status: 400, body: { detail: 'Margin is insufficient.' } }));
    const out = await s.type('flip btc');
    expect(out.at(-1)).toBe(
      'error: The short was not opened: Margin is insufficient. You are flat on BTC/USDT; nothing was doubled.',
    );
    expect(s.server.count('POST /orders')).toBe(1);
    s.server.on('GET /positions', () => ({ status: 200, body: [] }));
    expect(await s.type('flip eth')).toEqual(['error: No open ETH/USDT position.']);
    expect(s.server.count('POST /close_position')).toBe(1);
  });
});
