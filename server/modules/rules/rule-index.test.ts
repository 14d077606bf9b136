import { describe, expect, it } from 'vitest';
import { RuleIndex, type IndexedRule } from './rule-index';

let n = 0;
function rule(over: Partial<IndexedRule>): IndexedRule {
  n += 1;
  return {
    id: `r${n}`,
    userId: 'u1',
    asset: null,
    sentiment: null,
    minImpact: null,
    maxImpact: null,
    createdAt: new Date(1_000 + n),
    ...over,
  };
}

describe('rule index', () => {
  const sol = rule({ asset: 'SOL', sentiment: 'positive', minImpact: 70, maxImpact: 100 });
  const solAny = rule({ asset: 'SOL' });
  const anyPositive = rule({ sentiment: 'positive' });
  const anything = rule({});
  const eth = rule({ asset: 'ETH', sentiment: 'negative' });
  const index = new RuleIndex([sol, solAny, anyPositive, anything, eth]);
  const ids = (m: { rule: IndexedRule; asset: string }[]) => m.map((x) => `${x.rule.id}:${x.asset}`).sort();

  it('matches asset, sentiment and impact range, inclusive at both ends', () => {
    expect(ids(index.match({ assets: ['SOL'], sentiment: 'positive', impact: 70, texts: [] }))).toEqual(
      [`${sol.id}:SOL`, `${solAny.id}:SOL`, `${anyPositive.id}:SOL`, `${anything.id}:SOL`].sort(),
    );
    expect(
      ids(index.match({ assets: ['SOL'], sentiment: 'positive', impact: 69.9, texts: [] })),
    ).not.toContain(`${sol.id}:SOL`);
    expect(ids(index.match({ assets: ['SOL'], sentiment: 'negative', impact: 90, texts: [] }))).toEqual(
      [`${solAny.id}:SOL`, `${anything.id}:SOL`].sort(),
    );
  });

  it("trades a rule without asset on the signal's first asset, and a signal's other assets for their rules", () => {
    expect(
      ids(index.match({ assets: ['ETH', 'SOL'], sentiment: 'negative', impact: 10, texts: [] })),
    ).toEqual([`${eth.id}:ETH`, `${solAny.id}:SOL`, `${anything.id}:ETH`].sort());
  });

  it('never fires anything on a GENERAL signal (no assets)', () => {
    expect(index.match({ assets: [], sentiment: 'positive', impact: 100, texts: [] })).toEqual([]);
  });

  it('matches only the rules whose words the headline passes, once per rule whatever its assets', () => {
    const listing = rule({ include: ['listing', 'list*'], exclude: ['perpetual'] });
    const plain = rule({});
    const worded = new RuleIndex([listing, plain]);
    const on = (texts: string[], assets = ['SOL']) =>
      ids(worded.match({ assets, sentiment: 'positive', impact: 50, texts }));
    expect(on(['Binance listing: SOL'])).toEqual([`${listing.id}:SOL`, `${plain.id}:SOL`].sort());
    expect(on(['Binance lists SOL', 'Binance'])).toEqual([`${listing.id}:SOL`, `${plain.id}:SOL`].sort());
    expect(on(['Binance listing of SOL perpetual'])).toEqual([`${plain.id}:SOL`]);
    expect(on(['SOL rallies'])).toEqual([`${plain.id}:SOL`]);
    expect(on(['SOL, ETH listing'], ['SOL', 'ETH'])).toEqual([`${listing.id}:SOL`, `${plain.id}:SOL`].sort());
  });

  it("ranks each user's active rules oldest first, for the plan limit", () => {
    const other = rule({ userId: 'u2' });
    const ranked = new RuleIndex([anything, sol, other, solAny]);
    expect([sol, solAny, anything, other].map((r) => ranked.rank(r.id))).toEqual([0, 1, 2, 0]);
    expect(ranked.rank('unknown')).toBe(Number.MAX_SAFE_INTEGER);
  });
});
