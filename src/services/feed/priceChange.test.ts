import { describe, expect, it } from 'vitest';
import { changeDirection, changeSince, formatChange } from './priceChange';

describe('% change since arrival', () => {
  it('measures the live price against the price at arrival', () => {
    expect(changeSince(100, 101.5)).toBeCloseTo(1.5, 10);
    expect(changeSince(50_000, 49_000)).toBeCloseTo(-2, 10);
    expect(changeSince(3, 3)).toBe(0);
  });

  it('is unknown without both prices, or with a start at or below zero', () => {
    expect(changeSince(undefined, 100)).toBeNull();
    expect(changeSince(100, undefined)).toBeNull();
    expect(changeSince(0, 100)).toBeNull();
    expect(changeSince(Number.NaN, 100)).toBeNull();
  });

  it.each([
    [1.5, '+1.50%', 'up'],
    [-2, '-2.00%', 'down'],
    [0.004, '0.00%', 'flat'],
    [-0.004, '0.00%', 'flat'],
    [0.005, '+0.01%', 'up'],
    [12.345, '+12.35%', 'up'],
    [null, '—', 'flat'],
  ] as const)('%s shows as %s (%s)', (change, text, direction) => {
    expect(formatChange(change)).toBe(text);
    expect(changeDirection(change)).toBe(direction);
  });
});
