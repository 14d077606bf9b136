import type { FastifyInstance } from 'fastify';
import type { Disposer } from '../market/clock';
import { toDecision } from './rules-mapper';
import type { DecisionEvent, DecisionNews } from './rule-engine';
import type { EngineLog } from './rule-orders';
import type { DecisionChange, DecisionRow } from './rules.types';

export interface RulesBusDeps {
  bus: FastifyInstance['bus'];
  /** This process on the bus: what it said itself it does not hear again. */
  origin: string;
  /** The stored signals, for what a signal said when this process did not see it (an answer, an expiry). */
  news: Pick<FastifyInstance['news'], 'list'>;
  log: Pick<EngineLog, 'warn'>;
  /** A position a rule opened has its exits watched at once, without reading every open exit again. */
  track(decision: DecisionRow): void;
  /** Drops the user's risk row this process keeps. */
  forget(userId: string): void;
  /** Reads the active rules again, when this process runs the engine (only it keeps them in memory). */
  reload(): void;
  /** The engine's book of fired totals hears of a decision changed elsewhere. */
  apply(change: DecisionChange): void;
}

/**
 * What the rules module says on the bus, and hears there from its other processes: a user's rules or
 * risk settings changed, and every decision event (notifications and the user's open tabs follow them).
 */
export class RulesBus {
  constructor(private readonly d: RulesBusDeps) {}

  /** A user's risk settings changed here: other processes drop their copy at once. */
  riskChanged(userId: string): void {
    void this.d.bus.publish('rules.changed', { userId, origin: this.d.origin }).catch(() => undefined);
  }

  /** A user's rules changed here: the engine reads them again, here and wherever it runs. */
  rulesChanged(userId: string): void {
    this.d.reload();
    void this.d.bus.publish('rules.changed', { userId, origin: this.d.origin }).catch(() => undefined);
  }

  /** Every decision event goes on the bus, with what the news said when the engine has it. */
  decided(event: DecisionEvent, row: DecisionRow, news: DecisionNews | null): void {
    if (event === 'fired') this.d.track(row);
    void (async () => {
      const about = news ?? (await this.newsOf(row.signalId).catch(() => null));
      await this.d.bus.publish('rules.decided', {
        userId: row.userId,
        origin: this.d.origin,
        event,
        decision: toDecision(row),
        headline: about?.headline ?? null,
        reasoning: about?.reasoning ?? null,
      });
    })().catch((err: unknown) => this.d.log.warn({ err, decision: row.id }, 'rule decision not published'));
  }

  /** What the module hears of its other processes, until the disposers are called. */
  listen(): Disposer[] {
    return [
      this.d.bus.subscribe('rules.changed', (event) => {
        if (event.origin === this.d.origin) return;
        this.d.forget(event.userId);
        this.d.reload();
      }),
      // A decision another process changed (a proposal confirmed there): the book of fired totals
      // counts it as that process recorded it. This process's own changes are counted as they happen.
      this.d.bus.subscribe('rules.decided', ({ origin: from, userId, event, decision }) => {
        if (from === this.d.origin || event === 'exit' || event === 'exit_failing') return;
        this.d.apply({
          userId,
          id: Number(decision.id),
          asset: decision.asset,
          outcome: decision.outcome,
          at: Date.parse(decision.decided_at),
          amount: decision.amount_usd,
          notional: decision.notional,
        });
      }),
    ];
  }

  /** What a signal said, read from the store. */
  private async newsOf(signalId: number): Promise<DecisionNews | null> {
    const [signal] = await this.d.news.list({ limit: 1, before: String(signalId + 1) });
    if (signal === undefined || signal.id !== String(signalId)) return null;
    const reasoning = signal.analysis.status === 'completed' ? signal.analysis.nlp.reasoning : null;
    return { headline: signal.content.replace(/\s+/g, ' ').trim().slice(0, 500), reasoning };
  }
}
