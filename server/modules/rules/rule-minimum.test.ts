import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../plugins/errors';
import type { ExchangeAdapter } from '../trading/exchange';
import { minimumOrderOf } from '../trading/minimum-order';
import { filtersFor } from '../trading/paper/filters';
import { checkRuleMinimum } from './rule-minimum';

const refusal = async (p: Promise<void>) => {
  const err = await p.then(() => null).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RequestValidationError);
  return (err as RequestValidationError).issues;
};

describe('checkRuleMinimum', () => {
  it('refuses an amount below the venue’s minimum, naming the venue, the asset and both amounts', async () => {
    const bybit = async () => ({ venue: 'bybit' as const, usd: 5 });
    expect(await refusal(checkRuleMinimum(bybit, 'u', { asset: 'ETH', amount: 2, account: 'k1' }))).toEqual([
      {
        loc: ['body', 'action', 'amount_usd'],
        msg: "Bybit's minimum order for ETH is 5 USDT; this rule's 2 USDT would be refused.",
        type: 'value_error',
      },
    ]);
    await checkRuleMinimum(bybit, 'u', { asset: 'ETH', amount: 5, account: 'k1' });
  });

  it('lets a rule on any asset through, and one whose venue did not say', async () => {
    const asked: string[] = [];
    const never = async (_u: string, _a: string, asset: string) => {
      asked.push(asset);
      return null;
    };
    await checkRuleMinimum(never, 'u', { asset: undefined, amount: 1, account: 'paper' });
    await checkRuleMinimum(never, 'u', { asset: 'BTC', amount: 1, account: 'paper' });
    await checkRuleMinimum(async () => Promise.reject(new Error('venue down')), 'u', {
      asset: 'BTC',
      amount: 1,
      account: 'paper',
    });
    expect(asked).toEqual(['BTC']);
  });
});

describe('minimumOrderOf', () => {
  it('reads a live venue’s own filters, and the minimum quantity’s worth when that is more', async () => {
    const base = filtersFor('ETHUSDT')!;
    const live = {
      filters: async () => ({ ...base, minNotional: new Decimal(5), minQty: new Decimal('0.01') }),
    } as unknown as ExchangeAdapter;
    expect(await minimumOrderOf(live, 'ETHUSDT', undefined)).toBe(5);
    expect(await minimumOrderOf(live, 'ETHUSDT', 3000.123)).toBe(30.01);
    const unlisted = {
      filters: async () => Promise.reject(new Error('-1121')),
    } as unknown as ExchangeAdapter;
    expect(await minimumOrderOf(unlisted, 'ETHUSDT', 3000)).toBeNull();
  });

  it('reads the paper exchange’s filters for paper', async () => {
    expect(await minimumOrderOf({} as ExchangeAdapter, 'BTCUSDT', undefined)).toBe(100);
  });
});
