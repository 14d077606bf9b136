/** The rows of the rules' tables and the figures read from them: shared by the repo, the engine and its book. */
import type { riskSettings, ruleDecisions, rules } from '../../db/schema/rules';

export type RuleRow = typeof rules.$inferSelect;
export type NewRuleRow = Omit<typeof rules.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | 'version'>;
export type DecisionRow = typeof ruleDecisions.$inferSelect;
export type NewDecisionRow = Omit<typeof ruleDecisions.$inferInsert, 'id'>;
export type DecisionUpdate = Partial<Omit<NewDecisionRow, 'userId' | 'ruleId' | 'signalId'>>;
export type RiskRow = typeof riskSettings.$inferSelect;

/**
 * Where a decision may be when its outcome is recorded: `pending` (its order about to go, on its way, or
 * of unknown outcome), or for a skip also `asking` (a proposal the envelope refused before it was asked).
 */
export type Settling = 'pending' | 'pending-or-asking';

/** What recording an outcome found: whether it won the row, and the retraction it carries if any. */
export interface Settled {
  won: boolean;
  retractedBy: number | null;
}

/** A story of theirs retracted: what became of the decisions on it. */
export interface RetractedDecisions {
  /** Not sent yet (or a proposal): skipped as retracted now. */
  cancelled: DecisionRow[];
  /** Positions their orders opened, still open. */
  open: DecisionRow[];
  /** Orders on their way or of unknown outcome: their fill is unwound when it lands. */
  inFlight: DecisionRow[];
}

/** A user's automated orders of the day (fired or pending), and the last one on the asset. */
export interface FiredStats {
  spent: number;
  lastOnAsset: Date | null;
}

/**
 * What counts against a user's budget and cooldown, as the ledger holds it: a pending decision (its order
 * sent or about to be) by its id, or fired ones of one asset summed (id null), all before midnight or
 * all after it, with the latest's time.
 */
export interface CountedDecision {
  userId: string;
  id: number | null;
  asset: string;
  /** decided_at (of the latest, for a sum), ms. */
  at: number;
  /** What it costs the day's budget: the fill's notional once known, the amount until then. */
  cost: number;
}

/** What the book hears of a decision: its row's outcome and figures, as recorded. */
export interface DecisionChange {
  userId: string;
  id: number;
  asset: string;
  outcome: DecisionRow['outcome'];
  at: number;
  amount: number;
  notional: number | null;
}
