import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameStory, storyKey, StoryWindow, type StoryKey } from './cluster';

/** The window as a plain list scanned newest first: what the indexed one must answer, always. */
class Naive<T> {
  private entries: { at: number; key: StoryKey; fingerprint: string; value: T }[] = [];
  constructor(
    private readonly windowMs: number,
    private readonly max: number,
  ) {}
  private prune(now: number) {
    let drop = 0;
    while (drop < this.entries.length && (this.entries[drop]?.at ?? 0) < now - this.windowMs) drop += 1;
    if (this.entries.length - drop > this.max) drop = this.entries.length - this.max;
    this.entries = this.entries.slice(drop);
  }
  findExact(fingerprint: string, now: number) {
    this.prune(now);
    return this.entries.find((e) => e.fingerprint === fingerprint)?.value;
  }
  findStory(key: StoryKey, now: number, accept: (v: T) => boolean) {
    this.prune(now);
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e !== undefined && accept(e.value) && sameStory(key, e.key)) return e.value;
    }
    return undefined;
  }
  add(at: number, key: StoryKey, fingerprint: string, value: T) {
    this.entries.push({ at, key, fingerprint, value });
    this.prune(at);
  }
}

const WORDS = [
  'exchange',
  'lists',
  'approves',
  'hack',
  'drained',
  'treasury',
  'partners',
  'etf',
  'fund',
  'record',
];
const TICKERS = ['BTC', 'ETH', 'SOL', '$XRP', 'DOGE', ''];
const NUMBERS = ['$5M', '$90M', '20x', ''];
const NAMES = ['Coinbase', 'Binance', 'Solana', ''];

const headline = fc
  .tuple(
    fc.subarray(WORDS, { minLength: 2, maxLength: 7 }),
    fc.subarray(TICKERS, { maxLength: 3 }),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(...NAMES),
  )
  .map(([words, tickers, number, name]) =>
    [name, ...tickers, ...words, number].filter((w) => w !== '').join(' '),
  );

describe('story window', () => {
  it('finds the same stories and exact repeats as a scan of every entry', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(headline, fc.integer({ min: 0, max: 400 }), fc.boolean()), { maxLength: 120 }),
        (items) => {
          const windowMs = 5_000;
          const indexed = new StoryWindow<number>(windowMs, 40);
          const naive = new Naive<number>(windowMs, 40);
          let now = 0;
          items.forEach(([content, gap, retraction], n) => {
            now += gap;
            const key = storyKey(content);
            const fp = content.toLowerCase();
            // Odd values stand for denials: a denial only joins a denial.
            const accept = (v: number) => v % 2 === (retraction ? 1 : 0);
            expect(indexed.findExact(fp, now)).toBe(naive.findExact(fp, now));
            const story = indexed.findStory(key, now, accept);
            expect(story).toBe(naive.findStory(key, now, accept));
            const value = story ?? n * 2 + (retraction ? 1 : 0);
            indexed.add(now, key, fp, value);
            naive.add(now, key, fp, value);
            expect(indexed.size).toBe(naive['entries'].length);
          });
        },
      ),
      { numRuns: 300, seed: 11 },
    );
  });
});
