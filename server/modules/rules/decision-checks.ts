import type { Signal } from '../../../src/contracts/signals';
import { publishedMs } from '../../../src/contracts/timeline';
import { isTradable, TRADABILITY_TEXT } from '../../../src/contracts/tradability';
import type { Clock } from '../market/clock';
import { PLAN_LIMITS, type PlanReader } from '../billing/plans';
import type { DecisionsRepo } from './decisions.repo';
import { changeOf } from './decision-rows';
import type { FiredBook } from './fired-book';
import { startOfUtcDay, type Headline, type RiskService } from './risk.service';
import type { Match } from './rule-index';
import type { DecisionRow, RuleRow } from './rules.types';
import type { RuleOrders, RuleTrading } from './rule-orders';

export interface ChecksDeps {
  repo: Pick<DecisionsRepo, 'updateDecision'>;
  risk: RiskService;
  plans: PlanReader;
  trading: Pick<RuleTrading, 'openPositions'>;
  clock: Clock;
  orders: RuleOrders;
  /** The engine's fired totals, counted against the day's budget and the cooldown. */
  book: FiredBook;
  /** Where a rule stands among its owner's active rules: the plan runs the first ones. */
  rank(ruleId: string): number;
  /** The user's decisions claimed and not yet checked, which the envelope counts as well. */
  unchecked(userId: string): number[];
  /** Tells of a proposal, as the engine tells of its decisions. */
  tell(event: 'asking', decision: DecisionRow): void;
}

/** Below the smallest plan limit a rule trades whatever the plan: no need to read the user's plan. */
const LOWEST_RULE_LIMIT = Math.min(
  ...Object.values(PLAN_LIMITS).map((l) => l.activeRules ?? Number.MAX_SAFE_INTEGER),
);

/**
 * What a claimed decision goes through in its user's turn: an asset that trades here, the plan's limit
 * of active rules, the rule's account and its venue, the risk envelope against the book of fired
 * totals; then an ask rule's proposal goes out, or the order.
 */
export class DecisionChecks {
  constructor(private readonly d: ChecksDeps) {}

  async decide(
    { rule, asset }: Match<RuleRow>,
    signal: Signal,
    claimed: DecisionRow,
    alone: boolean,
  ): Promise<void> {
    // A stablecoin or a coin without a contract is shown on the card, never opened as a position.
    if (!isTradable(asset))
      return this.d.orders.skip(claimed, 'not_tradable', TRADABILITY_TEXT.noContract(asset));
    const amount = Number(rule.amountUsd);
    const receivedAt = Date.parse(signal.received_at);
    const rank = this.d.rank(rule.id);
    const limit = rank < LOWEST_RULE_LIMIT ? null : (await this.d.plans.limitsOf(rule.userId)).activeRules;
    if (limit !== null && rank >= limit) {
      return this.d.orders.skip(
        claimed,
        'plan_limit',
        `The free plan runs ${limit} active rules; this one is beyond them.`,
      );
    }
    const venue = await this.d.orders.venueOrSkip(claimed);
    if (venue === null) return;
    if (venue.mode !== 'paper') {
      await this.d.repo.updateDecision(claimed.id, { accountMode: venue.mode, accountVenue: venue.venue });
    }
    const unchecked = this.d.unchecked(rule.userId);
    // The user's totals as the book holds them now: every decision of theirs before this one in the
    // chain has been counted (or dropped) by the time this one's turn comes. When another process (or
    // engine) may have had the user's turn since, the ledger says what it decided (the bus may not have
    // yet), and the book is a floor.
    const since = startOfUtcDay(this.d.clock.now());
    const held = this.d.book.totals(rule.userId, asset, since.getTime(), [claimed.id, ...unchecked]);
    const totals = held === undefined ? undefined : { since, ...held };
    const check = await this.d.risk.checkAutomated(rule.userId, {
      asset,
      amountUsd: amount,
      receivedAt,
      headline: headlineOf(signal),
      mode: venue.mode,
      account: rule.account,
      decisionId: claimed.id,
      unchecked,
      openPositions: () => this.d.trading.openPositions(rule.userId, rule.account),
      ...(totals === undefined ? {} : alone ? { firedBefore: totals } : { firedAtLeast: totals }),
    });
    // What paper would have done with a decision the key's limits refused is part of the reality gap.
    if (check !== null) return this.d.orders.refuse(claimed, venue, check);
    // An ask rule proposes what would be sent now; the envelope is checked again when it is confirmed.
    if (claimed.outcome === 'asking') {
      return this.d.tell('asking', { ...claimed, accountMode: venue.mode, accountVenue: venue.venue });
    }
    // Counted from here at its amount: the user's next decision sees it before its order is answered.
    this.d.book.apply(changeOf(claimed));
    await this.d.orders.send(claimed, receivedAt, venue);
  }
}

/** The stale guard's view of a signal: its age from publication, and whether it is backlog. */
function headlineOf(signal: Signal): Headline {
  const received = Date.parse(signal.received_at);
  const published = publishedMs(signal.published_at, received);
  return {
    startMs: published === null ? received : Math.min(published, received),
    published: published !== null && published <= received,
    backlog: signal.backlog === true,
    source: signal.source,
  };
}
