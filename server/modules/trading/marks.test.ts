import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import { MARK_STALE_MS, MarkBook } from './marks';

const tick = (s: string, p: number) => ({ s, p, t: 0 });

function book(staleMs?: number) {
  const clock = createFakeClock(1_000_000);
  return { clock, marks: new MarkBook({ now: clock.now, ...(staleMs === undefined ? {} : { staleMs }) }) };
}

describe('mark book', () => {
  it('knows nothing of a symbol that has had no price', () => {
    const { marks } = book();
    expect(marks.at('BTCUSDT')).toBeUndefined();
    expect(marks.price('BTCUSDT')).toBeUndefined();
    expect(marks.last('BTCUSDT')).toBeUndefined();
  });

  it('marks to the last price while no mark is known (the simulator), and says so', () => {
    const { marks } = book();
    expect(marks.recordLast([tick('BTCUSDT', 60_000), tick('ETHUSDT', 3_000)])).toEqual(
      new Set(['BTCUSDT', 'ETHUSDT']),
    );
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_000, kind: 'last' });
    expect(marks.recordLast([tick('BTCUSDT', 60_010)])).toEqual(new Set(['BTCUSDT']));
    expect(marks.price('BTCUSDT')).toBe(60_010);
  });

  it('prefers the mark over the last price, and a trade alone does not move the mark', () => {
    const { marks } = book();
    marks.recordLast([tick('BTCUSDT', 60_000), tick('ETHUSDT', 3_000)]);
    expect(marks.recordMarks([tick('BTCUSDT', 59_950)])).toEqual(new Set(['BTCUSDT']));
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    // Only the symbol without a mark moved with these trades.
    expect(marks.recordLast([tick('BTCUSDT', 58_000), tick('ETHUSDT', 3_010)])).toEqual(new Set(['ETHUSDT']));
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    expect(marks.last('BTCUSDT')).toBe(58_000);
    expect(marks.at('ETHUSDT')).toEqual({ price: 3_010, kind: 'last' });
  });

  it('falls back to the last price once marks stop for the stale limit, and back when they return', () => {
    const { clock, marks } = book();
    marks.recordMarks([tick('BTCUSDT', 59_950)]);
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    clock.advance(MARK_STALE_MS);
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    clock.advance(1);
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_000, kind: 'last' });
    // While the mark is stale, trades move the symbol again.
    expect(marks.recordLast([tick('BTCUSDT', 60_100)])).toEqual(new Set(['BTCUSDT']));
    expect(marks.price('BTCUSDT')).toBe(60_100);
    marks.recordMarks([tick('BTCUSDT', 60_080)]);
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_080, kind: 'mark' });
  });

  it('keeps a stale mark when there is no last price to fall back to', () => {
    const { clock, marks } = book(2_000);
    marks.recordMarks([tick('SOLUSDT', 150)]);
    clock.advance(5_000);
    expect(marks.at('SOLUSDT')).toEqual({ price: 150, kind: 'mark' });
    marks.recordLast([tick('SOLUSDT', 151)]);
    expect(marks.at('SOLUSDT')).toEqual({ price: 151, kind: 'last' });
  });
});
