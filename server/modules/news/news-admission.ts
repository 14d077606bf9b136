import { sql } from 'drizzle-orm';
import type { IngestOutcome, NewsSourceKind } from '../../../src/contracts/signals';
import type { Db } from '../../db/client';
import { storyKey, StoryWindow } from './cluster';
import { NewsRepo, type SignalRow } from './news.repo';
import type { Clock, NewsLog, RawItem } from './news.types';
import { fingerprint, normalizeItem } from './normalize';
import type { PriceSource } from './prices-at';
import { retractionCue } from './retraction';
import type { Reporter } from './retraction.service';

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

/** The counts admission keeps (the service's `stats` carries them). */
export interface AdmissionStats {
  created: number;
  clustered: number;
  duplicates: number;
}

export interface NewsAdmissionDeps {
  repo: NewsRepo;
  prices: PriceSource;
  clock: Clock;
  log: NewsLog;
  /** Runs an admission under a lock every ingesting process shares (see NewsServiceDeps). */
  exclusive?: <T>(admission: Admission<T>) => Promise<T>;
  /** Counted into as items are admitted. */
  stats: AdmissionStats;
  /** A stored signal changed (a report was added to its story): says so to the stream. */
  publish: (row: SignalRow) => void;
  /** A new signal was stored and committed, with the prices when it arrived. */
  stored: (row: SignalRow, snapshot: ReadonlyMap<string, number>) => void;
  /**
   * A report was added to a retraction and committed: a source that may take back what the retraction
   * only disputes makes it a retraction of it.
   */
  reportedRetraction?: (retraction: SignalRow, reporter: Reporter) => void;
}

const isRetraction = (content: string) => retractionCue(content) !== null;

const reporterKey = (sourceName: string, username: string | null) =>
  `${sourceName.toLowerCase()}|${(username ?? '').toLowerCase()}`;

/**
 * Admission of incoming items: normalise, drop exact duplicates (the same source id ever, the same text
 * within 30 min), credit near-duplicates to the story's first report, store. Items queue and are
 * admitted one batch at a time, so two copies arriving together cannot both pass.
 */
export class NewsAdmission {
  private readonly window = new StoryWindow<Story>(CLUSTER_WINDOW_MS);
  /** The stories in the window by id, so that another process's report lands on the same story. */
  private readonly stories = new Map<number, Story & { at: number }>();
  /** The newest change to the signals this process has read into its window (shared admission). */
  private seenRev = 0;
  /**
   * Items waiting for admission. Dedupe checks and inserts run one batch at a time, so two copies
   * arriving together cannot both pass.
   */
  private readonly queue: Queued[] = [];
  private admitting = false;
  /** An admission failed and the window could not be reloaded since: it may hold what was rolled back. */
  private stale = false;

  constructor(private readonly deps: NewsAdmissionDeps) {}

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
    const { created, clustered, duplicates } = this.deps.stats;
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
      Object.assign(this.deps.stats, { created, clustered, duplicates });
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
    // The same text in the window is a copy whatever else it says; otherwise the store is asked for the
    // source's id (kept forever) and for the text beyond what the window holds: before a report is added
    // to a story, and by a new item's insert itself.
    if (this.window.findExact(fp, now) !== undefined) return this.duplicate();
    const since = new Date(now - CLUSTER_WINDOW_MS);

    const key = storyKey(item.content);
    const reporter = reporterKey(item.source_name, item.username);
    // A denial of a story is never one more report of it: it is a signal of its own.
    const retraction = isRetraction(item.content);
    const story = this.window.findStory(key, now, (s) => s.retraction === retraction);
    if (story !== undefined) {
      if (await repo.hasCopy(source, item.external_id, fp, since)) return this.duplicate();
      this.window.add(now, key, fp, story);
      if (story.reporters.has(reporter)) return this.duplicate();
      story.reporters.add(reporter);
      const row = await repo.addAlsoReported(story.id, {
        source_name: item.source_name,
        username: item.username,
        url: item.url,
        received_at: new Date(now).toISOString(),
      });
      if (row !== null) {
        effects.push(() => this.deps.publish(row));
        if (story.retraction) {
          const reporter: Reporter = {
            source,
            sourceName: item.source_name,
            username: item.username,
            receivedAt: new Date(now),
          };
          effects.push(() => this.deps.reportedRetraction?.(row, reporter));
        }
      }
      this.deps.stats.clustered += 1;
      return { result: 'clustered', id: String(story.id) };
    }

    const snapshot = this.deps.prices.snapshot();
    const row = await repo.insertUnlessCopy(
      {
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
      },
      since,
    );
    if (row === null) return this.duplicate();
    const created = { id: row.id, reporters: new Set([reporter]), at: now, retraction };
    this.stories.set(row.id, created);
    this.window.add(now, key, fp, created);
    effects.push(() => this.deps.stored(row, snapshot));
    this.deps.stats.created += 1;
    return { result: 'created', id: String(row.id) };
  }

  private duplicate(): IngestOutcome {
    this.deps.stats.duplicates += 1;
    return { result: 'duplicate', id: null };
  }
}
