import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../../src/services/testing/fakeClock';
import { MARK_STALE_MS, PRICE_MAX_AGE_MS, PriceBook } from './price-book';

const tick = (s: string, p: number) => ({ s, p, t: 0 });

function book(markStaleMs?: number) {
  const clock = createFakeClock(1_000_000);
  const asked: string[] = [];
  let answer: (symbol: string) => Promise<{ s: string; p: number; t: number }> = (symbol) =>
    Promise.reject(new Error(`no price for ${symbol}`));
  const marks = new PriceBook({
    now: clock.now,
    ...(markStaleMs === undefined ? {} : { markStaleMs }),
    ask: (symbol) => {
      asked.push(symbol);
      return answer(symbol);
    },
  });
  const moves: string[][] = [];
  marks.onMarksMoved((moved) => moves.push([...moved]));
  /** The symbols whose marks the last batch moved. */
  const moved = () => new Set(moves.pop() ?? []);
  const answerWith = (fn: typeof answer) => {
    answer = fn;
  };
  return { clock, marks, moved, asked, answerWith };
}

describe('mark book', () => {
  it('knows nothing of a symbol that has had no price', () => {
    const { marks } = book();
    expect(marks.at('BTCUSDT')).toBeUndefined();
    expect(marks.markPrice('BTCUSDT')).toBeUndefined();
    expect(marks.last('BTCUSDT')).toBeUndefined();
  });

  it('marks to the last price while no mark is known (the simulator), and says so', () => {
    const { marks, moved } = book();
    marks.recordLast([tick('BTCUSDT', 60_000), tick('ETHUSDT', 3_000)]);
    expect(moved()).toEqual(new Set(['BTCUSDT', 'ETHUSDT']));
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_000, kind: 'last' });
    marks.recordLast([tick('BTCUSDT', 60_010)]);
    expect(moved()).toEqual(new Set(['BTCUSDT']));
    expect(marks.markPrice('BTCUSDT')).toBe(60_010);
  });

  it('prefers the mark over the last price, and a trade alone does not move the mark', () => {
    const { marks, moved } = book();
    marks.recordLast([tick('BTCUSDT', 60_000), tick('ETHUSDT', 3_000)]);
    marks.recordMarks([tick('BTCUSDT', 59_950)]);
    expect(moved()).toEqual(new Set(['BTCUSDT']));
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    // Only the symbol without a mark moved with these trades.
    marks.recordLast([tick('BTCUSDT', 58_000), tick('ETHUSDT', 3_010)]);
    expect(moved()).toEqual(new Set(['ETHUSDT']));
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    expect(marks.last('BTCUSDT')).toBe(58_000);
    expect(marks.at('ETHUSDT')).toEqual({ price: 3_010, kind: 'last' });
  });

  it('falls back to the last price once marks stop for the stale limit, and back when they return', () => {
    const { clock, marks, moved } = book();
    marks.recordMarks([tick('BTCUSDT', 59_950)]);
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    clock.advance(MARK_STALE_MS);
    expect(marks.at('BTCUSDT')).toEqual({ price: 59_950, kind: 'mark' });
    clock.advance(1);
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_000, kind: 'last' });
    // While the mark is stale, trades move the symbol again.
    marks.recordLast([tick('BTCUSDT', 60_100)]);
    expect(moved()).toEqual(new Set(['BTCUSDT']));
    expect(marks.markPrice('BTCUSDT')).toBe(60_100);
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

describe('price book: how old a price may be', () => {
  it('trades on a last price only while it is young, and still shows the older one', () => {
    const { clock, marks } = book();
    marks.recordLast([{ s: 'BTCUSDT', p: 60_000, t: 42 }]);
    expect(marks.snapshot().get('BTCUSDT')).toBe(60_000);
    clock.advance(PRICE_MAX_AGE_MS);
    expect(marks.last('BTCUSDT')).toBe(60_000);
    clock.advance(1);
    expect(marks.last('BTCUSDT')).toBeUndefined();
    expect(marks.snapshot().has('BTCUSDT')).toBe(false);
    expect(marks.ageOf('BTCUSDT')).toBe(PRICE_MAX_AGE_MS + 1);
    expect(marks.seen('BTCUSDT')).toEqual({ s: 'BTCUSDT', p: 60_000, t: 42 });
    // Marking (unrealised PnL, liquidation checks) still has its price.
    expect(marks.at('BTCUSDT')).toEqual({ price: 60_000, kind: 'last' });
  });

  it('asks the market for a price older than the bound, keeps the answer and does not ask again', async () => {
    const { clock, marks, asked, answerWith } = book();
    answerWith(async (s) => ({ s, p: 61_000, t: 7 }));
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    expect(await marks.fresh('BTCUSDT')).toBe(60_000);
    expect(asked).toEqual([]);
    clock.advance(PRICE_MAX_AGE_MS + 1);
    expect(await marks.fresh('BTCUSDT')).toBe(61_000);
    expect(await marks.quote('BTCUSDT')).toBe(61_000);
    expect(asked).toEqual(['BTCUSDT']);
    expect(marks.last('BTCUSDT')).toBe(61_000);
  });

  it('never falls back to an old price when the market does not answer', async () => {
    const { clock, marks } = book();
    marks.recordLast([tick('ETHUSDT', 3_000)]);
    clock.advance(PRICE_MAX_AGE_MS + 1);
    await expect(marks.fresh('ETHUSDT')).rejects.toThrow('no price for ETHUSDT');
  });

  it('prefers a tick that arrived while the market was being asked over its answer', async () => {
    const { marks, answerWith } = book();
    let answer: (p: number) => void = () => undefined;
    answerWith((s) => new Promise((resolve) => (answer = (p) => resolve({ s, p, t: 0 }))));
    const asking = marks.fresh('SOLUSDT');
    marks.recordLast([tick('SOLUSDT', 151)]);
    answer(150);
    expect(await asking).toBe(151);
    expect(marks.last('SOLUSDT')).toBe(151);
  });

  it('tells tick listeners each batch after recording it', () => {
    const { marks } = book();
    const heard: number[] = [];
    const stop = marks.onTicks((ticks) => heard.push(...ticks.map((t) => marks.last(t.s) ?? -1)));
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    stop();
    marks.recordLast([tick('BTCUSDT', 60_001)]);
    expect(heard).toEqual([60_000]);
  });

  it('shares one snapshot among the signals of a tenth of a second, until the next batch', () => {
    const { clock, marks } = book();
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    const first = marks.snapshot();
    clock.advance(50);
    expect(marks.snapshot()).toBe(first);
    marks.recordLast([tick('BTCUSDT', 60_001)]);
    const second = marks.snapshot();
    expect(second).not.toBe(first);
    // An earlier snapshot keeps the prices it was taken with.
    expect(first.get('BTCUSDT')).toBe(60_000);
    expect(second.get('BTCUSDT')).toBe(60_001);
    clock.advance(101);
    expect(marks.snapshot()).not.toBe(second);
  });
});

describe("price book: each price's source", () => {
  it("gives a venue's positions the venue's own prices only: its mark, else its young last price", () => {
    const { clock, marks } = book();
    marks.recordLast([tick('BTCUSDT', 60_000)], 'binance');
    expect(marks.venuePrice('BTCUSDT', 'binance')).toBe(60_000);
    marks.recordMarks([tick('BTCUSDT', 59_990)], 'binance');
    expect(marks.venuePrice('BTCUSDT', 'binance')).toBe(59_990);
    expect(marks.venuePrice('BTCUSDT', 'sim')).toBeUndefined();
    clock.advance(MARK_STALE_MS + 1);
    expect(marks.venuePrice('BTCUSDT', 'binance')).toBeUndefined();
    marks.recordLast([tick('BTCUSDT', 60_050)], 'binance');
    expect(marks.venuePrice('BTCUSDT', 'binance')).toBe(60_050);
  });

  it("never passes a simulated price off as the venue's, whatever came before it", () => {
    const { marks } = book();
    marks.recordLast([tick('ETHUSDT', 3_000)], 'binance');
    marks.recordLast([tick('ETHUSDT', 2_900)], 'sim');
    expect(marks.venuePrice('ETHUSDT', 'binance')).toBeUndefined();
    // Everything else still reads it: paper marks to it and orders are sized on it.
    expect(marks.last('ETHUSDT')).toBe(2_900);
    expect(marks.at('ETHUSDT')).toEqual({ price: 2_900, kind: 'last' });
    expect(marks.flowingFrom('binance')).toBe(false);
    expect(marks.flowingFrom('sim')).toBe(true);
  });

  it('says whose prices flow now: the latest batch, while it is young', () => {
    const { clock, marks } = book();
    expect(marks.flowingFrom('binance')).toBe(false);
    marks.recordLast([tick('BTCUSDT', 60_000)], 'binance');
    expect(marks.flowingFrom('binance')).toBe(true);
    clock.advance(PRICE_MAX_AGE_MS + 1);
    expect(marks.flowingFrom('binance')).toBe(false);
    marks.recordLast([tick('BTCUSDT', 60_000)]);
    expect(marks.flowingFrom('binance')).toBe(false);
  });

  it("keeps the market's own source on a price it was asked for", async () => {
    const clock = createFakeClock(0);
    const asked = new PriceBook({
      now: clock.now,
      ask: async (s) => ({ s, p: 150, t: 0 }),
      askSource: () => 'binance',
    });
    expect(await asked.fresh('SOLUSDT')).toBe(150);
    expect(asked.venuePrice('SOLUSDT', 'binance')).toBe(150);
    expect(asked.venuePrice('SOLUSDT', 'sim')).toBeUndefined();
  });
});
