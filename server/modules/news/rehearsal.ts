import { constants, PerformanceObserver } from 'node:perf_hooks';
import { z } from 'zod';
import type { AnalysisInput } from '../../../src/contracts/analysis';
import { IngestResponse, ingestForm } from '../../../src/contracts/signals';
import { rehearseInRollback, type StatementRehearsal } from '../../db/rehearse';
import type { Analyzer } from '../analysis/analysis.service';
import { storyKey } from './cluster';
import { NewsRepo, type NewSignalRow } from './news.repo';
import { fingerprint } from './normalize';
import { retractionCue } from './retraction';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent } from './sources/replay-data';

/** A bundled item as a source hands it in: what the analysis reads and the webhook's body carries. */
type RehearsalInput = Pick<AnalysisInput, 'content' | 'source_name' | 'username'>;

/** How many of the bundled items are rehearsed (spread over the whole set, every kind of event). */
const ITEMS = 60;
/** V8 runs a regular expression's bytecode first and compiles it to machine code on a later use. */
const PASSES = 2;

/**
 * Runs what the webhook and then admission and analysis do to a headline's text (the body's validation
 * in each of its forms and the answer's encoding, the fingerprint, the story key, the retraction cues,
 * the local analysis) over bundled replay items, and drops the results: nothing is stored, published
 * or sent. Done at start: V8 compiles a pattern when it first runs it and optimises code once it has
 * run, and without this the first headline after a start paid for both, ~25 ms in front of its card
 * and its orders; the schema library writes an object's parser as code on its first parse, ~2 ms more
 * for the webhook's body alone. Returns how long it took, in ms.
 */
export function rehearseTextPaths(
  analyzer: Pick<Analyzer, 'rehearse'>,
  { items = ITEMS, passes = PASSES }: { items?: number; passes?: number } = {},
): number {
  const started = performance.now();
  const step = Math.max(1, Math.floor(REPLAY_ITEMS.length / items));
  const inputs: RehearsalInput[] = REPLAY_ITEMS.filter((_, i) => i % step === 0).map((e) => ({
    content: replayContent(e),
    source_name: REPLAY_AUTHORS[e.author].source_name,
    username: REPLAY_AUTHORS[e.author].username,
  }));
  for (let pass = 0; pass < passes; pass++) {
    rehearseWebhook(inputs);
    for (const { content } of inputs) {
      fingerprint(content);
      storyKey(content);
      retractionCue(content);
    }
    analyzer.rehearse(inputs);
  }
  return performance.now() - started;
}

/**
 * The webhook's bodies as callers send them, built from `inputs`: one item, a bare array and `{items}`,
 * with and without the optional fields, the publication time in both its forms. Each is valid.
 */
export function webhookBodies(inputs: readonly RehearsalInput[]): unknown[] {
  const items = inputs.map((input, i) => ({
    ...input,
    url: `https://rehearsal.invalid/${i}`,
    external_id: `rehearsal-${i}`,
    ...(i % 2 === 0
      ? { published_at: new Date(0).toISOString(), icon: 'https://rehearsal.invalid/icon.png' }
      : { published_at: 1_700_000_000_000, media_urls: ['https://rehearsal.invalid/a.png'] }),
    ...(i % 3 === 0 ? { quote: { content: input.content, source_name: input.source_name } } : {}),
  }));
  return [...items, items.slice(0, 3), { items: items.slice(0, 3) }];
}

/** The webhook's bodies validated, and its answer encoded, as the route does. */
function rehearseWebhook(inputs: readonly RehearsalInput[]): void {
  for (const body of webhookBodies(inputs)) ingestForm(body).safeParse(body);
  z.safeEncode(IngestResponse, { accepted: 1, results: [{ result: 'created', id: '1' }] });
}

/** How many bundled items keep the text paths warm after a full collection. */
const WARM_ITEMS = 12;

/**
 * Keeps the text paths compiled while no news comes. V8 drops the compiled code of a regular expression
 * that has not run for a few full collections of the heap, and the next use compiles it again: measured
 * here, the first headline after a quiet spell spent ~7 ms in its analysis instead of ~0.3. After each
 * full collection that no headline's analysis preceded, the paths run once over a few bundled items
 * (~1 ms while they are compiled). `used()` answers a count that grows with every analysis.
 * Returns the disposer.
 */
export function keepTextPathsWarm(analyzer: Pick<Analyzer, 'rehearse'>, used: () => number): () => void {
  let seen = used();
  let queued: ReturnType<typeof setImmediate> | null = null;
  const observer = new PerformanceObserver((list) => {
    const full = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (!full || queued !== null) return;
    const now = used();
    if (now !== seen) {
      seen = now;
      return;
    }
    queued = setImmediate(() => {
      queued = null;
      rehearseTextPaths(analyzer, { items: WARM_ITEMS, passes: 1 });
    });
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (queued !== null) clearImmediate(queued);
  };
}

/**
 * The signal store's statements of a headline, rehearsed at start in a transaction that is rolled back
 * ({@link rehearseInRollback}): the duplicate check of a report, the insert of an item `analyzing`
 * (with its own check), the look for a retracted story it tells again, and its update to `completed`.
 * The scratch item takes id -1, so that the ids the cards show are not skipped.
 * Returns how long it took (ms).
 */
export const rehearseSignalStatements: StatementRehearsal = (db, log) =>
  rehearseInRollback(
    db,
    async (tx) => {
      const repo = new NewsRepo(tx);
      const content = replayContent(REPLAY_ITEMS[0]!);
      const fp = fingerprint(content);
      const now = new Date();
      await repo.hasCopy('rehearsal', 'rehearsal', fp, now);
      const item = { id: -1 } as unknown as NewSignalRow;
      const row = await repo.insertUnlessCopy(
        {
          ...item,
          source: 'rehearsal',
          externalId: 'rehearsal',
          fingerprint: fp,
          content,
          url: null,
          icon: null,
          sourceName: 'Rehearsal',
          username: null,
          mediaUrls: [],
          quote: null,
          publishedAt: null,
          receivedAt: now,
          backlog: false,
          status: 'analyzing',
          assets: [],
          initialPrices: {},
          alsoReportedBy: [],
        },
        now,
      );
      if (row === null) return;
      // The completion's look for a story retracted or disputed lately that the item tells again.
      await repo.retractions.markedStories({ before: row.id, since: now, assets: ['BTC'] });
      await repo.retractions.complete(row.id, {
        asset: 'BTC',
        assets: ['BTC'],
        eventType: 'other',
        impactScore: 50,
        sentiment: 'positive',
        reasoning: 'rehearsal',
        engine: 'rehearsal',
        engineVersion: null,
        disagreement: null,
        initialPrices: { BTC: 100_000 },
        analysedAt: now,
      });
    },
    log,
  );
