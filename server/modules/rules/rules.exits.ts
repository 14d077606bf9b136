import { pairOf } from '../../../src/contracts/trading';
import type { Clock } from '../market/clock';
import type { DecisionRow, RulesRepo } from './rules.repo';

export interface ExitDeps {
  repo: RulesRepo;
  clock: Clock;
  priceOf(symbol: string): number | undefined;
  closePosition(userId: string, pair: string): Promise<{ message: string }>;
  log: { warn(obj: object, msg: string): void };
}

/** Why an open rule position should close now, or null. `move` is the gain in % in the position's favour. */
export function exitReason(d: DecisionRow, mark: number | undefined, now: number): string | null {
  const plan = d.exitPlan;
  if (plan === null) return null;
  const entry = Number(d.price);
  if (mark !== undefined && entry > 0) {
    const move = ((mark - entry) / entry) * 100 * (d.side === 'long' ? 1 : -1);
    if (plan.take_profit_pct !== undefined && move >= plan.take_profit_pct) {
      return `take profit: ${move.toFixed(2)}% at ${mark}`;
    }
    if (plan.stop_loss_pct !== undefined && move <= -plan.stop_loss_pct) {
      return `stop loss: ${move.toFixed(2)}% at ${mark}`;
    }
  }
  if (plan.max_hold_minutes !== undefined && now - d.decidedAt.getTime() >= plan.max_hold_minutes * 60_000) {
    return `max hold of ${plan.max_hold_minutes} min${mark === undefined ? '' : ` at ${mark}`}`;
  }
  return null;
}

/**
 * Runs the exits of positions that rules opened: take profit and stop loss on every mark that moves,
 * max hold on a timer. Closing claims the ledger row first, so two processes never close one twice.
 * It closes the whole position on that symbol (positions are one-way, as on Binance).
 */
export class ExitWatcher {
  private open: DecisionRow[] = [];
  private busy = false;

  constructor(private readonly d: ExitDeps) {}

  async reload(): Promise<void> {
    this.open = await this.d.repo.openExits();
  }

  get count(): number {
    return this.open.length;
  }

  /** Checks the open exits (only those on `moved` symbols, when given). */
  async check(moved?: ReadonlySet<string>): Promise<void> {
    if (this.busy || this.open.length === 0) return;
    this.busy = true;
    try {
      const now = this.d.clock.now();
      for (const d of [...this.open]) {
        if (moved !== undefined && !moved.has(d.symbol)) continue;
        const why = exitReason(d, this.d.priceOf(d.symbol), now);
        if (why !== null) await this.close(d, why);
      }
    } finally {
      this.busy = false;
    }
  }

  private async close(d: DecisionRow, why: string): Promise<void> {
    this.open = this.open.filter((o) => o.id !== d.id);
    if (!(await this.d.repo.closeExit(d.id, why))) return;
    try {
      await this.d.closePosition(d.userId, pairOf(d.symbol));
    } catch (err) {
      const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'close failed';
      await this.d.repo.closeExit(d.id, `${why}; not closed: ${detail}`).catch(() => false);
      await this.d.repo.updateDecision(d.id, { exitNote: `${why}; not closed: ${detail}` });
      this.d.log.warn({ decision: d.id, detail }, 'rule exit could not close the position');
    }
  }
}
