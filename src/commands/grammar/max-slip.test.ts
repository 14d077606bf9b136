import { describe, expect, it } from 'vitest';
import { recordedFill } from '../../services/trading/testing/serverAnswers';
import { createTestConsole } from '../testing/scripted';
import { MAX_SLIP_MESSAGES, parseOrderWords, takeMaxSlip } from './order';

describe('--max-slip on an order line', () => {
  it('takes the cap in %, with or without the sign, as a separate word or after =', () => {
    expect(takeMaxSlip(['btc', 'long', '500', '--max-slip', '0.3%'])).toEqual({
      ok: true,
      words: ['btc', 'long', '500'],
      pct: 0.3,
    });
    expect(takeMaxSlip(['--max-slip=0.5', 'long', '1k'])).toEqual({
      ok: true,
      words: ['long', '1k'],
      pct: 0.5,
    });
    expect(takeMaxSlip(['long', '1k'])).toEqual({ ok: true, words: ['long', '1k'] });
  });

  it('puts it on the parsed order, beside protection', () => {
    const parsed = parseOrderWords(['btc', 'long', '500', 'sl', '2%', '--max-slip', '0.3%'], 'ETH');
    expect(parsed).toEqual({
      ok: true,
      order: expect.objectContaining({ pair: 'BTC/USDT', side: 'long', amount: 500, maxSlippagePct: 0.3 }),
    });
    const plain = parseOrderWords(['long', '500'], 'ETH');
    expect(plain.ok && plain.order.maxSlippagePct).toBe(undefined);
  });

  it('refuses a missing, malformed, out-of-range or repeated cap in words that say how to write it', () => {
    expect(takeMaxSlip(['long', '5', '--max-slip'])).toEqual({
      ok: false,
      message: MAX_SLIP_MESSAGES.missing,
    });
    expect(takeMaxSlip(['long', '5', '--max-slip', 'lots'])).toEqual({
      ok: false,
      message: "Invalid max slippage: 'lots'. Use a percent above 0 and at most 10 (--max-slip 0.3%).",
    });
    expect(takeMaxSlip(['long', '5', '--max-slip', '12%']).ok).toBe(false);
    expect(takeMaxSlip(['long', '5', '--max-slip', '0']).ok).toBe(false);
    expect(takeMaxSlip(['--max-slip', '1', 'long', '5', '--max-slip', '2'])).toEqual({
      ok: false,
      message: MAX_SLIP_MESSAGES.twice,
    });
  });
});

describe('--max-slip at the prompt', () => {
  it('reaches the order sent as maxSlippagePct', async () => {
    const s = createTestConsole({ token: 'tok' });
    s.server.on('POST /orders', () => ({ status: 200, body: recordedFill('btc long 200') }));
    await s.type('btc long 200 --max-slip 0.3%');
    expect(s.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /orders']);
    expect(JSON.parse(s.server.requests[0]?.body ?? '{}')).toMatchObject({
      symbol: 'BTC/USDT',
      side: 'long',
      amount: 200,
      type: 'market',
      maxSlippagePct: 0.3,
    });
  });

  it('a bad cap is refused at the prompt, and nothing is sent', async () => {
    const s = createTestConsole({ token: 'tok' });
    const lines = await s.type('btc long 200 --max-slip 20%');
    expect(lines.join('\n')).toContain("Invalid max slippage: '20%'.");
    expect(s.server.requests).toEqual([]);
  });
});
