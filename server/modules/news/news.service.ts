import type { Analyzer } from '../analysis/analysis.service';
import type { Bus } from '../../plugins/bus';
import type { IngestOutcome, NewsSourceKind, Signal, SignalsQuery } from '../../../src/contracts/signals';
import { ARRIVAL_PRICE_MS, ArrivalPrices } from './arrival-prices';
import { storyKey, StoryWindow } from './cluster';
import { toSignal } from './news.mapper';
import { NewsRepo, type SignalRow } from './news.repo';
import type { Db } from '../../db/client';
import { sql } from 'drizzle-orm';
import type { Clock, NewsLog, RawItem } from './news.types';
import { fingerprint, normalizeItem } from './normalize';
import { pricesAt, type PriceSource } from './prices-at';
import { retractionCue } from './retraction';
import { Retractions } from './retraction.service';

/** Near-duplicates of one story within this window are credited to its first report. */
export const CLUSTER_WINDOW_MS = 30 * 60_000;

interface Story {
  id: number;
  reporters: Set<string>;
  /** A denial, correction or hacked-account notice: it clusters only with other reports of one. */
  retraction: boolean;
}

/** Most items admitted in one transaction where processes share a lock. */
const MAX_BATCH = 50;

interface Queued {
  source: NewsSourceKind;
  raw: RawItem;
  resolve: (outcome: IngestOutcome) => void;
  reject: (err: unknown) => void;
}

/** Bound of the story index by id; the window itself keeps at most 5,000 entries. */
const MAX_STORIES = 10_000;

/** Admission's check-and-insert, given the repository to run it with. */
export type Admission<T> = (repo: NewsRepo) => Promise<T>;

/**
 * Admission where several processes share the database: one transaction holding a transaction-scoped
 * advisory lock (`key`), so that the checks for a copy or a story and the insert run one at a time
 * across every process. The lock goes with the transaction, also when the process dies in between.
 */
export function lockedAdmission(db: Db, key: string) {
  return <T>(admission: Admission<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${key}::bigint)`);
      return admission(new NewsRepo(tx));
    });
}

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

const isRetraction = (content: string) => retractionCue(content) !== null;

const reporterKey = (sourceName: string, username: string | null) =>
  `${sourceName.toLowerCase()}|${(username ?? '').toLowerCase()}`;

/** How old an unfinished item may be for a price taken now to stand for its price at arrival. */
export const RESUME_PRICE_MS = ARRIVAL_PRICE_MS;

/**
 * The pipeline's rules: normalise, drop exact duplicates (the same source id ever, the same text within
 * 30 min), credit near-duplicates to the story's first report, store, publish `analyzing` at once, then
 * analyse, price the tagged assets as they were at arrival, store and publish `completed`.
 */
export class NewsService {
  private readonly window = new StoryWindow<Story>(CLUSTER_WINDOW_MS);
  /** The stories in the window by id, so that another process's report lands on the same story. */
  private readonly stories = new Map<number, Story & { at: number }>();
  /** The newest change to the signals this process has read into its window (shared admission). */
  private seenRev = 0;
  private readonly pending = new Set<Promise<void>>();
  /** Signals being analysed by this process, so that a sweep never starts a second analysis of one. */
  private readonly analysing = new Set<number>();
  private sweeping: Promise<number> | null = null;
  private sweepAgain = false;
  /** Fills the prices at arrival the market did not have when an analysis completed. */
  private readonly arrival: ArrivalPrices;
  /** Completes analyses, linking a retraction to the story it retracts. */
  private readonly retractions: Retractions;
  /**
   * Items waiting for admission. Dedupe checks and inserts run one batch at a time, so two copies
   * arriving together cannot both pass.
   */
  private readonly queue: Queued[] = [];
  private admitting = false;
  /** An admission failed and the window could not be reloaded since: it may hold what was rolled back. */
  private stale = false;
  readonly stats = { created: 0, clustered: 0, duplicates: 0, analysed: 0, analysisMs: 0 };

  constructor(private readonly deps: NewsServiceDeps) {
    this.retractions = new Retractions({
      repo: deps.repo,
      bus: deps.bus,
      log: deps.log,
      ...(deps.premiumSources === undefined ? {} : { premiumSources: deps.premiumSources }),
    });
    this.arrival = new ArrivalPrices({
      prices: deps.prices,
      clock: deps.clock,
      log: deps.log,
      fill: (id, ticker, price) => deps.repo.fillInitialPrice(id, ticker, price),
      publish: (row) => this.publish(row),
    });
  }

  /** Loads the last 30 minutes of stories so that clustering survives a restart. */
  async warmUp(): Promise<number> {
    const since = new Date(this.deps.clock.now() - CLUSTER_WINDOW_MS);
    const head = this.deps.exclusive ? await this.deps.repo.headRev() : 0;
    const rows = await this.deps.repo.receivedSince(since, 5000);
    // In place of what the window held: the database has all of it, and nothing that was rolled back.
    this.window.clear();
    this.stories.clear();
    this.seenRev = head;
    for (const row of rows) this.remember(row);
    this.stale = false;
    return rows.length;
  }

  /** Puts a stored signal in the story window, or adds the reporters it gained to the story there. */
  private remember(row: SignalRow): void {
    const reporters = [reporterKey(row.sourceName, row.username)];
    for (const r of row.alsoReportedBy) reporters.push(reporterKey(r.source_name, r.username));
    const known = this.stories.get(row.id);
    if (known !== undefined) {
      for (const r of reporters) known.reporters.add(r);
      return;
    }
    const at = row.receivedAt.getTime();
    const story = { id: row.id, reporters: new Set(reporters), at, retraction: isRetraction(row.content) };
    this.stories.set(row.id, story);
    this.window.add(at, storyKey(row.content), row.fingerprint, story);
  }

  /** Reads into the window what other processes stored or clustered since the last admission. */
  private async catchUp(repo: NewsRepo): Promise<void> {
    const from = this.deps.clock.now() - CLUSTER_WINDOW_MS;
    for (const row of await repo.changedSince(this.seenRev, 1000)) {
      this.seenRev = Math.max(this.seenRev, row.rev);
      if (row.receivedAt.getTime() >= from) this.remember(row);
    }
  }

  /** The window drops what is older than itself; so does the index by id (oldest first, bounded). */
  private forget(now: number): void {
    const from = now - CLUSTER_WINDOW_MS;
    for (const [id, story] of this.stories) {
      if (story.at >= from && this.stories.size <= MAX_STORIES) break;
      this.stories.delete(id);
    }
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

  ingest(source: NewsSourceKind, raw: RawItem): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ source, raw, resolve, reject });
      if (!this.admitting) void this.admitQueued();
    });
  }

  /**
   * Admits what waits, one item at a time, or with a shared lock as many as `MAX_BATCH` in one
   * transaction: the lock, the catch-up and the commit are then paid once for all of them.
   */
  private async admitQueued(): Promise<void> {
    this.admitting = true;
    try {
      while (this.queue.length > 0) {
        if (this.stale) await this.reload();
        const batch = this.queue.splice(0, this.deps.exclusive ? MAX_BATCH : 1);
        this.forget(this.deps.clock.now());
        await this.admitBatch(batch);
      }
    } finally {
      this.admitting = false;
    }
  }

  /**
   * What an admission shows outside (the stream, the bus, the analysis) happens once its rows are
   * committed. The window changes at once, so that the next item of a batch sees the story; after an
   * admission that fails the window is loaded again from the database, so no story is left there that
   * the database lacks.
   * A batch that fails is admitted again item by item, so that one bad item fails alone.
   */
  private async admitBatch(batch: Queued[]): Promise<void> {
    const { exclusive } = this.deps;
    const effects: (() => void)[] = [];
    const outcomes: IngestOutcome[] = [];
    const { created, clustered, duplicates } = this.stats;
    try {
      if (exclusive === undefined) {
        for (const q of batch) outcomes.push(await this.admit(this.deps.repo, q.source, q.raw, effects));
      } else {
        await exclusive(async (repo) => {
          effects.length = 0;
          outcomes.length = 0;
          await this.catchUp(repo);
          for (const q of batch) outcomes.push(await this.admit(repo, q.source, q.raw, effects));
        });
      }
    } catch (err) {
      // Nothing of a failed admission counts: what was rolled back is counted again when retried.
      Object.assign(this.stats, { created, clustered, duplicates });
      await this.reload();
      if (batch.length > 1) {
        for (const q of batch) await this.admitBatch([q]);
      } else {
        for (const q of batch) q.reject(err);
      }
      return;
    }
    for (const effect of effects) effect();
    batch.forEach((q, i) => q.resolve(outcomes[i] ?? { result: 'empty', id: null }));
  }

  /** Loads the window again after a failed admission; when the database cannot answer, tries later. */
  private async reload(): Promise<void> {
    this.stale = true;
    await this.warmUp().catch((err: unknown) =>
      this.deps.log.warn({ err }, 'story window not reloaded; kept until the database answers'),
    );
  }

  private async admit(
    repo: NewsRepo,
    source: NewsSourceKind,
    raw: RawItem,
    effects: (() => void)[],
  ): Promise<IngestOutcome> {
    const item = normalizeItem(raw);
    if (item === null) return { result: 'empty', id: null };
    const { clock } = this.deps;
    const arrived = raw.received_at === undefined ? Number.NaN : Date.parse(raw.received_at);
    const now = Number.isFinite(arrived) ? Math.min(arrived, clock.now()) : clock.now();
    const fp = fingerprint(item.content);
    if (item.external_id !== null && (await repo.hasExternal(source, item.external_id))) {
      return this.duplicate();
    }
    const exact =
      this.window.findExact(fp, now)?.id ??
      (await repo.findFingerprint(fp, new Date(now - CLUSTER_WINDOW_MS)));
    if (exact !== null) return this.duplicate();

    const key = storyKey(item.content);
    const reporter = reporterKey(item.source_name, item.username);
    // A denial of a story is never one more report of it: it is a signal of its own.
    const retraction = isRetraction(item.content);
    const story = this.window.findStory(key, now, (s) => s.retraction === retraction);
    if (story !== undefined) {
      this.window.add(now, key, fp, story);
      if (story.reporters.has(reporter)) return this.duplicate();
      story.reporters.add(reporter);
      const row = await repo.addAlsoReported(story.id, {
        source_name: item.source_name,
        username: item.username,
        url: item.url,
        received_at: new Date(now).toISOString(),
      });
      if (row !== null) effects.push(() => this.publish(row));
      this.stats.clustered += 1;
      return { result: 'clustered', id: String(story.id) };
    }

    const snapshot = this.deps.prices.snapshot();
    const row = await repo.insert({
      source,
      externalId: item.external_id,
      fingerprint: fp,
      content: item.content,
      url: item.url,
      icon: item.icon,
      sourceName: item.source_name,
      username: item.username,
      mediaUrls: item.media_urls,
      quote: item.quote,
      publishedAt: item.published_at === null ? null : new Date(item.published_at),
      receivedAt: new Date(now),
      backlog: raw.backlog === true,
      status: 'analyzing',
      assets: [],
      initialPrices: {},
      alsoReportedBy: [],
    });
    if (row === null) return this.duplicate();
    const created = { id: row.id, reporters: new Set([reporter]), at: now, retraction };
    this.stories.set(row.id, created);
    this.window.add(now, key, fp, created);
    effects.push(() => {
      this.publish(row);
      if (this.deps.analyseHere === false) {
        this.deps.bus
          .publish('news.stored', { id: row.id })
          .catch((err: unknown) => this.deps.log.warn({ err }, 'news.stored not published'));
      } else {
        this.track(this.analyse(row, snapshot));
      }
    });
    this.stats.created += 1;
    return { result: 'created', id: String(row.id) };
  }

  private duplicate(): IngestOutcome {
    this.stats.duplicates += 1;
    return { result: 'duplicate', id: null };
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
    this.stats.analysisMs += performance.now() - started;
    this.stats.analysed += 1;
    const initialPrices = priceNow ? await pricesAt(result.assets, snapshot, this.deps.prices) : {};
    const { done, retracted } = await this.retractions.complete(row, {
      asset: result.asset,
      assets: result.assets,
      eventType: result.event_type,
      impactScore: result.impact_score,
      sentiment: result.sentiment,
      reasoning: result.reasoning,
      engine: result.engine,
      engineVersion: result.engine_version ?? null,
      disagreement: result.disagreement ?? null,
      initialPrices,
      analysedAt: new Date(this.deps.clock.now()),
    });
    if (done === null) return;
    this.publish(done);
    if (retracted !== null) {
      this.publish(retracted);
      this.retractions.announce(retracted);
    }
    if (priceNow && result.assets.some((a) => initialPrices[a] === undefined)) {
      this.arrival.start();
      this.arrival.watch(done);
    }
  }

  private track(work: Promise<void>): void {
    const p = work.catch((err: unknown) => this.deps.log.warn({ err }, 'signal analysis failed'));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private publish(row: SignalRow): void {
    this.deps.bus
      .publish('signal.published', { rev: row.rev, signal: toSignal(row) })
      .catch((err: unknown) => this.deps.log.warn({ err }, 'signal.published not published'));
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

  /** History, without the items of `hidden` sources (the premium ones, for a viewer on the free plan). */
  async list(query: SignalsQuery, hidden: readonly string[] = []): Promise<Signal[]> {
    return (await this.deps.repo.list(query, hidden)).map(toSignal);
  }

  /** Completed signals changed after `rev`, oldest change first, with their `rev` (the rule engine's read). */
  async completedAfter(rev: number, limit: number): Promise<{ rev: number; signal: Signal }[]> {
    return (await this.deps.repo.completedAfter(rev, limit)).map((row) => ({
      rev: row.rev,
      signal: toSignal(row),
    }));
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
