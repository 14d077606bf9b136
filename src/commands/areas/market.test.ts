import { describe, expect, it } from 'vitest';
import { scriptedSession } from '../testing/scripted';

describe('market commands', () => {
  it('symbol upper-cases the ticker, sets the pair and prints it', async () => {
    const { type, stores } = scriptedSession();
    expect(stores.ui.symbol.value).toBe('BTC/USDT');
    expect(await type('symbol eth')).toEqual(['success: Symbol set to ETH/USDT.']);
    expect(stores.ui.symbol.value).toBe('ETH/USDT');
    expect(stores.ui.ticker.value).toBe('ETH');
    await type('sym 1000pepe');
    expect(stores.ui.symbol.value).toBe('1000PEPE/USDT');
  });

  it('rejects a bad ticker and keeps the symbol', async () => {
    const { type, stores } = scriptedSession();
    for (const bad of ['symbol eth/usdt', 'symbol ABCDEFGHIJKLM', 'symbol "b c"']) {
      expect(await type(bad)).toEqual([
        'error: A ticker is 1 to 12 letters or digits, e.g. BTC.',
        'muted: Usage: symbol <ticker>',
      ]);
    }
    expect(await type('symbol')).toEqual([
      "error: Missing required argument 'ticker'.",
      'muted: Usage: symbol <ticker>',
    ]);
    expect(stores.ui.symbol.value).toBe('BTC/USDT');
  });
});
