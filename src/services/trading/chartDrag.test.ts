import { describe, expect, it } from 'vitest';
import { NO_PROTECTION, type PositionProtection } from '../../contracts/protection';
import { parseProtectCommand } from '../../commands/grammar/protection';
import { positionChart } from './chartLines';
import {
  GRAB_PX,
  fromEntryText,
  ghostText,
  grabbedLine,
  moveCommand,
  moveQuestion,
  roundPrice,
} from './chartDrag';
import { BTC_LONG } from './testing/fixtures';

const guarded: PositionProtection = {
  stop_loss: { price: 94_000, on: 'exchange', state: 'resting' },
  take_profit: { price: 101_000, on: 'exchange', state: 'resting' },
  trailing: null,
  exit_at: null,
};

describe('dragging a stop or target line', () => {
  const chart = positionChart({ ...BTC_LONG, protection: guarded });
  // One pixel per 10 USDT, 100,000 at the top.
  const toY = (price: number) => (100_000 - price) / 10;

  it('takes the stop or target nearest the pointer, never the entry or the liquidation', () => {
    expect(grabbedLine(chart, 600, toY, GRAB_PX.mouse)?.kind).toBe('sl');
    expect(grabbedLine(chart, -104, toY, GRAB_PX.mouse)?.kind).toBe('tp');
    expect(grabbedLine(chart, 607, toY, GRAB_PX.mouse)).toBeNull();
    expect(grabbedLine(chart, 607, toY, GRAB_PX.touch)?.kind).toBe('sl');
    // On the entry line (384.95 px): nothing to drag.
    expect(grabbedLine(chart, 385, toY, GRAB_PX.touch)).toBeNull();
    expect(grabbedLine(null, 600, toY, GRAB_PX.touch)).toBeNull();
    // A line off the scale is not taken.
    expect(grabbedLine(chart, 600, () => null, GRAB_PX.touch)).toBeNull();
  });

  it('says the price and the % from the entry as it follows, and asks on release', () => {
    expect(fromEntryText(94_120, 96_150.5)).toBe('\u22122.1 %');
    expect(fromEntryText(98_000, 96_150.5)).toBe('+1.9 %');
    expect(fromEntryText(96_150.5, 96_150.5)).toBe('0.0 %');
    expect(ghostText('sl', 94_120, 96_150.5, 2)).toBe('SL 94,120.00 (\u22122.1 %)');
    expect(moveQuestion('sl', 94_120, 96_150.5, 1)).toBe('Move stop to 94,120.0 (\u22122.1 %)?');
    expect(moveQuestion('tp', 99_000.25, 96_150.5, 2)).toBe('Move target to 99,000.25 (+3.0 %)?');
    expect(roundPrice(94_120.456, 2)).toBe(94_120.46);
  });

  it("moves one leg with the terminal's protect command, sending the others as they stand", () => {
    const now = Date.parse('2026-11-26T14:00:30Z');
    const full: PositionProtection = {
      ...guarded,
      trailing: { callback_pct: 1.5, on: 'exchange', state: 'resting' },
      exit_at: '2026-11-26T14:25:00Z',
    };
    expect(moveCommand('BTC', full, 'sl', 94_120.456, 2, now)).toBe(
      'protect btc sl 94120.46 tp 101000 trail 1.5% exit 25m',
    );
    expect(moveCommand('BTC', guarded, 'tp', 99_000, 2, now)).toBe('protect btc sl 94000 tp 99000');
    // A leg that fired is not sent again.
    const fired = { ...guarded, take_profit: { ...guarded.take_profit!, state: 'triggered' as const } };
    expect(moveCommand('BTC', fired, 'sl', 95_000, 2, now)).toBe('protect btc sl 95000');
    expect(moveCommand('ETH', NO_PROTECTION, 'tp', 3_000.5, 4, now)).toBe('protect eth tp 3000.5');
  });

  it('writes a line the prompt reads back as the same protection', () => {
    const line = moveCommand('BTC', guarded, 'sl', 0.00001234, 8, 0);
    expect(line).toBe('protect btc sl 0.00001234 tp 101000');
    expect(parseProtectCommand(line.split(' ').slice(2))).toEqual({
      ok: true,
      off: false,
      protection: { stop_loss_price: 0.00001234, take_profit_price: 101_000 },
    });
  });
});
