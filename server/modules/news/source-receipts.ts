import type { SourceReceipt, SourceReceipts, SourceState } from '../../../src/contracts/signals';
import { formatSpan } from '../../../src/contracts/timeline';
import type { NewsRepo, SourceLagRow } from './news.repo';
import type { Clock, NewsLog } from './news.types';

const HOUR_MS = 3_600_000;
/** How far back the newest item of a source is looked for. */
const LAST_ITEM_WINDOW_MS = 7 * 24 * HOUR_MS;

export interface SourceReceiptsDeps {
  repo: Pick<NewsRepo, 'sourceLags'>;
  clock: Clock;
  log: NewsLog;
  /** The p95 lag past which a source is named degraded. */
  thresholdMs: number;
  /** The sources' states as the process running them last said. */
  states: () => readonly SourceState[];
}

/**
 * Per source, where the time goes before an item reaches the pipeline: lag from publication to arrival
 * (p50/p95 over the last hour), items per hour and the newest item's age. A source whose p95 lag passes
 * the threshold is named in health, from the figures of the last `refresh` (health never waits for SQL).
 */
export class SourceLags {
  private lagging: { name: string; p95: number }[] = [];

  constructor(private readonly d: SourceReceiptsDeps) {}

  async list(): Promise<SourceReceipts> {
    const now = this.d.clock.now();
    const rows = await this.d.repo.sourceLags(new Date(now - HOUR_MS), new Date(now - LAST_ITEM_WINDOW_MS));
    const byName = new Map<string, SourceLagRow>(rows.map((r) => [r.source, r]));
    const sources = this.d.states().map((s): SourceReceipt => {
      const r = byName.get(s.name);
      const last = r?.last ?? null;
      return {
        name: s.name,
        state: s.state,
        ...(s.detail === undefined ? {} : { detail: s.detail }),
        lag_p50_ms: r?.p50 === null || r?.p50 === undefined ? null : Math.round(r.p50),
        lag_p95_ms: r?.p95 === null || r?.p95 === undefined ? null : Math.round(r.p95),
        items_per_hour: r?.items ?? 0,
        last_item_at: last?.toISOString() ?? null,
        last_item_age_ms: last === null ? null : Math.max(0, now - last.getTime()),
        lagging: r?.p95 !== null && r?.p95 !== undefined && r.p95 > this.d.thresholdMs,
      };
    });
    this.lagging = sources.flatMap((s) =>
      s.lagging && s.lag_p95_ms !== null ? [{ name: s.name, p95: s.lag_p95_ms }] : [],
    );
    return { threshold_ms: this.d.thresholdMs, sources };
  }

  /** Reads the figures again (a timer calls this); a failure keeps the last ones. */
  async refresh(): Promise<void> {
    await this.list().catch((err: unknown) => this.d.log.warn({ err }, 'source lags not read'));
  }

  /** The names of the sources lagging at the last reading. */
  laggingNames(): ReadonlySet<string> {
    return new Set(this.lagging.map((l) => l.name));
  }

  /** Health's phrase for the sources lagging now, or null. */
  problem(): string | null {
    if (this.lagging.length === 0) return null;
    const names = this.lagging.map((l) => `${l.name} p95 ${formatSpan(l.p95)}`).join(', ');
    const s = this.lagging.length === 1 ? '' : 's';
    return `news source${s} lagging: ${names} after publication (max ${formatSpan(this.d.thresholdMs)})`;
  }
}
