import type { Analyzer } from '../analysis/analysis.service';
import type { Bus } from '../../plugins/bus';
import type { IngestOutcome, NewsSourceKind, Signal, SignalsQuery } from '../../../src/contracts/signals';
import { toSignal } from './news-mapper';
import { AnalysisRunner } from './news-analysis';
import { NewsAdmission, type Admission } from './news-admission';
import type { NewsRepo, SignalRow } from './news.repo';
import type { Clock, ImpactCalibrator, NewsLog, RawItem } from './news.types';
import type { PriceSource } from './prices-at';

export { CLUSTER_WINDOW_MS, lockedAdmission, type Admission } from './news-admission';
export { RESUME_PRICE_MS } from './news-analysis';

/** At most this many stored signals are looked through for one page of a filtered list. */
export const FILTERED_SCAN = 1_000;

export interface NewsServiceDeps {
  repo: NewsRepo;
  analyzer: Analyzer;
  bus: Bus;
  prices: PriceSource;
  clock: Clock;
  log: NewsLog;
  /**
   * Whether this process analyses what it ingests (default). An api node does not: it stores the item
   * and says so on the bus, and the worker running the news sources analyses it (`sweep`).
   */
  analyseHere?: boolean;
  /**
   * Where several processes ingest into one database: runs an admission under a lock they all share,
   * with a repository inside it (on PostgreSQL, a transaction holding an advisory lock). Each admission
   * first reads what the others stored or clustered since, so that the story window is the same for
   * all. Absent, this process is the only one that ingests and its own queue is the lock.
   */
  exclusive?: <T>(admission: Admission<T>) => Promise<T>;
  /** Sources only Premium accounts see: a retraction from one marks only their stories (its words show). */
  premiumSources?: ReadonlySet<string>;
}

/**
 * The pipeline's rules: normalise, drop exact duplicates (the same source id ever, the same text within
 * 30 min), credit near-duplicates to the story's first report, store, publish `analyzing` at once, then
 * analyse, price the tagged assets as they were at arrival, store and publish `completed`.
 */
export class NewsService {
  /** Normalises, dedupes, clusters and stores what comes in. */
  private readonly admission: NewsAdmission;
  /** Analyses what was stored. */
  private readonly analysis: AnalysisRunner;
  readonly stats = { created: 0, clustered: 0, duplicates: 0, analysed: 0, analysisMs: 0 };

  constructor(private readonly deps: NewsServiceDeps) {
    const publish = (row: SignalRow) => this.publish(row);
    this.analysis = new AnalysisRunner({
      repo: deps.repo,
      analyzer: deps.analyzer,
      bus: deps.bus,
      prices: deps.prices,
      clock: deps.clock,
      log: deps.log,
      ...(deps.premiumSources === undefined ? {} : { premiumSources: deps.premiumSources }),
      stats: this.stats,
      publish,
    });
    this.admission = new NewsAdmission({
      repo: deps.repo,
      prices: deps.prices,
      clock: deps.clock,
      log: deps.log,
      ...(deps.exclusive === undefined ? {} : { exclusive: deps.exclusive }),
      stats: this.stats,
      publish,
      stored: (row, snapshot) => this.stored(row, snapshot),
      reportedRetraction: (row, reporter) => this.analysis.reported(row, reporter),
    });
  }

  /**
   * Scores the next analyses with this impact calibration (null: the analyzer's scores stand). The
   * scorecard, which records what prices did after each signal, fits it and sets it.
   */
  setImpactCalibration(calibrator: ImpactCalibrator | null): void {
    this.analysis.calibrator = calibrator;
  }

  /** Loads the last 30 minutes of stories so that clustering survives a restart. */
  warmUp(): Promise<number> {
    return this.admission.warmUp();
  }

  /**
   * Re-queues what a stopped process left `analyzing`. The price at arrival is taken only for an item
   * that arrived within `RESUME_PRICE_MS`: a later price would claim a move that never happened, so an
   * older one gets none. (The rule engine skips such signals by their age.)
   */
  resumeUnfinished(limit = 1000): Promise<number> {
    return this.analysis.resumeUnfinished(limit);
  }

  /**
   * Takes up every stored item still waiting for its analysis (those an api node stored, or a stopped
   * process left). Calls made while one runs coalesce into one more run. Answers how many it started.
   */
  sweep(): Promise<number> {
    return this.analysis.sweep();
  }

  ingest(source: NewsSourceKind, raw: RawItem): Promise<IngestOutcome> {
    return this.admission.ingest(source, raw);
  }

  /** A new signal is committed: the stream hears of it, and it is analysed here or by the worker. */
  private stored(row: SignalRow, snapshot: ReadonlyMap<string, number>): void {
    this.publish(row);
    if (this.deps.analyseHere === false) {
      this.deps.bus
        .publish('news.stored', { id: row.id })
        .catch((err: unknown) => this.deps.log.warn({ err }, 'news.stored not published'));
    } else {
      this.analysis.start(row, snapshot);
    }
  }

  private publish(row: SignalRow): void {
    this.deps.bus
      .publish('signal.published', { rev: row.rev, signal: toSignal(row) })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'signal.published not published'));
  }

  /** Resolves once every analysis under way has finished (shutdown, tests). */
  drain(): Promise<void> {
    return this.analysis.drain();
  }

  /** Shutdown: finishes the analyses under way, then stops waiting for missing prices at arrival. */
  close(): Promise<void> {
    return this.analysis.close();
  }

  /** How many assets of completed signals still wait for their price at arrival. */
  get missingArrivalPrices(): number {
    return this.analysis.missingArrivalPrices;
  }

  /**
   * A page of history, newest first, without the items of `hidden` sources (the premium ones, for a
   * viewer on the free plan). With `keep` (an account's feed filter) pages are read on until
   * `limit` signals pass or {@link FILTERED_SCAN} were looked at: a page may then hold fewer.
   */
  async list(
    query: SignalsQuery,
    hidden: readonly string[] = [],
    keep?: (signal: Signal) => boolean,
  ): Promise<Signal[]> {
    if (keep === undefined) return (await this.deps.repo.list(query, hidden)).map(toSignal);
    const out: Signal[] = [];
    let before = query.before;
    for (let scanned = 0; scanned < FILTERED_SCAN;) {
      const rows = await this.deps.repo.list({ ...query, before }, hidden);
      for (const row of rows) {
        const signal = toSignal(row);
        if (keep(signal)) out.push(signal);
        if (out.length === query.limit) return out;
      }
      const last = rows.at(-1);
      if (rows.length < query.limit || last === undefined) break;
      scanned += rows.length;
      before = String(last.id);
    }
    return out;
  }

  /**
   * Completed signals changed after `rev`, oldest change first, with their `rev` (the rule engine's
   * read). Only those `wanted` says yes to come whole; the others come as their id, with no signal: the
   * engine has heard most of them on the bus already, and at 100 headlines/s reading every column of
   * each again took ~40 ms of every second.
   */
  async completedAfter(
    rev: number,
    limit: number,
    wanted: (id: string) => boolean = () => true,
  ): Promise<{ rev: number; id: string; signal: Signal | null }[]> {
    const refs = await this.deps.repo.completedRevsAfter(rev, limit);
    const missing = refs.filter((r) => wanted(String(r.id))).map((r) => r.id);
    const rows = new Map((await this.deps.repo.byIds(missing)).map((row) => [row.id, row]));
    return refs.map((r) => {
      const row = rows.get(r.id);
      // A row changed since the first read (another report of it) is completed all the same; its
      // newer `rev` is read again on the next pass.
      return { rev: r.rev, id: String(r.id), signal: row === undefined ? null : toSignal(row) };
    });
  }

  /** Completed signals received in `[from, to)`, oldest first, and when the stored history begins. */
  async history(from: Date, to: Date, limit: number): Promise<{ signals: Signal[]; since: Date | null }> {
    const [rows, since] = await Promise.all([
      this.deps.repo.completedBetween(from, to, limit),
      this.deps.repo.oldestReceived(),
    ]);
    return { signals: rows.map(toSignal), since };
  }

  /** What changed after `rev` (at most `limit`, the latest), for a stream resume. */
  async changedSince(rev: number, limit: number): Promise<{ rev: number; signal: Signal }[]> {
    return (await this.deps.repo.changedSince(rev, limit)).map((row) => ({
      rev: row.rev,
      signal: toSignal(row),
    }));
  }

  headRev(): Promise<number> {
    return this.deps.repo.headRev();
  }

  /** How many signals each source has brought in: in all, and since `since` (the admin panel). */
  ingestionCounts(since: Date): Promise<{ source: string; total: number; recent: number }[]> {
    return this.deps.repo.countsBySource(since);
  }
}
