import type { FastifyInstance } from 'fastify';
import type { Signal } from '../../../src/contracts/signals';
import { every, type Clock, type Disposer } from '../market/clock';
import type { PlanBook } from './plan-book';
import type { RiskService } from './risk.service';
import type { RuleEngine } from './rule-engine';
import type { ExitWatcher } from './rule-exits';
import type { EngineLog } from './rule-orders';

/** Seconds in a row the safety net may wait for decisions under way before it runs regardless. */
const SWEEP_PUT_OFF = 2;

export interface RunnerDeps {
  engine: RuleEngine;
  exits: ExitWatcher;
  risk: Pick<RiskService, 'keepFresh'>;
  /** The plans of the rules' owners, kept fresh for the premium sources' items (null: none configured). */
  plans: Pick<PlanBook, 'keepFresh'> | null;
  bus: Pick<FastifyInstance['bus'], 'subscribe'>;
  prices: Pick<FastifyInstance['prices'], 'onTicks' | 'onMarksMoved'>;
  clock: Clock;
  log: EngineLog;
  /** A story retracted (a denial, a correction, a hacked account): what rules opened on it is unwound. */
  retracted(retractedId: string, retractionId: string): Promise<void>;
}

/**
 * The rule engine and the exits, run by the one process holding the `rules` lease: the engine decides
 * each completed signal heard on the bus, a safety net every second catches what the bus lost, and the
 * exits are checked on every price that moves. Every process guards its own orders; only this one runs.
 */
export class EngineRunner {
  /** What runs while this process holds the lease: empty when it does not. */
  private readonly running: Disposer[] = [];
  private sweepsPut = 0;
  private heard: Signal[] = [];
  private release: () => Promise<void> = async () => undefined;

  constructor(private readonly d: RunnerDeps) {}

  /** Whether this process runs the engine now. */
  get runs(): boolean {
    return this.running.length > 0;
  }

  /** Wants the lease: the engine and the exits start here whenever this process holds it. */
  async hold(leases: FastifyInstance['leases']): Promise<void> {
    this.release = await leases.hold('rules', {
      start: () => this.start(),
      stop: () => this.stop(),
    });
  }

  /** Reads the active rules again, when this process runs the engine (only it keeps them in memory). */
  reload(): void {
    if (this.runs) void this.d.engine.reload();
  }

  /**
   * On the way out: the lease let go, the module's other hooks (`others`) dropped, and a decision in
   * flight let finish; a database already gone is not an error on the way out.
   */
  async close(others: readonly Disposer[]): Promise<void> {
    const ran = this.runs;
    await this.release();
    for (const dispose of others) dispose();
    if (ran) await this.d.engine.pump().catch(() => undefined);
  }

  private async start(): Promise<void> {
    const { engine, exits, log } = this.d;
    await engine.start();
    await exits.reload();
    log.info({ rules: engine.ruleCount, exits: exits.count }, 'rule engine started');
    this.running.push(
      this.d.bus.subscribe('signal.published', ({ signal }) => {
        if (signal.analysis.status === 'completed') this.hear(signal);
      }),
      this.d.bus.subscribe('signal.retracted', (event) =>
        this.d
          .retracted(event.retractedId, event.retractionId)
          .catch((err: unknown) =>
            log.warn({ err, signal: event.retractedId }, 'retracted positions not unwound'),
          ),
      ),
      this.d.prices.onTicks((ticks) => {
        void exits
          .check(new Set(ticks.map((t) => t.s)))
          .catch((err: unknown) => log.warn({ err }, 'exits not checked'));
      }),
      // Binance's mark prices: what the stops and targets of positions on its accounts read first.
      this.d.prices.onMarksMoved((moved) => {
        void exits.check(moved).catch((err: unknown) => log.warn({ err }, 'exits not checked'));
      }),
      // The safety net: late commits, missed wake-ups, max-hold exits and interrupted decisions. It
      // waits while a signal's decisions are under way (their statements go first), a few seconds at
      // most, so that under a steady stream of news it still runs.
      every(this.d.clock, 1000, () => {
        if (engine.deciding && ++this.sweepsPut < SWEEP_PUT_OFF) return;
        this.sweepsPut = 0;
        this.wake(true);
        // Max hold, closes to try again after their back-off, retractions left to unwind, and the
        // closes a stopped process left.
        void exits.check().catch((err: unknown) => log.warn({ err }, 'exits not checked'));
        // Proposals whose window closed: skipped as unanswered, by this process alone.
        void engine.expireAsks().catch((err: unknown) => log.warn({ err }, 'asks not expired'));
        // The risk rows in use, read again before they age out, so that no order waits for its own.
        void this.d.risk.keepFresh().catch((err: unknown) => log.warn({ err }, 'risk rows not read'));
        // And the plans in use, for the premium sources' items.
        if (this.d.plans !== null) void this.d.plans.keepFresh();
      }),
    );
  }

  /**
   * Stops running here: a decision under way finishes; its once-per-(rule, signal) key keeps the next
   * holder from repeating it.
   */
  private stop(): void {
    for (const dispose of this.running.splice(0)) dispose();
    this.d.engine.stop();
    this.d.exits.stop();
  }

  private wake(sweep = false): void {
    void this.d.engine
      .pump({ sweep })
      .then(() => this.d.exits.reload())
      .catch((err: unknown) => this.d.log.warn({ err }, 'rule engine run failed'));
  }

  /**
   * A completed signal is decided on the next turn of the event loop: what was queued in this one (the
   * signal stream's write of the same card) goes out first instead of waiting for the orders. The
   * signal the bus carries is the stored one (published after its row was written), so it is decided
   * as heard. The cursor's read of the store is the safety net's (every second): it moves past what
   * was heard and decides what the bus lost, without two more statements for every signal.
   */
  private hear(signal: Signal): void {
    this.heard.push(signal);
    if (this.heard.length > 1) return;
    setImmediate(() => {
      const due = this.heard;
      this.heard = [];
      void Promise.all(due.map((s) => this.d.engine.hear(s))).catch((err: unknown) =>
        this.d.log.warn({ err }, 'rule engine run failed'),
      );
    });
  }
}
