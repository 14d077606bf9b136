import type { OrderResponse } from '../../../src/contracts/trading';
import type { Clock } from '../market/clock';
import type { DecisionRow, RulesRepo } from './rules.repo';

export interface ExitDeps {
  repo: RulesRepo;
  clock: Clock;
  priceOf(symbol: string): number | undefined;
  /**
   * Reduce-only on the decision's account: closes up to the quantity it opened, never more and never
   * the other way; null when nothing of it is left (the user closed it by hand).
   */
  reduce(decision: DecisionRow): Promise<OrderResponse | null>;
  log: { warn(obj: object, msg: string): void };
  /** Told of every exit that closed a position (the decision as recorded with its exit). */
  exited?: (decision: DecisionRow) => void;
}

/**
 * How long an unwind waits before each new try of a close that failed (a venue refusing or not answering
 * for now); the last waits past Binance's recvWindow, so that a close of unknown outcome is known by then.
 */
export const UNWIND_RETRY_MS = [500, 2_000, 6_000, 15_000] as const;

/** How often the positions still open on retracted stories are looked for (an unwind that never closed). */
const UNWIND_SWEEP_MS = 10_000;

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
 * max hold on a timer. Closing claims the ledger row first, so two processes never close one twice. An
 * exit closes what its own decision opened, on that decision's account: the quantity it filled (or what
 * is left of it), reduce-only; never a manual position's size, never another account.
 */
export class ExitWatcher {
  private open: DecisionRow[] = [];
  private busy = false;
  /** Decisions this process is unwinding (a close, or the wait before trying again). */
  private readonly unwinding = new Set<number>();
  private readonly retries = new Set<ReturnType<typeof setTimeout>>();
  private lastUnwindSweep = -Infinity;

  constructor(private readonly d: ExitDeps) {}

  /** The open positions of rules that have exits to watch (those without a plan wait for flatten). */
  async reload(): Promise<void> {
    this.open = (await this.d.repo.openExits()).filter((d) => d.exitPlan !== null);
  }

  /** A decision that just fired: its exits are watched from now on (the periodic reload finds it too). */
  track(decision: DecisionRow): void {
    if (decision.exitPlan === null || decision.exitState !== 'open') return;
    if (this.open.some((d) => d.id === decision.id)) return;
    this.open.push(decision);
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

  /**
   * Closes every position the user's rules opened, on every account (the kill switch's flatten):
   * exits already due first, then the rest. Answers how many were closed and how many were gone.
   */
  async flatten(userId: string): Promise<{ closed: number; gone: number; failed: string[] }> {
    const mine = await this.d.repo.openExits(userId);
    const now = this.d.clock.now();
    const due = (d: DecisionRow) => (exitReason(d, this.d.priceOf(d.symbol), now) === null ? 1 : 0);
    mine.sort((a, b) => due(a) - due(b));
    const result = { closed: 0, gone: 0, failed: [] as string[] };
    for (const d of mine) {
      const outcome = await this.close(d, 'flattened (rules flatten)');
      if (outcome === 'closed') result.closed += 1;
      else if (outcome === 'gone') result.gone += 1;
      else if (outcome !== 'taken') result.failed.push(outcome.failed);
    }
    return result;
  }

  /**
   * Closes a position opened on a retracted story, and tries again while the close fails: the exit is
   * opened again after each failure (the ledger shows it open, flatten finds it), and closed on a later
   * try under the same client order id, so a close that did go through is found rather than repeated.
   * Resolves after the first try; the others run on timers.
   */
  async unwind(d: DecisionRow, why: string): Promise<void> {
    if (this.unwinding.has(d.id)) return;
    this.unwinding.add(d.id);
    const attempt = async (tries: number): Promise<void> => {
      const outcome = await this.close(d, why).catch((err: unknown) => {
        this.d.log.warn({ err, decision: d.id }, 'retracted position not closed');
        return { failed: 'close failed' };
      });
      if (typeof outcome === 'string') {
        this.unwinding.delete(d.id);
        return;
      }
      await this.d.repo.reopenExit(d.id).catch(() => undefined);
      const wait = UNWIND_RETRY_MS[tries];
      if (wait === undefined) {
        // Left open: the sweep of retracted positions tries again later.
        this.unwinding.delete(d.id);
        return;
      }
      const timer = setTimeout(() => {
        this.retries.delete(timer);
        void attempt(tries + 1);
      }, wait);
      timer.unref();
      this.retries.add(timer);
    };
    await attempt(0);
  }

  /**
   * Unwinds the positions still open on retracted stories that no unwind of this process is working on
   * (its tries ran out, or another process stopped halfway): at most every ten seconds.
   */
  async unwindLeft(): Promise<void> {
    const now = this.d.clock.now();
    if (now - this.lastUnwindSweep < UNWIND_SWEEP_MS) return;
    this.lastUnwindSweep = now;
    const left = await this.d.repo.openRetracted();
    for (const d of left) {
      if (d.retractedBy !== null) await this.unwind(d, retractedWhy(d.retractedBy));
    }
  }

  /** Stops the tries waiting on timers (shutdown); the sweep of retracted positions takes them up. */
  stop(): void {
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    this.unwinding.clear();
  }

  /** Closes one decision's position; what happened to it. */
  async close(d: DecisionRow, why: string): Promise<'closed' | 'gone' | 'taken' | { failed: string }> {
    this.open = this.open.filter((o) => o.id !== d.id);
    if (!(await this.d.repo.closeExit(d.id, why))) return 'taken';
    try {
      const fill = await this.d.reduce(d);
      if (fill === null) {
        // The user closed it by hand: the exit ends quietly.
        await this.d.repo.updateDecision(d.id, { exitNote: `${why}; already closed by hand` });
        return 'gone';
      }
      const set = {
        exitNote: `${why}; closed ${fill.quantity} at ${fill.price}`,
        exitOrderId: fill.id,
        exitPnl: String(fill.realizedPnl - fill.fee),
      };
      await this.d.repo.updateDecision(d.id, set);
      this.d.exited?.({ ...d, ...set, exitState: 'closed' });
      return 'closed';
    } catch (err) {
      const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'close failed';
      await this.d.repo.updateDecision(d.id, { exitNote: `${why}; not closed: ${detail}` });
      this.d.log.warn({ decision: d.id, detail }, 'rule exit could not close the position');
      return { failed: detail };
    }
  }
}

/** How an exit that a retraction closed is noted ("closed: retracted by #12"). */
export const retractedWhy = (retractionId: number | string) => `closed: retracted by #${retractionId}`;
