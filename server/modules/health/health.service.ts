import type { Health } from '../../../src/contracts/health';
import type { Config } from '../../config';
import type { Database } from '../../db/client';
import type { Bus } from '../../plugins/bus';

/** What each pluggable part is running as; modules report their real state as they start. */
export interface Components {
  market: Health['market'];
  news: string[];
  exchange: Health['exchange'];
  analyzer: Health['analyzer'];
  payments: string[];
  mail: Health['mail'];
}

/** The configured components before any module has reported. */
export function initialComponents(config: Config): Components {
  return {
    // The market module replaces this once it knows whether Binance answered.
    market: config.MARKET_SOURCE === 'binance' ? 'binance' : 'sim',
    news: config.NEWS_SOURCES,
    exchange: 'paper',
    analyzer: config.ANALYZER,
    payments: [
      config.STRIPE_SECRET_KEY ? 'stripe' : 'sandbox-card',
      config.BTCPAY_URL ? 'btcpay' : 'sandbox-crypto',
    ],
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
  if (c.payments.some((p) => p.startsWith('sandbox'))) out.push('sandbox payments');
  if (c.mail === 'outbox') out.push('mail to outbox');
  return out;
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

  constructor(
    private readonly deps: {
      database: Database;
      bus: Bus;
      components: Components;
      version: string;
      now?: () => number;
      probeEveryMs?: number;
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
  }

  /** Runs the database probe now. */
  async probe(): Promise<void> {
    this.probing ??= this.deps.database
      .ping()
      .then((ok) => {
        this.dbOk = ok;
        this.lastProbe = this.now();
      })
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }

  async snapshot(): Promise<Health> {
    const every = this.deps.probeEveryMs ?? 2000;
    if (this.lastProbe === 0) await this.probe();
    else if (this.now() - this.lastProbe > every) void this.probe();
    const { database, bus, components } = this.deps;
    const busOk = bus.healthy();
    return {
      status: this.dbOk && busOk ? 'ok' : 'degraded',
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
      version: this.deps.version,
      uptimeSeconds: Math.round((this.now() - this.startedAt) / 1000),
    };
  }
}
