import { venueLabel } from '../../../src/contracts/venues';
import {
  RULE_DETAILS,
  type AnswerChannel,
  type Decision,
  type LedgerQuery,
  type Rule,
  type RuleCreate,
  type RuleAnswerResult,
  type RulePatch,
} from '../../../src/contracts/rules';
import type { OrderVenue } from '../../../src/contracts/trading';
import { appError } from '../../plugins/errors';
import type { PlanReader } from '../billing/plans';
import { decisionsCsv, toDecision, toRule } from './rules-mapper';
import type { AnswerOutcome } from './rule-asks';
import type { RulesRepo } from './rules.repo';
import type { NewRuleRow } from './rules.types';

/** Records the answer to a proposal and acts on it (the engine's `answer`). */
export type Answerer = (
  userId: string,
  decisionId: number,
  answer: 'confirm' | 'reject',
  via: AnswerChannel,
) => Promise<AnswerOutcome>;

/** Rule columns from the validated body: "any" conditions are stored as null. */
function columns(
  body: Pick<RuleCreate, 'conditions' | 'action'>,
): Omit<NewRuleRow, 'userId' | 'name' | 'isActive'> & { account: string } {
  const { conditions: c, action: a } = body;
  return {
    asset: c.asset ?? null,
    sentiment: c.sentiment ?? null,
    minImpact: c.min_impact ?? null,
    maxImpact: c.max_impact ?? null,
    include: c.include ?? null,
    exclude: c.exclude ?? null,
    side: a.side,
    amountUsd: String(a.amount_usd),
    exit: a.exit !== undefined && Object.keys(a.exit).length > 0 ? a.exit : null,
    account: a.account,
  };
}

/**
 * The rules' own rules: a user sees and changes only their own (404 otherwise), and the plan caps how
 * many may be active at once. `onChange` tells the engine to re-read the active rules.
 */
export class RulesService {
  constructor(
    private readonly repo: RulesRepo,
    private readonly plans: PlanReader,
    private readonly onChange: () => void,
    private readonly answerer?: Answerer,
    /** News sources whose items only Premium accounts receive (`PREMIUM_NEWS_SOURCES`). */
    private readonly premiumSources: readonly string[] = [],
  ) {}

  /**
   * Confirms or rejects an ask rule's proposal (the first answer from any channel wins): the decision
   * after it, and a line saying what the server did. 404 for a decision that is not the user's, 409 when
   * it was answered already or its window closed.
   */
  async answer(
    userId: string,
    decisionId: string | number,
    answer: 'confirm' | 'reject',
    via: AnswerChannel,
  ): Promise<RuleAnswerResult> {
    const id = Number(decisionId);
    if (this.answerer === undefined || !Number.isSafeInteger(id) || id <= 0)
      throw appError('NOT_FOUND', RULE_DETAILS.decisionNotFound);
    const { decision, order, venue } = await this.answerer(userId, id, answer, via);
    return { decision: toDecision(decision), message: answerMessage(toDecision(decision), order, venue) };
  }

  async list(userId: string): Promise<Rule[]> {
    return (await this.repo.list(userId)).map(toRule);
  }

  async create(userId: string, body: RuleCreate): Promise<Rule> {
    if (body.isActive) await this.checkPlan(userId);
    const row = await this.repo.insert({
      userId,
      name: body.ruleName,
      isActive: body.isActive,
      mode: body.mode,
      askWindowSec: body.ask_window_sec,
      ...columns(body),
    });
    this.onChange();
    return toRule(row);
  }

  async update(userId: string, id: string, patch: RulePatch): Promise<Rule> {
    const current = await this.repo.get(userId, id);
    if (current === null) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
    if (patch.isActive === true && !current.isActive) await this.checkPlan(userId, id);
    const set: Partial<NewRuleRow> = {};
    if (patch.ruleName !== undefined) set.name = patch.ruleName;
    if (patch.isActive !== undefined) set.isActive = patch.isActive;
    if (patch.mode !== undefined) set.mode = patch.mode;
    if (patch.ask_window_sec !== undefined) set.askWindowSec = patch.ask_window_sec;
    if (patch.conditions !== undefined || patch.action !== undefined) {
      const base = toRule(current);
      const merged = columns({
        conditions: patch.conditions ?? base.conditions,
        action:
          patch.action === undefined
            ? { ...base.action, exit: base.action.exit }
            : { ...patch.action, account: patch.action.account ?? current.account },
      });
      if (patch.conditions !== undefined)
        Object.assign(
          set,
          pick(merged, ['asset', 'sentiment', 'minImpact', 'maxImpact', 'include', 'exclude']),
        );
      if (patch.action !== undefined)
        Object.assign(set, pick(merged, ['side', 'amountUsd', 'exit', 'account']));
    }
    const row = await this.repo.update(userId, id, set);
    if (row === null) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
    this.onChange();
    return toRule(row);
  }

  /** Moves a rule's orders to `account` ('paper' or a key id the caller checked is the user's). */
  async setAccount(userId: string, id: string, account: string): Promise<Rule> {
    const row = await this.repo.update(userId, id, { account });
    if (row === null) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
    this.onChange();
    return toRule(row);
  }

  /** The stored rule (404 when it is not the user's). */
  async get(userId: string, id: string): Promise<Rule> {
    const row = await this.repo.get(userId, id);
    if (row === null) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
    return toRule(row);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await this.repo.remove(userId, id))) throw appError('NOT_FOUND', RULE_DETAILS.notFound);
    this.onChange();
  }

  async ledger(userId: string, q: LedgerQuery): Promise<Decision[]> {
    const rows = await this.repo.decisions(
      userId,
      {
        before: q.before,
        limit: q.limit,
        signalId: q.signal_id === undefined ? undefined : Number(q.signal_id),
      },
      await this.hiddenFrom(userId),
    );
    return rows.map(toDecision);
  }

  async ledgerCsv(userId: string): Promise<string> {
    const rows = await this.repo.decisions(userId, { limit: 10_000 }, await this.hiddenFrom(userId));
    return decisionsCsv(rows.map(toDecision));
  }

  /** The decisions on these signals: what a card says about the rules it fired. */
  async forSignals(userId: string, signalIds: number[]): Promise<Decision[]> {
    const hidden = await this.hiddenFrom(userId);
    return (await this.repo.decisionsForSignals(userId, signalIds, hidden)).map(toDecision);
  }

  /**
   * The sources whose decisions the user does not see: the premium ones while their plan does not
   * receive them (what the signal history hides from them, the ledger hides too), read as it is now.
   */
  private async hiddenFrom(userId: string): Promise<readonly string[]> {
    if (this.premiumSources.length === 0) return [];
    return (await this.plans.limitsOf(userId)).premiumSources ? [] : this.premiumSources;
  }

  private async checkPlan(userId: string, except?: string): Promise<void> {
    const limit = (await this.plans.limitsOf(userId)).activeRules;
    if (limit === null) return;
    if ((await this.repo.activeCount(userId, except)) >= limit) {
      throw appError('FORBIDDEN', RULE_DETAILS.planLimit(limit));
    }
  }
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

/** `Placed LONG 0.0021 BTC at 93812.5 on paper.`: what the server did with an answer. */
export function answerMessage(
  d: Decision,
  order: { quantity: number; price: number; account: OrderVenue } | null,
  venue: OrderVenue | null,
): string {
  const where = (v: OrderVenue) =>
    v.mode === 'paper'
      ? 'paper'
      : `${venueLabel(v.venue)} ${v.mode === 'live' ? 'LIVE' : 'demo'}${v.keyHint === null ? '' : ` key ${v.keyHint}`}`;
  if (d.reason === 'rejected') return `Rejected: rule '${d.rule_name}' places nothing on #${d.signal_id}.`;
  if (order !== null)
    return `Placed ${d.side.toUpperCase()} ${order.quantity} ${d.asset} at ${order.price} on ${where(order.account)}.`;
  if (d.outcome === 'skipped') return `Not placed: ${d.detail ?? d.reason ?? 'skipped'}`;
  const on = venue === null ? '' : ` on ${where(venue)}`;
  return `Sent${on}; the exchange has not confirmed it yet: the ledger will say when it does.`;
}
