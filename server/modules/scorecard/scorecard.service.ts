import type { MarketSourceKind } from '../../../src/contracts/market';
import {
  SCORECARD_DEFAULT_DAYS,
  SCORECARD_TEXTS,
  type Scorecard,
  type ScorecardQuery,
} from '../../../src/contracts/scorecard';
import type { Clock } from '../market/clock';
import type { ScorecardRepo } from './scorecard.repo';
import { scorecardOf } from './scorecard-stats';

const DAY_MS = 86_400_000;

/** The scorecard's rules: which window, which prices, which sources a viewer may see. */
export class ScorecardService {
  constructor(
    private readonly deps: {
      repo: Pick<ScorecardRepo, 'aggregates'>;
      market: { readonly kind: MarketSourceKind };
      clock: Clock;
    },
  ) {}

  /**
   * Signals received since `since` (or in the last `days`, 7 by default) until now, measured on the
   * prices of the market source in use; `hidden` news sources are left out.
   */
  async report(query: ScorecardQuery, hidden: readonly string[]): Promise<Scorecard> {
    const now = this.deps.clock.now();
    const until = new Date(now + 1);
    const since =
      query.since === undefined
        ? new Date(now - (query.days ?? SCORECARD_DEFAULT_DAYS) * DAY_MS)
        : new Date(query.since);
    const priceSource = this.deps.market.kind;
    const rows = await this.deps.repo.aggregates({ since, until, priceSource, hidden });
    const card = scorecardOf(rows, { priceSource, since, until });
    // A random walk owes nothing to the news: a hit rate on it only looks like a finding.
    return { ...card, note: priceSource === 'sim' ? SCORECARD_TEXTS.simulated : null };
  }
}
