import { rehearseInRollback, type StatementRehearsal } from '../../db/rehearse';
import type { Analyzer } from '../analysis/analysis.service';
import { storyKey } from './cluster';
import { NewsRepo, type NewSignalRow } from './news.repo';
import { fingerprint } from './normalize';
import { retractionCue } from './retraction';
import { REPLAY_AUTHORS, REPLAY_ITEMS, replayContent } from './sources/replay-data';

/** How many of the bundled items are rehearsed (spread over the whole set, every kind of event). */
const ITEMS = 60;
/** V8 runs a regular expression's bytecode first and compiles it to machine code on a later use. */
const PASSES = 2;

/**
 * Runs what admission and analysis do to a headline's text (its fingerprint, its story key, the
 * retraction cues, the local analysis) over bundled replay items, and drops the results: nothing is
 * stored, published or sent. Done at start: V8 compiles a pattern when it first runs it and optimises
 * code once it has run, and without this the first headline after a start paid for both, ~25 ms in
 * front of its card and its orders. Returns how long it took, in ms.
 */
export function rehearseTextPaths(analyzer: Pick<Analyzer, 'rehearse'>): number {
  const started = performance.now();
  const step = Math.max(1, Math.floor(REPLAY_ITEMS.length / ITEMS));
  const inputs = REPLAY_ITEMS.filter((_, i) => i % step === 0).map((e) => ({
    content: replayContent(e),
    source_name: REPLAY_AUTHORS[e.author].source_name,
    username: REPLAY_AUTHORS[e.author].username,
  }));
  for (let pass = 0; pass < PASSES; pass++) {
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
 * The signal store's statements of a headline, rehearsed at start in a transaction that is rolled back
 * ({@link rehearseInRollback}): the duplicate checks, the insert of an item `analyzing` and its update
 * to `completed`. The scratch item takes id -1, so that the ids the cards show are not skipped.
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
      await repo.hasExternal('rehearsal', 'rehearsal');
      await repo.findFingerprint(fp, now);
      const item = { id: -1 } as unknown as NewSignalRow;
      const row = await repo.insert({
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
      });
      if (row === null) return;
      await repo.complete(row.id, {
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
