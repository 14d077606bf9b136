import { findTicker } from '../../../src/contracts/symbols';
import type { Signal } from '../../../src/contracts/signals';
import type { Match } from './rule-index';
import type { DecisionChange, DecisionRow, NewDecisionRow, RuleRow } from './rules.types';

/** The ledger row of a match at `now`, pending until its order is answered, at the latest mark seen. */
export function claimOf(
  { rule, asset }: Match<RuleRow>,
  signal: Signal,
  analysis: Extract<Signal['analysis'], { status: 'completed' }>,
  now: number,
  priceOf: (symbol: string) => number | undefined,
): NewDecisionRow {
  const symbol = findTicker(asset)?.symbol ?? `${asset}USDT`;
  return {
    userId: rule.userId,
    ruleId: rule.id,
    ruleName: rule.name,
    ruleVersion: rule.version,
    signalId: Number(signal.id),
    asset,
    symbol,
    side: rule.side,
    amountUsd: rule.amountUsd,
    // An ask rule's match is a proposal from the start: no order goes out until the user confirms it.
    ...(rule.mode === 'ask'
      ? { outcome: 'asking' as const, askExpiresAt: new Date(now + rule.askWindowSec * 1000) }
      : { outcome: 'pending' as const }),
    // The ledger names the analyzer and its version: a decision can be traced to the model that made it.
    engine:
      analysis.engine_version === undefined
        ? analysis.engine
        : `${analysis.engine} ${analysis.engine_version}`,
    sentiment: analysis.nlp.sentiment,
    impact: analysis.impact_score,
    price: priceText(priceOf(symbol) ?? signal.initial_prices[asset]),
    arrivalPrice: priceText(signal.initial_prices[asset]),
    account: rule.account,
    exitPlan: rule.exit,
    decidedAt: new Date(now),
    ...receiptOf(signal),
  };
}

/** What the book of fired totals hears of a decision's row. */
export function changeOf(d: DecisionRow): DecisionChange {
  return {
    userId: d.userId,
    id: d.id,
    asset: d.asset,
    outcome: d.outcome,
    at: d.decidedAt.getTime(),
    amount: Number(d.amountUsd),
    notional: d.notional === null || d.notional === undefined ? null : Number(d.notional),
  };
}

/** The news's own times, kept on the decision for its receipt. */
function receiptOf(signal: Signal) {
  const at = (iso: string | null | undefined) => (iso === null || iso === undefined ? null : new Date(iso));
  return {
    signalPublishedAt: at(signal.published_at),
    signalReceivedAt: at(signal.received_at),
    signalAnalysedAt: at(signal.timeline?.analysed_at),
    signalSource: signal.source,
  };
}

function priceText(price: number | undefined): string | null {
  return price === undefined || !Number.isFinite(price) ? null : String(price);
}
