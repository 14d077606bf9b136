import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import {
  AMOUNT_TEXT,
  createQuickAmountsStore,
  DEFAULT_QUICK_AMOUNTS,
  formatQuickAmount,
  parseAmount,
} from './quickAmounts';
import { FEED_KEYS } from './types';

describe('quick-trade amounts (docs/product.md §5)', () => {
  it('starts with the defaults, ascending', () => {
    const store = createQuickAmountsStore(memoryStorage());
    expect(store.amounts.value).toEqual(DEFAULT_QUICK_AMOUNTS);
  });

  it('adds a number above zero and keeps the list ascending in quickTradeAmounts', () => {
    const storage = memoryStorage();
    const store = createQuickAmountsStore(storage);
    expect(store.add('50')).toEqual({ ok: true, amounts: [50, 100, 250, 1000, 5000] });
    expect(store.add('2.5k')).toMatchObject({ ok: true });
    expect(store.add(750)).toMatchObject({ ok: true });
    expect(store.amounts.value).toEqual([50, 100, 250, 750, 1000, 2500, 5000]);
    expect(JSON.parse(storage.get(FEED_KEYS.amounts) ?? 'null')).toEqual([
      50, 100, 250, 750, 1000, 2500, 5000,
    ]);
    expect(createQuickAmountsStore(storage).amounts.value).toEqual(store.amounts.value);
  });

  it.each(['', '0', '-5', 'abc', '1e3', '   ', 'k'])('refuses %j with the spec message', (input) => {
    const store = createQuickAmountsStore(memoryStorage());
    expect(store.add(input)).toEqual({ ok: false, message: AMOUNT_TEXT.invalid });
    expect(AMOUNT_TEXT.invalid).toBe('Lütfen geçerli bir miktar girin.');
  });

  it('refuses a duplicate with the spec message', () => {
    const store = createQuickAmountsStore(memoryStorage());
    expect(store.add('100')).toEqual({ ok: false, message: 'Bu miktar zaten mevcut.' });
    expect(store.add('1k')).toEqual({ ok: false, message: 'Bu miktar zaten mevcut.' });
    expect(store.amounts.value).toEqual(DEFAULT_QUICK_AMOUNTS);
  });

  it('removes an amount, and says when it was not there', () => {
    const store = createQuickAmountsStore(memoryStorage());
    expect(store.remove(250)).toBe(true);
    expect(store.remove(250)).toBe(false);
    expect(store.amounts.value).toEqual([100, 1000, 5000]);
  });

  it('reads a saved list sorted and de-duplicated, and ignores a corrupt one', () => {
    const saved = memoryStorage({ [FEED_KEYS.amounts]: '[500,20,500]' });
    expect(createQuickAmountsStore(saved).amounts.value).toEqual([20, 500]);
    const corrupt = memoryStorage({ [FEED_KEYS.amounts]: '[1,"x"]' });
    expect(createQuickAmountsStore(corrupt).amounts.value).toEqual(DEFAULT_QUICK_AMOUNTS);
  });

  it('shows 1000 and more with a k suffix (docs/product.md §9)', () => {
    expect([50, 999, 1000, 2500, 10_000, 1234].map(formatQuickAmount)).toEqual([
      '50',
      '999',
      '1k',
      '2.5k',
      '10k',
      '1.234k',
    ]);
    expect(parseAmount('.5k')).toBe(500);
    expect(parseAmount(0)).toBeNull();
  });
});
