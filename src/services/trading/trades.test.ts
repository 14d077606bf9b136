import { describe, expect, it } from 'vitest';
import type { Trade } from '../../contracts/trading';
import { closesPosition, tradeRow, TRADE_COLUMNS } from './trades';

const fill: Trade = {
  id: '1',
  time: Date.UTC(2026, 10, 26, 12, 0, 0),
  symbol: 'BTC/USDT',
  side: 'sell',
  quantity: 0.004,
  price: 60_000,
  realizedPnl: null,
  fee: null,
  accountId: 'key-1',
  account: { mode: 'live', keyHint: 'Live…cdef' },
  source: 'manual',
  ruleId: null,
  ruleName: null,
  orderId: '4000000001',
};

const cell = (trade: Trade, column: (typeof TRADE_COLUMNS)[number]) =>
  tradeRow(trade).cells[TRADE_COLUMNS.indexOf(column)];

describe('a fill whose fee and realised PnL the venue has not told yet', () => {
  it('shows them as "—", never as 0 or as the missing-number mark, with no gain or loss tone', () => {
    expect(cell(fill, 'REALISED PNL')).toBe('—');
    expect(cell(fill, 'FEE')).toBe('—');
    expect(tradeRow(fill).pnlTone).toBe('flat');
    // Once told, the figures read as any other fill's.
    expect(cell({ ...fill, realizedPnl: 0, fee: 0.12 }, 'REALISED PNL')).toBe('0.00');
    expect(cell({ ...fill, realizedPnl: 0, fee: 0.12 }, 'FEE')).toBe('0.12');
  });

  it('is not listed among the closes until its realised PnL is known', () => {
    expect(closesPosition(fill)).toBe(false);
    expect(closesPosition({ ...fill, realizedPnl: 1.5 })).toBe(true);
  });
});
