import { compileKeywords } from '../../../src/contracts/keywords';

/** What the index needs of a rule. */
export interface IndexedRule {
  id: string;
  userId: string;
  asset: string | null;
  sentiment: string | null;
  minImpact: number | null;
  maxImpact: number | null;
  /** Words of which one must be in the headline, and words none may be (null: any). */
  include?: readonly string[] | null;
  exclude?: readonly string[] | null;
  createdAt: Date;
}

/** What the index needs of a completed signal. */
export interface MatchInput {
  assets: readonly string[];
  sentiment: string;
  impact: number;
  /** What the rules' words are looked for in: the text, the quoted text, the source's name. */
  texts: readonly string[];
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
  /** Each rule with words, its compiled test; a rule without is not in it. */
  private readonly words = new Map<string, (texts: readonly string[]) => boolean>();
  readonly size: number;

  constructor(rules: readonly R[]) {
    const byUser = new Map<string, R[]>();
    for (const rule of rules) {
      const k = key(rule.asset ?? ANY, rule.sentiment ?? ANY);
      const bucket = this.buckets.get(k);
      if (bucket) bucket.push(rule);
      else this.buckets.set(k, [rule]);
      if ((rule.include?.length ?? 0) > 0 || (rule.exclude?.length ?? 0) > 0)
        this.words.set(
          rule.id,
          compileKeywords({ include: [...(rule.include ?? [])], exclude: [...(rule.exclude ?? [])] }),
        );
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
   * a signal without assets matches nothing), sentiment equal or any, impact within the range, and the
   * rule's words (checked last here, but before anything is claimed, priced or sent: a headline that
   * fails them is no match, like a sentiment that differs).
   */
  match(signal: MatchInput): Match<R>[] {
    const out: Match<R>[] = [];
    const first = signal.assets[0];
    if (first === undefined) return out;
    // Each rule's words are tested once per signal, however many assets bring it here.
    const worded = new Map<string, boolean>();
    const wordsPass = (r: R) => {
      const test = this.words.get(r.id);
      if (test === undefined) return true;
      let passed = worded.get(r.id);
      if (passed === undefined) worded.set(r.id, (passed = test(signal.texts)));
      return passed;
    };
    const inRange = (r: R) =>
      (r.minImpact === null || signal.impact >= r.minImpact) &&
      (r.maxImpact === null || signal.impact <= r.maxImpact) &&
      wordsPass(r);
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
