import { describe, expect, it } from 'vitest';
import { parseProtectCommand, parseProtectionWords, readDuration, readLevel } from './protection';

describe('protection words', () => {
  it('reads a level as a percent or a price, k for thousands', () => {
    expect(readLevel('2%')).toEqual({ pct: 2 });
    expect(readLevel('.5%')).toEqual({ pct: 0.5 });
    expect(readLevel('98000')).toEqual({ price: 98_000 });
    expect(readLevel('98.5k')).toEqual({ price: 98_500 });
    for (const word of ['2k%', '-2%', '1e3', '2%%', '%', 'abc', '0x10', ''])
      expect(readLevel(word)).toBeNull();
  });

  it('reads a time exit in minutes, hours or days', () => {
    expect(readDuration('30m')).toBe(30);
    expect(readDuration('2h')).toBe(120);
    expect(readDuration('1D')).toBe(1440);
    expect(readDuration('1.5h')).toBe(90);
    expect(readDuration('0.1h')).toBe(6);
    for (const word of ['30', '2w', 'h', '-1h', '1e2m']) expect(readDuration(word)).toBeNull();
  });

  it('takes the legs in any order and any case', () => {
    expect(parseProtectionWords(['EXIT', '2h', 'Trail', '1%', 'tp', '105k', 'SL', '2%'])).toEqual({
      ok: true,
      protection: { stop_loss_pct: 2, take_profit_price: 105_000, trailing_pct: 1, exit_after_min: 120 },
    });
  });

  it('protect takes legs, or off alone', () => {
    expect(parseProtectCommand(['off'])).toEqual({ ok: true, off: true });
    expect(parseProtectCommand(['sl', '2%'])).toEqual({
      ok: true,
      off: false,
      protection: { stop_loss_pct: 2 },
    });
    expect(parseProtectCommand(['sl', '2%', 'off'])).toMatchObject({ ok: false });
    expect(parseProtectCommand([])).toMatchObject({ ok: false });
  });
});
