import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount, parseOrderWords } from './order';

const words = (line: string) => line.trim().split(/\s+/).filter(Boolean);

describe('order grammar', () => {
  it.each([
    ['long 100', { ticker: 'BTC', pair: 'BTC/USDT', side: 'long', amount: 100 }],
    ['short 2.5k', { ticker: 'BTC', pair: 'BTC/USDT', side: 'short', amount: 2500 }],
    ['btc long 5k', { ticker: 'BTC', pair: 'BTC/USDT', side: 'long', amount: 5000 }],
    ['ETH SHORT 250', { ticker: 'ETH', pair: 'ETH/USDT', side: 'short', amount: 250 }],
    ['sol buy 10', { ticker: 'SOL', pair: 'SOL/USDT', side: 'long', amount: 10 }],
    ['sell 1K', { ticker: 'BTC', pair: 'BTC/USDT', side: 'short', amount: 1000 }],
    ['long .5k', { ticker: 'BTC', pair: 'BTC/USDT', side: 'long', amount: 500 }],
  ])('reads %s', (line, order) => {
    expect(parseOrderWords(words(line), 'BTC')).toEqual({ ok: true, order });
  });

  it.each([
    ['long', 'Invalid command format.'],
    ['btc long 5k now', 'Invalid command format.'],
    ['', 'Invalid command format.'],
    ['up 100', "Invalid side: 'up'."],
    ['btc up 5k', "Invalid side: 'up'."],
    ['long 0', 'Invalid asset or amount.'],
    ['long -5', 'Invalid asset or amount.'],
    ['long 5m', 'Invalid asset or amount.'],
    ['long abc', 'Invalid asset or amount.'],
    ['nope long 5k', 'Invalid asset or amount.'],
    ['btc long 0k', 'Invalid asset or amount.'],
  ])('refuses %s with the spec message', (line, message) => {
    expect(parseOrderWords(words(line), 'BTC')).toEqual({ ok: false, message });
  });

  it('uses the chosen symbol for the two-word form', () => {
    expect(parseOrderWords(['long', '100'], 'ETH')).toMatchObject({ ok: true, order: { pair: 'ETH/USDT' } });
  });

  it('parses amounts with the k suffix and nothing else', () => {
    expect(parseAmount('5k')).toBe(5000);
    expect(parseAmount('0.25')).toBe(0.25);
    expect(parseAmount('1e3')).toBeNull();
    expect(parseAmount('Infinity')).toBeNull();
    expect(parseAmount('5kk')).toBeNull();
  });

  it('never throws and only accepts lines that match the grammar', () => {
    const grammar = /^((\S+)\s+)?(long|short|buy|sell)\s+(\d+(\.\d+)?|\.\d+)k?$/i;
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }), (ws) => {
        const clean = ws.map((w) => w.replace(/\s/g, '')).filter(Boolean);
        const result = parseOrderWords(clean, 'BTC');
        if (result.ok) expect(clean.join(' ')).toMatch(grammar);
      }),
      { numRuns: 5000, seed: 7 },
    );
  });

  it('shows amounts of 1000 or more with k', () => {
    expect([250, 1000, 2500, 5000, 12345].map(formatAmount)).toEqual(['250', '1k', '2.5k', '5k', '12.345k']);
  });
});
