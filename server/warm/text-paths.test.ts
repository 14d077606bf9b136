import { describe, expect, it } from 'vitest';
import { ingestForm } from '../../src/contracts/signals';
import { rehearseTextPaths, webhookBodies } from './text-paths';

describe('the text paths rehearsed', () => {
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
