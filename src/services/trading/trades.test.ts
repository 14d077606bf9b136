import { describe, expect, it } from 'vitest';
import type { Trade } from '../../contracts/trading';
import { CLOSED_COLUMNS, closedTradeRow, tradeRow, TRADE_COLUMNS } from './trades';

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
  account: { venue: 'binance', mode: 'live', keyHint: 'Live…cdef' },
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

  it('leaves them "—" on the Closed tab too, beside the entry, the exit at its tick and the reason', () => {
    const row = closedTradeRow({
      id: '7-c',
      time: Date.UTC(2026, 10, 26, 21, 48, 3),
      symbol: 'ZIL/USDT',
      side: 'long',
      quantity: 4000,
      entryPrice: 0.02305,
      exitPrice: 0.0231,
      realizedPnl: null,
      fee: null,
      reason: 'stop',
      accountId: 'paper',
      account: { venue: 'paper', mode: 'paper', keyHint: null },
      source: 'manual',
      ruleName: null,
      orderId: 'o-7',
    });
    expect(Object.fromEntries(CLOSED_COLUMNS.map((c, i) => [c, row.cells[i]]))).toEqual({
      'TIME (UTC)': '11-26 21:48:03',
      SYMBOL: 'ZIL/USDT',
      POSITION: 'LONG',
      'QTY CLOSED': '4,000',
      'ENTRY PRICE': '0.02305',
      'EXIT PRICE': '0.02310',
      'REALISED PNL': '—',
      FEE: '—',
      REASON: 'stop',
      VENUE: 'PAPER',
      BY: 'manual',
    });
  });
});
