import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../testing/scripted';

describe('amounts commands', () => {
  it('lists, adds (kept ascending) and removes quick-trade amounts', async () => {
    const s = createTestConsole();
    expect(await s.type('amounts')).toEqual(['info: Quick-trade amounts (USDT): 100, 250, 1k, 5k']);
    expect(await s.type('amounts add 50')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 5k',
    ]);
    expect(await s.type('amounts add 2.5k')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 2.5k, 5k',
    ]);
    expect(await s.type('amounts rm 5k')).toEqual([
      'success: Quick-trade amounts (USDT): 50, 100, 250, 1k, 2.5k',
    ]);
    expect(s.stores.quickAmounts.amounts.value).toEqual([50, 100, 250, 1000, 2500]);
  });

  it("answers the spec's messages for a bad or duplicate amount", async () => {
    const s = createTestConsole();
    expect(await s.type('amounts add 0')).toEqual(['error: Lütfen geçerli bir miktar girin.']);
    expect(await s.type('amounts add lots')).toEqual(['error: Lütfen geçerli bir miktar girin.']);
    expect(await s.type('amounts add 250')).toEqual(['error: Bu miktar zaten mevcut.']);
    expect(await s.type('amounts rm 7')).toEqual(['error: 7 is not one of the quick-trade amounts.']);
    expect(s.stores.quickAmounts.amounts.value).toEqual([100, 250, 1000, 5000]);
  });
});
