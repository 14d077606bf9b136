import { describe, expect, it } from 'vitest';
import { createTestConsole } from '../commands/testing/scripted';
import { createPaletteModel, fuzzyScore, lineFor } from './palette';
import { memoryStorage } from './storage';
import { createFakeClock } from './testing/fakeClock';

function palette(storage = memoryStorage()) {
  const c = createTestConsole();
  const ran: string[] = [];
  const clock = createFakeClock(1_000_000);
  const model = createPaletteModel({
    registry: c.commands.registry,
    execute: async (line) => {
      ran.push(line);
      return c.commands.runLine(line);
    },
    storage,
    clock,
  });
  return { c, model, ran, clock, storage };
}

describe('command palette model', () => {
  it('lists every registered command with its help line', () => {
    const { c, model } = palette();
    const entries = model.entries('');
    expect(entries.map((e) => e.name).sort()).toEqual(
      c.commands.registry
        .list()
        .map((x) => x.name)
        .sort(),
    );
    expect(entries.find((e) => e.name === 'positions')?.summary).toBe(
      'List the open positions, each with its protection (stop loss, take profit, trailing stop, time exit).',
    );
  });

  it('finds commands by fuzzy search, best match first', () => {
    const { model } = palette();
    expect(model.entries('pos')[0]?.name).toBe('positions');
    expect(model.entries('psns')[0]?.name).toBe('positions');
    expect(model.entries('2fa v')[0]?.name).toBe('2fa verify');
    expect(model.entries('qqqq')).toEqual([]);
    expect(fuzzyScore('lev', { name: 'leverage', summary: '' })).toBeGreaterThan(
      fuzzyScore('lev', {
        name: 'paper reset',
        summary: 'Start the paper account over: 10,000 USDT and no positions',
      }),
    );
  });

  it('builds a form from the argument schema and runs the line in the terminal', async () => {
    const { model, ran } = palette();
    const symbol = model.entries('symbol')[0];
    expect(symbol?.fields).toEqual([
      { name: 'ticker', required: true, variadic: false, description: 'a supported ticker, e.g. eth' },
    ]);
    const long = model.entries('long')[0];
    expect(long?.fields[0]).toMatchObject({ name: 'amount', required: false, variadic: true });
    model.show();
    const out = await model.run(symbol ?? model.entries('')[0]!, { ticker: 'eth' });
    expect(ran).toEqual(['symbol eth']);
    expect(out).toEqual([{ text: 'Symbol set to ETH/USDT.', tone: 'success' }]);
    expect(model.open.value).toBe(false);
    expect(lineFor(long!, { amount: '2.5k' })).toBe('long 2.5k');
    expect(lineFor(symbol!, { ticker: 'a b"' })).toBe('symbol "a b"');
  });

  it('puts recent and frequent commands first, remembered in storage', async () => {
    const storage = memoryStorage();
    const { model } = palette(storage);
    const first = model.entries('')[0]?.name;
    expect(first).toBe('help');
    const balance = model.entries('balance')[0]!;
    await model.run(balance, {});
    expect(model.entries('')[0]?.name).toBe('balance');
    expect(palette(storage).model.entries('')[0]?.name).toBe('balance');
  });
});
