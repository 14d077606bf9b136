import type { Analyzer } from '../analysis/analysis.service';
import type { Bus } from '../../plugins/bus';
import { ARRIVAL_PRICE_MS, ArrivalPrices } from './arrival-prices';
import type { NewsRepo, SignalRow } from './news.repo';
import type { Clock, ImpactCalibrator, NewsLog } from './news.types';
import { pricesAt, type PriceSource } from './prices-at';
import { Retractions, type Reporter } from './retraction.service';

/** How old an unfinished item may be for a price taken now to stand for its price at arrival. */
export const RESUME_PRICE_MS = ARRIVAL_PRICE_MS;

/** The counts analysis keeps (the service's `stats` carries them). */
export interface AnalysisStats {
  analysed: number;
  analysisMs: number;
}

export interface AnalysisRunnerDeps {
  repo: NewsRepo;
  analyzer: Analyzer;
  bus: Bus;
  prices: PriceSource;
  clock: Clock;
  log: NewsLog;
  premiumSources?: ReadonlySet<string>;
  /** Counted into as analyses finish. */
  stats: AnalysisStats;
  /** A signal changed: says so to the stream. */
  publish: (row: SignalRow) => void;
}

/**
 * Analysis of stored items: analyse, price the tagged assets as they were at arrival, store and publish
 * `completed` (a retraction marks the story it retracts). Also takes up what an api node stored or a
 * stopped process left unfinished, never analysing one signal twice at once.
 */
export class AnalysisRunner {
  private readonly pending = new Set<Promise<void>>();
  /** Signals being analysed by this process, so that a sweep never starts a second analysis of one. */
  private readonly analysing = new Set<number>();
  private sweeping: Promise<number> | null = null;
  private sweepAgain = false;
  /** Fills the prices at arrival the market did not have when an analysis completed. */
  private readonly arrival: ArrivalPrices;
  /** Completes analyses, linking a retraction to the story it retracts. */
  private readonly retractions: Retractions;
  /** The impact calibration in force (null: the analyzer's scores stand). */
  calibrator: ImpactCalibrator | null = null;

  constructor(private readonly deps: AnalysisRunnerDeps) {
    this.retractions = new Retractions({
      repo: deps.repo.retractions,
      bus: deps.bus,
      log: deps.log,
      ...(deps.premiumSources === undefined ? {} : { premiumSources: deps.premiumSources }),
    });
    this.arrival = new ArrivalPrices({
      prices: deps.prices,
      clock: deps.clock,
      log: deps.log,
      fill: (id, ticker, price) => deps.repo.fillInitialPrice(id, ticker, price),
      publish: (row) => deps.publish(row),
    });
  }

  /**
   * Re-queues what a stopped process left `analyzing`. The price at arrival is taken only for an item
   * that arrived within `RESUME_PRICE_MS`: a later price would claim a move that never happened, so an
   * older one gets none. (The rule engine skips such signals by their age.)
   */
  async resumeUnfinished(limit = 1000): Promise<number> {
    const rows = await this.deps.repo.unfinished(limit);
    const none = new Map<string, number>();
    let started = 0;
    for (const row of rows) {
      if (this.analysing.has(row.id)) continue;
      const recent = this.deps.clock.now() - row.receivedAt.getTime() <= RESUME_PRICE_MS;
      this.track(this.analyse(row, recent ? this.deps.prices.snapshot() : none, recent));
      started += 1;
    }
    return started;
  }

  /**
   * Takes up every stored item still waiting for its analysis (those an api node stored, or a stopped
   * process left). Calls made while one runs coalesce into one more run. Answers how many it started.
   */
  sweep(): Promise<number> {
    if (this.sweeping) {
      this.sweepAgain = true;
      return this.sweeping;
    }
    const run = async (): Promise<number> => {
      let started = 0;
      try {
        do {
          this.sweepAgain = false;
          started += await this.resumeUnfinished();
        } while (this.sweepAgain);
      } finally {
        this.sweeping = null;
      }
      return started;
    };
    this.sweeping = run();
    return this.sweeping;
  }

  /** Starts the analysis of a stored signal, with the prices when it arrived. */
  start(row: SignalRow, snapshot: ReadonlyMap<string, number>): void {
    this.track(this.analyse(row, snapshot));
  }

  private async analyse(
    row: SignalRow,
    snapshot: ReadonlyMap<string, number>,
    priceNow = true,
  ): Promise<void> {
    this.analysing.add(row.id);
    try {
      await this.analyseNow(row, snapshot, priceNow);
    } finally {
      this.analysing.delete(row.id);
    }
  }

  private async analyseNow(
    row: SignalRow,
    snapshot: ReadonlyMap<string, number>,
    priceNow: boolean,
  ): Promise<void> {
    const started = performance.now();
    const result = await this.deps.analyzer.analyze({
      content: row.content,
      source_name: row.sourceName,
      ...(row.username === null ? {} : { username: row.username }),
      ...(row.quote === null
        ? {}
        : {
            quote: {
              content: row.quote.content,
              ...(row.quote.source_name === null ? {} : { source_name: row.quote.source_name }),
              ...(row.quote.username === null ? {} : { username: row.quote.username }),
            },
          }),
      ...(row.url === null ? {} : { url: row.url }),
      ...(row.publishedAt === null ? {} : { published_at: row.publishedAt.toISOString() }),
    });
    this.deps.stats.analysisMs += performance.now() - started;
    this.deps.stats.analysed += 1;
    const initialPrices = priceNow ? await pricesAt(result.assets, snapshot, this.deps.prices) : {};
    // The score every reader sees is the calibrated one; the analyzer's own stays beside it.
    const calibrated = this.calibrator?.(result.event_type, result.impact_score) ?? null;
    const { done, retracted, disputed } = await this.retractions.complete(row, {
      asset: result.asset,
      assets: result.assets,
      eventType: result.event_type,
      impactScore: calibrated ?? result.impact_score,
      impactRaw: calibrated === null ? null : result.impact_score,
      sentiment: result.sentiment,
      reasoning: result.reasoning,
      engine: result.engine,
      engineVersion: result.engine_version ?? null,
      disagreement: result.disagreement ?? null,
      initialPrices,
      analysedAt: new Date(this.deps.clock.now()),
    });
    if (done === null) return;
    this.deps.publish(done);
    // A retraction marks its story; one more report of a story retracted already carries the mark itself.
    if (retracted !== null) {
      if (retracted.id !== done.id) this.deps.publish(retracted);
      this.retractions.announce(retracted);
    }
    if (disputed !== null) {
      this.deps.publish(disputed);
      this.retractions.announceDispute(disputed);
    }
    if (priceNow && result.assets.some((a) => initialPrices[a] === undefined)) {
      this.arrival.start();
      this.arrival.watch(done);
    }
  }

  /**
   * A report clustered into a stored retraction: when its source may take back the stories that
   * retraction only disputes, they are retracted now (published, then `signal.retracted`, so that the
   * rules unwind what they opened on them).
   */
  reported(retraction: SignalRow, reporter: Reporter): void {
    this.track(this.confirm(retraction, reporter), 'dispute not confirmed');
  }

  private async confirm(retraction: SignalRow, reporter: Reporter): Promise<void> {
    const confirmed = await this.retractions.confirmDisputes(retraction, [reporter]);
    if (confirmed.retraction !== null) this.deps.publish(confirmed.retraction);
    for (const row of confirmed.retracted) {
      this.deps.publish(row);
      this.retractions.announce(row);
    }
  }

  private track(work: Promise<void>, failed = 'signal analysis failed'): void {
    const p = work.catch((err: unknown) => this.deps.log.warn({ err }, failed));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Resolves once every analysis under way has finished (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Shutdown: finishes the analyses under way, then stops waiting for missing prices at arrival. */
  async close(): Promise<void> {
    await this.drain();
    await this.arrival.stop();
  }

  /** How many assets of completed signals still wait for their price at arrival. */
  get missingArrivalPrices(): number {
    return this.arrival.size;
  }
}
