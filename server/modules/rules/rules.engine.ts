import { findTicker } from '../../../src/contracts/symbols';
import type { Signal } from '../../../src/contracts/signals';
import type { OrderRequest, OrderResponse } from '../../../src/contracts/trading';
import type { Clock } from '../market/clock';
import type { PlanReader } from '../billing/plans';
import type { RiskService } from './risk.service';
import { RuleIndex, type Match } from './rule-index';
import type { DecisionRow, RuleRow, RulesRepo } from './rules.repo';

export interface EngineLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What the engine needs of the other modules, through their services. */
export interface EngineDeps {
  repo: RulesRepo;
  risk: RiskService;
  plans: PlanReader;
  signals: {
    completedAfter(rev: number, limit: number): Promise<{ rev: number; signal: Signal }[]>;
    headRev(): Promise<number>;
  };
  trading: {
    placeOrder(userId: string, request: OrderRequest, idempotencyKey: string): Promise<OrderResponse>;
    findOrder(userId: string, idempotencyKey: string): Promise<OrderResponse | null>;
    openPositions(userId: string): Promise<number>;
    /** Where the user's orders go now: the paper exchange, or a Binance key (live or demo). */
    accountMode(userId: string): Promise<'paper' | 'live' | 'demo'>;
  };
  /** The latest mark of a symbol, if one was seen. */
  priceOf(symbol: string): number | undefined;
  clock: Clock;
  log: EngineLog;
  /** The cursor's name: processes that share one share the work (and the once-per-signal key). */
  consumer?: string;
}

export const LIVE_ACCOUNT_DETAIL =
  'Rules trade on paper and on Binance demo keys only; your orders go to a LIVE key now (account use paper).';

const BATCH = 200;
/** How far back a periodic sweep re-reads, for a `rev` taken before ours that committed after it. */
const SWEEP_BACK = 50;
const SWEEP_MS = 2000;
const SEEN_CAP = 20_000;
/** A decision still pending after this long was interrupted (an order takes milliseconds). */
const INTERRUPTED_MS = 60_000;

/** The idempotency key of the order a rule places for a signal: one order per (rule, signal), ever. */
export const ruleOrderKey = (ruleId: string, signalId: string) => `rule-${ruleId}-${signalId}`;

/**
 * Turns completed signals into orders. It reads the signal store in `rev` order from a stored cursor (a
 * bus message only wakes it), matches the active rules through the index, and records every match in the
 * decision ledger before acting: the ledger's unique (rule, signal) key is what makes a rule fire at most
 * once per signal across restarts, retries and processes. Orders go through the trading service, the same
 * path as a typed command, with a key derived from rule and signal.
 */
export class RuleEngine {
  private index = new RuleIndex<RuleRow>([]);
  private cursor = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private lastSweep = 0;
  /** Signals already evaluated by this process (a signal's `rev` changes when another source reports it). */
  private readonly seen = new Set<string>();
  private readonly consumer: string;
  /** Each user's decisions run one after another (their budget and cooldown read in order); users run side by side. */
  private readonly chains = new Map<string, Promise<void>>();
  readonly stats = { evaluated: 0, matched: 0, fired: 0, skipped: 0, matchNs: 0 };

  constructor(private readonly d: EngineDeps) {
    this.consumer = d.consumer ?? 'rules';
  }

  /** Loads the rules and the cursor; a first start begins at the newest signal, never trading history. */
  async start(): Promise<void> {
    await this.reload();
    const stored = await this.d.repo.cursor(this.consumer);
    if (stored === null) {
      this.cursor = await this.d.signals.headRev();
      await this.d.repo.advanceCursor(this.consumer, this.cursor);
    } else {
      this.cursor = stored;
    }
  }

  async reload(): Promise<void> {
    this.index = new RuleIndex(await this.d.repo.allActive());
  }

  get ruleCount(): number {
    return this.index.size;
  }

  /** Reads and decides what arrived since the cursor; calls made while it runs coalesce into one more run. */
  pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.drain();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async drain(): Promise<void> {
    const now = this.d.clock.now();
    const sweep = now - this.lastSweep >= SWEEP_MS;
    let from = sweep ? Math.max(0, this.cursor - SWEEP_BACK) : this.cursor;
    if (sweep) {
      this.lastSweep = now;
      await this.recoverPending();
    }
    for (;;) {
      const batch = await this.d.signals.completedAfter(from, BATCH);
      const running: Promise<void>[] = [];
      for (const { rev, signal } of batch) {
        from = rev;
        if (!this.seen.has(signal.id)) running.push(this.evaluate(signal));
      }
      await Promise.all(running);
      if (from > this.cursor) {
        this.cursor = from;
        await this.d.repo.advanceCursor(this.consumer, from);
      }
      if (batch.length < BATCH) return;
    }
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > SEEN_CAP) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }

  /** Every rule the signal matches, decided in arrival order per user; resolves when all are decided. */
  async evaluate(signal: Signal): Promise<void> {
    if (signal.analysis.status !== 'completed') return;
    this.remember(signal.id);
    this.stats.evaluated += 1;
    const started = process.hrtime.bigint();
    const matches = this.index.match({
      assets: signal.assets,
      sentiment: signal.analysis.nlp.sentiment,
      impact: signal.analysis.impact_score,
    });
    this.stats.matchNs += Number(process.hrtime.bigint() - started);
    await Promise.all(matches.map((m) => this.inOrder(m.rule.userId, () => this.decide(m, signal))));
  }

  private inOrder(userId: string, task: () => Promise<void>): Promise<void> {
    const previous = this.chains.get(userId) ?? Promise.resolve();
    const next = previous
      .then(task)
      .catch((err: unknown) => this.d.log.warn({ err, userId }, 'rule decision failed'));
    this.chains.set(userId, next);
    void next.then(() => {
      if (this.chains.get(userId) === next) this.chains.delete(userId);
    });
    return next;
  }

  private async decide({ rule, asset }: Match<RuleRow>, signal: Signal): Promise<void> {
    if (signal.analysis.status !== 'completed') return;
    const info = findTicker(asset);
    if (info === undefined) return;
    this.stats.matched += 1;
    const amount = Number(rule.amountUsd);
    const claimed = await this.d.repo.claimDecision({
      userId: rule.userId,
      ruleId: rule.id,
      ruleName: rule.name,
      ruleVersion: rule.version,
      signalId: Number(signal.id),
      asset,
      symbol: info.symbol,
      side: rule.side,
      amountUsd: rule.amountUsd,
      outcome: 'pending',
      // The ledger names the analyzer and its version: a decision can be traced to the model that made it.
      engine:
        signal.analysis.engine_version === undefined
          ? signal.analysis.engine
          : `${signal.analysis.engine} ${signal.analysis.engine_version}`,
      sentiment: signal.analysis.nlp.sentiment,
      impact: signal.analysis.impact_score,
      price: priceText(this.d.priceOf(info.symbol) ?? signal.initial_prices[asset]),
      exitPlan: rule.exit,
      decidedAt: new Date(this.d.clock.now()),
    });
    if (claimed === null) return; // another process, or an earlier run, decided this one
    const receivedAt = Date.parse(signal.received_at);
    const limit = (await this.d.plans.limitsOf(rule.userId)).activeRules;
    if (limit !== null && this.index.rank(rule.id) >= limit) {
      return this.skip(
        claimed,
        'plan_limit',
        `The free plan runs ${limit} active rules; this one is beyond them.`,
      );
    }
    // A person confirms the first live order of a session; a rule has nobody to ask, so it does not
    // send real-money orders. Paper and Binance's demo environment are fine.
    if ((await this.d.trading.accountMode(rule.userId)) === 'live') {
      return this.skip(claimed, 'live_account', LIVE_ACCOUNT_DETAIL);
    }
    const check = await this.d.risk.checkAutomated(rule.userId, {
      asset,
      amountUsd: amount,
      receivedAt,
      openPositions: () => this.d.trading.openPositions(rule.userId),
    });
    if (check !== null) return this.skip(claimed, check.reason, check.detail);
    await this.send(claimed, rule, signal, receivedAt);
  }

  private async send(
    decision: DecisionRow,
    rule: RuleRow,
    signal: Signal,
    receivedAt: number,
  ): Promise<void> {
    const key = ruleOrderKey(rule.id, signal.id);
    try {
      const order = await this.d.trading.placeOrder(
        rule.userId,
        { symbol: decision.symbol, side: rule.side, type: 'market', amount: Number(rule.amountUsd) },
        key,
      );
      await this.fired(decision, order, this.d.clock.now() - receivedAt);
    } catch (err) {
      const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'The order failed.';
      await this.skip(decision, 'exchange', detail);
      if (!(err instanceof Error && 'detail' in err))
        this.d.log.warn({ err, rule: rule.id }, 'rule order failed');
    }
  }

  private async fired(decision: DecisionRow, order: OrderResponse, latencyMs: number | null): Promise<void> {
    this.stats.fired += 1;
    const hasExit = decision.exitPlan !== null && Object.keys(decision.exitPlan).length > 0;
    await this.d.repo.updateDecision(decision.id, {
      outcome: 'fired',
      orderId: order.id,
      price: String(order.price),
      quantity: String(order.quantity),
      notional: String(Math.round(order.quantity * order.price * 100) / 100),
      latencyMs,
      exitState: hasExit ? 'open' : null,
    });
  }

  private async skip(decision: DecisionRow, reason: string, detail: string): Promise<void> {
    this.stats.skipped += 1;
    await this.d.repo.updateDecision(decision.id, { outcome: 'skipped', reason, detail });
  }

  /**
   * Decisions a crash left `pending`: the order may or may not have been sent. Looked up by its key first;
   * found, it is recorded as fired; not found, it is never sent late (the news is old by now).
   */
  private async recoverPending(): Promise<void> {
    const pending = await this.d.repo.pendingDecisions(new Date(this.d.clock.now() - INTERRUPTED_MS));
    for (const decision of pending) {
      const key = ruleOrderKey(decision.ruleId, String(decision.signalId));
      const order = await this.d.trading.findOrder(decision.userId, key).catch(() => null);
      if (order !== null) await this.fired(decision, order, decision.latencyMs);
      else
        await this.skip(
          decision,
          'stale',
          'The server stopped before this order was sent; it was not sent late.',
        );
    }
    if (pending.length > 0)
      this.d.log.info({ pending: pending.length }, 'interrupted rule decisions resolved');
  }
}

function priceText(price: number | undefined): string | null {
  return price === undefined || !Number.isFinite(price) ? null : String(price);
}
