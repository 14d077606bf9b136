import { fingerprint } from '../modules/news/normalize';
import { NewsRepo, type NewSignalRow } from '../modules/news/news.repo';
import { REPLAY_ITEMS, replayContent } from '../modules/news/sources/replay-data';
import { rehearseInRollback, type StatementRehearsal } from './statement-rehearsal';

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
        impactRaw: null,
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
