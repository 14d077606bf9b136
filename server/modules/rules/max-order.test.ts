import { describe, expect, it } from 'vitest';
import { BalanceBook, defaultMaxOrder } from './max-order';

describe('defaultMaxOrder', () => {
  it('is five times the balance, below the ceiling, and says where it comes from', () => {
    expect(defaultMaxOrder({ venue: 'paper', balance: 10_000 })).toEqual({
      usd: 50_000,
      basis: '5 × your 10,000 paper balance',
      saved: false,
    });
    expect(defaultMaxOrder({ venue: 'bybit', balance: 8_000.1 })).toMatchObject({
      usd: 40_000,
      basis: '5 × your 8,000 Bybit balance',
    });
    expect(defaultMaxOrder({ venue: 'paper', balance: 4_000_000 })).toEqual({
      usd: 250_000,
      basis: 'the ceiling of 250,000; 5 × your 4,000,000 paper balance is more',
      saved: false,
    });
  });

  it('is the live default on a key whose balance is not known, and never below 1', () => {
    expect(defaultMaxOrder({ venue: 'okx', balance: null })).toEqual({
      usd: 500,
      basis: 'the live default of 500: your OKX balance is not known',
      saved: false,
    });
    expect(defaultMaxOrder({ venue: 'paper', balance: 0 }).usd).toBe(1);
  });
});

describe('BalanceBook', () => {
  it('asks for a balance once a minute per account, and again after a failed read', async () => {
    let now = 0;
    const asked: string[] = [];
    let fail = false;
    const book = new BalanceBook(
      async (userId, account) => {
        asked.push(`${userId}/${account ?? ''}`);
        if (fail) throw new Error('down');
        return { venue: 'paper', balance: 100 };
      },
      () => now,
    );
    await Promise.all(Array.from({ length: 30 }, () => book.of('u', 'paper')));
    await book.of('u', 'k1').catch(() => undefined);
    expect(asked).toEqual(['u/paper', 'u/k1']);
    now = 60_000;
    fail = true;
    await expect(book.of('u', 'paper')).rejects.toThrow('down');
    fail = false;
    await book.of('u', 'paper');
    expect(asked).toEqual(['u/paper', 'u/k1', 'u/paper', 'u/paper']);
    // The chosen account may change any moment: its balance is read every time.
    await book.of('u');
    await book.of('u');
    expect(asked.slice(4)).toEqual(['u/', 'u/']);
  });
});
