import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  formatAmount2,
  formatPnl,
  formatSize,
  formatPrice,
  pnlTone,
  updatedLabel,
} from './format';
import { positionRow, positionsTable } from './positionsView';
import { BTC_LONG, ETH_SHORT } from './testing/fixtures';

describe('trading numbers (docs/product.md §9)', () => {
  it('shows amounts with 2 decimals', () => {
    expect(formatAmount2(1234.5)).toBe('1,234.50');
    expect(formatAmount2(-0.004)).toBe('-0.00');
    expect(formatPnl(12.987)).toBe('+12.99');
    expect(formatPnl(-18.75)).toBe('-18.75');
    expect(formatSize(0.052)).toBe('0.052');
    expect(formatSize(1500)).toBe('1,500');
  });

  it('shows "$--" for zero or missing', () => {
    for (const value of [0, null, undefined, Number.NaN]) {
      expect([
        formatAmount2(value),
        formatPrice('BTCUSDT', value),
        formatPnl(value),
        formatSize(value),
      ]).toEqual(['$--', '$--', '$--', '$--']);
    }
  });

  it("shows each symbol's prices at its own tick", () => {
    expect(formatPrice('BTC/USDT', 100_771)).toBe('100,771.0');
    expect(formatPrice('BTCUSDT', 96_150.55)).toBe('96,150.6');
    expect(formatPrice('ZIL/USDT', 0.02305)).toBe('0.02305');
    expect(formatPrice('ZILUSDT', 0.0231)).toBe('0.02310');
    expect(formatPrice('1000PEPE/USDT', 0.019186)).toBe('0.0191860');
    expect(formatPrice('ETH/USDT', 3_147.531)).toBe('3,147.53');
    expect(formatPrice('XRPUSDT', 0.5)).toBe('0.5000');
    // Without a bundled tick: four significant digits below the price's leading digit.
    expect(formatPrice('AVAX/USDT', 21.123456)).toBe('21.123');
    expect(formatPrice('AVAX/USDT', -21.12)).toBe('-21.120');
  });

  it('colours profit green, loss red, nothing flat', () => {
    expect([pnlTone(1), pnlTone(-1), pnlTone(0), pnlTone(null)]).toEqual(['gain', 'loss', 'flat', 'flat']);
  });

  it('says how long ago in seconds under a minute, minutes under an hour, then hours', () => {
    expect(formatAgo(0)).toBe('0s');
    expect(formatAgo(59_999)).toBe('59s');
    expect(formatAgo(60_000)).toBe('1m');
    expect(formatAgo(3_599_999)).toBe('59m');
    expect(formatAgo(3_600_000)).toBe('1h');
    expect(formatAgo(-5)).toBe('0s');
    expect(updatedLabel(null, 5)).toBeNull();
    expect(updatedLabel(1_000, 21_000)).toBe('Updated 20s ago');
  });
});

describe('position rows', () => {
  it('formats every column of a position', () => {
    expect(positionRow(BTC_LONG)).toEqual({
      symbol: 'BTC/USDT',
      side: 'LONG',
      cells: ['BTC/USDT', 'LONG', '0.052', '96,150.5', '96,400.3', '87,010.1', '499.98', '+12.99'],
      pnlTone: 'gain',
      roe: '+2.60%',
    });
    expect(positionRow(ETH_SHORT).pnlTone).toBe('loss');
    expect(positionRow(ETH_SHORT).roe).toBe('-1.84%');
  });

  it('aligns the terminal table: text left, numbers right', () => {
    expect(positionsTable([BTC_LONG, ETH_SHORT])).toEqual([
      'SYMBOL    SIDE    SIZE  ENTRY PRICE  MARK PRICE  LIQ. PRICE  MARGIN (USDT)  UNREALIZED PNL',
      'BTC/USDT  LONG   0.052     96,150.5    96,400.3    87,010.1         499.98          +12.99',
      'ETH/USDT  SHORT    1.5     3,400.00    3,412.50    4,060.75       1,020.00          -18.75',
    ]);
  });
});
