import { describe, expect, it } from 'vitest';
import { closeReasonOf, retractedWhy } from '../rules/rule-exits';
import { closedTrades } from './closed-trades';
import type { HistoryFill } from './trades.repo';

let ids = 0;
function fill(
  side: 'buy' | 'sell',
  quantity: number,
  price: number,
  more: Partial<HistoryFill> = {},
): HistoryFill {
  ids += 1;
  return {
    id: String(ids),
    time: ids * 1000,
    symbol: 'BTC/USDT',
    side,
    quantity,
    price,
    realizedPnl: 0,
    fee: 0,
    accountId: 'paper',
    account: { venue: 'paper', mode: 'paper', keyHint: null },
    source: 'manual',
    ruleId: null,
    ruleName: null,
    orderId: `o${ids}`,
    reason: null,
    ...more,
  };
}

describe('the Closed tab from the fills', () => {
  it('splits a flip: the long that was open is the closed row, with its share of the fee; the rest opens', () => {
    const rows = closedTrades([
      fill('buy', 0.1, 100_000, { fee: 4 }),
      fill('sell', 0.14, 101_000, { realizedPnl: 100, fee: 5.6 }),
    ]);
    expect(rows).toEqual([
      expect.objectContaining({
        side: 'long',
        quantity: 0.1,
        entryPrice: 100_000,
        exitPrice: 101_000,
        realizedPnl: 100,
        fee: 4,
        reason: 'manual',
      }),
    ]);
  });

  it('closes the short a flip opened at its own entry, not the long before it', () => {
    const rows = closedTrades([
      fill('buy', 0.1, 100_000),
      fill('sell', 0.14, 101_000, { realizedPnl: 100, fee: 1.4 }),
      fill('buy', 0.04, 100_500, { realizedPnl: 20, fee: 0.4, reason: 'stop' }),
    ]);
    expect(rows.map((r) => [r.side, r.quantity, r.entryPrice, r.exitPrice, r.fee, r.reason])).toEqual([
      ['short', 0.04, 101_000, 100_500, 0.4, 'stop'],
      ['long', 0.1, 100_000, 101_000, 1, 'manual'],
    ]);
  });

  it('keeps a position by account and symbol, and averages the entry of the fills that built it', () => {
    const rows = closedTrades([
      fill('buy', 1, 100, { symbol: 'ETH/USDT' }),
      fill('buy', 1, 200, { symbol: 'ETH/USDT' }),
      fill('sell', 3, 50, { symbol: 'SOL/USDT' }),
      fill('sell', 0.5, 180, { symbol: 'ETH/USDT', realizedPnl: 15, fee: 0.1, reason: 'hold' }),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      symbol: 'ETH/USDT',
      side: 'long',
      quantity: 0.5,
      entryPrice: 150,
      reason: 'hold',
    });
  });

  it('takes a close the history cannot explain as a whole close, its entry from its PnL', () => {
    const rows = closedTrades([fill('sell', 2, 110, { realizedPnl: 20, fee: 0.2, reason: 'target' })]);
    expect(rows[0]).toMatchObject({
      side: 'long',
      quantity: 2,
      entryPrice: 100,
      exitPrice: 110,
      reason: 'target',
    });
  });

  it('starts afresh when the venue says an opposite fill realised nothing (the position was gone)', () => {
    const rows = closedTrades([
      fill('buy', 1, 100),
      fill('sell', 1, 90),
      fill('buy', 1, 95, { realizedPnl: 5 }),
    ]);
    expect(rows).toEqual([expect.objectContaining({ side: 'short', quantity: 1, entryPrice: 90 })]);
  });

  it('keeps an unknown fee and PnL unknown', () => {
    const rows = closedTrades([fill('buy', 1, 100), fill('sell', 1, 110, { realizedPnl: null, fee: null })]);
    expect(rows[0]).toMatchObject({ quantity: 1, realizedPnl: null, fee: null });
  });
});

describe('why a rule exit closed', () => {
  it('names the reason the exit was claimed with', () => {
    expect(closeReasonOf('take profit: 5.10% at 105100')).toBe('target');
    expect(closeReasonOf('stop loss: -2.00% at 98000')).toBe('stop');
    expect(closeReasonOf('max hold of 30 min at 100100')).toBe('hold');
    expect(closeReasonOf(retractedWhy(42))).toBe('retraction');
    expect(closeReasonOf('flattened (rules flatten)')).toBe('flatten');
    expect(closeReasonOf(null)).toBe('manual');
  });
});
