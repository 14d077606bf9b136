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
    ['long 5 6', 'Invalid command format.'],
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

  it.each([
    ['btc long 500 sl 2% tp 5%', { stop_loss_pct: 2, take_profit_pct: 5 }],
    ['btc long 500 tp 5% sl 2%', { stop_loss_pct: 2, take_profit_pct: 5 }],
    ['long 500 sl 98000', { stop_loss_price: 98_000 }],
    [
      'eth short 1k tp 3000 trail 1.5% exit 2h',
      { take_profit_price: 3000, trailing_pct: 1.5, exit_after_min: 120 },
    ],
    ['BTC LONG 500 SL 2% EXIT 30M', { stop_loss_pct: 2, exit_after_min: 30 }],
  ])('reads the protection after the amount: %s', (line, protection) => {
    const parsed = parseOrderWords(words(line), 'BTC');
    expect(parsed).toMatchObject({ ok: true, order: { protection } });
    expect(parsed.ok && parsed.order.protection).toEqual(protection);
  });

  it('leaves protection out of an order that names none', () => {
    const parsed = parseOrderWords(words('btc long 500'), 'BTC');
    expect(parsed.ok && 'protection' in parsed.order).toBe(false);
  });

  it.each([
    ['btc long 5k now', "Invalid order option: 'now'. Add sl, tp, trail or exit after the amount."],
    ['btc long 5k stop 2%', "Invalid order option: 'stop'. Add sl, tp, trail or exit after the amount."],
    ['btc long 5k sl', "Missing value after 'sl'. Use a percent (sl 2%) or a price (sl 98000)."],
    ['btc long 5k sl tp 5%', "Missing value after 'sl'. Use a percent (sl 2%) or a price (sl 98000)."],
    ['btc long 5k sl 2% sl 3%', "'sl' is given twice."],
    ['btc long 5k sl 2% 5', "Invalid order option: '5'. Add sl, tp, trail or exit after the amount."],
    ['btc long 5k sl abc', "Invalid stop loss: 'abc'. Use a percent (sl 2%) or a price (sl 98000)."],
    ['btc long 5k tp -5%', "Invalid take profit: '-5%'. Use a percent (tp 5%) or a price (tp 105000)."],
    ['btc long 5k trail 98000', "Invalid trailing stop: '98000'. Use a percent (trail 1%)."],
    [
      'btc long 5k exit 30',
      "Invalid exit time: '30'. Use minutes, hours or days (exit 30m, exit 2h, exit 1d).",
    ],
    ['btc long 5k sl 100%', 'Stop loss must be between 0.05% and 95%.'],
    ['btc long 5k trail 20%', 'Trailing stop must be between 0.1% and 10%.'],
    ['btc long 5k sl 0', 'Stop loss price must be above 0.'],
    ['btc long 5k exit 8d', 'Exit after must be at most 7 days.'],
    ['btc long 5k exit 0.5m', 'Exit after must be a whole number of minutes.'],
    ['btc up 5k sl 2%', "Invalid side: 'up'."],
    ['btc long 0 sl 2%', 'Invalid asset or amount.'],
  ])('refuses %s with a message that says what to type', (line, message) => {
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
    const leg = String.raw`\s+(sl|tp|trail|exit)\s+\S+`;
    const grammar = new RegExp(
      String.raw`^((\S+)\s+)?(long|short|buy|sell)\s+(\d+(\.\d+)?|\.\d+)k?(${leg})*$`,
      'i',
    );
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
