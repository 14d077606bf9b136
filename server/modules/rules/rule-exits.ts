import type { CloseReason } from '../../../src/contracts/trading';
import { ExitCloser, type Claim, type CloseDeps, type ExitOutcome } from './exit-closer';
import { KeyedQueues } from './exit-queues';
import type { ExitsRepo } from './exits.repo';
import type { DecisionRow } from './rules.types';
import { EXIT_BACKOFF_MS } from '../trading/protection/time-exits';

/** The ledger's side of an exit's lifecycle. */
export type ExitRepo = Pick<
  ExitsRepo,
  | 'openExits'
  | 'staleExits'
  | 'claimExit'
  | 'takeOverExit'
  | 'completeExit'
  | 'releaseExit'
  | 'renewExitClientId'
  | 'noteOpenExit'
>;

export interface ExitDeps extends CloseDeps {
  repo: ExitRepo;
  /**
   * The price a decision's take profit and stop loss act on: on a live or demo account its venue's own
   * (Binance's stream), on paper the paper exchange's; undefined when there is none young enough.
   */
  priceOf(decision: DecisionRow): number | undefined;
  /** Why a decision's take profit and stop loss cannot act in the app now (prices here are not its venue's), or null. */
  triggersPaused?(decision: DecisionRow): string | null;
  /** How long the account's queue waits for one close (default {@link CLOSE_DEADLINE_MS}). */
  closeDeadlineMs?: number;
  /** A close claimed longer ago than this was left by a process that died (default {@link EXIT_STALE_MS}). */
  staleMs?: number;
  /** The waits after each failed try, the last repeated for ever (default {@link EXIT_BACKOFF_MS}). */
  backoffMs?: readonly number[];
}

/** The wait after the first, second… failed try of a close; after the last, every minute, for ever. */
export { EXIT_BACKOFF_MS };

/** The client order id of a decision's close: the closer's, which sends and looks it up. */
export { exitClientId } from './exit-closer';

/** A close that took longer counts as failed for its queue, which moves on (the close itself goes on). */
export const CLOSE_DEADLINE_MS = 20_000;

/** A close claimed this long ago, and never finished, was left by a process that died (by default). */
export const EXIT_STALE_MS = 120_000;

/**
 * The longest a close can last on a venue whose calls time out after `timeoutMs`: the position read,
 * the order, and its look-ups after an unknown outcome (each after the settle time), with room to spare.
 * A close claimed longer ago than this was left by a process that died.
 */
export const closeLifeMs = (timeoutMs: number, settleMs: number) => 5 * timeoutMs + 3 * settleMs + 10_000;

/** How often the closes that dead processes left are looked for. */
const STALE_SWEEP_MS = 5_000;

/** How the exit note begins while a decision's take profit and stop loss wait for its venue's prices. */
export const TRIGGERS_PAUSED = 'open; take profit and stop loss wait';

/** Why an open rule position should close now, or null. `move` is the gain in % in the position's favour. */
export function exitReason(d: DecisionRow, mark: number | undefined, now: number): string | null {
  const plan = d.exitPlan;
  if (plan === null) return null;
  const entry = Number(d.price);
  // Legs that rest on the exchange fire there, on its own mark: the app does not fire them twice.
  if (mark !== undefined && entry > 0 && !d.exitOnVenue) {
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
 * Why an exit should close now: a close that began and failed (tried again for its first reason), a
 * retracted story (unless the rule keeps such positions), or the plan's triggers; null when none.
 */
export function dueReason(d: DecisionRow, mark: number | undefined, now: number): string | null {
  if (d.exitReason !== null) return d.exitReason;
  if (d.retractedBy !== null && d.exitPlan?.on_retraction !== 'keep') return retractedWhy(d.retractedBy);
  return exitReason(d, mark, now);
}

/**
 * Runs every app-side exit of the positions rules opened (take profit and stop loss on every price that
 * moves, max hold, retraction unwinds, flatten) on one lifecycle: the exit is claimed open → closing in
 * one conditional write (one process wins), and is closed only when the venue confirms a fill or says
 * nothing is left. Any failure puts it back to open, tried again after a back-off, for ever; a close
 * tried before is looked up by its client order id before anything is sent again, so a close that went
 * through is found, never repeated. Closes run in a queue per account, the accounts in parallel. An
 * exit closes what its own decision opened, on that decision's account, reduce-only.
 */
export class ExitWatcher {
  /** The open exits watched, by decision id (the ledger is the truth; this is its copy). */
  private readonly open = new Map<number, DecisionRow>();
  /** Closes this process runs (queued, or under way past their deadline): each decision's at most once. */
  private readonly closing = new Map<number, Promise<ExitOutcome>>();
  /** Decisions whose note about paused triggers is being written. */
  private readonly noting = new Set<number>();
  /** The decisions tracked while each reload's read is under way. */
  private readonly trackedDuringReload = new Set<Map<number, DecisionRow>>();
  private reloads = 0;
  private appliedReload = 0;
  private readonly queues = new KeyedQueues();
  private lastStaleSweep = -Infinity;
  private readonly staleMs: number;
  /** Claims and closes each exit its account's queue runs. */
  private readonly closer: ExitCloser;

  constructor(private readonly d: ExitDeps) {
    this.staleMs = d.staleMs ?? EXIT_STALE_MS;
    this.closer = new ExitCloser(d, this.open, {
      deadlineMs: d.closeDeadlineMs ?? CLOSE_DEADLINE_MS,
      staleMs: this.staleMs,
      backoffMs: d.backoffMs ?? EXIT_BACKOFF_MS,
    });
  }

  /** The open exits to watch: a plan, a close to try again, or a retraction to unwind. */
  async reload(): Promise<void> {
    const tracked = new Map<number, DecisionRow>();
    const seq = ++this.reloads;
    this.trackedDuringReload.add(tracked);
    try {
      const rows = await this.d.repo.openExits();
      // A read that began before the one already applied is older than it: it changes nothing.
      if (seq < this.appliedReload) return;
      this.appliedReload = seq;
      this.open.clear();
      for (const row of rows) this.open.set(row.id, row);
      // A decision that fired while the read was under way may be missing from it: it stays watched.
      for (const [id, row] of tracked) if (!this.open.has(id)) this.open.set(id, row);
    } finally {
      this.trackedDuringReload.delete(tracked);
    }
  }

  /** A decision that just fired: its exits are watched from now on (the periodic reload finds it too). */
  track(decision: DecisionRow): void {
    if (decision.exitPlan === null || decision.exitState !== 'open') return;
    for (const tracked of this.trackedDuringReload) tracked.set(decision.id, decision);
    if (!this.open.has(decision.id)) this.open.set(decision.id, decision);
  }

  get count(): number {
    return this.open.size;
  }

  /** How many closes this process runs now (queued, or under way). */
  get closes(): number {
    return this.closing.size;
  }

  /**
   * Queues the close of every watched exit that is due (only those on `moved` symbols, when given),
   * each on its account's queue, and resolves once those queues have answered. An exit whose close is
   * queued or under way, or waiting out its back-off, is left for a later check. Without `moved`, the
   * closes dead processes left are taken over too.
   */
  async check(moved?: ReadonlySet<string>): Promise<void> {
    const now = this.d.clock.now();
    const runs: Promise<unknown>[] = [];
    for (const d of [...this.open.values()]) {
      if (moved !== undefined && !moved.has(d.symbol)) continue;
      if (this.closing.has(d.id)) continue;
      if (d.exitNextAt !== null && d.exitNextAt.getTime() > now) continue;
      const why = dueReason(d, this.markOf(d), now);
      if (why !== null) runs.push(this.enqueue(d, why, 'due'));
    }
    if (moved === undefined) runs.push(this.takeOverStale(now));
    await Promise.all(runs);
  }

  /**
   * Closes every position the user's rules opened, on every account (the kill switch's flatten), at once
   * whatever back-off a failed close waits: exits already due first. Answers how many were closed, how
   * many were gone, and why the others did not close (they stay open and are tried again).
   */
  async flatten(userId: string): Promise<{ closed: number; gone: number; failed: string[] }> {
    const mine = await this.d.repo.openExits(userId);
    const now = this.d.clock.now();
    const due = (d: DecisionRow) => (dueReason(d, this.d.priceOf(d), now) === null ? 1 : 0);
    mine.sort((a, b) => due(a) - due(b));
    const outcomes = await Promise.all(mine.map((d) => this.enqueue(d, 'flattened (rules flatten)', 'now')));
    const result = { closed: 0, gone: 0, failed: [] as string[] };
    for (const outcome of outcomes) {
      if (outcome === 'closed') result.closed += 1;
      else if (outcome === 'gone') result.gone += 1;
      else if (outcome !== 'taken') result.failed.push(outcome.failed);
    }
    return result;
  }

  /**
   * Closes a position opened on a retracted story. Resolves after the first try; a failed one stays
   * open and watched, and is tried again on the back-off like every other close.
   */
  async unwind(d: DecisionRow, why: string): Promise<void> {
    if (d.exitState !== 'open') return;
    if (!this.open.has(d.id)) this.open.set(d.id, d);
    await this.enqueue(d, why, 'now');
  }

  /** Forgets the exits watched (this process no longer runs them); closes under way finish. */
  stop(): void {
    this.open.clear();
  }

  /** Queues one decision's close on its account's queue; a close already queued here is that one. */
  private enqueue(d: DecisionRow, why: string, claim: Claim): Promise<ExitOutcome> {
    const running = this.closing.get(d.id);
    if (running !== undefined) return running;
    let settled: Promise<unknown> = Promise.resolve();
    const outcome = this.queues
      .run(`${d.userId}|${d.account}`, async () => {
        const tried = await this.closer.attempt(d, why, claim);
        settled = tried.settled;
        return tried.outcome;
      })
      .catch((err: unknown): ExitOutcome => {
        this.d.log.warn({ err, decision: d.id }, 'rule exit not tried');
        return { failed: 'The close could not be tried.' };
      });
    this.closing.set(d.id, outcome);
    // Forgotten only once the close itself has ended, not when its queue stopped waiting for it.
    void outcome
      .then(() => settled)
      .catch(() => undefined)
      .finally(() => this.closing.delete(d.id));
    return outcome;
  }

  /** Closes left `closing` by a process that died mid-close: looked up, then sent again if not found. */
  private async takeOverStale(now: number): Promise<void> {
    if (now - this.lastStaleSweep < STALE_SWEEP_MS) return;
    this.lastStaleSweep = now;
    let rows: DecisionRow[];
    try {
      rows = await this.d.repo.staleExits(new Date(now - this.staleMs));
    } catch (err) {
      this.d.log.warn({ err }, 'stale rule exits not read');
      return;
    }
    const left = rows.filter((r) => !this.closing.has(r.id));
    if (left.length > 0)
      this.d.log.info({ exits: left.length }, 'taking over rule exits a stopped process left');
    await Promise.all(left.map((r) => this.enqueue(r, r.exitReason ?? 'closed', 'takeover')));
  }

  /**
   * The price a decision's exits read now. While its take profit and stop loss cannot act (prices here
   * are not its venue's), its exit note says so once, and no longer once its venue's prices are back.
   */
  private markOf(d: DecisionRow): number | undefined {
    const mark = this.d.priceOf(d);
    const plan = d.exitPlan;
    if (plan === null || (plan.take_profit_pct === undefined && plan.stop_loss_pct === undefined))
      return mark;
    if (d.exitReason !== null || this.noting.has(d.id)) return mark;
    const paused = mark === undefined ? (this.d.triggersPaused?.(d) ?? null) : null;
    const shown = d.exitNote?.startsWith(TRIGGERS_PAUSED) === true;
    if (paused !== null && d.exitNote === null) void this.note(d, null, `${TRIGGERS_PAUSED}: ${paused}`);
    else if (mark !== undefined && shown) void this.note(d, d.exitNote, null);
    return mark;
  }

  private async note(d: DecisionRow, from: string | null, to: string | null): Promise<void> {
    this.noting.add(d.id);
    try {
      if (await this.d.repo.noteOpenExit(d.id, from, to)) {
        const watched = this.open.get(d.id);
        if (watched !== undefined) this.open.set(d.id, { ...watched, exitNote: to });
        this.d.log.info(
          { decision: d.id, account: d.account },
          to ?? 'rule take profit and stop loss act again: its venue prices are here',
        );
      }
    } catch (err) {
      this.d.log.warn({ err, decision: d.id }, 'rule exit note not written');
    } finally {
      this.noting.delete(d.id);
    }
  }
}

/** How an exit that a retraction closed is noted ("closed: retracted by #12"). */
export const retractedWhy = (retractionId: number | string) => `closed: retracted by #${retractionId}`;

/** What the Closed tab calls an exit's reason (`take profit: …` → target, `max hold …` → hold…). */
export function closeReasonOf(why: string | null): CloseReason {
  if (why === null) return 'manual';
  if (why.startsWith('take profit')) return 'target';
  if (why.startsWith('stop loss')) return 'stop';
  if (why.startsWith('max hold')) return 'hold';
  if (why.startsWith('closed: retracted')) return 'retraction';
  if (why.startsWith('flattened')) return 'flatten';
  return 'manual';
}

/** What the trade log records as the origin of a rule's exit: the rule, and why it closed. */
export const exitOrigin = (d: DecisionRow) =>
  ({
    source: 'rule',
    ruleId: d.ruleId,
    ruleName: d.ruleName,
    reason: closeReasonOf(d.exitReason),
  }) as const;
