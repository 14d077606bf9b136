import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ingestForm } from '../../../src/contracts/signals';
import { keepTextPathsWarm, rehearseTextPaths, webhookBodies } from './rehearsal';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** A full collection, then the observer's report and the run it queues. */
async function fullCollection(): Promise<void> {
  collect();
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('the text paths kept warm', () => {
  it('runs them after a full collection that no headline preceded, and only then', async () => {
    const runs: number[] = [];
    let used = 0;
    const stop = keepTextPathsWarm({ rehearse: (inputs) => void runs.push(inputs.length) }, () => used);
    try {
      await fullCollection();
      expect(runs).toHaveLength(1);
      // Fewer items than at start: a few, every kind of event.
      expect(runs[0]).toBeGreaterThan(5);
      expect(runs[0]).toBeLessThan(20);

      used += 1; // a headline was analysed since
      await fullCollection();
      expect(runs).toHaveLength(1);

      await fullCollection();
      expect(runs).toHaveLength(2);
    } finally {
      stop();
    }
    await fullCollection();
    expect(runs).toHaveLength(2);
  });

  it('rehearses the number of items and passes asked', () => {
    const runs: number[] = [];
    rehearseTextPaths({ rehearse: (inputs) => void runs.push(inputs.length) }, { items: 12, passes: 3 });
    expect(runs).toHaveLength(3);
    expect(runs[0]).toBeGreaterThanOrEqual(12);
    expect(runs[0]).toBeLessThan(24);
  });
});

describe("the webhook's rehearsal", () => {
  it('validates bodies the route accepts, in each of its forms', () => {
    const bodies = webhookBodies([
      { content: 'Binance will list FOO', source_name: 'Binance' },
      { content: 'BTC ETF inflows hit a record', source_name: 'Wire', username: 'wire' },
      { content: 'SOL upgrade ships', source_name: 'Wire' },
    ]);
    // A rejected body would rehearse only the way to a 422, not the parser a headline runs.
    for (const body of bodies) expect(ingestForm(body).safeParse(body).error).toBeUndefined();
    expect(bodies.filter(Array.isArray)).toHaveLength(1);
    expect(bodies.filter((b) => typeof b === 'object' && b !== null && 'items' in b)).toHaveLength(1);
    const items = bodies.filter(
      (b): b is Record<string, unknown> => typeof b === 'object' && b !== null && 'content' in b,
    );
    expect(items).toHaveLength(3);
    // Both forms of the publication time, and the optional parts.
    expect(items.map((i) => typeof i.published_at)).toEqual(expect.arrayContaining(['string', 'number']));
    expect(items.some((i) => 'quote' in i)).toBe(true);
  });
});
