import type { DecisionsRepo } from './decisions.repo';
import { retractedWhy, type ExitWatcher } from './rule-exits';
import type { DecisionRow } from './rules.types';

export interface RetractionDeps {
  repo: Pick<DecisionsRepo, 'retractDecisions'>;
  exits: Pick<ExitWatcher, 'unwind'>;
  /** Told of each decision the retraction skipped before its order was sent. */
  cancelled(decision: DecisionRow): void;
}

/** What a retracted story does to the decisions rules made on it, and to the positions they opened. */
export class Retractions {
  constructor(private readonly d: RetractionDeps) {}

  /** Closes what a decision opened on a retracted story, unless its rule keeps such positions. */
  async unwindOne(d: DecisionRow): Promise<void> {
    if (d.exitPlan?.on_retraction === 'keep' || d.retractedBy === null) return;
    await this.d.exits.unwind(d, retractedWhy(d.retractedBy));
  }

  /**
   * A retracted signal, in one statement over its decisions: those not sent yet are cancelled, those
   * whose order is on its way are marked (their fill, when it lands, is closed at once), and every
   * position rules opened on it is closed now (reduce-only, on the decision's account, its own
   * quantity) unless its rule keeps them.
   */
  async unwindRetracted(retractedId: string, retractionId: string): Promise<void> {
    const { cancelled, open } = await this.d.repo.retractDecisions(
      Number(retractedId),
      Number(retractionId),
      `The story was retracted by #${retractionId} before the order was sent.`,
    );
    for (const row of cancelled) this.d.cancelled(row);
    await Promise.all(open.map((row) => this.unwindOne(row)));
  }
}
