import type { OrderResponse } from '../../../src/contracts/trading';
import type { Clock } from '../market/clock';
import { withDeadline } from './exit-queues';
import type { ExitsRepo } from './exits.repo';
import type { DecisionRow, DecisionUpdate } from './rules.types';

/** What closing a claimed exit needs: the ledger's writes of its lifecycle and the venue's reduce. */
export interface CloseDeps {
  repo: Pick<ExitsRepo, 'claimExit' | 'takeOverExit' | 'completeExit' | 'releaseExit' | 'renewExitClientId'>;
  clock: Clock;
  /**
   * Reduce-only on the decision's account under `clientOrderId`: closes up to the quantity it opened,
   * never more and never the other way; null when nothing of it is left (the user closed it by hand).
   */
  reduce(decision: DecisionRow, clientOrderId: string): Promise<OrderResponse | null>;
  /**
   * A reduce sent earlier under `clientOrderId`, looked up on the venue: its fill, 'unfilled' when it
   * ended with nothing executed, null when the venue has no such order. Throws when it cannot tell.
   */
  find(decision: DecisionRow, clientOrderId: string): Promise<OrderResponse | 'unfilled' | null>;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Told of every exit that closed a position (the decision as recorded with its exit). */
  exited?: (decision: DecisionRow) => void;
  /** Told once, when a close has failed {@link EXIT_FAILING_AT} times in a row (it goes on trying). */
  failing?: (decision: DecisionRow, detail: string) => void;
}

/** How long a close may take, when a claim is stale, and the waits after each failed try. */
export interface CloseTiming {
  deadlineMs: number;
  staleMs: number;
  backoffMs: readonly number[];
}

/** The user is told of a close that keeps failing once, at this try. */
export const EXIT_FAILING_AT = 3;

export type ExitOutcome = 'closed' | 'gone' | 'taken' | { failed: string };

/** How a close takes its row: when its back-off allows (`due`), at once (`now`), or from a dead process. */
export type Claim = 'due' | 'now' | 'takeover';

/**
 * The client order id of a decision's close: `sc-exit-<id>` for its first order, a new one only after
 * the venue ended the previous order with nothing executed (a client id is looked up, so never reused).
 */
export function exitClientId(id: number, previous?: string | null): string {
  const base = `sc-exit-${id}`;
  if (previous === undefined || previous === null) return base;
  const n = previous === base ? 0 : Number(previous.slice(base.length + 1));
  return `${base}-${Number.isInteger(n) ? n + 1 : 1}`;
}

/**
 * One exit's close: claimed open → closing (or taken over from a dead process), looked up by its client
 * order id when it was tried before, sent reduce-only, and recorded closed; any failure puts it back to
 * open for a later try after its back-off. The watcher's open exits are shared with it: a claimed close
 * leaves them, a failed one comes back.
 */
export class ExitCloser {
  private readonly deadlineMs: number;
  private readonly staleMs: number;
  private readonly backoffMs: readonly number[];

  constructor(
    private readonly d: CloseDeps,
    private readonly open: Map<number, DecisionRow>,
    timing: CloseTiming,
  ) {
    this.deadlineMs = timing.deadlineMs;
    this.staleMs = timing.staleMs;
    this.backoffMs = timing.backoffMs;
  }

  /**
   * Claims the exit and closes it, waiting at most the deadline: a close still under way then counts
   * as failed for its queue (which moves on), and ends on its own, closed or back to open.
   */
  async attempt(
    d: DecisionRow,
    why: string,
    claim: Claim,
  ): Promise<{ outcome: ExitOutcome; settled: Promise<unknown> }> {
    const now = this.d.clock.now();
    let row: DecisionRow | null;
    try {
      row =
        claim === 'takeover'
          ? await this.d.repo.takeOverExit(d.id, new Date(now), new Date(now - this.staleMs))
          : await this.d.repo.claimExit(d.id, {
              now: new Date(now),
              reason: why,
              clientId: exitClientId(d.id),
              force: claim === 'now',
            });
    } catch (err) {
      // Nothing was written: the exit is as it was, and a later check tries again.
      this.d.log.warn({ err, decision: d.id }, 'rule exit not claimed');
      const watched = this.open.get(d.id);
      if (watched !== undefined)
        this.open.set(d.id, { ...watched, exitNextAt: new Date(now + this.wait(1)) });
      return { outcome: { failed: 'The ledger could not be written.' }, settled: Promise.resolve() };
    }
    if (row === null) {
      // Another process closes it, or closed it, or its back-off has not passed: the ledger says which.
      this.open.delete(d.id);
      return { outcome: 'taken', settled: Promise.resolve() };
    }
    this.open.delete(d.id);
    const run = this.closeClaimed(row, claim === 'takeover' || row.exitAttempts > 0);
    const first = await withDeadline(this.d.clock, this.deadlineMs, run);
    if (first !== 'late') return { outcome: first, settled: run };
    this.d.log.warn(
      { decision: d.id, deadlineMs: this.deadlineMs },
      'rule exit not answered by its deadline; its account queue moves on',
    );
    const seconds = Math.round(this.deadlineMs / 1000);
    return { outcome: { failed: `The venue did not answer within ${seconds} s.` }, settled: run };
  }

  /**
   * Closes a claimed exit; never throws. A close tried before is looked up first by its client id: a
   * fill found completes the exit, an order that ended unfilled spends its id, none found is sent again.
   */
  private async closeClaimed(row: DecisionRow, lookFirst: boolean): Promise<ExitOutcome> {
    const why = row.exitReason ?? 'closed';
    const claimedAt = row.exitStartedAt ?? new Date(0);
    let clientId = row.exitClientId ?? exitClientId(row.id);
    try {
      if (lookFirst) {
        const found = await this.d.find(row, clientId);
        if (found !== null && found !== 'unfilled') return await this.finish(row, claimedAt, found, why);
        if (found === 'unfilled') {
          clientId = exitClientId(row.id, clientId);
          if (!(await this.d.repo.renewExitClientId(row.id, claimedAt, clientId))) return 'taken';
        }
      }
      const fill = await this.d.reduce(row, clientId);
      return await this.finish(row, claimedAt, fill, why);
    } catch (err) {
      return this.release({ ...row, exitClientId: clientId }, claimedAt, why, err);
    }
  }

  /** Records the venue's answer: closed with its fill, or closed by hand (null: nothing was left). */
  private async finish(
    row: DecisionRow,
    claimedAt: Date,
    fill: OrderResponse | null,
    why: string,
  ): Promise<ExitOutcome> {
    const set: DecisionUpdate =
      fill === null
        ? { exitNote: `${why}; already closed by hand` }
        : {
            exitNote: `${why}; closed ${fill.quantity} at ${fill.price}`,
            exitOrderId: fill.id,
            exitPnl: String(fill.realizedPnl - fill.fee),
          };
    // Lost only to a process that took the close over as stale: its look-up finds this same fill.
    if (!(await this.d.repo.completeExit(row.id, claimedAt, set))) return 'taken';
    if (fill === null) return 'gone';
    this.d.exited?.({ ...row, ...set, exitState: 'closed', exitNextAt: null });
    return 'closed';
  }

  /**
   * A try that failed (a refusal, no answer, an unknown outcome, a ledger write): the exit goes back to
   * open, tried again after its back-off. When even that write fails it stays closing, and the sweep
   * takes it over once its claim is stale.
   */
  private async release(row: DecisionRow, claimedAt: Date, why: string, err: unknown): Promise<ExitOutcome> {
    // A venue's refusal or silence says what it is; anything else (a ledger write) is logged whole.
    const told = err instanceof Error && 'detail' in err;
    const detail = told ? String(err.detail) : 'The close failed.';
    const attempts = row.exitAttempts + 1;
    this.d.log.warn(
      { decision: row.id, attempts, detail, ...(told ? {} : { err }) },
      'rule exit did not close the position; trying again',
    );
    try {
      const back = await this.d.repo.releaseExit(row.id, claimedAt, {
        note: `${why}; close failed (try ${attempts}): ${detail} Trying again.`,
        nextAt: new Date(this.d.clock.now() + this.wait(attempts)),
      });
      if (back !== null) {
        this.open.set(back.id, back);
        if (back.exitAttempts === EXIT_FAILING_AT) this.d.failing?.(back, detail);
      }
    } catch (writeErr) {
      this.d.log.warn({ err: writeErr, decision: row.id }, 'rule exit left closing; the sweep takes it over');
    }
    return { failed: detail };
  }

  /** The wait after the `attempts`-th failed try. */
  private wait(attempts: number): number {
    const at = Math.min(Math.max(attempts, 1), this.backoffMs.length) - 1;
    return this.backoffMs[at] ?? 60_000;
  }
}
