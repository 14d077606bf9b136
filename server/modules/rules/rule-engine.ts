import type { AnswerChannel } from '../../../src/contracts/rules';
import { findTicker } from '../../../src/contracts/symbols';
import { isTradable } from '../../../src/contracts/tradability';
import type { Signal } from '../../../src/contracts/signals';
import type { Clock } from '../market/clock';
import { keywordTexts } from '../../../src/contracts/keywords';
import type { PlanReader } from '../billing/plans';
import { DecisionChecks } from './decision-checks';
import { changeOf, claimOf } from './decision-rows';
import { FiredBook } from './fired-book';
import type { PlanBook } from './plan-book';
import type { RiskService } from './risk.service';
import { RuleIndex } from './rule-index';
import type { RulesRepo } from './rules.repo';
import type { DecisionRow, RuleRow } from './rules.types';
import { RuleOrders, type EngineLog, type RuleTrading } from './rule-orders';
import { RuleAsks, type AnswerOutcome } from './rule-asks';
import { UserTurns } from './user-turns';
import { EmbeddedUserLocks, type UserLocks } from '../../db/user-locks';

export { ruleOrderKey, type EngineLog } from './rule-orders';

/** What the engine needs of the other modules, through their services. */
export interface EngineDeps {
  repo: RulesRepo;
  risk: RiskService;
  plans: PlanReader;
  signals: {
    /** The full signal only for the ids `wanted` says yes to; the others come with `signal: null`. */
    completedAfter(
      rev: number,
      limit: number,
      wanted?: (id: string) => boolean,
    ): Promise<{ rev: number; id: string; signal: Signal | null }[]>;
    headRev(): Promise<number>;
  };
  trading: RuleTrading;
  /** The latest mark of a symbol, if one was seen. */
  priceOf(symbol: string): number | undefined;
  clock: Clock;
  log: EngineLog;
  /** The cursor's name: processes that share one share the work (and the once-per-signal key). */
  consumer?: string;
  /** How long after an unknown outcome its order is looked up again (default 6 s, past Binance's recvWindow). */
  unknownRecheckMs?: number;
  /**
   * Told of every decision event, with the row as recorded and, when the engine has it, what the news
   * said: the bus's `rules.decided` (notifications, the browser's proposals) is fed from here.
   */
  decided?: (event: DecisionEvent, decision: DecisionRow, news: DecisionNews | null) => void;
  /**
   * Closes what a decision opened on a story retracted while its order was on its way (reduce-only, its
   * own quantity), the way the retraction closed the positions open when it came.
   */
  unwind?: (decision: DecisionRow) => Promise<void>;
  /**
   * Each user's lock around a decision's checks and order, shared with every process on the database
   * (default: this engine's alone, for an engine that is the only one on its database).
   */
  locks?: UserLocks;
  /** News sources whose items only Premium accounts receive, and the plans of the rules' owners. */
  premium?: { sources: ReadonlySet<string>; plans: PlanBook };
}

/** `exit`: a rule's exit closed its position; `exit_failing`: its close keeps failing (it goes on trying). */
export type DecisionEvent = 'fired' | 'skipped' | 'asking' | 'answered' | 'exit' | 'exit_failing';

/** What the news said, for the one who is told of a decision (and asked to confirm it). */
export interface DecisionNews {
  headline: string;
  reasoning: string | null;
}

const BATCH = 200;
/** How far back a periodic sweep re-reads, for a `rev` taken before ours that committed after it. */
const SWEEP_BACK = 50;
const SWEEP_MS = 2000;
const SEEN_CAP = 20_000;
/** Headlines kept for the decisions still to be told of (a proposal answered later names its news). */
const NEWS_CAP = 2_000;

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
  private sweepDue = true;
  /** Signals already evaluated by this process (a signal's `rev` changes when another source reports it). */
  private readonly seen = new Set<string>();
  private readonly consumer: string;
  /** Each user's decisions run one after another, holding their lock; users run side by side. */
  private readonly turns: UserTurns;
  readonly stats = { evaluated: 0, matched: 0, fired: 0, skipped: 0, matchNs: 0 };
  /** Sends each decided order and settles it in the ledger. */
  private readonly orders: RuleOrders;
  private readonly asks: RuleAsks;
  /** What each claimed decision goes through in its user's turn, to its proposal or its order. */
  private readonly checks: DecisionChecks;
  /** What the recent signals said, by signal id: told with their decisions. */
  private readonly news = new Map<number, DecisionNews>();
  /** The fired totals of the users whose rules matched, kept current by every decision's change. */
  readonly book: FiredBook;
  /** The book's read of the active rules' users, started by the last reload. */
  private holding: Promise<void> = Promise.resolve();

  constructor(private readonly d: EngineDeps) {
    this.consumer = d.consumer ?? 'rules';
    this.turns = new UserTurns(d.locks ?? new EmbeddedUserLocks({}));
    this.orders = new RuleOrders({
      repo: d.repo,
      trading: d.trading,
      clock: d.clock,
      log: d.log,
      ...(d.unknownRecheckMs === undefined ? {} : { unknownRecheckMs: d.unknownRecheckMs }),
      stats: this.stats,
      decided: (event, decision) => this.tell(event, decision),
      // Counted as pending when its turn came: not counted once it is known not to go.
      unsent: (decision) => {
        if (this.book.follows(decision.userId))
          this.book.apply({ ...changeOf(decision), outcome: 'skipped' });
      },
      ...(d.unwind === undefined ? {} : { retracted: d.unwind }),
    });
    this.book = new FiredBook(
      (userIds, from, midnight, recent) => d.repo.countedDecisions(userIds, from, midnight, recent),
      () => d.clock.now(),
    );
    this.asks = new RuleAsks({
      repo: d.repo,
      risk: d.risk,
      trading: d.trading,
      orders: this.orders,
      clock: d.clock,
      stats: this.stats,
      ...(d.premium === undefined ? {} : { premium: d.premium }),
      tell: (event, decision) => this.tell(event, decision),
      inTurn: (userId, task) => this.turns.run(userId, () => task()),
      unchecked: (userId) => this.turns.unchecked(userId),
    });
    this.checks = new DecisionChecks({
      repo: d.repo,
      risk: d.risk,
      plans: d.plans,
      trading: d.trading,
      clock: d.clock,
      orders: this.orders,
      book: this.book,
      rank: (ruleId) => this.index.rank(ruleId),
      unchecked: (userId) => this.turns.unchecked(userId),
      tell: (event, decision) => this.tell(event, decision),
    });
  }

  /** Tells `decided` of a decision event, with its news when this process saw the signal. */
  tell(event: DecisionEvent, decision: DecisionRow): void {
    const exit = event === 'exit' || event === 'exit_failing';
    if (!exit && this.book.follows(decision.userId)) this.book.apply(changeOf(decision));
    try {
      this.d.decided?.(event, decision, this.news.get(decision.signalId) ?? null);
    } catch (err) {
      this.d.log.warn({ err, decision: decision.id }, 'rule decision not told');
    }
  }

  /** An exit closed what a decision opened: told like the decisions. */
  exited(decision: DecisionRow): void {
    this.tell('exit', decision);
  }

  /**
   * Loads the rules and the cursor; a first start begins at the newest signal, never trading history.
   * Proposals whose window closed while no process ran the engine are skipped as unanswered first.
   */
  async start(): Promise<void> {
    await this.reload();
    await this.holding;
    await this.expireAsks();
    const stored = await this.d.repo.cursor(this.consumer);
    if (stored === null) {
      this.cursor = await this.d.signals.headRev();
      await this.d.repo.advanceCursor(this.consumer, this.cursor);
    } else {
      this.cursor = stored;
    }
  }

  /**
   * Reads the active rules again, and starts reading the fired totals and risk rows of their users that
   * are not held yet (`holding`): at start, and when a rule is saved, rather than in front of the orders
   * of the first headline that matches it.
   */
  async reload(): Promise<void> {
    const active = await this.d.repo.allActive();
    this.index = new RuleIndex(active);
    const users = active.map((r) => r.userId);
    this.holding = Promise.all([
      this.book.hold(users).catch((err: unknown) => this.d.log.warn({ err }, 'fired totals not read')),
      // Their risk rows too (an order reads them again itself once they are a few seconds old).
      this.d.risk.keepFresh(users).catch((err: unknown) => this.d.log.warn({ err }, 'risk rows not read')),
      this.d.premium?.plans.keepFresh(users),
    ]).then(() => undefined);
  }

  /** Whether decisions are under way (a signal's, or a confirmed proposal's). */
  get deciding(): boolean {
    return this.turns.busy;
  }

  get ruleCount(): number {
    return this.index.size;
  }

  /**
   * Reads and decides what arrived since the cursor; calls made while it runs coalesce into one more run.
   * `sweep` (the periodic safety net, never a new signal) also re-reads a little behind the cursor and
   * settles interrupted decisions when their time has come, so that a signal never waits for those.
   */
  pump(opts: { sweep?: boolean } = {}): Promise<void> {
    if (opts.sweep === true) this.sweepDue = true;
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
    const sweep = this.sweepDue && now - this.lastSweep >= SWEEP_MS;
    this.sweepDue = false;
    let from = sweep ? Math.max(0, this.cursor - SWEEP_BACK) : this.cursor;
    if (sweep) {
      this.lastSweep = now;
      await this.orders.recoverPending();
    }
    for (;;) {
      const batch = await this.d.signals.completedAfter(from, BATCH, (id) => !this.seen.has(id));
      const running: Promise<void>[] = [];
      for (const { rev, id, signal } of batch) {
        from = rev;
        if (signal !== null && !this.seen.has(id)) running.push(this.evaluate(signal));
      }
      await Promise.all(running);
      if (from > this.cursor) {
        this.cursor = from;
        await this.d.repo.advanceCursor(this.consumer, from);
      }
      if (batch.length < BATCH) return;
    }
  }

  /**
   * Decides a completed signal heard on the bus at once, without waiting for the store's read: the bus
   * carries the stored row, and the ledger's (rule, signal) key keeps it to one decision per rule
   * whichever way the signal reaches the engine.
   */
  async hear(signal: Signal): Promise<void> {
    if (this.seen.has(signal.id)) return;
    await this.evaluate(signal);
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > SEEN_CAP) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }

  /**
   * Every rule the signal matches, decided in arrival order per user; resolves when all are decided. The
   * decisions of one signal are claimed in one insert; each user's chain then decides its own in turn.
   */
  async evaluate(signal: Signal): Promise<void> {
    if (signal.analysis.status !== 'completed') return;
    this.remember(signal.id);
    // A retracted or disputed story is never traded, however late this process hears of it (the claim
    // checks the store as well, for a copy read before the mark).
    if (signal.retraction != null || signal.dispute != null) return;
    this.stats.evaluated += 1;
    const started = process.hrtime.bigint();
    const matches = this.index.match({
      assets: signal.assets,
      sentiment: signal.analysis.nlp.sentiment,
      impact: signal.analysis.impact_score,
      texts: keywordTexts(signal),
    });
    this.stats.matchNs += Number(process.hrtime.bigint() - started);
    // A tag with no contract here (a stablecoin, FTT) is never traded: its matches are decided, skipped.
    let tradable = matches.filter((m) => findTicker(m.asset) !== undefined || !isTradable(m.asset));
    // A premium source's item reaches only the rules of accounts whose plan receives it: a rule sees
    // what its owner sees. Nothing is recorded for the others (their ledger would show the item).
    const premium = this.d.premium;
    if (tradable.length > 0 && premium !== undefined && premium.sources.has(signal.source)) {
      const receive = await premium.plans.premium(tradable.map((m) => m.rule.userId));
      tradable = tradable.filter((m) => receive.has(m.rule.userId));
    }
    if (tradable.length === 0) return;
    this.stats.matched += tradable.length;
    this.news.set(Number(signal.id), {
      headline: signal.content.replace(/\s+/g, ' ').trim().slice(0, 500),
      reasoning: signal.analysis.nlp.reasoning,
    });
    if (this.news.size > NEWS_CAP) {
      const oldest = this.news.keys().next().value;
      if (oldest !== undefined) this.news.delete(oldest);
    }
    // Started now, awaited inside each user's chain: the chains keep the order signals arrived in. The
    // book reads the fired totals of users it does not hold yet (their first signal since start, or
    // since their last read expired) beside the claim; the others' are in memory.
    const held = this.book.hold(tradable.map((m) => m.rule.userId)).catch((err: unknown) => {
      // Without the book, the risk envelope reads each user's totals from the ledger in their turn.
      this.d.log.warn({ err }, 'fired totals not read; the ledger answers each check');
    });
    const { analysis } = signal;
    const claims = this.d.repo.claimDecisions(
      tradable.map((m) =>
        claimOf(m, signal, analysis, this.d.clock.now(), (symbol) => this.d.priceOf(symbol)),
      ),
    );
    // Until its turn comes, a claimed decision is pending in the ledger without being decided: the
    // user's earlier decisions must not count it against their budget or cooldown.
    claims.then(
      (claimed) => {
        for (const row of claimed.values()) this.turns.ahead(row);
      },
      () => undefined,
    );
    await Promise.all(
      tradable.map((m) =>
        this.inOrder(m.rule.userId, async (alone) => {
          const [rows] = await Promise.all([claims, held]);
          const claimed = rows.get(m.rule.id);
          // Absent: another process, or an earlier run, decided this one.
          if (claimed === undefined) return;
          this.turns.checked(claimed);
          await this.checks.decide(m, signal, claimed, alone);
        }),
      ),
    );
  }

  private inOrder(userId: string, task: (alone: boolean) => Promise<void>): Promise<void> {
    return this.turns
      .run(userId, task)
      .catch((err: unknown) => this.d.log.warn({ err, userId }, 'rule decision failed'));
  }

  /** The answer to a proposal (see `RuleAsks`): the first one wins, a confirmation places the order. */
  answer(
    userId: string,
    id: number,
    answer: 'confirm' | 'reject',
    via: AnswerChannel,
  ): Promise<AnswerOutcome> {
    return this.asks.answer(userId, id, answer, via);
  }

  /** Skips, as unanswered, the proposals whose window has closed; answers how many. */
  expireAsks(): Promise<number> {
    return this.asks.expire();
  }

  /** Stops the look-ups scheduled for unknown outcomes (shutdown); the sweep settles them later. */
  stop(): void {
    this.orders.stop();
  }
}
