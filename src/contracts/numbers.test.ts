import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decimal } from './numbers';
import { LeverageRequest, OrderRequest } from './trading';

describe('decimal', () => {
  const n = decimal(z.number({ error: 'a number' }));

  it('reads numbers and plain decimal text', () => {
    for (const [input, value] of [
      [12.5, 12.5],
      ['12.5', 12.5],
      [' 7 ', 7],
      ['-3', -3],
      ['.5', 0.5],
      ['10.', 10],
    ] as const) {
      expect(n.parse(input)).toBe(value);
    }
  });

  it('refuses what z.coerce.number would have turned into a number', () => {
    for (const input of ['0x10', '1e3', '', ' ', 'Infinity', 'NaN', '1_000', true, false, [], null, {}]) {
      const res = n.safeParse(input);
      expect(res.success, JSON.stringify(input)).toBe(false);
    }
  });

  it('keeps the trading messages: leverage "0x10" is not 16x', () => {
    const lev = LeverageRequest.safeParse({ symbol: 'BTCUSDT', leverage: '0x10' });
    expect(lev.success).toBe(false);
    expect(lev.error?.issues[0]?.message).toBe('Leverage must be a number.');
    expect(LeverageRequest.parse({ symbol: 'BTCUSDT', leverage: '20' }).leverage).toBe(20);
    const amount = OrderRequest.safeParse({ symbol: 'BTCUSDT', side: 'long', amount: true });
    expect(amount.error?.issues[0]?.message).toBe('Amount must be a number.');
  });
});
