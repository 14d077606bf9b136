import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../storage';
import { createQuickBracketStore, DEFAULT_QUICK_BRACKET, QUICK_BRACKET_KEY } from './quickBracket';

describe('the quick-trade bracket', () => {
  it('is off at first, so card trades send no protection', () => {
    const store = createQuickBracketStore(memoryStorage());
    expect(store.bracket.value).toEqual(DEFAULT_QUICK_BRACKET);
    expect(store.bracket.value.on).toBe(false);
    expect(store.protection.value).toBeUndefined();
  });

  it('turned on, stands for its stop loss and take profit, and is kept in this browser', () => {
    const storage = memoryStorage();
    const store = createQuickBracketStore(storage);
    expect(store.setLegs('1.5%', ' 4 ')).toMatchObject({ ok: true });
    expect(store.setOn(true)).toMatchObject({ ok: true });
    expect(store.protection.value).toEqual({ stop_loss_pct: 1.5, take_profit_pct: 4 });
    expect(JSON.parse(storage.get(QUICK_BRACKET_KEY) ?? '')).toEqual({
      on: true,
      stopLossPct: 1.5,
      takeProfitPct: 4,
    });
    const again = createQuickBracketStore(storage);
    expect(again.protection.value).toEqual({ stop_loss_pct: 1.5, take_profit_pct: 4 });
    expect(again.setLegs('2', '')).toMatchObject({ ok: true });
    expect(again.protection.value).toEqual({ stop_loss_pct: 2 });
  });

  it('refuses what the server would, and goes off when emptied', () => {
    const store = createQuickBracketStore(memoryStorage());
    expect(store.setLegs('abc', '5')).toEqual({
      ok: false,
      message: "Stop loss: 'abc' is not a percent (e.g. 2 or 2%).",
    });
    expect(store.setLegs('96', '5')).toEqual({
      ok: false,
      message: 'Stop loss must be between 0.05% and 95%.',
    });
    expect(store.setLegs('2', '5k')).toEqual({
      ok: false,
      message: "Take profit: '5k' is not a percent (e.g. 2 or 2%).",
    });
    store.setOn(true);
    expect(store.setLegs('', '')).toMatchObject({ ok: true, bracket: { on: false } });
    expect(store.setOn(true)).toEqual({
      ok: false,
      message: 'Give a stop loss or a take profit (or both) to turn the bracket on.',
    });
    expect(store.protection.value).toBeUndefined();
  });

  it('ignores a stored value it cannot read', () => {
    const storage = memoryStorage({ [QUICK_BRACKET_KEY]: '{"on":"yes"}' });
    expect(createQuickBracketStore(storage).bracket.value).toEqual(DEFAULT_QUICK_BRACKET);
  });
});
