import { RULE_DETAILS, type AnswerChannel } from '../../../src/contracts/rules';
import { publishedMs } from '../../../src/contracts/timeline';
import type { OrderResponse, OrderVenue } from '../../../src/contracts/trading';
import { appError } from '../../plugins/errors';
import type { Clock } from '../market/clock';
import type { PlanBook } from './plan-book';
import type { Headline, RiskService } from './risk.service';
import type { DecisionsRepo } from './decisions.repo';
import type { DecisionRow } from './rules.types';
import type { OrderStats, RuleOrders, RuleTrading } from './rule-orders';

/** The answer to a proposal: the decision after it, and the order when one was placed. */
export interface AnswerOutcome {
  decision: DecisionRow;
  order: OrderResponse | null;
  venue: OrderVenue | null;
}

/** How a channel is named to the one who answered second ("Already answered in Telegram."). */
export const CHANNEL_NAMES: Record<AnswerChannel, string> = {
  browser: 'the browser',
  terminal: 'the terminal',
  telegram: 'Telegram',
  api: 'the API',
};

export interface AsksDeps {
  repo: DecisionsRepo;
  risk: RiskService;
  trading: Pick<RuleTrading, 'openPositions'>;
  orders: RuleOrders;
  clock: Clock;
  stats: OrderStats;
  premium?: { sources: ReadonlySet<string>; plans: PlanBook };
  /** Tells of a decision event, as the engine tells of its own. */
  tell(event: 'answered' | 'skipped', decision: DecisionRow): void;
  /** Runs `task` in the user's turn: no other decision of theirs is checked meanwhile, on any process. */
  inTurn<T>(userId: string, task: () => Promise<T>): Promise<T>;
  /** The user's decisions claimed and not yet checked, which the envelope counts as well. */
  unchecked(userId: string): number[];
}

/**
 * The answers to ask rules' proposals. The first answer wins (one atomic update, whichever process it
 * reaches); the others hear who answered first or that the window closed. A confirmation runs the order
 * path of an automated decision, the risk envelope and the headline's age checked again; a rejection ends
 * the decision skipped. All of it in the user's turn: from the answer to the order no other decision of
 * theirs is checked, on any process, and none counts this one while it is unchecked.
 */
export class RuleAsks {
  constructor(private readonly d: AsksDeps) {}

  async answer(
    userId: string,
    id: number,
    answer: 'confirm' | 'reject',
    via: AnswerChannel,
  ): Promise<AnswerOutcome> {
    const at = new Date(this.d.clock.now());
    const outcome = await this.d.inTurn(userId, () => this.answerInTurn(userId, id, answer, via, at));
    if (answer === 'reject') return outcome;
    const final = await this.d.repo.decision(userId, id);
    return { ...outcome, decision: final ?? outcome.decision };
  }

  /**
   * Skips, as unanswered, the proposals whose window has closed (run by the process holding the rules
   * lease, on its clock; also at start, for those that closed while it was down). Answers how many.
   */
  async expire(): Promise<number> {
    const expired = await this.d.repo.expireAsking(new Date(this.d.clock.now()));
    for (const row of expired) {
      this.d.stats.skipped += 1;
      this.d.tell('skipped', row);
    }
    return expired.length;
  }

  private async answerInTurn(
    userId: string,
    id: number,
    answer: 'confirm' | 'reject',
    via: AnswerChannel,
    at: Date,
  ): Promise<AnswerOutcome> {
    const answered = await this.d.repo.answerDecision(
      userId,
      id,
      at,
      answer === 'confirm'
        ? { outcome: 'pending', answeredVia: via, answeredAt: at }
        : {
            outcome: 'skipped',
            reason: 'rejected',
            detail: RULE_DETAILS.rejected(CHANNEL_NAMES[via]),
            answeredVia: via,
            answeredAt: at,
          },
    );
    if (answered === null) throw await this.whyNotAnswered(userId, id);
    this.d.tell('answered', answered);
    if (answer === 'reject') {
      this.d.stats.skipped += 1;
      this.d.tell('skipped', answered);
      return { decision: answered, order: null, venue: null };
    }
    return this.confirmed(answered);
  }

  /** Why an answer found no proposal to answer: none of the user's (404), answered first elsewhere, or too late. */
  private async whyNotAnswered(userId: string, id: number): Promise<Error> {
    const current = await this.d.repo.decision(userId, id);
    if (current === null) return appError('NOT_FOUND', RULE_DETAILS.decisionNotFound);
    if (current.answeredVia !== null)
      return appError('CONFLICT', RULE_DETAILS.alreadyAnswered(CHANNEL_NAMES[current.answeredVia]));
    if (current.outcome === 'asking' || current.reason === 'no_answer')
      return appError('CONFLICT', RULE_DETAILS.expired);
    return appError('CONFLICT', RULE_DETAILS.notAsking);
  }

  /** A confirmed proposal's order: the account, the risk envelope and the headline's age checked again. */
  private async confirmed(decision: DecisionRow): Promise<AnswerOutcome> {
    const skipped = { decision, order: null, venue: null };
    if (await this.premiumLapsed(decision)) {
      await this.d.orders.skip(decision, 'plan_limit', RULE_DETAILS.premiumSource);
      return skipped;
    }
    const venue = await this.d.orders.venueOrSkip(decision);
    if (venue === null) return skipped;
    if (venue.mode !== decision.accountMode || venue.venue !== decision.accountVenue)
      await this.d.repo.updateDecision(decision.id, { accountMode: venue.mode, accountVenue: venue.venue });
    const row = { ...decision, accountMode: venue.mode, accountVenue: venue.venue };
    const receivedAt = (decision.signalReceivedAt ?? decision.decidedAt).getTime();
    const check = await this.d.risk.checkAutomated(decision.userId, {
      asset: decision.asset,
      amountUsd: Number(decision.amountUsd),
      receivedAt,
      headline: headlineOfRow(decision, receivedAt),
      mode: venue.mode,
      account: decision.account,
      decisionId: decision.id,
      unchecked: this.d.unchecked(decision.userId),
      openPositions: () => this.d.trading.openPositions(decision.userId, decision.account),
      // The person had the proposal's window to answer: the headline's age is held to that, from its
      // publication, rather than to the seconds an automated order gets.
      ...(decision.askExpiresAt === null
        ? {}
        : {
            answeredWithinSeconds: Math.round(
              (decision.askExpiresAt.getTime() - decision.decidedAt.getTime()) / 1000,
            ),
          }),
    });
    if (check !== null) {
      await this.d.orders.refuse(row, venue, check);
      return { decision: row, order: null, venue };
    }
    const order = await this.d.orders.send(row, receivedAt, venue);
    return { decision: row, order, venue };
  }

  /** Proposed from a premium source while the account was Premium: not traded once it is not. */
  private async premiumLapsed(decision: DecisionRow): Promise<boolean> {
    const premium = this.d.premium;
    const source = decision.signalSource;
    if (premium === undefined || source === null || !premium.sources.has(source)) return false;
    return !(await premium.plans.premium([decision.userId])).has(decision.userId);
  }
}

/** The stale guard's view of a decision's headline, from the news's times kept on it. */
function headlineOfRow(decision: DecisionRow, receivedAt: number): Headline {
  const published = publishedMs(decision.signalPublishedAt?.toISOString() ?? null, receivedAt);
  return {
    startMs: published === null ? receivedAt : Math.min(published, receivedAt),
    published: published !== null && published <= receivedAt,
    backlog: false,
    source: '',
  };
}
