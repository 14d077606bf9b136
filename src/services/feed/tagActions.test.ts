import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../../commands/testing/scripted';
import { tagSymbolLine } from './tagActions';

describe('a $TICKER tag puts its symbol on the chart', () => {
  it('runs the symbol line of the coin, or of its 1000-unit contract', async () => {
    expect(tagSymbolLine('ETH')).toBe('symbol eth');
    expect(tagSymbolLine('PEPE')).toBe('symbol 1000pepe');
    expect(tagSymbolLine('NOTACOIN')).toBeNull();
    const s = createTestConsole();
    expect(await s.type(tagSymbolLine('PEPE') ?? '')).toEqual(['success: Symbol set to 1000PEPE/USDT.']);
    expect(s.state().symbol).toBe('1000PEPE/USDT');
  });
});
