import { describe, expect, it } from 'vitest';
import { contractSymbolOf } from './symbols';

describe('contractSymbolOf', () => {
  it("prices a tag on the coin's pair, or its 1000-unit contract, or nowhere", () => {
    expect(contractSymbolOf('BTC')).toBe('BTCUSDT');
    expect(contractSymbolOf('pepe')).toBe('1000PEPEUSDT');
    expect(contractSymbolOf('SHIB')).toBe('1000SHIBUSDT');
    expect(contractSymbolOf('FTT')).toBeUndefined();
  });
});
