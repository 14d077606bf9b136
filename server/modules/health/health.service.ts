import type { Health } from '../../../src/contracts/health';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import type { Bus } from '../../plugins/bus';
import { paymentNames, paymentSetup } from '../billing/providers';

/** What each pluggable part is running as; modules report their real state as they start. */
export interface Components {
  market: Health['market'];
  news: string[];
  exchange: Health['exchange'];
  analyzer: Health['analyzer'];
  payments: string[];
  /** The sandbox checkout runs in production because PAYMENT_SANDBOX=true asked for it. */
  sandboxOptIn?: boolean;
  mail: Health['mail'];
  /** Whether rules' take profit and stop loss on live and demo accounts act now (the rules module says). */
  livePriceTriggers?: boolean;
}

/** The configured components before any module has reported. */
export function initialComponents(config: Config): Components {
  return {
    // The market module replaces this once it knows whether Binance answered.
    market: config.MARKET_SOURCE === 'binance' ? 'binance' : 'sim',
    news: config.NEWS_SOURCES,
    exchange: 'paper',
    analyzer: config.ANALYZER,
    payments: paymentNames(paymentSetup(config)),
    sandboxOptIn: paymentSetup(config).sandboxOptIn,
    mail: config.SMTP_URL ? 'smtp' : 'outbox',
  };
}

/** Names of the offline stand-ins in use, as the browser shows them. */
export function standinsOf(driver: Database['driver'], bus: Bus['kind'], c: Components): string[] {
  const out: string[] = [];
  if (driver === 'pglite') out.push('embedded database (PGlite)');
  if (bus === 'memory') out.push('in-process event bus');
  if (c.market === 'sim') out.push('simulated prices');
  if (c.news.includes('replay')) out.push('replayed news');
  if (c.analyzer === 'local') out.push('local analyzer');
  if (c.exchange === 'paper') out.push('paper exchange');
  if (c.payments.some((p) => p.startsWith('sandbox'))) {
    out.push(
      c.sandboxOptIn === true ? 'sandbox payments (TEST MODE, PAYMENT_SANDBOX=true)' : 'sandbox payments',
    );
  }
  if (c.mail === 'outbox') out.push('mail to outbox');
  return out;
}

/**
 * What a module says about its own state right now: a short phrase naming what is degraded ("market feed
 * stalled"), or null when it works. Asked at every health check, so that it is never out of date.
 */
export type ProblemProbe = () => string | null;

/** The health check as sent: its status code and its serialised body. */
export interface HealthAnswer {
  status: 200 | 503;
  body: string;
}

/**
 * Answers the health check from a snapshot that a background probe refreshes, so that a burst of health
 * checks never turns into a burst of database queries.
 */
export class HealthService {
  private dbOk = true;
  private lastProbe = 0;
  private probing: Promise<void> | null = null;
  private readonly startedAt: number;
  private readonly probes = new Map<string, ProblemProbe>();
  /** Bumped whenever a component is reported, so that a cached answer is never older than the state. */
  private generation = 0;
  private cached: { key: string; answer: HealthAnswer } | null = null;

  constructor(
    private readonly deps: {
      database: Database;
      bus: Bus;
      components: Components;
      version: string;
      role?: Health['role'];
      /** The singleton jobs this process holds now. */
      leases?: () => string[];
      now?: () => number;
      probeEveryMs?: number;
      /** A ping that takes longer counts as the database being down. */
      pingTimeoutMs?: number;
    },
  ) {
    this.startedAt = this.now();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Modules call this when their real state is known or changes. */
  report<K extends keyof Components>(name: K, value: Components[K]): void {
    this.deps.components[name] = value;
    this.generation++;
  }

  /**
   * Registers what a module (`name`: market, analyzer, exchange…) says is wrong with it; a later call
   * with the same name replaces it. Answers the remover.
   */
  watch(name: string, probe: ProblemProbe): () => void {
    this.probes.set(name, probe);
    return () => {
      if (this.probes.get(name) === probe) this.probes.delete(name);
    };
  }

  /** What is degraded now, in a fixed order: the database, the bus, then each module as registered. */
  degraded(busOk: boolean): string[] {
    const out: string[] = [];
    if (!this.dbOk) out.push('database unreachable');
    if (!busOk) out.push('event bus unreachable');
    for (const probe of this.probes.values()) {
      const problem = probe();
      if (problem !== null) out.push(problem);
    }
    return out;
  }

  /** Runs the database probe now. */
  async probe(): Promise<void> {
    // A PostgreSQL that holds a connection open without answering must read as down, not hold the
    // probe. (The embedded database has no connection to lose: a slow ping there is only a busy server.)
    const timeoutMs = this.deps.pingTimeoutMs ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      if (this.deps.database.driver === 'postgres') timer = setTimeout(() => resolve(false), timeoutMs);
    });
    this.probing ??= Promise.race([this.deps.database.ping(), late])
      .then((ok) => {
        clearTimeout(timer);
        this.dbOk = ok;
        this.lastProbe = this.now();
      })
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }

  async snapshot(): Promise<Health> {
    if (this.lastProbe === 0) await this.probe();
    else this.probeIfDue();
    const busOk = this.deps.bus.healthy();
    return this.build(busOk, this.degraded(busOk), this.uptimeSeconds(), this.deps.leases?.() ?? []);
  }

  /**
   * The health check's answer as it goes on the wire: the status code and the JSON body. The state is
   * read afresh at every call; the body is serialised again only when something in it changed, which
   * is about once a second (the uptime). Null until the first database probe has answered.
   */
  answer(): HealthAnswer | null {
    if (this.lastProbe === 0) return null;
    this.probeIfDue();
    const busOk = this.deps.bus.healthy();
    const degraded = this.degraded(busOk);
    const uptime = this.uptimeSeconds();
    const leases = this.deps.leases?.() ?? [];
    const key = `${this.generation}|${this.dbOk}|${busOk}|${uptime}|${leases.join(',')}|${degraded.join('|')}`;
    if (this.cached?.key !== key) {
      const health = this.build(busOk, degraded, uptime, leases);
      this.cached = { key, answer: HealthService.toAnswer(health) };
    }
    return this.cached.answer;
  }

  /**
   * 503 only when this server cannot serve (its database or its bus is gone), so that a load balancer
   * takes it out; a stalled market feed or a rate-limited exchange is named in `degraded` with a 200,
   * since every node would share it and taking them all out helps nobody.
   */
  static toAnswer(health: Health): HealthAnswer {
    return { status: health.dbOk && health.busOk ? 200 : 503, body: JSON.stringify(health) };
  }

  private probeIfDue(): void {
    if (this.now() - this.lastProbe > (this.deps.probeEveryMs ?? 2000)) void this.probe();
  }

  private uptimeSeconds(): number {
    return Math.round((this.now() - this.startedAt) / 1000);
  }

  private build(busOk: boolean, degraded: string[], uptimeSeconds: number, leases: string[]): Health {
    const { database, bus, components } = this.deps;
    return {
      status: degraded.length === 0 ? 'ok' : 'degraded',
      degraded,
      db: database.driver,
      dbOk: this.dbOk,
      bus: bus.kind,
      busOk,
      market: components.market,
      news: components.news,
      exchange: components.exchange,
      analyzer: components.analyzer,
      payments: components.payments,
      mail: components.mail,
      standins: standinsOf(database.driver, bus.kind, components),
      livePriceTriggers: components.livePriceTriggers ?? false,
      version: this.deps.version,
      uptimeSeconds,
      role: this.deps.role ?? 'all',
      leases,
    };
  }
}
