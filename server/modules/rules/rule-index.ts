/** What the index needs of a rule. */
export interface IndexedRule {
  id: string;
  userId: string;
  asset: string | null;
  sentiment: string | null;
  minImpact: number | null;
  maxImpact: number | null;
  createdAt: Date;
}

/** What the index needs of a completed signal. */
export interface MatchInput {
  assets: readonly string[];
  sentiment: string;
  impact: number;
}

export interface Match<R> {
  rule: R;
  /** The asset the rule trades: its own, or the signal's first for a rule without one. */
  asset: string;
}

const ANY = '*';
const key = (asset: string, sentiment: string) => `${asset}|${sentiment}`;

/**
 * Active rules bucketed by (asset, sentiment), "any" being its own bucket, so a signal looks at the few
 * buckets it can match instead of every rule: with 10,000 rules a signal costs microseconds. Also knows
 * each user's active rules in creation order, for the plan limit.
 */
export class RuleIndex<R extends IndexedRule> {
  private readonly buckets = new Map<string, R[]>();
  private readonly rankOf = new Map<string, number>();
  readonly size: number;

  constructor(rules: readonly R[]) {
    const byUser = new Map<string, R[]>();
    for (const rule of rules) {
      const k = key(rule.asset ?? ANY, rule.sentiment ?? ANY);
      const bucket = this.buckets.get(k);
      if (bucket) bucket.push(rule);
      else this.buckets.set(k, [rule]);
      const mine = byUser.get(rule.userId);
      if (mine) mine.push(rule);
      else byUser.set(rule.userId, [rule]);
    }
    for (const mine of byUser.values()) {
      mine.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
      mine.forEach((rule, i) => this.rankOf.set(rule.id, i));
    }
    this.size = rules.length;
  }

  /** 0 for a user's oldest active rule, 1 for the next…: rules past the plan's limit do not trade. */
  rank(ruleId: string): number {
    return this.rankOf.get(ruleId) ?? Number.MAX_SAFE_INTEGER;
  }

  /**
   * The rules a signal matches: asset among the signal's assets (a rule without one trades the first;
   * a signal without assets matches nothing), sentiment equal or any, impact within the range.
   */
  match(signal: MatchInput): Match<R>[] {
    const out: Match<R>[] = [];
    const first = signal.assets[0];
    if (first === undefined) return out;
    const inRange = (r: R) =>
      (r.minImpact === null || signal.impact >= r.minImpact) &&
      (r.maxImpact === null || signal.impact <= r.maxImpact);
    const take = (bucket: R[] | undefined, asset: string) => {
      if (bucket) for (const rule of bucket) if (inRange(rule)) out.push({ rule, asset });
    };
    for (const asset of new Set(signal.assets)) {
      take(this.buckets.get(key(asset, signal.sentiment)), asset);
      take(this.buckets.get(key(asset, ANY)), asset);
    }
    take(this.buckets.get(key(ANY, signal.sentiment)), first);
    take(this.buckets.get(key(ANY, ANY)), first);
    return out;
  }
}
