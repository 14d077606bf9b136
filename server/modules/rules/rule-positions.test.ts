import { describe, expect, it } from 'vitest';
import { rulePositionCount } from './rule-positions';

describe('rulePositionCount', () => {
  it('counts the open positions rules opened, not the trader’s own nor those closed by hand', async () => {
    const count = await rulePositionCount(
      {
        opened: async () => new Set(['ETHUSDT', 'LINKUSDT']),
        // LINK's was closed by hand; BTC is the trader's own.
        positions: async () => [{ symbol: 'ETH/USDT' }, { symbol: 'BTC/USDT' }],
      },
      'u1',
      'paper',
    );
    expect(count).toBe(1);
  });

  it('does not ask the venue while rules have nothing open', async () => {
    let asked = 0;
    const count = await rulePositionCount(
      {
        opened: async () => new Set<string>(),
        positions: async () => {
          asked += 1;
          return [{ symbol: 'BTC/USDT' }];
        },
      },
      'u1',
      'paper',
    );
    expect([count, asked]).toEqual([0, 0]);
  });
});
